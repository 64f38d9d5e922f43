"""The graph as it was at the merge-base, read where the report looks: the
stored graph for the files the change did not touch, the merge-base's
extraction for those it did (docs/report.md, broken references).

A ``SymbolSource`` (index/resolve.py) for ``resolver_on_demand``: each
lookup reads the store's rows it needs and adds the base side's, in the
order ``resolver_for`` over the whole list (the stored symbols in
``all_symbols`` order, then the base files' symbols) would have met them,
so that both resolvers answer alike."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from cartog_ci.domain import Edge, Symbol
from cartog_ci.domain.results import ChangeSet
from cartog_ci.index.resolve import Resolver, resolved_bases, resolver_on_demand

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# What a symbol is looked up by (Store.symbols_by).
_COLUMNS = ("name", "qualified_name", "file")
# The kinds a method declared away from its type sits under (Store.detached_method_candidates).
_DETACHED_PARENTS = frozenset({"module", "namespace"})


def base_resolver(store: Store, cs: ChangeSet) -> Resolver:
    """A resolver over the graph as it was at the merge-base, for the files
    the change touched (the rest of the graph is shared): it reads what it
    looks up, never the whole graph."""
    side = BaseSide(store, cs)
    resolver = resolver_on_demand(side, root=cs.root)
    # the base files' inherits edges are resolved by a resolver that never
    # knows a base (as ``resolved_bases`` wants), each class's when first
    # asked; it reads the same graph, through the same lookups
    inherits = resolver_on_demand(side, root=cs.root, sharing=resolver)
    resolver.set_hierarchy_on_demand(*side.hierarchy(inherits))
    return resolver


class BaseSide:
    """The symbols and imports of the merge-base: ``store`` without the
    changed files, plus ``cs.base_files``."""

    def __init__(self, store: Store, cs: ChangeSet) -> None:
        self.store = store
        self.changed = set(cs.files)
        symbols = [s for f in cs.base_files.values() for s in f.symbols]
        self.by_id = {s.id: s for s in symbols}
        self.by: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
        by = self.by
        for s in symbols:  # by each of _COLUMNS, in its order (a getattr a column cost twice this)
            by[("name", s.name)].append(s)
            by[("qualified_name", s.qualified_name)].append(s)
            by[("file", s.file)].append(s)
        self.base_modules = [(s.file, s.id, s.language) for s in symbols if s.kind == "module"]
        self.parents: dict[str, Symbol | None] = {}  # stored symbols read ahead (``_read_parents``)
        self.unread_parents: set[str] = set()  # the parents of stored symbols read, to read ahead when asked
        self.symbols = symbols
        self.imports: dict[str, list[Edge]] = defaultdict(list)
        self.inherits: dict[str, list[Edge]] = defaultdict(list)  # by class ID
        for f in cs.base_files.values():
            for e in f.edges:
                if e.kind == "imports":
                    self.imports[e.file].append(e)
                elif e.kind == "inherits":
                    self.inherits[e.source_id].append(e)

    def kept(self, symbols: Iterable[Symbol]) -> list[Symbol]:
        return [s for s in symbols if s.file not in self.changed]

    # -- SymbolSource ----------------------------------------------------------

    def symbol(self, symbol_id: str) -> Symbol | None:
        found = self.by_id.get(symbol_id)
        if found is not None:
            return found
        if symbol_id in self.unread_parents:
            self._read_parents()
        stored = self.parents[symbol_id] if symbol_id in self.parents else self.store.symbol(symbol_id)
        return None if stored is None or stored.file in self.changed else stored

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        stored = self.store.symbols_by(column, value)
        ids = {s.parent_id for s in stored if s.parent_id is not None} - self.parents.keys() - self.by_id.keys()
        self.unread_parents |= ids - {s.id for s in stored}
        return self.kept(stored) + self.by.get((column, value), [])

    def _read_parents(self) -> None:
        """The stored parents of the symbols read so far, at once, when the
        first is asked: the resolver's name-only guesses ask the parent of
        every function of a name (is it method-like?), one read each (Django
        5.1 -> 5.1.4 HEAD~10: 1,019 reads for 5 broken-reference
        candidates); a guess among classes asks none (the same report: the
        1,011 parents of the classes named `Meta`)."""
        ids = sorted(self.unread_parents - self.parents.keys())
        self.unread_parents = set()
        found = self.store.symbols(ids)
        self.parents.update((i, found.get(i)) for i in ids)

    def modules(self) -> list[tuple[str, str, str]]:
        return [m for m in self.store.modules() if m[0] not in self.changed] + self.base_modules

    def detached_method_candidates(self) -> list[Symbol]:
        # asked by a language whose methods may be declared away from their type (Go, Rust)
        detached = [s for s in self.symbols if s.kind == "method" and _detached(s, self.by_id)]
        return self.kept(self.store.detached_method_candidates()) + detached

    def import_edges_in_file(self, path: str) -> list[Edge]:
        stored = [e for e in self.store.import_edges_in_file(path) if e.file not in self.changed]
        return stored + self.imports.get(path, [])

    # -- the class hierarchy (Resolver.set_hierarchy_on_demand) ----------------

    def hierarchy(self, resolver: Resolver) -> tuple[Callable[[str], list[str]], Callable[[str], bool]]:
        """A class's bases and whether one is unknown, read when first
        asked: those the base files' ``inherits`` edges of the class resolve
        to first (``resolver`` has no hierarchy, as ``resolved_bases``
        wants; an edge's answer does not depend on the others'), then the
        stored ones of a class in a file the change did not touch. Only the
        classes a lookup reaches are resolved (Django 5.1 -> 5.1.4 HEAD~10:
        every inherits edge of 230 base files took 0.42 s)."""
        resolved: dict[str, tuple[list[str], bool]] = {}

        def base_side(class_id: str) -> tuple[list[str], bool]:
            if class_id not in resolved:
                bases, unknown = resolved_bases(resolver, self.inherits.get(class_id, ()))
                resolved[class_id] = (bases.get(class_id, []), class_id in unknown)
            return resolved[class_id]

        def bases_of(class_id: str) -> list[str]:
            stored = self.store.bases_of(class_id) if self._stored_class(class_id) else []
            return base_side(class_id)[0] + stored

        def has_unknown_base(class_id: str) -> bool:
            return base_side(class_id)[1] or (self._stored_class(class_id) and self.store.has_unknown_base(class_id))

        return bases_of, has_unknown_base

    def _stored_class(self, class_id: str) -> bool:
        return class_id.split(":", 1)[0] not in self.changed


def _detached(s: Symbol, by_id: dict[str, Symbol]) -> bool:
    parent = by_id.get(s.parent_id) if s.parent_id is not None else None
    return s.kind == "method" and parent is not None and parent.kind in _DETACHED_PARENTS and "." in s.qualified_name
