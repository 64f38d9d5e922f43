"""Graph queries over the store: who references a symbol, what it calls,
what a change to it can reach (breadth-first over reverse edges)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cartog_ci.domain import CONSTRUCTOR_NAMES, Edge, Symbol
from cartog_ci.domain.results import Deps, Hierarchy, ImpactNode

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# Edges along which a change propagates to the referencing symbol.
IMPACT_KINDS = ("calls", "inherits", "references", "raises")


def refs(store: Store, ids: Sequence[str], kind: str | None = None) -> list[Edge]:
    return store.edges_to(ids, (kind,) if kind else ())


def callees(store: Store, ids: Sequence[str]) -> list[Edge]:
    return store.edges_from(ids, ("calls",))


def impact(
    store: Store, ids: Sequence[str], *, depth: int = 3, kinds: Sequence[str] = IMPACT_KINDS
) -> list[ImpactNode]:
    """Every symbol that (transitively) references ``ids``, each once at its
    true shortest depth, with the path from the root that reaches it first."""
    roots = list(dict.fromkeys(ids))
    paths: dict[str, tuple[str, ...]] = {r: (r,) for r in roots}
    via: dict[str, str] = {}
    frontier = deque(roots)
    order: list[str] = []
    level = 0
    while frontier and level < depth:
        level += 1
        next_frontier: deque[str] = deque()
        incoming = store.edges_to(list(frontier), kinds)
        # `Foo(...)` calls the class and reaches its constructor
        built = _constructed_classes(store, frontier) if "calls" in kinds else {}
        incoming += store.edges_to(list(built), ("calls",)) if built else []
        for edge in incoming:
            source = edge.source_id
            if source in paths or edge.target_id is None:
                continue
            paths[source] = paths[built.get(edge.target_id, edge.target_id)] + (source,)
            via[source] = edge.kind
            order.append(source)
            next_frontier.append(source)
        frontier = next_frontier
    symbols = store.symbols(order)
    return [
        ImpactNode(symbols[i], len(paths[i]) - 1, paths[i], via[i]) for i in order if i in symbols
    ]


def _constructed_classes(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """class ID -> the ID of its constructor, for the constructors among ``ids``."""
    candidates = [i for i in ids if i.split(":")[-1].rsplit(".", 1)[-1].split("#")[0] in CONSTRUCTOR_NAMES]
    if not candidates:
        return {}
    return {
        s.parent_id: s.id
        for s in store.symbols(candidates).values()
        if s.kind == "method" and s.name in CONSTRUCTOR_NAMES and s.parent_id is not None
    }


def hierarchy(store: Store, symbol: Symbol) -> Hierarchy:
    bases: list[tuple[int, Symbol]] = []
    unresolved: list[str] = []
    seen = {symbol.id}
    frontier = [(symbol.id, 0)]
    while frontier:
        current, d = frontier.pop(0)
        for edge in store.edges_from([current], ("inherits",)):
            if edge.target_id is None:
                if current == symbol.id:
                    unresolved.append(edge.target_name)
                continue
            if edge.target_id in seen:
                continue
            seen.add(edge.target_id)
            target = store.symbol(edge.target_id)
            if target is not None:
                bases.append((d + 1, target))
                frontier.append((target.id, d + 1))
    subs = [(n.depth, n.symbol) for n in impact(store, [symbol.id], depth=50, kinds=("inherits",))]
    return Hierarchy(symbol, tuple(bases), tuple(unresolved), tuple(subs))


def deps(store: Store, path: str) -> Deps:
    imports = tuple(e for e in store.edges_in_file(path) if e.kind == "imports")
    ids = [s.id for s in store.symbols_in_file(path)]
    importers = sorted({e.file for e in store.edges_to(ids, ("imports",)) if e.file != path})
    return Deps(path, imports, tuple(importers))
