"""The queries' text predicates, checked on the file's bytes (parse/predicates.py)
instead of by py-tree-sitter on ``Node.text`` of a tree parsed through a
callback (parse/budget.py): the same matches as the binding keeps."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from pathlib import Path

import pytest
import tree_sitter as ts

from cartog_ci.languages import LANGUAGES, for_path
from cartog_ci.parse import budget, predicates
from cartog_ci.parse.syntax import _patterns

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def _spans(found: list[tuple[int, dict[str, list[ts.Node]]]]) -> list[tuple[int, dict[str, list[tuple[int, int]]]]]:
    return [(i, {k: [n.byte_range for n in v] for k, v in c.items()}) for i, c in found]


def test_split_blanks_text_predicates_only() -> None:
    source = (
        '((identifier) @name (#not-match? @name "^(self|cls)$"))\n'
        '; (#eq? @name "in a comment")\n'
        '((string) @s (#any-of? @s "\\"a)" "b") (#set! kind "x"))\n'
    )
    stripped, found = predicates.split(source)
    assert len(stripped.encode()) == len(source.encode())
    assert stripped == (
        "((identifier) @name" + " " * len(' (#not-match? @name "^(self|cls)$")') + ")\n"
        '; (#eq? @name "in a comment")\n'
        "((string) @s" + " " * len(' (#any-of? @s "\\"a)" "b")') + ' (#set! kind "x"))\n'
    )
    assert [(at, kind, positive, any_, capture) for at, (kind, positive, any_, capture, _) in found] == [
        (20, "match", False, False, "name"),
        (99, "any-of", True, False, "s"),
    ]
    assert found[0][1][4].pattern == "^(self|cls)$"  # type: ignore[union-attr]
    assert found[1][1][4] == (b'"a)', b"b")


PY = b"""class A:
    def m(self, cls, other):
        self.x = other
        return other.m, self.y

def f(a, b=1, *rest):
    a == b
    print(a, b, f, "ab")
