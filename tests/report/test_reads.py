"""The store as one report reads it (report/reads.py): reads made ahead for
many keys at once answer each key as the store's own one-key read would, and
are what later reads get (the rows deleted after the read ahead are still
there for them); the walks read ahead are the walks made."""

from __future__ import annotations

from pathlib import Path

from cartog_ci import graph
from cartog_ci.report.inherited_tests import CollectedTests
from cartog_ci.report.reads import Reads
from cartog_ci.report.testplan import select_tests
from cartog_ci.store.tables import IN_CHUNK
from tests.testing.fixtures import commit, index, init_repo, open_store, write

SHAPES = {
    "app/__init__.py": "",
    "app/base.py": (
        "class Base:\n"
        "    def draw(self):\n        return self.area()\n\n"
        "    def area(self):\n        return 0\n\n"
        "    def name(self):\n        return 'base'\n\n\n"
        "class Mixin:\n    def area(self):\n        return -1\n"
    ),
    "app/shapes.py": (
        "from app.base import Base, Mixin\n\n\n"
        "class Square(Base, Mixin):\n"
        "    def area(self):\n        return 4\n\n"
        "    def side(self):\n        return 2\n\n\n"
        "class Tile(Square):\n"
        "    def area(self):\n        return 1\n\n"
        "    def area(self):  # defined again: the second one wins\n        return 2\n"
    ),
    "app/use.py": (
        "from app.shapes import Square\n\n\n"
        "def total():\n    return Square().area()\n\n\n"
        "def twice():\n    return total() * 2\n\n\n"
        "def thrice():\n    return twice() * 3\n"
    ),
    "tests/test_use.py": (
        "from app.use import thrice, total, twice\n\n\n"
        "def test_total():\n    assert total() == 4\n\n\n"
        "def test_twice():\n    assert twice() == 8\n\n\n"
        "def test_thrice():\n    assert thrice() == 24\n"
    ),
}
BASE = "app/base.py:class:Base"
MIXIN = "app/base.py:class:Mixin"
SQUARE = "app/shapes.py:class:Square"
TILE = "app/shapes.py:class:Tile"


def _indexed(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, SHAPES)
    commit(repo, "shapes")
    index(repo)
    return repo


def test_members_read_at_once_are_each_pairs_own(tmp_path: Path) -> None:
    repo = _indexed(tmp_path)
    pairs = [(BASE, "area"), (MIXIN, "area"), (SQUARE, "side"), (TILE, "area"), (SQUARE, "name"), (TILE, "nothing")]
    with open_store(repo) as store:
        own = {p: store.members_named(*p) for p in pairs}
        assert [s.id for s in own[(TILE, "area")]] == ["app/shapes.py:method:Tile.area", "app/shapes.py:method:Tile.area#2"]
        assert own[(SQUARE, "name")] == own[(TILE, "nothing")] == []
        reads = Reads(store)
        reads.read_members_each(pairs)
        # read ahead: what the store holds later is not read again
        with store.transaction():
            store.delete_symbols([s.id for p in pairs for s in own[p]])
        assert {p: reads.members_named(*p) for p in pairs} == own
        # (SQUARE, "area") was not asked: it is read when asked, from the store as it is now
        assert [s.id for s in reads.members_named(SQUARE, "area")] == ["app/shapes.py:method:Square.area"]
        assert store.members_named(BASE, "area") == []


def test_the_lookups_read_ahead_are_those_of_the_walk(tmp_path: Path) -> None:
    """``graph.override_lookups`` names the (base, name) pairs ``impact``'s
    first level looks up for a Python method: its class's ancestors, nearest
    first as the walk meets them."""
    repo = _indexed(tmp_path)
    with open_store(repo) as store:
        tile_area = store.symbol("app/shapes.py:method:Tile.area")
        square_side = store.symbol("app/shapes.py:method:Square.side")
        use = store.symbol("app/use.py:function:total")
        assert tile_area is not None and square_side is not None and use is not None
        assert graph.override_lookups(store, [tile_area, square_side, use]) == [
            (SQUARE, "area"), (BASE, "area"), (MIXIN, "area"), (BASE, "side"), (MIXIN, "side"),
        ]  # fmt: skip
        reads = Reads(store)
        reads.read_members_each(graph.override_lookups(store, [tile_area]))
        # Base.draw's self.area() may run Tile.area, which overrides Base.area
        walked = graph.impact(reads, [tile_area.id], depth=2, kinds=graph.CALLER_KINDS)
        assert [(n.symbol.id, n.depth, n.via) for n in walked] == [("app/base.py:method:Base.draw", 1, "override")]
        assert walked == graph.impact(store, [tile_area.id], depth=2, kinds=graph.CALLER_KINDS)


