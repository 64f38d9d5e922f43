"""Patterns of the tags queries written so that they cost less: the
TypeScript query's compile (languages/queries/typescript.scm), Python's
matches (languages/queries/python.scm): the same local names and bindings
as the patterns they replace, and the same extraction."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cartog_ci.languages import LANGUAGES
from cartog_ci.parse import budget
from cartog_ci.parse.extract import _collect, extract_rows
from cartog_ci.parse.syntax import Syntax

# (as written now, as it was): the type parameters' scope read as the parent
# of their `type_parameters`; a declaration's value read by its kind
# (`@bind.result`, parse/extract.py ``_bound_value``), not by two patterns
REWRITES = (
    (
        "(type_parameters (type_parameter name: (type_identifier) @local.definition)) @local.within\n",
        "(_ type_parameters: (type_parameters\n  (type_parameter name: (type_identifier) @local.definition))) @local.scope\n",
    ),
    (
        "(variable_declarator name: (identifier) @bind.name value: (_) @bind.result) @bind\n",
        "(variable_declarator\n  name: (identifier) @bind.name\n"
        "  value: (call_expression function: [(identifier) (member_expression)] @bind.ctor)) @bind\n"
        "(variable_declarator name: (identifier) @bind.name value: (_) @bind.other) @bind\n",
    ),
)

SOURCE = b"""\
function pick<T, U extends T>(items: T[], f: (x: T) => U): U { return f(items[0]); }
class Box<V> { get<K extends keyof V>(k: K): V[K] { return this.v[k]; } }
type Pair<A> = [A, A];
interface Repo<E> { find<Q>(q: Q): E }
const m = make();
const n = a.b.create(1);
const p = (f)();
const q = make<Item>()!;
const r: Stats = build();
const t = new Timer(), u = await load(), v = m, w = <Item>x, y = z as Shape, k = f()();
function run() { const s = api.stats(); s.inc(); m.go(); n.stop(); r.add(); t.start(); u.go(); v.go(); }
"""


def _as_it_was(syntax: Syntax) -> Syntax:
    text = syntax.load_query()
    for now, was in REWRITES:
        assert text.count(now) == 1
        text = text.replace(now, was)
    return replace(syntax, load_query=lambda: text)


@pytest.mark.parametrize("name", ["typescript", "tsx"])
def test_the_rewritten_patterns_extract_what_the_old_ones_did(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    was = _as_it_was(syntax)
    assert extract_rows("src/shapes.ts", SOURCE, syntax) == extract_rows("src/shapes.ts", SOURCE, was)
    root = budget.parse(syntax.grammar, SOURCE).root_node
    # the same bindings and local names, in the same order
    now, before = _collect(syntax, root, SOURCE), _collect(was, root, SOURCE)
    assert [(k, n.start_byte, parts, v) for k, n, _, parts, v in now[2]] == [
        (k, n.start_byte, parts, v) for k, n, _, parts, v in before[2]
    ]
    assert now[3] == before[3]


def test_type_parameters_are_local_to_their_declaration() -> None:
    syntax = LANGUAGES["typescript"].syntax
    root = budget.parse(syntax.grammar, SOURCE).root_node
    _, _, binds, scoped, _ = _collect(syntax, root, SOURCE)
    held = sorted((name, value) for kind, _, _, (_, name), value in binds)
    # `(f)()` and `f()()` have no callee a name reads (and a call is no other
    # value): no binding; `make<Item>()!`, `await load()` and `<Item>x` are
    # some other value; another name (`v = m`) binds nothing in TypeScript
    assert held == [
        ("items", "T()"),
        ("k", "K()"),
        ("m", "make()"),
        ("n", "a.b.create()"),
        ("q", "<?>"),
        ("q", "Q()"),
        ("r", "Stats()"),
        ("r", "build()"),
        ("s", "api.stats()"),
        ("t", "Timer()"),
        ("u", "<?>"),
        ("w", "<?>"),
        ("x", "T()"),
        ("y", "Shape()"),
    ]
    # each type parameter's scope is the declaration that declares it
    assert [(name, SOURCE[start:end].decode()) for name, start, end in scoped] == [
        ("T", SOURCE.splitlines()[0].decode()),
        ("U", SOURCE.splitlines()[0].decode()),
        ("V", SOURCE.splitlines()[1].decode()),
        ("K", "get<K extends keyof V>(k: K): V[K] { return this.v[k]; }"),
        ("A", "type Pair<A> = [A, A];"),
        ("E", "interface Repo<E> { find<Q>(q: Q): E }"),
        ("Q", "find<Q>(q: Q): E"),
    ]


# Python's assignments without a type: one pattern whose value parse/extract.py
# ``_bound_value`` reads by its kind (`@bind.value`), as written now; the four
# patterns it replaced, as they were (the fourth, `self.x = y`, further on)
PYTHON_NOW = """\
(assignment
  left: [(identifier) @bind.name
         (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)]
  !type
  right: (_) @bind.value) @bind
