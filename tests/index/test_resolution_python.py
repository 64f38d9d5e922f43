"""Python call resolution on patterns of real code: what must resolve, and
what must not (a wrong caller costs more than a missing one).

Each test builds a small repository, indexes it and asserts the exact
(source, target, tier) of the edges it is about."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.exact_sets import edges_named as _edges
from tests.testing.exact_sets import graph_of as _graph
from tests.testing.fixtures import assert_as_cold, commit, index, init_repo, write


def test_a_stdlib_module_is_never_a_project_file_of_the_same_name(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": "",
        "pkg/utils/asyncio.py": "async def sleep(x):\n    return x\n",
        "pkg/crawler.py": "import asyncio\n\n\nasync def crawl():\n    await asyncio.sleep(1)\n",
    })  # fmt: skip
    assert _edges(graph, "sleep") == {("pkg/crawler.py:function:crawl", None, "external")}
    assert _edges(graph, "asyncio", "imports") == {("pkg/crawler.py:module:pkg.crawler", None, "external")}


def test_absolute_imports_are_found_from_the_import_roots(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/shop/__init__.py": "",
        "src/shop/tax.py": "def rate():\n    return 2\n",
        "src/shop/cart.py": "from shop.tax import rate\nimport shop.tax\n\n\ndef total():\n    return rate() + shop.tax.rate()\n",
        "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_total():\n    assert total()\n",
        "scripts/tool.py": "import helper\n\n\ndef main():\n    helper.run()\n",
        "scripts/helper.py": "def run():\n    pass\n",
        "docs/conf.py": "import helper\n\n\ndef setup():\n    helper.run()\n",
    })  # fmt: skip
    assert _edges(graph, "rate") == {("src/shop/cart.py:function:total", "src/shop/tax.py:function:rate", "import")}
    assert _edges(graph, "total") == {
        ("tests/test_cart.py:function:test_total", "src/shop/cart.py:function:total", "import")
    }
    # a script's own directory is a root for it, not for the rest of the project
    assert _edges(graph, "run") == {
        ("scripts/tool.py:function:main", "scripts/helper.py:function:run", "import"),
        ("docs/conf.py:function:setup", None, "external"),
    }


def test_declared_roots_of_pyproject_and_the_python_roots_setting(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "services/api/pyproject.toml": "[tool.setuptools.packages.find]\nwhere = [\"code\"]\n",
        "services/api/code/company/api/__init__.py": "def serve():\n    pass\n",
        "services/api/run.py": "from company.api import serve\n\n\ndef main():\n    serve()\n",
        ".cartog-ci.toml": "python_roots = [\"vendored\"]\n",
        "vendored/nsmod/thing.py": "def thing():\n    pass\n",
        "app.py": "from nsmod.thing import thing\n\n\ndef go():\n    thing()\n",
    })  # fmt: skip
    assert _edges(graph, "serve") == {
        ("services/api/run.py:function:main", "services/api/code/company/api/__init__.py:function:serve", "import")
    }
    assert _edges(graph, "thing") == {("app.py:function:go", "vendored/nsmod/thing.py:function:thing", "import")}


@pytest.mark.parametrize(
    ("pyproject", "found"),
    [
        ('[tool.hatch.build.targets.wheel]\npackages = ["code/company"]\n', True),
        ('[tool.poetry]\nname = "api"\npackages = [{ include = "company", from = "code" }]\n', True),
        ('[tool.setuptools]\npackage-dir = {"" = "code"}\n', True),
        ('[tool.pdm.build]\npackage-dir = "code"\n', True),
        # a table that names packages without declaring a directory
        ('[tool.setuptools.packages.find]\ninclude = ["company*"]\n', False),
    ],
    ids=["hatch", "poetry", "setuptools package-dir", "pdm", "setuptools include only"],
)
def test_declared_roots_of_each_build_backend(tmp_path: Path, pyproject: str, found: bool) -> None:
    graph = _graph(tmp_path, {
        "services/api/pyproject.toml": pyproject,
        "services/api/code/company/api/__init__.py": "def serve():\n    pass\n",
        "services/api/run.py": "from company.api import serve\n\n\ndef main():\n    serve()\n",
    })  # fmt: skip
    target = "services/api/code/company/api/__init__.py:function:serve" if found else None
    assert _edges(graph, "serve") == {("services/api/run.py:function:main", target, "import" if found else "external")}


def test_a_decorator_is_called_by_the_enclosing_scope_not_by_the_decorated_function(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "app.py": (
            "def route(path):\n    return lambda f: f\n\n\n"
            "@route('/')\ndef index():\n    return 1\n\n\n"
            "class View:\n    @route('/v')\n    def get(self):\n        return 2\n"
        ),
    })  # fmt: skip
    assert _edges(graph, "route") == {
        ("app.py:module:app", "app.py:function:route", "same_file"),
        ("app.py:class:View", "app.py:function:route", "same_file"),
    }


def test_overload_stubs_leave_every_call_to_the_implementation(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "util.py": (
            "from typing import overload\n\n\n"
            "@overload\ndef arg_to_iter(arg: None) -> list: ...\n\n\n"
            "@overload\ndef arg_to_iter(arg: str) -> list: ...\n\n\n"
            "def arg_to_iter(arg):\n    return [arg]\n\n\n"
            "class Box:\n"
            "    @overload\n    def get(self, key: int) -> int: ...\n"
            "    @overload\n    def get(self, key: str) -> str: ...\n"
            "    def get(self, key):\n        return key\n\n"
            "    def first(self):\n        return self.get(0)\n"
        ),
        "main.py": "from util import arg_to_iter, Box\n\n\ndef run():\n    arg_to_iter(1)\n    Box().get(1)\n",
    })  # fmt: skip
    # the implementation has the plain ID (parse/extract.py ``_id_order``), the stubs #2 and #3
    assert _edges(graph, "arg_to_iter") == {("main.py:function:run", "util.py:function:arg_to_iter", "import")}
    assert _edges(graph, "get") == {
        ("util.py:method:Box.first", "util.py:method:Box.get", "parent_scope"),
        ("main.py:function:run", "util.py:method:Box.get", "import"),
    }


def test_a_call_on_another_object_is_no_self_call(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "sock.py": (
            "class BufferedSocket:\n"
            "    def __init__(self, sock):\n        self.sock = sock\n\n"
            "    def recv(self, size):\n        return self.sock.recv(size)\n\n"
            "    def peek(self, size):\n        return self.recv(size)\n"
        ),
    })  # fmt: skip
    assert _edges(graph, "recv") == {
        ("sock.py:method:BufferedSocket.recv", None, None),
        ("sock.py:method:BufferedSocket.peek", "sock.py:method:BufferedSocket.recv", "parent_scope"),
    }


def test_receivers_whose_type_is_written_down(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "stats.py": "class StatsCollector:\n    def inc_value(self, key):\n        pass\n",
        "ext.py": (
            "class RemoteControl:\n"
            "    def start(self):\n        pass\n\n"
            "    @classmethod\n    def from_crawler(cls, crawler):\n        return cls()\n\n"
            "    @classmethod\n    def create(cls) -> 'RemoteControl':\n        return cls()\n"
        ),
        "crawler.py": (
            "from typing import Optional\n\n"
            "from stats import StatsCollector\n"
            "from ext import RemoteControl\n\n\n"
            "def _get_extension() -> RemoteControl:\n    return RemoteControl()\n\n\n"
            "class Crawler:\n"
            "    stats: StatsCollector\n\n"
            "    def __init__(self, other: Optional[StatsCollector] = None):\n"
            "        self.other: StatsCollector = other\n\n"
            "    def crawl(self, given: 'StatsCollector'):\n"
            "        self.stats.inc_value('a')\n"
            "        self.other.inc_value('b')\n"
            "        given.inc_value('c')\n"
            "        alias = given\n"
            "        alias.inc_value('d')\n"
            "        with StatsCollector() as managed:\n"
            "            managed.inc_value('e')\n"
            "        ext = _get_extension()\n"
            "        ext.start()\n"
            "        made = RemoteControl.create()\n"
            "        made.start()\n"
            "        rebound = StatsCollector()\n"
            "        rebound = 3\n"
            "        rebound.inc_value('f')\n"
        ),
    })  # fmt: skip
    crawl = "crawler.py:method:Crawler.crawl"
    inc = "stats.py:method:StatsCollector.inc_value"
    by_line = {e["line"]: e["resolution"] for e in graph["edges"] if e["target_name"] == "inc_value"}  # type: ignore[index,union-attr]
    assert _edges(graph, "inc_value") == {(crawl, inc, "import"), (crawl, inc, "unique")}
    # the type's name resolves through the import; `rebound` was given a
    # value the extractor does not follow, so only the name-unique guess is left
    assert by_line == {18: "import", 19: "import", 20: "import", 22: "import", 24: "import", 31: "unique"}
    assert _edges(graph, "start") == {
        (crawl, "ext.py:method:RemoteControl.start", "same_file"),  # via _get_extension() -> RemoteControl
        (crawl, "ext.py:method:RemoteControl.start", "import"),  # via RemoteControl.create() -> 'RemoteControl'
    }
    assert _edges(graph, "cls") == {
        ("ext.py:method:RemoteControl.from_crawler", "ext.py:class:RemoteControl", "parent_scope"),
        ("ext.py:method:RemoteControl.create", "ext.py:class:RemoteControl", "parent_scope"),
    }


def test_calls_of_a_class_are_callers_of_its_constructor(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "loader.py": (
            "class SpiderLoader:\n"
            "    def __init__(self, settings):\n        self.settings = settings\n\n"
            "    @classmethod\n    def from_settings(cls, settings):\n        return cls(settings)\n"
        ),
        "tests/test_loader.py": (
            "from loader import SpiderLoader\n\n\n"
            "def test_from_settings():\n    assert SpiderLoader.from_settings({})\n\n\n"
            "def test_direct():\n    assert SpiderLoader({})\n"
        ),
    })  # fmt: skip
    commit(repo)
    index(repo)
    from cartog_ci import graph
    from cartog_ci.store.sqlite import SqliteStore

    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        nodes = graph.impact(store, ["loader.py:method:SpiderLoader.__init__"], depth=3)
    assert {(n.symbol.id, n.depth, n.path) for n in nodes} == {
        ("loader.py:method:SpiderLoader.from_settings", 1,
         ("loader.py:method:SpiderLoader.__init__", "loader.py:method:SpiderLoader.from_settings")),
        ("tests/test_loader.py:function:test_direct", 1,
         ("loader.py:method:SpiderLoader.__init__", "tests/test_loader.py:function:test_direct")),
        ("tests/test_loader.py:function:test_from_settings", 2,
         ("loader.py:method:SpiderLoader.__init__", "loader.py:method:SpiderLoader.from_settings",
          "tests/test_loader.py:function:test_from_settings")),
    }  # fmt: skip


def test_super_follows_the_bases_and_an_outside_base_makes_it_external(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "headers.py": (
            "from unknown_lib import Mystery\n\n\n"
            "class CaselessDict(dict):\n    def __init__(self, seq=None):\n        super().__init__(seq or {})\n\n\n"
            "class Headers(CaselessDict):\n    def __init__(self, seq=None):\n        super().__init__(seq)\n\n\n"
            "class Plain(dict):\n    def __init__(self):\n        super().__init__()\n\n\n"
            "class Bare:\n    def __init__(self):\n        super().__init__()\n\n\n"
            "class Odd(Mystery):\n    def __init__(self):\n        super().__init__()\n"
        ),
    })  # fmt: skip
    assert _edges(graph, "__init__") == {
        ("headers.py:method:CaselessDict.__init__", None, "external"),
        ("headers.py:method:Headers.__init__", "headers.py:method:CaselessDict.__init__", "parent_scope"),
        ("headers.py:method:Plain.__init__", None, "external"),
        ("headers.py:method:Bare.__init__", None, "external"),
        ("headers.py:method:Odd.__init__", None, "external"),  # Mystery is imported from outside
    }


# --- values and attributes (issue 29): each pattern with its negatives -------

_VALUES = {
    "pkg/__init__.py": "",
    "pkg/stats.py": (
        "class StatsCollector:\n"
        "    def inc_value(self, key):\n        pass\n\n"
        "    @property\n    def total(self):\n        return 1\n"
    ),
    "pkg/mw.py": (
        "from pkg.stats import StatsCollector\n\n\n"
        "def on_done(x):\n    return x\n\n\n"
        "class Middleware:\n"
        "    def __init__(self, stats: StatsCollector, other):\n"
        "        self.stats = stats\n"
        "        self.other = other\n"
        "        self.limit = 3\n\n"
        "    def process(self, request, call_next, handler):\n"
        "        self.stats.inc_value('a')\n"  # 15: typed by the parameter
        "        self.other.inc_value('b')\n"  # 16: untyped: the name-unique guess
        "        call_next(request)\n"  # 17: a parameter: no edge
        "        request.add(errback=self._on_retry, callback=on_done)\n"  # 18: keyword values
        "        handlers = {'a': on_done, 'b': self._on_retry, 'c': handler}\n"  # 19: dict values
        "        listed = [self.limit, on_done]\n"  # 20: a data attribute is no value edge
        "        f = self._on_retry\n"  # 23
        "        f()\n"  # 22: called through the name it was assigned to
        "        if self.stats.total > self.limit:\n"  # 23: a property read
        "            pass\n"
        "        try:\n            pass\n"
        "        except KeyError as e:\n"
        "            e.inc_value()\n"  # 28: a library type's method
        "        register(self._on_retry)\n"  # 29: an argument
        "        return handlers, listed, StatsCollector, str\n\n"
        "    def _on_retry(self):\n        pass\n"
    ),
    "tests/test_mw.py": (
        "def test_x():\n"
        "    def call_next(r):\n        return r\n"
        "    call_next(1)\n"
    ),
}


def test_functions_named_as_values_are_calls_edges_marked_as_values(tmp_path: Path) -> None:
    graph = _graph(tmp_path, _VALUES)
    process = "pkg/mw.py:method:Middleware.process"
    retry = "pkg/mw.py:method:Middleware._on_retry"
    rows = {
        (e["line"], e["target_name"], e["target_id"], e["resolution"])  # type: ignore[index]
        for e in graph["edges"]  # type: ignore[union-attr]
        if e["source_id"] == process and e["kind"] == "calls"  # type: ignore[index]
    }
    assert rows == {
        (15, "inc_value", "pkg/stats.py:method:StatsCollector.inc_value", "import"),
        (16, "inc_value", "pkg/stats.py:method:StatsCollector.inc_value", "unique"),
        (18, "add", None, None),
        (18, "_on_retry", retry, "parent_scope"),  # a value: once per scope, at its first line
        (18, "on_done", "pkg/mw.py:function:on_done", "same_file"),
        (22, "_on_retry", retry, "parent_scope"),  # `f = self._on_retry; f()`
        (23, "total", "pkg/stats.py:method:StatsCollector.total", "import"),
        (28, "inc_value", None, "external"),  # `e` holds a KeyError
        (29, "register", None, None),
    }  # no edge for `handler`, `call_next` (parameters), `self.limit` (data), `StatsCollector`, `str`
    # `call_next` is a parameter there, and the test's nested helper is no
    # guess for a call elsewhere
    assert _edges(graph, "call_next") == {("tests/test_mw.py:function:test_x", "tests/test_mw.py:function:test_x.call_next", "same_file")}


def test_a_value_is_answered_only_with_a_function_its_scope_names(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "a.py": "def helper():\n    pass\n\n\nclass Job:\n    def run(self):\n        pass\n",
        "b.py": (
            "import a\n\n\n"
            "def use(job, items):\n"
            "    keep(job.run, helper, a.helper, items.sort)\n"
        ),
    })  # fmt: skip
    use = "b.py:function:use"
    # `helper`: not bound in b.py, never a guess; `job.run`, `items.sort`:
    # of a parameter of no known type, nothing tells what they are (no edge)
    assert _edges(graph, "helper") == {(use, None, "external"), (use, "a.py:function:helper", "import")}
    assert _edges(graph, "run") == set()
    assert _edges(graph, "sort") == set()


def test_a_lambda_default_is_one_parameter() -> None:
    from cartog_ci.languages.base import parameter_list

    params = parameter_list("def f(cb=lambda a, b: a, c=1, *, d=lambda x, y=2: x)")
    assert params is not None
    assert [(p.name, p.kind, p.default) for p in params] == [
        ("cb", "positional", True), ("c", "positional", True), ("d", "keyword", True)
    ]


def test_self_and_cls_calls_in_a_base_class_reach_an_override(tmp_path: Path) -> None:
    from cartog_ci import graph
    from cartog_ci.store.sqlite import SqliteStore

    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "base.py": (
            "class BaseMutation:\n"
            "    @classmethod\n    def mutate(cls, info):\n        return cls.perform_mutation(info)\n\n"
            "    @classmethod\n    def perform_mutation(cls, info):\n        raise NotImplementedError\n\n"
            "    def direct(self):\n        return BaseMutation.perform_mutation(None)\n"
        ),
        "orders.py": (
            "from base import BaseMutation\n\n\n"
            "class OrderCreate(BaseMutation):\n"
            "    @classmethod\n    def perform_mutation(cls, info):\n        return 1\n\n\n"
            "class Other:\n"
            "    def perform_mutation(self, info):\n        return 2\n\n"
            "    def go(self):\n        return self.perform_mutation(None)\n\n\n"
            "class Sibling(BaseMutation):\n"
            "    def run(self):\n        return self.perform_mutation(None)\n"
        ),
    })  # fmt: skip
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as db:
        override = "orders.py:method:OrderCreate.perform_mutation"
        reached = {(n.symbol.id, n.depth, n.via) for n in graph.impact(db, [override], depth=1)}
        # the base's own `cls.perform_mutation()`, not `BaseMutation.perform_mutation`
        # (no dispatch), not a sibling subclass's `self.` (its object is no OrderCreate)
        assert reached == {("base.py:method:BaseMutation.mutate", 1, "override")}
        # the edge stays the base method's: the override's call-site check reads none of them
        assert {e.source_id for e in db.edges_to([override], ("calls",))} == set()
        other = "orders.py:method:Other.perform_mutation"
        assert {(n.symbol.id, n.via) for n in graph.impact(db, [other], depth=1)} == {("orders.py:method:Other.go", "calls")}


def test_a_factory_gives_an_instance_of_the_class_it_is_called_on(tmp_path: Path) -> None:
    """`cls: Type[T] ... -> T`, `self: T -> T`, an unannotated `from_*`
    classmethod: an instance of the class the call names (a subclass calling
    an inherited factory gets its own); another return annotation, another
    name without one, a plain function: no such instance."""
    graph = _graph(tmp_path, {
        "q.py": (
            "from typing import Type, TypeVar\n\nT = TypeVar('T')\n\n\n"
            "class Queue:\n"
            "    @classmethod\n    def from_crawler(cls, crawler):\n        o = cls()\n        return o\n\n"
            "    @classmethod\n    def typed(cls: Type[T], crawler) -> T:\n        return cls()\n\n"
            "    @classmethod\n    def build(cls, crawler):\n        return [cls()]\n\n"
            "    @classmethod\n    def from_other(cls, crawler) -> 'Other':\n        return Other()\n\n"
            "    def clone(self: T) -> T:\n        return self\n\n"
            "    def pop(self):\n        pass\n\n\n"
            "class Fifo(Queue):\n"
            "    def pop(self):\n        pass\n\n\n"
            "class Other:\n"
            "    def pop(self):\n        pass\n\n\n"
            "def from_settings(cls, settings):\n    return cls()\n"
        ),
        "use.py": (
            "from q import Queue, Fifo, from_settings\n\n\n"
            "def use(crawler):\n"
            "    a = Queue.from_crawler(crawler)\n    a.pop()\n"  # 6
            "    b = Fifo.from_crawler(crawler)\n    b.pop()\n"  # 8
            "    c = Fifo.typed(crawler)\n    c.pop()\n"  # 10
            "    d = Queue.build(crawler)\n    d.pop()\n"  # 12
            "    e = Queue.from_other(crawler)\n    e.pop()\n"  # 14
            "    f = a.clone()\n    f.pop()\n"  # 16
            "    g = from_settings(Fifo, {})\n    g.pop()\n"  # 18
        ),
    })  # fmt: skip
    pops = {
        (e["line"], e["target_id"], e["resolution"])  # type: ignore[index]
        for e in graph["edges"]  # type: ignore[union-attr]
        if e["target_name"] == "pop" and e["file"] == "use.py"  # type: ignore[index]
    }
    assert pops == {
        (6, "q.py:method:Queue.pop", "import"),
        (8, "q.py:method:Fifo.pop", "import"),
        (10, "q.py:method:Fifo.pop", "import"),
        (12, None, None),  # `build` returns a list
        (14, "q.py:method:Other.pop", "import"),  # its annotation says so
        (16, "q.py:method:Queue.pop", "unique"),  # `a.clone`: the one `clone` of the project
        (18, None, None),  # a function, no method of a class
    }


_NAMESAKE = {
    "tabulate/__init__.py": "def tabulate(rows):\n    return rows\n\n\ndef other():\n    return tabulate([])\n",
    "test/test_member.py": "from tabulate import tabulate\n\n\ndef test_member():\n    tabulate([1])\n",
    "test/test_module.py": (
        "import tabulate\nimport tabulate as tabulate\n\n\ndef test_module():\n    tabulate.other()\n"
    ),
    "test/test_aliased.py": "from tabulate import tabulate as tab\n\n\ndef test_aliased():\n    tab([2])\n",
}


def test_from_a_module_a_member_named_like_it_is_the_member(tmp_path: Path) -> None:
    """`from tabulate import tabulate` (tabulate, python-slugify, tqdm) binds
    the package's function, not the package: an import edge names its own
    module both ways, and only the alias tells them apart (languages/python.py
    ``decode``). Aliased, `from m import m as t` still reads as `import m as
    t` (the two write the same edge), a known gap."""
    graph = _graph(tmp_path, _NAMESAKE)
    function = "tabulate/__init__.py:function:tabulate"
    assert _edges(graph, "tabulate") == {
        ("tabulate/__init__.py:function:other", function, "same_file"),
        ("test/test_member.py:function:test_member", function, "import"),
    }
    assert _edges(graph, "tabulate", "imports") == {
        ("test/test_member.py:module:test.test_member", function, "import"),
        ("test/test_module.py:module:test.test_module", "tabulate/__init__.py:module:tabulate", "import"),
        ("test/test_aliased.py:module:test.test_aliased", "tabulate/__init__.py:module:tabulate", "import"),
    }
    assert _edges(graph, "other") == {
        ("test/test_module.py:function:test_module", "tabulate/__init__.py:function:other", "import"),
    }
    assert _edges(graph, "tab") == {
        ("test/test_aliased.py:function:test_aliased", "tabulate/__init__.py:module:tabulate", "import"),
    }


def test_a_module_import_becoming_a_member_import_is_resolved_again(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, _NAMESAKE)
    commit(repo)
    index(repo)
    write(repo, {"test/test_module.py": "from tabulate import tabulate\n\n\ndef test_module():\n    tabulate([3])\n"})
    index(repo)
    assert_as_cold(repo, tmp_path)
    write(repo, {"test/test_module.py": _NAMESAKE["test/test_module.py"]})
    index(repo)
    assert_as_cold(repo, tmp_path)


def test_names_unpacked_from_one_value_are_the_blocks_own(tmp_path: Path) -> None:
    """attrs 24.2: `extra, fmt_setter = _determine_setters()` then
    `fmt_setter(...)` calls what was unpacked, not the nested `def
    fmt_setter` of another function (nor, as a value, the module's
    `attrs`): no edge, so no report calls it a removed function's caller."""
    graph = _graph(tmp_path, {
        "m.py": (
            "def attrs():\n    pass\n\n\n"
            "def setters():\n"
            "    def fmt_setter(a):\n        return a\n\n"
            "    return 1, fmt_setter\n\n\n"
            "def script():\n"
            "    extra, fmt_setter = setters()\n"  # 13
            "    for a in range(3):\n"
            "        fmt_setter(a)\n"  # 15
            "    (attrs, base) = collect()\n"
            "    keep(attrs)\n"  # 17
            "    return extra\n\n\n"
            "def other():\n"
            "    attrs()\n"  # 21: the module's function
            "    fmt = setters\n"
            "    fmt()\n"  # 23: an alias is no unpacking: a call of setters
        ),
    })  # fmt: skip
    assert _edges(graph, "fmt_setter") == set()
    assert _edges(graph, "attrs") == {("m.py:function:other", "m.py:function:attrs", "same_file")}
    assert _edges(graph, "setters") == {
        ("m.py:function:script", "m.py:function:setters", "same_file"),
        ("m.py:function:other", "m.py:function:setters", "same_file"),
    }


