"""Graph queries over the store: who references a symbol, what it calls,
what a change to it can reach (breadth-first over reverse edges)."""

from __future__ import annotations

import posixpath
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cartog_ci.domain import CONSTRUCTOR_NAMES, Edge, Symbol
from cartog_ci.domain.results import ImpactNode

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.domain.answers import Deps, Hierarchy
    from cartog_ci.languages.base import Language
    from cartog_ci.store.base import Store

# Edges along which a change propagates to the referencing symbol.
IMPACT_KINDS = ("calls", "inherits", "references", "raises")
# What makes a caller: it calls, instantiates, inherits or raises the symbol
# (a type annotation is a use, counted apart: docs/report.md).
CALLER_KINDS = ("calls", "inherits", "raises")


def refs(store: Store, ids: Sequence[str], kind: str | None = None) -> list[Edge]:
    return store.edges_to(ids, (kind,) if kind else ())


def callees(store: Store, ids: Sequence[str]) -> list[Edge]:
    """What ``ids`` call, and the implementations their calls of interface
    methods may run (``dispatch_edges``) after each such call."""
    return with_dispatch(store, store.edges_from(ids, ("calls",)))


# The tier of an edge from a call of an interface or trait method to an
# implementation: what the call may run, never the method the call binds.
DISPATCH = "dispatch"


def with_dispatch(store: Store, edges: Sequence[Edge]) -> list[Edge]:
    """``edges``, each call of an interface or trait method followed by its
    edges to the implementations (``dispatch_edges``)."""
    extra = dispatch_edges(store, edges)
    if not extra:
        return list(edges)
    out: list[Edge] = []
    for edge in edges:
        out.append(edge)
        out += extra.get(edge, ())
    return out


def dispatch_edges(store: Store, edges: Sequence[Edge]) -> dict[Edge, list[Edge]]:
    """call edge -> an edge of the tier ``dispatch`` to each implementation
    it may run, for the calls resolved to a method declared by an interface
    or trait, in the languages that say what implements one
    (``Language.implementations``: Go by method sets, Rust by `impl` blocks).

    Read off the stored graph when asked, nothing of it stored: an
    incremental index has nothing to keep up to date, and the call's own
    edge (to the interface method, whose change breaks the call) stays what
    the report checks signatures against."""
    called = {e.target_id for e in edges if e.kind == "calls" and e.target_id and ":method:" in e.target_id}
    if not called:
        return {}
    types = _StoredTypes(store)
    methods: dict[str, tuple[Language, Symbol, Symbol]] = {}
    for method in store.symbols(sorted(called)).values():
        language = _dispatching_language(method.language)
        interface = types.symbol(method.parent_id) if method.parent_id else None
        if language is not None and interface is not None and interface.kind in _INTERFACE_KINDS:
            methods[method.id] = (language, method, interface)
    out: dict[Edge, list[Edge]] = {}
    asked: dict[tuple[str, str, str | None, str | None], list[str]] = {}
    for e in edges:
        if e.kind != "calls" or e.target_id not in methods:
            continue
        language, method, interface = methods[e.target_id]
        key = (method.id, e.source_id, e.qualifier, e.resolution)
        if key not in asked:
            asked[key] = [i for i in language.implementations(types, method, interface, e) if i != method.id]
        if asked[key]:
            out[e] = [replace(e, target_id=i, resolution=DISPATCH) for i in asked[key]]
    return out


def _dispatching_language(name: str) -> Language | None:
    from cartog_ci import languages  # loaded when first needed, as by the indexer

    found = languages.get(name)
    if found is None or type(found).implementations is languages.Language.implementations:
        return None
    return found