"""

CASES = [  # (pattern, whether its predicate leaves out some of its matches here)
    ('((identifier) @name (#eq? @name "self"))', True),
    ('((identifier) @name (#not-eq? @name "self"))', True),
    ('((identifier) @name (#match? @name "^(a|b)$"))', True),
    ('((identifier) @name (#not-match? @name "^[a-f]"))', True),
    ('((identifier) @name (#any-of? @name "a" "cls" "print"))', True),
    ('((identifier) @name (#not-any-of? @name "a" "b"))', False),  # the binding: differs from one of them
    ('((identifier) @name (#not-any-of? @name "a"))', True),
    ("((comparison_operator (identifier) @l (identifier) @r) (#eq? @l @r))", True),
    ("((comparison_operator (identifier) @l (identifier) @r) (#not-eq? @l @r))", False),
    ('((argument_list (identifier)+ @args) (#any-eq? @args "b"))', True),
    ('((argument_list (identifier)+ @args) (#eq? @args "b"))', True),
    ('((argument_list (identifier)+ @args) (#any-not-match? @args "^[ab]$"))', True),
    ('((argument_list (identifier)+ @args) (#any-match? @args "^f$"))', True),
    ('((string) @s (#match? @s "\\\\d"))', True),
]


@pytest.mark.parametrize(("pattern", "filters"), CASES)
def test_same_matches_as_the_binding(pattern: str, filters: bool) -> None:
    grammar = for_path("a.py").syntax.grammar  # type: ignore[union-attr]
    tree = ts.Parser(grammar).parse(PY)
    stripped, found = predicates.split(pattern)
    query = ts.Query(grammar, stripped)
    ours = budget.matches(query, tree.root_node, source=PY, checks=predicates.assign(query, found))
    theirs = ts.QueryCursor(ts.Query(grammar, pattern)).matches(tree.root_node)
    assert _spans(ours) == _spans(theirs)
    assert (_spans(ts.QueryCursor(query).matches(tree.root_node)) != _spans(theirs)) == filters


def _added(found: tuple[predicates.Predicate, ...]) -> set[str]:
    """The captures a pattern's ``#child?`` predicates add (none of its own
    in the bundled queries)."""
    return {argument[0] for kind, _, _, _, argument in found if kind == "child"}  # type: ignore[index]


def _on_added_captures_blanked(source: str) -> str:
    """``source`` with the text predicates on a capture a ``#child?`` adds
    blanked out (the binding rejects a capture its pattern does not write)."""
    data = bytearray(source.encode())
    located = predicates.split(source)[1]
    ends = list(accumulate(len(piece.encode()) for piece in _patterns(source)))
    for at, (kind, _, _, capture, argument) in located:
        if kind == "child":
            added, end_of_pattern = argument[0], ends[bisect_right(ends, at)]  # type: ignore[index]
            for other, (_, _, _, on, _) in located:
                if at < other < end_of_pattern and on == added:
                    start = data.index(b"#", other)
                    end, _ = predicates._predicate(bytes(data), start + 1)
                    data[other:end] = b" " * (end - other)
    return data.decode()


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_the_tags_queries_keep_the_bindings_matches(name: str) -> None:
    """Every file of the test projects, every shipped language: the tags
    query compiled whole (the binding checks its predicates) and as the
    extractor runs it give the same matches."""
    spec = LANGUAGES[name].syntax
    paths = [p for p in sorted(RESOURCES.rglob("*")) if p.is_file() and for_path(str(p)) is LANGUAGES[name]]
    if name == "markdown" or not paths:
        pytest.skip("no tags query" if name == "markdown" else "no file of the test projects")
    tags = _on_added_captures_blanked(spec._split_query[0])
    whole_source = f"{tags}\n{spec._comment_pattern}\n" if spec.comment_pattern < spec.query.pattern_count else tags
    whole = ts.Query(spec.grammar, whole_source)
    # the binding ignores `#top-level?`, `#child?` and `#within?` (ours alone), and
    # cannot check a text on a capture only a `#child?` adds: checked on its matches here
    ours_alone = {i: tuple(p for p in found if p[0] in ("top", "child", "within") or p[3] in _added(found)) for i, found in spec.predicates.items()}
    for path in paths:
        source = path.read_bytes()
        root = ts.Parser(spec.grammar).parse(source).root_node
        theirs = ts.QueryCursor(whole, match_limit=budget.MATCH_LIMIT).matches(root)
        theirs = [m for m in theirs if predicates.keep(ours_alone.get(m[0], ()), m[1], source)]
        ours = budget.matches(spec.query, root, source=source, checks=spec.predicates)
        assert _spans(ours) == _spans(theirs), path


def test_top_level_is_a_child_of_the_root_or_of_a_listed_node_there() -> None:
    grammar = for_path("a.ts").syntax.grammar  # type: ignore[union-attr]
    source = b"const a = 1;\nexport const b = 2;\nfunction f() { const c = 3; }\nnamespace n { export const d = 4; }\n"
    root = ts.Parser(grammar).parse(source).root_node

    def names(pattern: str) -> list[str]:
        stripped, found = predicates.split(pattern)
        query = ts.Query(grammar, stripped)
        matches = budget.matches(query, root, source=source, checks=predicates.assign(query, found))
        return [source[n.start_byte : n.end_byte].decode() for _, c in matches for n in c["name"]]

    declaration = "((lexical_declaration (variable_declarator name: (identifier) @name)) @d {})"
    assert names(declaration.format("")) == ["a", "b", "c", "d"]
    assert names(declaration.format("(#top-level? @d)")) == ["a"]
    assert names(declaration.format('(#top-level? @d "export_statement")')) == ["a", "b"]
    assert names(declaration.format('(#top-level? @d "statement_block" "export_statement")')) == ["a", "b"]
    _, found = predicates.split('((a) @x (#top-level? @x "b" "c"))')
    assert found == [(0 + len("((a) @x "), ("top", True, False, "x", frozenset({"b", "c"})))]


def test_within_checks_the_ancestors_types_nearest_first() -> None:
    """``#within? @c "a" "b"``: each node of ``@c`` has a parent of type
    ``a`` whose parent is a ``b``; a class field's binding (a class body's
    annotated assignment) is one, a function's annotated local is not."""
    from cartog_ci.languages.python import PYTHON
    from cartog_ci.parse import budget
    from cartog_ci.parse.predicates import assign, split

    text, located = split('((assignment) @a (#within? @a "expression_statement" "block" "class_definition"))\n')
    query = ts.Query(PYTHON.syntax.grammar, text)
    source = b"x: int = 1\nclass K:\n    y: int = 2\n    def f(self):\n        z: int = 3\n"
    root = budget.parse(PYTHON.syntax.grammar, source).root_node
    found = budget.matches(query, root, source=source, checks=assign(query, located))
    assert [source[c["a"][0].start_byte : c["a"][0].end_byte] for _, c in found] == [b"y: int = 2"]


CHILD_PY = b"""with open(p) as f, lock as held, g()() as h, k() as (m, n):
    pass
for x in re.finditer(a, b):
    pass
for (i, j), k in pairs:
    pass
try:
    pass
except KeyError as e:
    pass
except (A, B) as t:
    pass
a, (b, c), *d = f()
print([v for v, w in items])
"""


def _child_spans(pattern: str, source: bytes, path: str = "a.py") -> list[tuple[int, dict[str, list[tuple[int, int]]]]]:
    grammar = for_path(path).syntax.grammar  # type: ignore[union-attr]
    stripped, found = predicates.split(pattern)
    query = ts.Query(grammar, stripped)
    root = ts.Parser(grammar).parse(source).root_node
    return _spans(budget.matches(query, root, source=source, checks=predicates.assign(query, found)))


