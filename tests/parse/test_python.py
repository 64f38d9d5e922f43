"""Python extraction and resolution on a real fixture repository: the exact
symbol set and the exact edge set, tier by tier."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import assert_edges_exact, assert_symbols_exact, edge_targets, indexed_graph

SYMBOLS = {
    ('shop/__init__.py', 'module', 'shop', 1),
    ('shop/cli.py', 'module', 'shop.cli', 1),
    ('shop/cli.py', 'function', 'main', 6),
    ('shop/models/__init__.py', 'module', 'shop.models', 1),
    ('shop/models/base.py', 'module', 'shop.models.base', 1),
    ('shop/models/base.py', 'class', 'Model', 1),
    ('shop/models/base.py', 'method', 'Model.save', 4),
    ('shop/models/base.py', 'method', 'Model.validate', 8),
    ('shop/models/base.py', 'function', 'persist', 12),
    ('shop/models/order.py', 'module', 'shop.models.order', 1),
    ('shop/models/order.py', 'constant', 'TAX_RATE', 6),
    ('shop/models/order.py', 'class', 'LineItem', 9),
    ('shop/models/order.py', 'method', 'LineItem.__init__', 10),
    ('shop/models/order.py', 'method', 'LineItem.total', 14),
    ('shop/models/order.py', 'class', 'Order', 18),
    ('shop/models/order.py', 'method', 'Order.add', 19),
    ('shop/models/order.py', 'method', 'Order.checkout', 24),
    ('shop/models/order.py', 'method', 'Order.reference', 28),
    ('shop/util/__init__.py', 'module', 'shop.util', 1),
    ('shop/util/other.py', 'module', 'shop.util.other', 1),
    ('shop/util/other.py', 'function', 'normalize', 1),
    ('shop/util/text.py', 'module', 'shop.util.text', 1),
    ('shop/util/text.py', 'function', 'slugify', 4),
    ('shop/util/text.py', 'function', 'normalize', 8),
    ('tests/test_order.py', 'module', 'tests.test_order', 1),
    ('tests/test_order.py', 'function', 'test_checkout', 4),
}
EDGES = {
    ('shop/__init__.py:module:shop', 'shop/models/order.py:class:Order', 'Order', 'imports', 'import'),
    ('shop/__init__.py:module:shop', 'shop/util/text.py:function:slugify', 'slugify', 'imports', 'import'),
    ('shop/cli.py:module:shop.cli', 'shop/util/text.py:module:shop.util.text', 'shop.util.text', 'imports', 'import'),
    ('shop/cli.py:module:shop.cli', 'shop/models/order.py:class:Order', 'Order', 'imports', 'import'),
    ('shop/cli.py:module:shop.cli', 'shop/util/text.py:function:slugify', 'make_slug', 'imports', 'import'),
    ('shop/cli.py:module:shop.cli', 'shop/models/order.py:class:LineItem', 'LineItem', 'imports', 'import'),
    ('shop/cli.py:function:main', 'shop/models/order.py:class:Order', 'Order', 'calls', 'import'),
    ('shop/cli.py:function:main', 'shop/models/order.py:class:LineItem', 'Item', 'calls', 'import'),
    ('shop/cli.py:function:main', 'shop/models/order.py:method:Order.add', 'add', 'calls', 'import'),
    ('shop/cli.py:function:main', 'shop/util/text.py:function:slugify', 'make_slug', 'calls', 'import'),
    ('shop/cli.py:function:main', None, 'print', 'calls', 'external'),
    ('shop/cli.py:function:main', 'shop/models/order.py:method:Order.checkout', 'checkout', 'calls', 'import'),
    ('shop/cli.py:function:main', 'shop/util/text.py:function:normalize', 'normalize', 'calls', 'import'),
    ('shop/cli.py:module:shop.cli', 'shop/cli.py:function:main', 'main', 'calls', 'same_file'),
    ('shop/models/__init__.py:module:shop.models', 'shop/models/order.py:class:LineItem', 'LineItem', 'imports', 'import'),
    ('shop/models/__init__.py:module:shop.models', 'shop/models/order.py:class:Order', 'Order', 'imports', 'import'),
    ('shop/models/base.py:method:Model.save', 'shop/models/base.py:method:Model.validate', 'validate', 'calls', 'parent_scope'),
    ('shop/models/base.py:method:Model.save', 'shop/models/base.py:function:persist', 'persist', 'calls', 'same_file'),
    ('shop/models/order.py:module:shop.models.order', None, 'dataclass', 'imports', 'external'),
    ('shop/models/order.py:module:shop.models.order', 'shop/models/base.py:class:Model', 'Model', 'imports', 'import'),
    ('shop/models/order.py:module:shop.models.order', 'shop/util/text.py:module:shop.util.text', 'text', 'imports', 'import'),
    ('shop/models/order.py:method:LineItem.__init__', None, 'float', 'references', 'external'),
    ('shop/models/order.py:method:LineItem.__init__', None, 'str', 'references', 'external'),
    ('shop/models/order.py:method:LineItem.total', None, 'float', 'references', 'external'),
    ('shop/models/order.py:class:Order', 'shop/models/base.py:class:Model', 'Model', 'inherits', 'import'),
    ('shop/models/order.py:method:Order.add', 'shop/models/order.py:class:LineItem', 'LineItem', 'references', 'same_file'),
    ('shop/models/order.py:method:Order.add', None, 'ValueError', 'calls', 'external'),
    ('shop/models/order.py:method:Order.add', None, 'ValueError', 'raises', 'external'),
    ('shop/models/order.py:method:Order.add', None, 'append', 'calls', None),
    # `self.items.append(…)` reads `self.items` (a value: no method of the class, so external)
    ('shop/models/order.py:method:Order.add', None, 'items', 'calls', 'external'),
    ('shop/models/order.py:method:Order.checkout', None, 'str', 'references', 'external'),
    ('shop/models/order.py:method:Order.checkout', 'shop/models/base.py:method:Model.save', 'save', 'calls', 'parent_scope'),
    ('shop/models/order.py:method:Order.checkout', 'shop/models/order.py:method:Order.reference', 'reference', 'calls', 'parent_scope'),
    ('shop/models/order.py:method:Order.checkout', 'shop/util/text.py:function:slugify', 'slugify', 'calls', 'import'),
    ('shop/models/order.py:method:Order.reference', None, 'unknown_helper', 'calls', None),
    ('shop/util/text.py:module:shop.util.text', None, 're', 'imports', 'external'),
    ('shop/util/text.py:function:slugify', None, 'str', 'references', 'external'),
    ('shop/util/text.py:function:slugify', None, 'str', 'references', 'external'),
    ('shop/util/text.py:function:slugify', 'shop/util/text.py:function:normalize', 'normalize', 'calls', 'same_file'),
    ('shop/util/text.py:function:slugify', None, 'sub', 'calls', 'external'),
    ('shop/util/text.py:function:normalize', None, 'lower', 'calls', None),
    ('shop/util/text.py:function:normalize', None, 'strip', 'calls', None),
    ('tests/test_order.py:module:tests.test_order', 'shop/models/order.py:class:LineItem', 'LineItem', 'imports', 'import'),
    ('tests/test_order.py:module:tests.test_order', 'shop/models/order.py:class:Order', 'Order', 'imports', 'import'),
    ('tests/test_order.py:function:test_checkout', 'shop/models/order.py:class:Order', 'Order', 'calls', 'import'),
    ('tests/test_order.py:function:test_checkout', 'shop/models/order.py:class:LineItem', 'LineItem', 'calls', 'import'),
    ('tests/test_order.py:function:test_checkout', 'shop/models/order.py:method:Order.add', 'add', 'calls', 'import'),
    ('tests/test_order.py:function:test_checkout', 'shop/models/order.py:method:Order.checkout', 'checkout', 'calls', 'import'),
}


def test_python_symbols_exact(tmp_path: Path) -> None:
    assert_symbols_exact(indexed_graph(tmp_path, "pyproj"), SYMBOLS)


def test_python_edges_exact(tmp_path: Path) -> None:
    assert_edges_exact(indexed_graph(tmp_path, "pyproj"), EDGES)


def test_python_resolution_cases(tmp_path: Path) -> None:
    edges = edge_targets(indexed_graph(tmp_path, "pyproj"))
    # aliased import (`LineItem as Item`) and a re-export through __init__.py
    assert edges[("shop/cli.py:function:main", "Item", "calls")] == (
        "shop/models/order.py:class:LineItem", "import")
    assert edges[("shop/cli.py:function:main", "make_slug", "calls")] == (
        "shop/util/text.py:function:slugify", "import")
    # self.save() found on the base class, in another module
    assert edges[("shop/models/order.py:method:Order.checkout", "save", "calls")] == (
        "shop/models/base.py:method:Model.save", "parent_scope")
    # `normalize` exists in two modules: the import decides, not a guess
    assert edges[("shop/cli.py:function:main", "normalize", "calls")] == (
        "shop/util/text.py:function:normalize", "import")
    # relative import `from ..util import text as txt`
    assert edges[("shop/models/order.py:method:Order.checkout", "slugify", "calls")] == (
        "shop/util/text.py:function:slugify", "import")
    # nothing defines it: stays unresolved rather than guessed
    assert edges[("shop/models/order.py:method:Order.reference", "unknown_helper", "calls")] == (None, None)


_CONTAINERS = (
    "def f(self, g):\n"
    "    keep(run, self.stop, Spider, self.Model, self.__dict__, str, 1, run())\n"  # 2
    "    handlers = [on_a, self.on_b]\n"  # 3
    "    pair = (on_c, self.on_d)\n"  # 4
    "    chosen = {on_e, self.on_f}\n"  # 5
    "    if self.ready and on_g or self.closed:\n"  # 6
    "        return self.count == limit\n"  # 7
    "    wrap(wrap(wrap(deep_one, self.deep_two)))\n"  # 8
    "    table = {'k': on_h, 'j': [on_i]}\n"  # 9
    "    keep(self.stop)\n"  # 10: named before in this scope
)


def test_python_values_in_containers_exact() -> None:
    """Items of argument lists, lists, tuples, sets: names and `a.b`; of
    `and`/`or` and comparisons: `a.b` only (a property read). Classes,
    dunders, builtins, literals and calls are no values."""
    from cartog_ci.domain import VALUE
    from cartog_ci.languages.python import PYTHON
    from cartog_ci.parse.extract import extract

    found = extract("m.py", _CONTAINERS.encode(), PYTHON.syntax)
    values = {(e.line, e.qualifier, e.target_name) for e in found.edges if e.alias == VALUE}
    assert values == {
        (2, None, "run"), (2, "self", "stop"),
        (3, None, "on_a"), (3, "self", "on_b"),
        (4, None, "on_c"), (4, "self", "on_d"),
        (5, None, "on_e"), (5, "self", "on_f"),
        (6, "self", "ready"), (6, "self", "closed"),  # not `on_g`: a plain name of `and`/`or`
        (7, "self", "count"),  # not `limit`: a plain name of a comparison
        (8, None, "deep_one"), (8, "self", "deep_two"),
        (9, None, "on_h"), (9, None, "on_i"),
    }  # fmt: skip


def test_a_ten_thousand_deep_python_call_is_indexed_with_its_values() -> None:
    """The value patterns match a container alone (no query match held open
    per level of nesting: parse/budget.py's cap): a 10,000-deep call is
    extracted, the values at its bottom too."""
    from cartog_ci.domain import VALUE
    from cartog_ci.languages.python import PYTHON
    from cartog_ci.parse.extract import extract

    deep = 10_000
    source = "def f():\n    x = " + "g(" * deep + "on_done, [self_check]" + ")" * deep + "\n"
    found = extract("deep.py", source.encode(), PYTHON.syntax, timeout_ms=60_000)
    assert {(e.line, e.target_name) for e in found.edges if e.alias == VALUE} == {(2, "on_done"), (2, "self_check")}
    assert sum(e.target_name == "g" and e.alias is None for e in found.edges) == deep


_LOCALS = (
    "def go(fs, pairs, lock):\n"  # 1
    "    a = [run() for run in fs]\n"  # 2
    "    b = {run() for run in fs}\n"  # 3
    "    c = {k: run() for k, run in pairs}\n"  # 4
    "    d = sum(run() for (run, k) in pairs)\n"  # 5
    "    e = [stop() for x in fs for stop in x]\n"  # 6: the second clause's name too
    "    with lock as f:\n"  # 7
    "        f()\n"  # 8: the with statement's
    "    for g, h in pairs:\n"  # 9
    "        g()\n"  # 10: the loop's
    "    return run(), stop(), f(), g()\n"  # 11: outside them all
    "class K:\n"  # 12
    "    m, n = PAIR\n"  # 13
    "    m()\n"  # 14: unpacked in this block
    "i, j = PAIR\n"  # 15
    "i()\n"  # 16: at the top level, unpacking binds no local
)


def test_python_comprehension_with_and_unpacked_names_are_their_own() -> None:
    """A name a comprehension's `for` binds (list, set, dict, generator,
    every clause), a `with … as` target and a name unpacked in a block are
    local to that scope: a call of one there is no edge, one after it is
    (patterns on the inner node, the scope an ancestor: parse/extract.py
    `_local_scope`). Unpacked at the top level, a name is no local."""
    from cartog_ci.languages.python import PYTHON
    from cartog_ci.parse.extract import extract

    found = extract("m.py", _LOCALS.encode(), PYTHON.syntax)
    calls = sorted((e.line, e.target_name) for e in found.edges if e.kind == "calls" and e.alias is None)
    assert calls == [(5, "sum"), (11, "f"), (11, "g"), (11, "run"), (11, "stop"), (16, "i")]


def test_python_except_as_binds_the_class_caught_or_nothing_known() -> None:
    """`except KeyError as e` / `except mod.Err as m`: an instance of the
    class; of a tuple (`except (A, B) as t`): unknown, the name kept; of
    anything else (`except make() as c`): no binding (one pattern with an
    alternation for the three: languages/queries/python.scm)."""
    from cartog_ci.languages.python import PYTHON
    from cartog_ci.parse.extract import extract

    source = (
        "def f():\n"  # 1
        "    try:\n        pass\n"  # 2-3
        "    except KeyError as e:\n        e.run()\n"  # 4-5
        "    except (A, B) as t:\n        t.go()\n"  # 6-7
        "    except mod.Err as m:\n        m.stop()\n"  # 8-9
        "    except make() as c:\n        c.x()\n"  # 10-11
    )
    found = extract("m.py", source.encode(), PYTHON.syntax)
    assert sorted((e.line, e.qualifier, e.target_name) for e in found.edges) == [
        (5, "KeyError()", "run"), (7, "t", "go"), (9, "mod.Err()", "stop"), (10, None, "make"), (11, "c", "x"),
    ]  # fmt: skip