# celery 5.4's prefork.py, saferepr.py and iso8601.py, reduced (issue 29's
# reading of resolved call sites): names a function or a module assigns, and
# receivers holding a library call's value
_BOUND = {
    "pkg/__init__.py": "",
    "pkg/collections_.py": "class ChainMap:\n    def _key(self, key):\n        return key\n",
    "pkg/components.py": "class Pool:\n    pass\n\n\ndef helper():\n    return 1\n",
    "pkg/request.py": (
        "class Request:\n    def groups(self):\n        return []\n\n    def build(self):\n        return self\n\n"
        "    @classmethod\n    def make(cls: 'type[Request]'):\n        return cls()\n"  # a typed `cls` is no local
    ),
    "pkg/prefork.py": (
        "from billiard.pool import Pool as BlockingPool\n\n\n"
        "class TaskPool:\n"
        "    Pool = BlockingPool\n\n"
        "    def on_start(self, threads):\n"
        "        Pool = (self.BlockingPool if threads else self.Pool)\n"
        "        return Pool(processes=2)\n\n\n"  # 9: the local
        "class Other:\n"
        "    def on_stop(self):\n"
        "        return Pool(processes=1)\n"  # 14: no local here: the same-directory class
    ),
    "pkg/saferepr.py": (
        "from collections import namedtuple\n"
        "try:\n    from json import dumps\nexcept ImportError:\n    dumps = None\n\n"
        "_key = namedtuple('_key', ('value',))\n\n\n"
        "def wrap(f):\n    return f\n\n\n"
        "def helper():\n    return 2\n\n\n"
        "helper = wrap(helper)\n\n\n"
        "def chaindict(mapping):\n"
        "    for k in mapping:\n"
        "        yield _key(k)\n"  # the module's namedtuple
        "    dumps(mapping)\n"  # the import, though also assigned
        "    return helper()\n"  # the definition, though rebound
    ),
    "pkg/iso.py": (
        "import re\n"
        "from pkg.request import Request\n\n"
        "TZ = re.compile(r'(\\d+)')\n\n\n"
        "def parse(tz, req):\n"
        "    m = TZ.match(tz)\n"
        "    n = req.build()\n"
        "    r = Request().build()\n"
        "    return m.groups(), n.groups(), r.groups()\n\n\n"  # 11
        "def spans(text, req):\n"
        "    for match in TZ.finditer(text):\n"
        "        match.groups()\n"  # 16: an item of a library's value
        "    for found in re.finditer('a', text):\n"
        "        found.groups()\n"  # 18: of an external module's
        "    for item in req.build():\n"
        "        item.groups()\n"  # 20: of a project method's: the guess
    ),
}