def test_child_adds_the_node_a_path_of_children_reaches() -> None:
    """``#child? @from "to" "field:types" …``: a field's child, or the first
    named child of those types (no field), then the next step; the match
    dropped when a step finds none; ``*:types`` every named child of those types."""
    found = _child_spans('((with_item value: (as_pattern) @as) (#child? @as "ctor" ":call" "function:identifier|attribute"))', CHILD_PY)
    texts = [[CHILD_PY[a:b].decode() for a, b in c.get("ctor", [])] for _, c in found]
    assert texts == [["open"], ["k"]]  # `lock` is no call; `g()()` calls no name
    found = _child_spans('((pattern_list) @l (#child? @l "names" "*:identifier"))', CHILD_PY)
    assert [[CHILD_PY[a:b].decode() for a, b in c["names"]] for _, c in found] == [["k"], ["a"], ["v", "w"]]
    # a capture in another branch of an alternation: nothing to check, the match kept
    found = _child_spans(
        '((for_statement left: [(identifier) @name (pattern_list) @l]) (#child? @l "name" "*:identifier"))', CHILD_PY
    )
    assert [[CHILD_PY[a:b].decode() for a, b in c["name"]] for _, c in found] == [["x"], ["k"]]
    _, located = predicates.split('((a) @x (#child? @x "y" "f:b|c" "*:d"))')
    assert located[0][1] == ("child", True, False, "x", ("y", (("f", frozenset({"b", "c"})), ("*", frozenset({"d"})))))
    for malformed in ('(#child? @x @y "f:b")', '(#child? @x "y")', '(#child? @x "y" "b")', '(#child? @x "y" "*:b" "f:c")'):
        assert predicates.split(f"((a) @x {malformed})")[1] == []


def test_child_steps_up_to_the_parent() -> None:
    """``^:types``: the parent, of those types, or no match; then further
    steps from there (the declaration a declarator is in: rooted at the
    declaration, a match stayed open over all of it)."""
    source = b"const a = () => 1, b = 2;\nvar c = function () {};\nfor (let d = () => 0; ; ) {}\nexport let e = class {};\n"

    def texts(pattern: str) -> list[tuple[str, str]]:
        found = _child_spans(pattern, source, "a.ts")
        return [(source[c["name"][0][0] : c["name"][0][1]].decode(), source[c["d"][0][0] : c["d"][0][1]].decode()) for _, c in found]

    declarator = '((variable_declarator name: (identifier) @name) @v (#child? @v "d" "^:{}"))'
    assert texts(declarator.format("lexical_declaration")) == [
        ("a", "const a = () => 1, b = 2;"),
        ("b", "const a = () => 1, b = 2;"),
        ("d", "let d = () => 0;"),
        ("e", "let e = class {};"),
    ]
    assert [n for n, _ in texts(declarator.format("variable_declaration"))] == ["c"]
    assert [n for n, _ in texts(declarator.format("lexical_declaration|variable_declaration"))] == ["a", "b", "c", "d", "e"]
    # up, then down again: the declaration's own first declarator
    found = _child_spans('((arrow_function) @f (#child? @f "d" "^:variable_declarator" "^:lexical_declaration" ":variable_declarator"))', source, "a.ts")
    assert [[source[a:b].decode() for a, b in c["d"]] for _, c in found] == [["a = () => 1"], ["d = () => 0"]]
    # `.`: the first named child, of those types; `_`: any type
    calls = b"f(() => 1);\ng(x, () => 2);\nh(function () {});\n"
    found = _child_spans('((call_expression) @c (#child? @c "cb" "arguments:arguments" ".:arrow_function|function_expression"))', calls, "a.ts")
    assert [[calls[a:b].decode() for a, b in c["cb"]] for _, c in found] == [["() => 1"], ["function () {}"]]
    found = _child_spans('((call_expression) @c (#child? @c "first" "arguments:arguments" ".:_"))', calls, "a.ts")
    assert [[calls[a:b].decode() for a, b in c["first"]] for _, c in found] == [["() => 1"], ["x"], ["function () {}"]]
    found = _child_spans('((call_expression) @c (#child? @c "all" "arguments:arguments" "*:_"))', calls, "a.ts")
    assert [len(c["all"]) for _, c in found] == [1, 2, 1]
    _, located = predicates.split('((a) @x (#child? @x "y" "^:b|c" "f:d"))')
    assert located[0][1] == ("child", True, False, "x", ("y", (("^", frozenset({"b", "c"})), ("f", frozenset({"d"})))))