"""
PYTHON_WAS = """\
(assignment
  left: [(identifier) @bind.name
         (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)]
  !type
  right: (call function: [(identifier) (attribute)] @bind.ctor)) @bind
(assignment left: (identifier) @bind.name !type right: [(identifier) (attribute)] @bind.from) @bind
(assignment
  left: [(identifier) @bind.name
         (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)]
  !type
  right: (_) @bind.other) @bind
"""
PYTHON_AFTER = '(#child? @_as "bind.name" "alias:as_pattern_target" ":identifier"))\n'
PYTHON_SELF_FROM = """\
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  !type
  right: [(identifier) (attribute)] @bind.from) @bind
"""

PYTHON_SOURCE = b"""\
import os


class Service:
    def __init__(self, stats, repo: Repo, path):
        self.stats = stats
        self.repo = Repo(path)
        self.path = os.path
        self.count = 1
        self.maker = make()()
        self.items = [stats]
        self.pair = stats, repo

    def run(self):
        self.stats.inc()
        self.repo.find()
        self.maker.go()


def handler(event):
    found = Finder(event)
    alias = found
    dotted = os.path
    deep = a.b.c(2)
    called = (lambda: 1)()
    chained = found.get()()
    first, second = 1, 2
    number: int = 3
    text = "x"
    found.run()
    alias.run()
    dotted.join("a")
    deep.go()
    chained.go()
    text.upper()
"""


def _python_as_it_was(syntax: Syntax) -> Syntax:
    text = syntax.load_query()
    assert text.count(PYTHON_NOW) == 1 and text.count(PYTHON_AFTER) == 1
    text = text.replace(PYTHON_NOW, PYTHON_WAS).replace(PYTHON_AFTER, PYTHON_AFTER + PYTHON_SELF_FROM)
    return replace(syntax, load_query=lambda: text)


def test_python_assignments_bind_what_the_four_patterns_did() -> None:
    """The same bindings in the same order (what a receiver holds), the same
    extraction, and no match of an assignment that binds nothing."""
    syntax = LANGUAGES["python"].syntax
    was = _python_as_it_was(syntax)
    assert extract_rows("app/service.py", PYTHON_SOURCE, syntax) == extract_rows("app/service.py", PYTHON_SOURCE, was)
    root = budget.parse(syntax.grammar, PYTHON_SOURCE).root_node

    def bindings(spec: Syntax) -> list[tuple[str, int, tuple[str | None, str], str]]:
        return [(kind, node.start_byte, parts, value) for kind, node, _, parts, value in _collect(spec, root, PYTHON_SOURCE)[2]]

    now = bindings(syntax)
    assert now == bindings(was)
    # `make()()`, `(lambda: 1)()`, `found.get()()` call no name: no binding;
    # `first, second = 1, 2` is no assignment of a name
    assert [(kind, parts, value) for kind, _, parts, value in now] == [
        ("_bind_type", (None, "repo"), "Repo()"),
        ("_bind", ("self", "stats"), "=stats"),
        ("_bind", ("self", "repo"), "Repo()"),
        ("_bind", ("self", "path"), "=os.path"),
        ("_bind", ("self", "count"), "<?>"),
        ("_bind", ("self", "items"), "<?>"),
        ("_bind", ("self", "pair"), "<?>"),
        ("_bind", (None, "found"), "Finder()"),
        ("_bind", (None, "alias"), "=found"),
        ("_bind", (None, "dotted"), "=os.path"),
        ("_bind", (None, "deep"), "a.b.c()"),
        ("_bind_type", (None, "number"), "int()"),
        ("_bind", (None, "text"), "<?>"),
    ]
    matches = budget.matches(syntax.query, root, source=PYTHON_SOURCE, checks=syntax.predicates)
    assignments = [captures["bind"][0].start_byte for _, captures in matches if "bind" in captures]
    assert len(assignments) == len(set(assignments))  # each assignment matched once