def test_symbols_held_by_files_read_whole(tmp_path: Path) -> None:
    repo = _indexed(tmp_path)
    with open_store(repo) as store:
        reads = Reads(store)
        asked = ["tests/test_use.py:function:test_twice", "app/use.py:function:total", "tests/test_use.py:function:gone"]
        assert reads.symbols_in_files_read(asked) == ({}, asked)  # nothing read yet: nothing held
        in_file = reads.symbols_in_file("tests/test_use.py")
        held, rest = reads.symbols_in_files_read(asked)
        assert held == {"tests/test_use.py:function:test_twice": in_file[2]}
        assert held == {k: v for k, v in store.symbols(asked).items() if k.startswith("tests/")}
        assert rest == ["app/use.py:function:total", "tests/test_use.py:function:gone"]


def test_the_tests_within_depth_alone(tmp_path: Path) -> None:
    """``select_tests(..., more=False)``: the same tests within the depth,
    without the walk's last level (test_thrice is 3 calls from total)."""
    repo = _indexed(tmp_path)
    with open_store(repo) as store:
        roots = ["app/use.py:function:total"]
        tests, more = select_tests(store, roots)
        assert ([t.name for t in tests], more) == (["test_total", "test_twice"], 1)
        assert select_tests(store, roots, more=False) == (tests, 0)
        # the tests of each symbol kept from one call for the next, as report/build.py asks twice
        collected = CollectedTests(store)
        assert select_tests(store, roots, collected=collected) == (tests, more)
        assert select_tests(store, roots, more=False, collected=collected) == (tests, 0)
        # as a report reads the store: its walks take the edges to a level in any order
        reads = Reads(store)
        assert select_tests(reads, roots) == (tests, more)
        assert select_tests(reads, roots, more=False) == (tests, 0)


def test_edges_to_each_id_are_the_stores_own_taken_from_reads_of_many(tmp_path: Path) -> None:
    """``edges_to_each``: ID after ID, each ID's edges in the store's order
    of a one-ID read, taken from a read of many IDs made before; the IDs no
    read met are read at once."""
    repo = _indexed(tmp_path)
    area, total, twice = "app/shapes.py:method:Square.area", "app/use.py:function:total", "app/use.py:function:twice"
    kinds = graph.CALLER_KINDS
    with open_store(repo) as store:
        ids = [twice, area, total, SQUARE, twice]
        own = {i: store.edges_to([i], kinds) for i in ids}
        assert own[area] and own[total] and own[twice]
        reads = Reads(store)
        assert reads.edges_to([total, area], kinds) == store.edges_to([total, area], kinds)
        read = set(reads._memo)
        assert reads.edges_to_each(ids, kinds) == [e for i in (twice, area, total, SQUARE) for e in own[i]]
        assert set(reads._memo) - read == {("edges_to", (i,), tuple(kinds)) for i in (twice, area, total, SQUARE)}
        # each ID's answer is the one-ID read's
        assert all(reads.edges_to([i], kinds) == own[i] for i in ids)


def test_definitions_read_at_once_are_each_texts_own(tmp_path: Path) -> None:
    """By full ID, else qualified name, else bare name, as one text's read."""
    repo = _indexed(tmp_path)
    texts = ["area", "Tile.area", "app/use.py:function:total", "nothing", "side"]
    with open_store(repo) as store:
        own = {t: store.definitions_named(t) for t in texts}
        assert own["area"] == [
            ("app/base.py", "Base.area", "method"), ("app/base.py", "Mixin.area", "method"),
            ("app/shapes.py", "Square.area", "method"), ("app/shapes.py", "Tile.area", "method"),
            ("app/shapes.py", "Tile.area", "method"),
        ]  # fmt: skip
        assert own["Tile.area"] == [("app/shapes.py", "Tile.area", "method")] * 2
        assert own["app/use.py:function:total"] == [("app/use.py", "total", "function")]
        assert own["nothing"] == []
        assert store.definitions_named_each(texts) == own
        reads = Reads(store)
        reads.read_definitions_each(texts)
        with store.transaction():
            store.delete_symbols(["app/shapes.py:method:Square.area", "app/use.py:function:total"])
        assert {t: reads.definitions_named(t) for t in texts} == own
        assert reads.definitions_named("Square.area") == []