ES = b"""class A {
  s = new Stats(); t = new ns.Timer(); u = new (f())(); v = 1;
  constructor() { this.x = new Foo(); this.y = new a.B(); other.z = new C(); this.w = f(); this[k] = new D(); }
}
const k = new Map(), j = new (g())(), m = 2;
"""
_NEW = '(#child? @_new "bind.ctor" "constructor:identifier|member_expression")'

# The patterns of the query files written with steps, and as they are with
# `#child?`: the same nodes captured (a list's names in one match instead
# of one match each). Python's, then TypeScript's and JavaScript's.
_STEPS_AND_CHILD = [
    (
        "(with_item value: (as_pattern (call function: [(identifier) (attribute)] @bind.ctor)"
        " alias: (as_pattern_target (identifier) @bind.name))) @bind",
        '((with_item value: (as_pattern) @_as) @bind (#child? @_as "bind.ctor" ":call" "function:identifier|attribute")'
        ' (#child? @_as "bind.name" "alias:as_pattern_target" ":identifier"))',
    ),
    (
        "(for_statement left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @bind.items)) @bind",
        '((for_statement left: (identifier) @bind.name right: (call) @_call) @bind'
        ' (#child? @_call "bind.items" "function:identifier|attribute"))',
    ),
    (
        "(except_clause value: (as_pattern [(identifier) @bind.ctor (attribute) @bind.ctor (tuple) @bind.other]"
        " alias: (as_pattern_target (identifier) @bind.name))) @bind",
        "((except_clause value: (as_pattern [(identifier) @bind.ctor (attribute) @bind.ctor (tuple) @bind.other]"
        ' alias: (as_pattern_target) @_alias)) @bind (#child? @_alias "bind.name" ":identifier"))',
    ),
    (
        "(for_statement left: [(identifier) @local.definition (pattern_list (identifier) @local.definition)"
        " (tuple_pattern (identifier) @local.definition)]) @local.scope",
        "((for_statement left: [(identifier) @local.definition (pattern_list) @_names (tuple_pattern) @_names]) @local.scope"
        ' (#child? @_names "local.definition" "*:identifier"))',
    ),
    (
        "(for_in_clause left: [(identifier) @local.definition (pattern_list (identifier) @local.definition)"
        " (tuple_pattern (identifier) @local.definition)]) @local.within",
        "((for_in_clause left: [(identifier) @local.definition (pattern_list) @_names (tuple_pattern) @_names]) @local.within"
        ' (#child? @_names "local.definition" "*:identifier"))',
    ),
    (
        "((as_pattern_target (identifier) @local.definition) @local.within)",
        '((as_pattern_target) @local.within (#child? @local.within "local.definition" ":identifier"))',
    ),
    (
        "(assignment left: [(pattern_list (identifier) @local.definition)"
        " (tuple_pattern (identifier) @local.definition)]) @local.within",
        '((assignment left: [(pattern_list) (tuple_pattern)] @_names) @local.within'
        ' (#child? @_names "local.definition" "*:identifier"))',
    ),
    (
        "(variable_declarator name: (identifier) @bind.name"
        " value: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind",
        f"((variable_declarator name: (identifier) @bind.name value: (new_expression) @_new) @bind {_NEW})",
    ),
    (
        "(assignment_expression left: (member_expression object: (this) @bind.self property: (property_identifier) @bind.name)"
        " right: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind",
        "((assignment_expression left: (member_expression) @_left right: (new_expression) @_new) @bind"
        ' (#child? @_left "bind.self" "object:this") (#child? @_left "bind.name" "property:property_identifier")'
        f" {_NEW})",
    ),
    (
        "(public_field_definition name: (property_identifier) @bind.name @bind.field"
        " value: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind",
        "((public_field_definition name: (property_identifier) @bind.name @bind.field value: (new_expression) @_new) @bind"
        f" {_NEW})",
    ),
    (
        "(field_definition property: (property_identifier) @bind.name @bind.field"
        " value: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind",
        "((field_definition property: (property_identifier) @bind.name @bind.field value: (new_expression) @_new) @bind"
        f" {_NEW})",
    ),
]


@pytest.mark.parametrize(("steps", "child"), _STEPS_AND_CHILD)
def test_child_captures_what_the_steps_did(steps: str, child: str) -> None:
    path = "a.js" if "(field_definition" in steps else "a.ts" if "_new" in child else "a.py"
    sample = CHILD_PY if path == "a.py" else ES
    sources = [sample, *(p.read_bytes() for p in sorted(RESOURCES.rglob("*" + path[1:])))]

    def captured(pattern: str, source: bytes) -> list[tuple[str, tuple[int, int]]]:
        return sorted(
            (name, span) for _, c in _child_spans(pattern, source, path) for name, spans in c.items()
            if not name.startswith("_") for span in spans
        )

    for source in sources:
        assert captured(child, source) == sorted(set(captured(steps, source))), source[:60]
    assert captured(steps, sample)  # the sample has some of each