@dataclass
class _StoredTypes:
    """``languages.base.TypeGraph`` over the store, each lookup asked once."""

    store: Store
    _symbols: dict[str, Symbol | None] = field(default_factory=dict)
    _by: dict[tuple[str, str], list[Symbol]] = field(default_factory=dict)
    _files: dict[str, list[Symbol]] = field(default_factory=dict)
    _bases: dict[str, list[str]] = field(default_factory=dict)
    _subtypes: dict[str, list[str]] = field(default_factory=dict)

    def symbol(self, symbol_id: str) -> Symbol | None:
        if symbol_id not in self._symbols:
            self._symbols[symbol_id] = self.store.symbol(symbol_id)
        return self._symbols[symbol_id]

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        key = (column, value)
        if key not in self._by:
            self._by[key] = self.store.symbols_by(column, value)
        return self._by[key]

    def members(self, type_id: str) -> list[Symbol]:
        owner = self.symbol(type_id)
        if owner is None:
            return []
        if owner.file not in self._files:
            self._files[owner.file] = self.store.symbols_in_file(owner.file)
        return [s for s in self._files[owner.file] if s.parent_id == type_id]

    def bases(self, type_id: str) -> list[str]:
        if type_id not in self._bases:
            edges = self.store.edges_from([type_id], ("inherits",))
            self._bases[type_id] = [e.target_id for e in edges if e.target_id]
        return self._bases[type_id]

    def subtypes(self, type_id: str) -> list[str]:
        if type_id not in self._subtypes:
            edges = self.store.edges_to([type_id], ("inherits",))
            self._subtypes[type_id] = list(dict.fromkeys(e.source_id for e in edges))
        return self._subtypes[type_id]


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
        # `Foo(...)` calls the class and reaches its constructor; a call of an
        # interface method reaches the implementations of the changed code
        built = _constructed_classes(store, frontier) if "calls" in kinds else {}
        dispatched = _dispatching(store, frontier) if "calls" in kinds and level == 1 else {}
        through = built | dispatched
        incoming += store.edges_to(list(through), ("calls",)) if through else []
        # `self.m()` / `cls.m()` in a base class reaches an override of m
        overridden = _overridden(store, frontier) if "calls" in kinds and level == 1 else {}
        incoming += _self_calls(store, overridden)
        through = through | {base: method for base, (method, _) in overridden.items()}
        for edge in incoming:
            source = edge.source_id
            if source in paths or edge.target_id is None:
                continue
            paths[source] = paths[through.get(edge.target_id, edge.target_id)] + (source,)
            via[source] = (
                "interface" if edge.target_id in dispatched else "override" if edge.target_id in overridden else edge.kind
            )
            order.append(source)
            next_frontier.append(source)
        frontier = next_frontier
    symbols = store.symbols(order)
    return [
        ImpactNode(symbols[i], len(paths[i]) - 1, paths[i], via[i]) for i in order if i in symbols
    ]


_INTERFACE_KINDS = frozenset({"interface", "trait"})
# The receivers a method calls its own object's methods through (Python).
_SELF_RECEIVERS = frozenset({"self", "cls"})


def _overridden(store: Store, ids: Sequence[str]) -> dict[str, tuple[str, set[str]]]:
    """base method ID -> (the method among ``ids`` that overrides it, the
    classes whose own ``self.m()`` may reach that override: the override's
    class and its ancestors). Python only: a language with interfaces
    dispatches through them (``_dispatching``)."""
    out: dict[str, tuple[str, set[str]]] = {}
    for method in _python_methods(store.symbols(ids).values()):
        for base, seen in _ancestors(store, method):
            for s in store.members_named(base, method.name):
                if s.kind == "method":
                    out.setdefault(s.id, (method.id, seen))
    return out


def override_lookups(store: Store, roots: Iterable[Symbol]) -> list[tuple[str, str]]:
    """(base class ID, method name) of each ``members_named`` that
    ``impact`` asks at its first level from ``roots`` (``_overridden``):
    what a reader of many walks reads ahead at once (report/build.py)."""
    return [(base, method.name) for method in _python_methods(roots) for base, _ in _ancestors(store, method)]


def _python_methods(symbols: Iterable[Symbol]) -> list[Symbol]:
    return [s for s in symbols if s.kind == "method" and s.language == "python" and s.parent_id is not None]


def _ancestors(store: Store, method: Symbol) -> Iterator[tuple[str, set[str]]]:
    """Each ancestor of ``method``'s class (through ``inherits`` edges), with
    the set of those met so far: one set, which the walk goes on filling
    (``_overridden`` keeps it, whole once the walk is done)."""
    assert method.parent_id is not None
    ancestors = [method.parent_id]
    seen = {method.parent_id}
    while ancestors:
        current = ancestors.pop()
        for edge in store.edges_from([current], ("inherits",)):
            base = edge.target_id
            if base is None or base in seen:
                continue
            seen.add(base)
            ancestors.append(base)
            yield base, seen