def test_a_name_a_function_or_module_assigns_is_its_own(tmp_path: Path) -> None:
    """A name assigned in a function (or at a module's top level) is that
    scope's own: its call is no same-directory or project-wide guess
    (celery `Pool = (...)`, `_key = namedtuple(...)`); a definition or an
    import of the name in the file still answers."""
    graph = _graph(tmp_path, _BOUND)
    assert _edges(graph, "Pool") == {("pkg/prefork.py:method:Other.on_stop", "pkg/components.py:class:Pool", "same_dir")}
    assert _edges(graph, "_key") == set()
    assert _edges(graph, "cls") == {("pkg/request.py:method:Request.make", "pkg/request.py:class:Request", "parent_scope")}
    assert _edges(graph, "dumps") == {("pkg/saferepr.py:function:chaindict", None, "external")}
    assert _edges(graph, "helper") == {
        ("pkg/saferepr.py:function:chaindict", "pkg/saferepr.py:function:helper", "same_file"),
    }


def test_a_library_calls_value_is_no_evidence_for_a_project_method(tmp_path: Path) -> None:
    """`m = TZ.match(tz)`: no project definition is named `match`, so `m`
    holds a library's value and `m.groups()` is not the project's only
    `groups`; a value of a project method of no declared return
    (`req.build()`, `Request().build()`) keeps the guess."""
    graph = _graph(tmp_path, _BOUND)
    groups = "pkg/request.py:method:Request.groups"
    rows = sorted(
        ((e["line"], e["target_id"] or "", e["resolution"] or "") for e in graph["edges"] if e["target_name"] == "groups"),  # type: ignore[index,union-attr]
    )
    assert rows == [
        (11, "", ""), (11, groups, "unique"), (11, groups, "unique"),  # m, n, r
        (16, "", ""), (18, "", "external"), (20, groups, "unique"),  # loop variables
    ]  # fmt: skip


