"""Which tests the report's commands run (docs/report.md, "Tests to run"):
the tests within ``TEST_DEPTH`` callers of the change, how many more one
level further, and whether a changed symbol's own tests are among those the
commands run (such a symbol is never "untested")."""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from cartog_ci import graph
from cartog_ci.domain import Edge, Symbol
from cartog_ci.languages import is_test
from cartog_ci.report.fixture_tests import is_set_up, set_up_tests
from cartog_ci.report.inherited_tests import CollectedTests
from cartog_ci.report.reads import Reads

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# Tests this many callers away from a changed symbol are run; those one
# level further are counted ("N more at depth 3").
TEST_DEPTH = 2


def select_tests(
    store: Store,
    ids: Sequence[str],
    *,
    depth: int = TEST_DEPTH,
    call_sites: Sequence[str] = (),
    more: bool = True,
    collected: CollectedTests | None = None,
) -> tuple[list[Symbol], int]:
    """(the tests within ``depth`` of the symbols ``ids``, how many more
    tests are at ``depth + 1``). A changed test is itself a test to run
    (depth 0); ``call_sites`` are symbols at depth 1 (the sources of broken
    references: they called a removed symbol). Callers are those of the
    report (``graph.CALLER_KINDS``), each at its shortest depth; tests come
    sorted by file and line. ``more=False``: the tests within ``depth``
    alone, 0 for the count (the walk stops a level sooner: the level past
    ``depth`` chooses no test within it, through a set-up or a call site
    neither, each of which sets a depth of its own). ``collected``: the
    tests of each symbol found so far, for a second call on the same store
    (report/build.py asks again for the tests the edited ones leave)."""
    roots = list(dict.fromkeys(ids))
    depth_of: dict[str, int] = {}
    found: dict[str, Symbol] = {}
    # a test method of a mixin runs in the test classes that inherit it (report/inherited_tests.py)
    if collected is None:
        collected = CollectedTests(store)
    changed = store.symbols(roots).values()
    walks = _AnyOrder(store) if isinstance(store, Reads) else store
    reached = graph.impact(walks, roots, depth=depth + 1 if more else depth, kinds=graph.CALLER_KINDS)
    collected.read_ahead([*changed, *(node.symbol for node in reached)])
    for s in changed:
        for t in collected.of(s):
            depth_of.setdefault(t.id, 0)
            found.setdefault(t.id, t)
    set_ups: dict[str, tuple[Symbol, int]] = {}
    for node in reached:
        tests = collected.of(node.symbol)
        for t in tests:
            if t.id not in depth_of:
                depth_of[t.id], found[t.id] = node.depth, t
        if not tests and node.depth <= depth and is_set_up(node.symbol) and node.symbol.id not in set_ups:
            set_ups[node.symbol.id] = (node.symbol, node.depth)
    # a set-up that calls the change runs it before each test of its class
    # (tzinfo's `setup` builds the changed RubyDataSource for 36 tests)
    for setup_id, tests_of in set_up_tests(store, [s for s, _ in set_ups.values()]).items():
        below = set_ups[setup_id][1] + 1
        for t in tests_of:
            if depth_of.get(t.id, depth + 2) > below:
                depth_of[t.id], found[t.id] = below, t
    sources = [s for s in dict.fromkeys(call_sites) if s not in roots]
    if sources:
        for s in store.symbols(sources).values():
            for t in collected.of(s):
                if depth_of.get(t.id, 2) > 1:
                    depth_of[t.id], found[t.id] = 1, t
        for node in graph.impact(walks, sources, depth=depth, kinds=graph.CALLER_KINDS):
            for t in collected.of(node.symbol):
                if depth_of.get(t.id, depth + 2) > node.depth + 1:
                    depth_of[t.id], found[t.id] = node.depth + 1, t
    within = sorted((found[i] for i, d in depth_of.items() if d <= depth), key=lambda s: (s.file, s.start_line, s.id))
    return within, sum(1 for d in depth_of.values() if d == depth + 1)