def _self_calls(store: Store, overridden: dict[str, tuple[str, set[str]]]) -> list[Edge]:
    """The calls of the overridden base methods made through ``self.`` or
    ``cls.`` in a class the override's object may be (its class, its bases)."""
    if not overridden:
        return []
    found: list[Edge] = []
    edges = [e for e in store.edges_to(list(overridden), ("calls",)) if e.qualifier in _SELF_RECEIVERS]
    sources = store.symbols({e.source_id for e in edges})
    for edge in edges:
        source = sources.get(edge.source_id)
        _, classes = overridden[edge.target_id or ""]
        if source is not None and source.parent_id in classes:
            found.append(edge)
    return found


def _dispatching(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """interface method ID -> the ID among ``ids`` it dispatches to: the
    method of an interface or trait that the method's type implements (a
    base in the project's hierarchy), or, in Go, satisfies (its method set
    holds every method of the interface)."""
    methods = [s for s in store.symbols(ids).values() if s.kind == "method" and _has_interfaces(s.language)]
    out: dict[str, str] = {}
    for method in methods:
        owner = method.qualified_name.rpartition(".")[0]
        if not owner:
            continue
        for candidate in _interface_methods(store, method.name, method.language):
            if candidate.id != method.id and _implements(store, method, owner, candidate):
                out.setdefault(candidate.id, method.id)
    return out


def _structural(language: str) -> bool:
    from cartog_ci import languages

    found = languages.get(language)
    return found is not None and found.structural_interfaces


def _has_interfaces(language: str) -> bool:
    from cartog_ci import languages  # loaded when first needed, as by the indexer

    found = languages.get(language)
    return found is None or found.interfaces


def _interface_methods(store: Store, name: str, language: str) -> list[Symbol]:
    found = [s for s in store.find_symbols(name) if s.kind == "method" and s.language == language and s.parent_id]
    parents = store.symbols([s.parent_id for s in found if s.parent_id])
    return [s for s in found if s.parent_id in parents and parents[s.parent_id].kind in _INTERFACE_KINDS]


def _implements(store: Store, method: Symbol, owner: str, interface_method: Symbol) -> bool:
    interface_id = interface_method.parent_id or ""
    type_ids = [s.id for s in store.find_symbols(owner) if posixpath.dirname(s.file) == posixpath.dirname(method.file)]
    seen: set[str] = set()
    frontier = list(type_ids)
    while frontier:  # nominal: the type (transitively) inherits the interface
        current = frontier.pop()
        if current == interface_id:
            return True
        if current not in seen:
            seen.add(current)
            frontier += [e.target_id for e in store.edges_from([current], ("inherits",)) if e.target_id]
    return _structural(method.language) and _satisfies(store, method, owner, interface_id)


def _satisfies(store: Store, method: Symbol, owner: str, interface_id: str) -> bool:
    """Go: every method of the interface (and of the interfaces it embeds)
    is a method of the type, declared in the type's package."""
    package = posixpath.dirname(method.file)
    required = _method_names(store, interface_id, set())
    for name in required:
        if not any(s.kind == "method" and posixpath.dirname(s.file) == package for s in store.find_symbols(f"{owner}.{name}")):
            return False
    return bool(required)


def _method_names(store: Store, interface_id: str, seen: set[str]) -> set[str]:
    if interface_id in seen:
        return set()
    seen.add(interface_id)
    interface = store.symbol(interface_id)
    if interface is None:
        return set()
    names = {s.name for s in store.symbols_in_file(interface.file) if s.parent_id == interface_id and s.kind == "method"}
    for edge in store.edges_from([interface_id], ("inherits",)):
        if edge.target_id:
            names |= _method_names(store, edge.target_id, seen)
    return names


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
    from cartog_ci.domain.answers import Hierarchy  # built by this query only (domain/results.py)

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
    from cartog_ci.domain.answers import Deps  # built by this query only (domain/results.py)

    imports = tuple(e for e in store.edges_in_file(path) if e.kind == "imports")
    ids = [s.id for s in store.symbols_in_file(path)]
    importers = sorted({e.file for e in store.edges_to(ids, ("imports",)) if e.file != path})
    return Deps(path, imports, tuple(importers))
