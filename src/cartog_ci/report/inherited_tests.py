"""Test methods run as members of the test classes that inherit them
(docs/report.md, "Tests to run").

pytest collects a class's test methods where the class is collected: a
``Test…`` class (its default ``python_classes``) or a ``unittest.TestCase``
subclass, each with the methods it inherits. A test method of a mixin that
is neither (cachetools 8.0.2: ``MethodDecoratorTestMixin.test_decorator``,
inherited by ``CacheMethodTest`` and ``DictMethodTest``) runs as
``tests/test_cachedmethod.py::CacheMethodTest::test_decorator`` and
``…::DictMethodTest::test_decorator``; the mixin's own node ID is "not
found", an error that makes pytest run none of the IDs it was given. A
mixin outside a test module (cachetools' ``tests/__init__.py``
``CacheTestMixin``) holds tests too: those of the test classes that
inherit it.

A copy's ID is the one a recording gives the inherited test
(report/coverage.py ``TestNames._collected``): ``path:method:Class.test``,
placed at its class, so the graph, the import rule and the recording
name the same test alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.languages import is_test
from cartog_ci.report.reads import Reads

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# unittest's and the frameworks' built on it (django.test.TestCase,
# IsolatedAsyncioTestCase, SimpleTestCase): a base named so, outside the index
_TEST_CASE = "TestCase"


class CollectedTests:
    """The tests pytest runs for a symbol, read once per class."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._collected: dict[str, bool] = {}
        self._below: dict[str, list[Symbol]] = {}
        self._members: dict[str, set[str]] = {}
        self._of: dict[str, list[Symbol]] = {}

    def read_ahead(self, symbols: Iterable[Symbol]) -> None:
        """What ``of`` reads first of each of ``symbols``, one read for them
        all (report/reads.py) instead of one each: the classes of the test
        methods, the ``inherits`` edges to each (its subclasses' first
        level) and, under a test, from each (is it collected?). Django
        5.1 -> 5.1.4 HEAD~10: 89 reads of a class, 112 and 142 of its
        edges."""
        if not isinstance(self.store, Reads):
            return
        methods = [s for s in symbols if _maybe_inherited(s)]
        owners = self.store.symbols(sorted({s.parent_id for s in methods if s.parent_id}))
        classes = {i for i, owner in owners.items() if owner.kind == "class"}
        self.store.read_edges_to_each(sorted(classes), ("inherits",))
        tested = {s.parent_id for s in methods if s.parent_id in classes and is_test(s)}
        self.store.read_edges_from_each(sorted(i for i in tested if i is not None), ("inherits",))

    def of(self, symbol: Symbol) -> list[Symbol]:
        """``symbol`` itself when it is a test of a class pytest collects
        (or a test function); a Python ``test…`` method also as a member of
        each collected test class that inherits its class without
        redefining it (``path:method:Class.test``); none for another
        symbol. Asked once a symbol: a report's walks meet the same ones."""
        found = self._of.get(symbol.id)
        if found is None:
            found = self._of[symbol.id] = self._tests_of(symbol)
        return found

    def _tests_of(self, symbol: Symbol) -> list[Symbol]:
        if not _maybe_inherited(symbol):
            return [symbol] if is_test(symbol) else []
        owner = self.store.symbol(symbol.parent_id) if symbol.parent_id else None
        if owner is None or owner.kind != "class":
            return [symbol] if is_test(symbol) else []
        out = [symbol] if is_test(symbol) and self._is_collected(owner) else []
        for cls in self._subclasses(owner):
            if symbol.name in self._defined(cls) or not self._is_collected(cls):
                continue
            copy = Symbol(
                f"{cls.file}:method:{cls.qualified_name}.{symbol.name}", symbol.name, f"{cls.qualified_name}.{symbol.name}",
                "method", cls.file, cls.start_line, cls.start_line, 0, 0, cls.id, "", cls.language, "", "",
            )  # fmt: skip
            if is_test(copy):
                out.append(copy)
        return out

    def _is_collected(self, cls: Symbol) -> bool:
        """pytest's default ``python_classes`` (``Test`` prefix), or a
        ``TestCase`` among its bases, through the index's classes."""
        if cls.id not in self._collected:
            self._collected[cls.id] = False  # a cycle of bases is no TestCase
            found = cls.name.startswith("Test")
            for edge in self.store.edges_from([cls.id], ("inherits",)):
                if found:
                    break
                base = self.store.symbol(edge.target_id) if edge.target_id else None
                if base is None:
                    found = edge.target_name.endswith(_TEST_CASE)
                elif base.kind == "class":
                    found = self._is_collected(base) or base.name.endswith(_TEST_CASE)
            self._collected[cls.id] = found
        return self._collected[cls.id]

    def _subclasses(self, cls: Symbol) -> list[Symbol]:
        """The classes that inherit ``cls``, through the resolved
        ``inherits`` edges, nearest first."""
        if cls.id not in self._below:
            seen, frontier, out = {cls.id}, [cls.id], []
            while frontier:
                ids = sorted({e.source_id for e in self.store.edges_to(frontier, ("inherits",))} - seen)
                seen.update(ids)
                found = self.store.symbols(ids)
                level = sorted((s for s in found.values() if s.kind == "class"), key=lambda s: (s.file, s.start_line, s.id))
                out += level
                frontier = [s.id for s in level]
            self._below[cls.id] = out
        return self._below[cls.id]

    def _defined(self, cls: Symbol) -> set[str]:
        """The names of the methods ``cls`` defines itself."""
        if cls.id not in self._members:
            self._members[cls.id] = {
                s.name for s in self.store.symbols_in_file(cls.file) if s.parent_id == cls.id and s.kind == "method"
            }
        return self._members[cls.id]


def _maybe_inherited(symbol: Symbol) -> bool:
    """A Python ``test…`` method: one a subclass may inherit and run."""
    return symbol.language == "python" and symbol.kind == "method" and symbol.name.startswith("test")
