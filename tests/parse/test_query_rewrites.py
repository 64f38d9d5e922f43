"""Patterns of the TypeScript tags query written so that they cost its
compile less (languages/queries/typescript.scm): the same local names as the
patterns they replace, and the same extraction."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cartog_ci.languages import LANGUAGES
from cartog_ci.parse import budget
from cartog_ci.parse.extract import _collect, extract_rows
from cartog_ci.parse.syntax import Syntax

# (as written now, as it was): the type parameters' scope read as the parent
# of their `type_parameters`
REWRITES = (
    (
        "(type_parameters (type_parameter name: (type_identifier) @local.definition)) @local.within\n",
        "(_ type_parameters: (type_parameters\n  (type_parameter name: (type_identifier) @local.definition))) @local.scope\n",
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
function run() { const s = api.stats(); s.inc(); m.go(); n.stop(); r.add(); }
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
    assert extract_rows("src/shapes.ts", SOURCE, syntax) == extract_rows("src/shapes.ts", SOURCE, _as_it_was(syntax))


def test_type_parameters_are_local_to_their_declaration() -> None:
    syntax = LANGUAGES["typescript"].syntax
    root = budget.parse(syntax.grammar, SOURCE).root_node
    _, _, binds, scoped, _ = _collect(syntax, root, SOURCE)
    held = sorted((name, value) for kind, _, _, (_, name), value in binds)
    # `(f)()` has no callee a name reads (and a call is no other value): no
    # binding; `make<Item>()!` is some other value
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
        ("x", "T()"),
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