def test_assigned_names_incremental_equals_cold(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, _BOUND)
    commit(repo)
    index(repo)
    # the module's own `_key` goes: the call is a guess again; `match`, `finditer` gain project definitions
    write(repo, {
        "pkg/saferepr.py": _BOUND["pkg/saferepr.py"].replace("_key = namedtuple('_key', ('value',))", ""),
        "pkg/re_tools.py": "class Matcher:\n    def match(self, s):\n        return s\n\n    def finditer(self, s):\n        return [s]\n",
    })  # fmt: skip
    index(repo)
    assert_as_cold(repo, tmp_path)
    write(repo, _BOUND)
    (repo / "pkg/re_tools.py").unlink()
    index(repo)
    assert_as_cold(repo, tmp_path)


_SELF_IMPORT = {
    "src/pkg/__init__.py": "from pkg import (\n    tb,\n)\nfrom . import util\n",
    "src/pkg/tb.py": "def to_repr(x):\n    return repr(x)\n",
    "src/pkg/util.py": "def helper():\n    return 1\n",
    "tests/test_tb.py": (
        "from pkg import tb, util\n\n\ndef test_it():\n    assert tb.to_repr(1)\n    assert util.helper()\n"
    ),
}


def test_a_package_importing_its_own_submodules_exports_them(tmp_path: Path) -> None:
    """structlog 24.4: `from structlog import (…, tracebacks, …)` in
    structlog/__init__.py made `from structlog import tracebacks;
    tracebacks.to_repr(…)` unresolved in its tests (the binding was followed
    back to itself); `from . import util` did the same."""
    graph = _graph(tmp_path, _SELF_IMPORT)
    assert _edges(graph, "to_repr") == {
        ("tests/test_tb.py:function:test_it", "src/pkg/tb.py:function:to_repr", "import")
    }
    assert _edges(graph, "helper") == {
        ("tests/test_tb.py:function:test_it", "src/pkg/util.py:function:helper", "import")
    }


def test_a_package_starting_to_import_its_submodule_keeps_the_edges(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {**_SELF_IMPORT, "src/pkg/__init__.py": ""})
    commit(repo)
    index(repo)
    write(repo, {"src/pkg/__init__.py": _SELF_IMPORT["src/pkg/__init__.py"]})
    index(repo)
    assert_as_cold(repo, tmp_path)
    write(repo, {"src/pkg/tb.py": "def other():\n    pass\n"})
    index(repo)
    assert_as_cold(repo, tmp_path)
