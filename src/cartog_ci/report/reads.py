"""The store as one report reads it: each read of the graph asked once.

Building a report walks the neighbourhood of every changed symbol
(report/build.py, graph.impact): the same symbols, callers, members and
same-named call sites are met again from the next changed symbol (scrapy
2.11.0 -> 2.11.2: 765 ``symbols`` reads, 424 of them a repeat; 582
``edges_from``, 505 a repeat). Nothing writes the graph while a report is
built (the index was brought up to date before), so each read is kept for
the report's length, keyed by its exact arguments: the answer is the
store's own, in its own order. Lists and dicts are handed out as copies
(callers extend them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from cartog_ci.domain import Edge, Symbol
from cartog_ci.store.tables import chunks

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def remembering(store: Store) -> Store:
    """``store``, its graph reads answered once per argument (``Reads``)."""
    return store if isinstance(store, Reads) else cast("Store", Reads(store))


class Reads:
    """A read-through memo over a ``Store``; everything else is the store's."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._memo: dict[tuple[object, ...], Any] = {}
        # the keys of ``edges_to`` reads of many IDs not yet split by ID (``edges_to_each``)
        self._unsplit: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _once(self, key: tuple[object, ...], read: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = read()
        return self._memo[key]

    def symbol(self, symbol_id: str) -> Symbol | None:
        return cast("Symbol | None", self._once(("symbol", symbol_id), lambda: self._store.symbol(symbol_id)))

    def symbols(self, ids: Iterable[str]) -> dict[str, Symbol]:
        """The store's answer, of which only the IDs no read met before are
        read (Django 5.1 -> 5.1.4 HEAD~10: 1,697 of the 2,564 IDs a report
        asks were asked before, 1,598 are in a file read whole), in the
        store's order (``Store.symbols``)."""
        asked = tuple(ids)
        key = ("symbols", asked)
        memo = self._memo
        if key not in memo:
            wanted = list(dict.fromkeys(asked))
            rest = [i for i in wanted if ("symbol", i) not in memo]
            if rest:
                found = self._store.symbols(rest)
                # each one read is the answer of ``symbol`` too (the same row)
                memo.update((("symbol", i), found.get(i)) for i in rest)
            answer = ((i, memo[("symbol", i)]) for chunk in chunks(wanted) for i in sorted(chunk))
            memo[key] = {i: s for i, s in answer if s is not None}
        return dict(memo[key])

    def symbols_in_file(self, path: str) -> list[Symbol]:
        key = ("symbols_in_file", path)
        if key not in self._memo:
            found = self._memo[key] = self._store.symbols_in_file(path)
            # each one read is the answer of ``symbol`` too (the same row)
            self._memo.update((("symbol", s.id), s) for s in found)
        return list(self._memo[key])

    def symbols_in_files_read(self, ids: Iterable[str]) -> tuple[dict[str, Symbol], list[str]]:
        """(the symbols of ``ids`` that a ``symbols_in_file`` already read
        holds, by ID; the other IDs), without reading: what ``symbols``
        would read again of a file read whole (report/build.py, the tests
        the commands run, in the test files the test plan read)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Symbol] = {}
        for path in {i.partition(":")[0] for i in wanted}:
            for s in self._memo.get(("symbols_in_file", path), ()):
                found[s.id] = s
        held = {i: found[i] for i in wanted if i in found}
        return held, [i for i in wanted if i not in held]

    def members_named(self, parent_id: str, name: str) -> list[Symbol]:
        return list(self._once(("members_named", parent_id, name), lambda: self._store.members_named(parent_id, name)))

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        return list(self._once(("symbols_by", column, value), lambda: self._store.symbols_by(column, value)))

    def find_symbols(self, text: str) -> list[Symbol]:
        return list(self._once(("find_symbols", text), lambda: self._store.find_symbols(text)))

    def definitions_named(self, text: str) -> list[tuple[str, str, str]]:
        return list(self._once(("definitions_named", text), lambda: self._store.definitions_named(text)))

    def edges_from(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        key = ("edges_from", tuple(ids), tuple(kinds))
        return list(self._once(key, lambda: self._store.edges_from(ids, kinds)))

    def edges_to(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        asked, kinds = tuple(ids), tuple(kinds)
        key = ("edges_to", asked, kinds)
        if key not in self._memo:
            self._memo[key] = self._store.edges_to(ids, kinds)
            if len(asked) > 1:
                self._unsplit.append((asked, kinds))
        return list(self._memo[key])

    def edges_to_each(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        """The edges of ``edges_to(ids, kinds)``, ID after ID in ``ids``'s
        order, each ID's as the store orders them: not the store's order of
        one read of them all (by file and line across the IDs), which a walk
        that keeps no path needs not (report/testplan.py ``select_tests``).
        Each ID's answer is taken from a read of many IDs made before (a
        walk's level: the callers of each changed symbol), else read with
        the others missing (``read_edges_to_each``)."""
        kinds = tuple(kinds)
        memo = self._memo
        if self._unsplit:
            for asked, asked_kinds in self._unsplit:
                found: dict[str | None, list[Edge]] = {
                    i: [] for i in asked if ("edges_to", (i,), asked_kinds) not in memo
                }
                if found:
                    for edge in memo[("edges_to", asked, asked_kinds)]:
                        edges = found.get(edge.target_id)
                        if edges is not None:
                            edges.append(edge)
                    memo.update((("edges_to", (i,), asked_kinds), edges) for i, edges in found.items())
            self._unsplit.clear()
        self.read_edges_to_each(ids, kinds)
        return [edge for i in dict.fromkeys(ids) for edge in memo[("edges_to", (i,), kinds)]]

    def unresolved_edges_named(
        self, names: Sequence[str], *, kinds: Sequence[str] = (), aliases: bool = False
    ) -> list[Edge]:
        key = ("unresolved_edges_named", tuple(names), tuple(kinds), aliases)
        read = lambda: self._store.unresolved_edges_named(names, kinds=kinds, aliases=aliases)  # noqa: E731
        return list(self._once(key, read))

    # Many one-key reads in one: the answer of ``edges_to([i], kinds)`` for
    # each ``i``, or of ``unresolved_edges_named([n], kinds=kinds)`` for each
    # ``n``, from one read of them all, split by key. Each is the store's own
    # answer to the one-key read: the store orders edges by columns of the
    # row alone (``edges_to`` by file, line and ID, ``unresolved_edges_named``
    # by ID, store/edges.py), never by the keys asked, so a key's rows keep
    # their order among the others'; the keys of a chunk of the read are
    # whole (report/build.py ``_read_at_once``: what ``_changed_symbol``
    # asked one symbol at a time).

    def read_edges_to_each(self, ids: Iterable[str], kinds: Sequence[str]) -> None:
        """``edges_to([i], kinds)`` of each of ``ids``, read at once."""
        kinds = tuple(kinds)
        self._split(
            ids, lambda i: ("edges_to", (i,), kinds), lambda asked: self._store.edges_to(asked, kinds), "target_id"
        )

    def read_edges_from_each(self, ids: Iterable[str], kinds: Sequence[str]) -> None:
        """``edges_from([i], kinds)`` of each of ``ids``, read at once (the
        store orders them by file, line and ID, as ``edges_to``)."""
        kinds = tuple(kinds)
        self._split(
            ids, lambda i: ("edges_from", (i,), kinds), lambda asked: self._store.edges_from(asked, kinds), "source_id"
        )

    def read_unresolved_each(self, names: Iterable[str], kinds: Sequence[str]) -> None:
        """``unresolved_edges_named([n], kinds=kinds)`` of each of ``names``, read at once."""
        kinds = tuple(kinds)
        self._split(
            names,
            lambda n: ("unresolved_edges_named", (n,), kinds, False),
            lambda asked: self._store.unresolved_edges_named(asked, kinds=kinds),
            "target_name",
        )

    def read_definitions_each(self, texts: Iterable[str]) -> None:
        """``definitions_named(t)`` of each of ``texts``, read at once (the
        store orders each text's rows by columns of the row alone)."""
        wanted = [t for t in dict.fromkeys(texts) if ("definitions_named", t) not in self._memo]
        if wanted:
            found = self._store.definitions_named_each(wanted)
            self._memo.update((("definitions_named", t), found[t]) for t in wanted)

    def read_members_each(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``members_named(parent, name)`` of each of ``pairs``, read at once:
        a pair's members are the rows of the read under its parent and name,
        in the read's order, which is ``members_named``'s."""
        wanted = [p for p in dict.fromkeys(pairs) if ("members_named", *p) not in self._memo]
        if not wanted:
            return
        found: dict[tuple[str | None, str], list[Symbol]] = {p: [] for p in wanted}
        for s in self._store.members_named_each(wanted):
            members = found.get((s.parent_id, s.name))
            if members is not None:
                members.append(s)
        self._memo.update((("members_named", *p), members) for p, members in found.items())

    def _split(
        self,
        keys: Iterable[str],
        key_of: Callable[[str], tuple[object, ...]],
        read: Callable[[list[str]], list[Edge]],
        field: str,
    ) -> None:
        """The one-key answers of ``keys`` not yet read, from one ``read`` of
        them all, each edge under the key its ``field`` holds."""
        wanted = [k for k in dict.fromkeys(keys) if key_of(k) not in self._memo]
        if not wanted:
            return
        found: dict[str, list[Edge]] = {k: [] for k in wanted}
        for edge in read(wanted):
            found[getattr(edge, field)].append(edge)
        self._memo.update((key_of(k), edges) for k, edges in found.items())