class _AnyOrder:
    """The store as ``select_tests`` walks it: the edges to a level of the
    walk in any order (``Reads.edges_to_each``: from the reads of each
    changed symbol's own walk, report/build.py). What it keeps of a walk is
    each node's depth, which the order of a level's edges does not change
    (only which path reaches a node first), and the tests it then finds
    come out by depth, then sorted by file and line."""

    def __init__(self, store: Reads) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def edges_to(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        return self._store.edges_to_each(ids, kinds)


_WORD = re.compile(r"[^a-z0-9]")


def _norm(text: str) -> str:
    lowered = text.lower()
    plain = lowered.replace("_", "")
    # most names: ASCII letters, digits and underscores, whose letters are
    # lowercase now (the pattern's substitution, 1.5 us a name, is 5x this)
    return plain if plain.isascii() and plain.isalnum() else _WORD.sub("", lowered)


class RanTests:
    """The tests the commands run, with the normalised names ``own_tests``
    compares (computed once for all the changed symbols)."""

    def __init__(self, ran: Iterable[Symbol]) -> None:
        self.by_id = {t.id: t for t in ran}
        # the class and file of a test, normalised once for all their tests
        # (Django 5.1 -> 5.1.4 HEAD~10: 2,849 tests in 356 classes and files)
        places: dict[tuple[str, str], str] = {}
        self.named = []
        for t in self.by_id.values():
            key = (t.qualified_name.rpartition(".")[0], t.file)
            place = places.get(key)
            if place is None:
                place = places[key] = _norm(key[0]) + " " + _norm(posixpath.basename(t.file))
            self.named.append((t, _norm(t.name), place))
        # the names one after another, where ``containing`` finds a name by
        # str.find (Django 5.1 -> 5.1.4 HEAD~10: not a Python loop over the
        # 2,849 tests for each of the changed symbols no test reaches); no
        # match spans two, as no normalised name holds the newline between them
        self._text = "\n".join(name for _, name, _ in self.named)
        self._starts: list[int] = []
        start = 0
        for _, name, _ in self.named:
            self._starts.append(start)
            start += len(name) + 1

    def containing(self, name: str) -> Iterator[tuple[Symbol, str]]:
        """(test, its place) of each test whose normalised name holds
        ``name`` (normalised, not empty), in ``named`` order."""
        text, starts = self._text, self._starts
        at = text.find(name)
        while at != -1:
            k = bisect_right(starts, at) - 1
            test, _, place = self.named[k]
            yield test, place
            if k + 1 == len(starts):
                return
            at = text.find(name, starts[k + 1])


def own_tests(store: Store, symbol: Symbol, ran: Iterable[Symbol] | RanTests) -> list[Symbol]:
    """The tests among ``ran`` (those the commands run) that are
    ``symbol``'s own, even where the graph has no edge from them:

    - a call of its name that the graph could not resolve (``d.flush()`` on
      a receiver of unknown type), or
    - a test named after it (``test_flush``, ``TestFlush``, ``testFlush``)
      in a test file or class named after its class or its module
      (``test_dispatcher.py``, ``TestEventDispatcher``, ``dispatcher_test.go``).

    A changed symbol with own tests in the commands is not "untested"."""
    index = ran if isinstance(ran, RanTests) else RanTests(ran)
    tests = index.by_id
    if not tests:
        return []
    out: dict[str, Symbol] = {}
    for edge in store.unresolved_edges_named([symbol.name], kinds=("calls",)):
        if edge.resolution is None and edge.source_id in tests:
            out[edge.source_id] = tests[edge.source_id]
    name = _norm(symbol.name)
    parts = symbol.qualified_name.split(".")
    owner = _norm(parts[-2]) if len(parts) > 1 else ""
    stem = _norm(posixpath.splitext(posixpath.basename(symbol.file))[0])
    if len(name) >= 3:
        for t, places in index.containing(name):
            if t.id not in out and ((owner and owner in places) or (stem and stem in places)):
                out[t.id] = t
    return sorted(out.values(), key=lambda s: (s.file, s.start_line, s.id))