def test_edges_from_read_at_once_are_each_ids_own(tmp_path: Path) -> None:
    repo = _indexed(tmp_path)
    ids = [SQUARE, TILE, BASE, "app/use.py:function:twice", "app/use.py:function:gone"]
    kinds = ("inherits",)
    with open_store(repo) as store:
        own = {i: store.edges_from([i], kinds) for i in ids}
        assert [(e.target_name, e.target_id) for e in own[SQUARE]] == [("Base", BASE), ("Mixin", MIXIN)]
        assert [(e.target_name, e.target_id) for e in own[TILE]] == [("Square", SQUARE)]
        assert own[BASE] == own["app/use.py:function:gone"] == []
        calls = {i: store.edges_from([i], ("calls",)) for i in ids}
        reads = Reads(store)
        reads.read_edges_from_each(ids, kinds)
        with store.transaction():
            store.delete_edges_of_files(["app/shapes.py", "app/use.py"])
        assert {i: reads.edges_from([i], kinds) for i in ids} == own
        # another kind was not read ahead: read now, from the store as it is
        assert calls["app/use.py:function:twice"] != []
        assert reads.edges_from(["app/use.py:function:twice"], ("calls",)) == []


def test_the_collected_tests_read_ahead_are_those_asked(tmp_path: Path) -> None:
    """``CollectedTests.read_ahead``: the classes of test methods and their
    ``inherits`` edges, each read as ``of`` asks it, and ``of``'s answers."""

    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "tests/__init__.py": "",
        "tests/mixins.py": "class CheckMixin:\n    def test_check(self):\n        assert True\n",
        "tests/test_it.py": (
            "import unittest\n\nfrom tests.mixins import CheckMixin\n\n\n"
            "class ItTest(CheckMixin, unittest.TestCase):\n    def test_own(self):\n        assert True\n"
        ),
    })  # fmt: skip
    commit(repo, "tests")
    index(repo)
    check, own = "tests/mixins.py:method:CheckMixin.test_check", "tests/test_it.py:method:ItTest.test_own"
    with open_store(repo) as store:
        asked = list(store.symbols([check, own]).values())
        answers = [[t.id for t in CollectedTests(store).of(s)] for s in asked]
        assert answers == [["tests/test_it.py:method:ItTest.test_check"], [own]]
        reads = Reads(store)
        collected = CollectedTests(reads)
        collected.read_ahead(asked)
        mixin, case = "tests/mixins.py:class:CheckMixin", "tests/test_it.py:class:ItTest"
        memo = reads._memo
        assert {k for k in memo if k[0] == "symbol"} == {("symbol", mixin), ("symbol", case)}
        assert {k for k in memo if k[0] in ("edges_to", "edges_from")} == {
            ("edges_to", (mixin,), ("inherits",)), ("edges_to", (case,), ("inherits",)),
            ("edges_from", (case,), ("inherits",)),
        }  # fmt: skip
        # the mixin's bases are asked only under a test (a test file's method): none here
        assert [[t.id for t in collected.of(s)] for s in asked] == answers
        # asked again: the same answer, read once
        read = len(memo)
        assert [[t.id for t in collected.of(s)] for s in asked] == answers and len(memo) == read


def test_symbols_by_id_after_other_reads_are_the_stores_answer_in_its_order(tmp_path: Path) -> None:
    # Reads.symbols reads only the IDs no read met (a file read whole, a
    # symbol, symbols asked before) and answers in the store's order: by ID
    # within each chunk of the IDs asked (store/tables.py IN_CHUNK)
    repo = init_repo(tmp_path / "repo")
    write(repo, {**SHAPES, "app/many.py": "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(1200))})
    commit(repo, "shapes")
    index(repo)
    with open_store(repo) as store:
        every = [s.id for s in store.all_symbols()]
        assert len(every) > 2 * IN_CHUNK
        asks = [
            list(reversed(every)),
            every[::2] + ["app/nowhere.py:function:f"] + every[1::2],
            [TILE, BASE, TILE, SQUARE],
            (every * 3)[::-7],  # more IDs than a chunk, repeated
        ]
        reads = Reads(store)
        reads.symbols_in_file("app/shapes.py")
        reads.symbol(MIXIN)
        reads.symbols(every[:3])
        for asked in asks:
            expected = store.symbols(asked)
            got = reads.symbols(asked)
            assert list(got.items()) == list(expected.items())
