"""The report's sides cache (report/side_cache.py, store/side_rows.py): a
second report of the same bytes reads the merge-base's extraction and the
head's code hashes from the index, and its change set is the one reading
them again gives."""

from __future__ import annotations

import json
import marshal
import sys
from pathlib import Path
from typing import Any

from cartog_ci import workspace
from cartog_ci.domain.results import ChangeSet, Comparison
from cartog_ci.index.files import Limits
from cartog_ci.report import sides
from cartog_ci.report.diff import compute_change
from tests.report.test_head_from_index import BASE, HEAD
from tests.testing.fixtures import commit, index, init_repo, open_store, sql_rows, write


def _change(repo: Path, comparison: Comparison, *, cached: bool = True) -> ChangeSet:
    """The change set on the index; ``cached=False``: its cache emptied first."""
    ws = workspace.locate(str(repo), None)
    limits = Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms)
    with open_store(repo) as opened:
        if not cached:
            with opened.transaction():
                opened.db.execute("DELETE FROM report_sides")  # type: ignore[attr-defined]
        return compute_change(repo, comparison, limits=limits, store=opened)


def _said(cs: ChangeSet) -> tuple[object, ...]:
    """Everything a change set holds that the report reads."""
    return (cs.changes, cs.base_files, cs.head_files, cs.base_sources, cs.head_sources, cs.skipped, cs.unparsed)


def _rows(repo: Path) -> list[tuple[object, ...]]:
    with open_store(repo) as store:
        return sql_rows(store, "SELECT side, path FROM report_sides ORDER BY side, path")


def _row(repo: Path, side: str, path: str) -> Any:
    """A row as written; a base row (``marshal`` of tuples) by part, its records as lists."""
    with open_store(repo) as store:
        [(data,)] = sql_rows(store, "SELECT data FROM report_sides WHERE side = ? AND path = ?", (side, path))
    if side != "base":
        return json.loads(str(data))
    assert isinstance(data, bytes)
    state, found, symbols, hashes, edges = marshal.loads(data)
    return {
        "state": state, "found": found, "symbols": [list(s) for s in symbols], "hashes": hashes,
        "edges": [list(e) for e in edges],
    }  # fmt: skip


def _put_row(repo: Path, side: str, path: str, row: dict[str, Any]) -> None:
    data: str | bytes = json.dumps(row)
    if side == "base":
        parts = (row["state"], row["found"], tuple(map(tuple, row["symbols"])), row["hashes"])
        data = marshal.dumps((*parts, tuple(map(tuple, row["edges"]))))
    with open_store(repo) as store, store.transaction():
        store.db.execute(  # type: ignore[attr-defined]
            "UPDATE report_sides SET data = ? WHERE side = ? AND path = ?", (data, side, path)
        )


def _hashed(row: dict[str, Any]) -> set[str]:
    """The IDs of a base row's symbols with a code hash."""
    return {row["symbols"][i][0] for i in row["hashes"]}


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit(repo, "base")
    write(repo, HEAD)
    commit(repo, "head")
    index(repo)
    return repo


def test_a_second_report_reads_both_sides_from_the_cache(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    comparison = sides.choose(repo, base="HEAD~1")
    assert _rows(repo) == []
    first = _change(repo, comparison)
    # the merge-base's side of the tags extractor's files (not Markdown's),
    # the head's code hashes of the files with a symbol whose content
    # changed, and what the head's grammar reads of a file with a removal
    assert _rows(repo) == [
        ("base", "app/calc.py"), ("base", "web/shape.ts"), ("head", "app/calc.py"), ("head", "web/shape.ts"),
        ("unread", "app/calc.py"),
    ]  # fmt: skip
    assert _row(repo, "unread", "app/calc.py") == []
    head = _row(repo, "head", "app/calc.py")
    assert sorted(head) == [
        "app/calc.py:function:changed", "app/calc.py:function:documented", "app/calc.py:function:helper",
        "app/calc.py:function:widened", "app/calc.py:method:Box.size",
    ]  # fmt: skip
    second = _change(repo, comparison)
    assert _said(second) == _said(first)
    assert _said(second) == _said(_change(repo, comparison, cached=False))
    # what the second report read was the cache's: a row changed by hand is what it says
    row = _row(repo, "base", "app/calc.py")
    symbols = row["symbols"]
    assert isinstance(symbols, list)
    gone = next(s for s in symbols if s[0] == "app/calc.py:function:gone")
    gone[10] = "gone(cached)"  # its signature
    _put_row(repo, "base", "app/calc.py", row)
    removed = next(c.old for c in _change(repo, comparison).changes if c.category == "removed")
    assert removed is not None and removed.signature == "gone(cached)"


def test_a_row_of_other_bytes_or_another_extractor_is_not_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    comparison = sides.choose(repo, base="HEAD~1")
    expected = _said(_change(repo, comparison))
    row = _row(repo, "base", "app/calc.py")
    symbols = row["symbols"]
    assert isinstance(symbols, list)
    next(s for s in symbols if s[0] == "app/calc.py:function:gone")[10] = "gone(cached)"
    _put_row(repo, "base", "app/calc.py", row)
    with open_store(repo) as store, store.transaction():
        store.set_meta("extractor", "another extractor")
    assert _said(_change(repo, comparison)) == expected
    # read again, the file's row is replaced (one row a file and side)
    assert "gone(cached)" not in repr(_row(repo, "base", "app/calc.py"))
    assert _rows(repo).count(("base", "app/calc.py")) == 1


def test_a_row_without_a_code_hash_asked_for_reads_the_file_again(tmp_path: Path) -> None:
    """The merge-base's code hashes are those of the symbols whose content
    the head changed: another head asks for others, the file is read again,
    and its row holds the code hashes of both."""
    repo = _repo(tmp_path)
    first = sides.choose(repo, base="HEAD~1")
    _change(repo, first)
    hashed = _hashed(_row(repo, "base", "app/calc.py"))
    assert "app/calc.py:function:gone" not in hashed
    write(repo, {"app/calc.py": BASE["app/calc.py"].replace("return 0", "return 1")})
    commit(repo, "another head")
    index(repo)
    other = sides.choose(repo, base="HEAD~2")
    found = _said(_change(repo, other))
    now = _hashed(_row(repo, "base", "app/calc.py"))
    assert now == hashed | {"app/calc.py:function:gone"}
    assert found == _said(_change(repo, other, cached=False))


def test_what_the_head_s_grammar_cannot_read_is_cached_a_source(tmp_path: Path) -> None:
    """The head's unreadable spans (report/diff.py ``unreadable_spans``) of a
    file with removed definitions: read from the cache by the next report
    (redux-toolkit 2.2.7's types.ts, as tests/report/test_trust.py has it)."""
    signature = "  <P extends Base<S>>(\n    predicate: P,{}\n  ): Out<S, P>\n"
    pattern = "export interface TakePattern<S> {{\n{}}}\n\n".format(
        "".join(signature.format(t) for t in ("", "\n    timeout: number,", "\n    timeout?: number | undefined,"))
    )
    options = "export interface Options {\n  cancel?: true\n}\n"
    repo = init_repo(tmp_path / "repo")
    write(repo, {"types.ts": options})
    commit(repo, "base")
    write(repo, {"types.ts": pattern + options})
    commit(repo, "call signatures")
    index(repo)
    comparison = sides.choose(repo, base="HEAD~1")
    first = _change(repo, comparison)
    assert first.unread == [("types.ts", 5, 17, 1)]
    assert [c.category for c in first.changes if c.old is not None and c.old.name == "Options"] == []
    spans = _row(repo, "unread", "types.ts")
    assert spans == [list(s) for s in first.unread_spans["types.ts"]]
    assert spans
    second = _change(repo, comparison)
    assert (second.unread, second.unread_spans, second.changes) == (first.unread, first.unread_spans, first.changes)
    # read from the cache: a row saying the grammar reads it all is believed
    with open_store(repo) as store, store.transaction():
        store.db.execute("UPDATE report_sides SET data = '[]' WHERE side = 'unread'")  # type: ignore[attr-defined]
    third = _change(repo, comparison)
    assert third.unread == []
    assert [c.category for c in third.changes if c.old is not None and c.old.name == "Options"] == ["removed"]


def test_a_row_this_version_cannot_read_is_read_again_from_the_file(tmp_path: Path) -> None:
    """A row laid out otherwise (another version's, a symbol of more fields)
    under a matching key is a miss: the report reads the file again, as
    without a cache, and the row is replaced."""
    repo = _repo(tmp_path)
    comparison = sides.choose(repo, base="HEAD~1")
    expected = _said(_change(repo, comparison, cached=False))
    row = _row(repo, "base", "app/calc.py")
    for symbol in row["symbols"]:
        symbol.append("a field this version has not")
    _put_row(repo, "base", "app/calc.py", row)
    with open_store(repo) as store, store.transaction():
        store.db.execute(  # type: ignore[attr-defined]
            "UPDATE report_sides SET data = ? WHERE side = 'head' AND path = 'web/shape.ts'", ('["not", "hashes"]',)
        )
        store.db.execute("UPDATE report_sides SET data = '{\"spans\": 1}' WHERE side = 'unread'")  # type: ignore[attr-defined]
    assert _said(_change(repo, comparison)) == expected
    assert all(len(s) == len(row["symbols"][0]) - 1 for s in _row(repo, "base", "app/calc.py")["symbols"])
    assert _said(_change(repo, comparison)) == expected
    # a base row cut short, and one of JSON text (the layout before ``marshal``)
    with open_store(repo) as store, store.transaction():
        [(data,)] = sql_rows(store, "SELECT data FROM report_sides WHERE side = 'base' AND path = 'app/calc.py'")
        assert isinstance(data, bytes)
        cut = "UPDATE report_sides SET data = ? WHERE side = 'base' AND path = ?"
        store.db.execute(cut, (data[:-7], "app/calc.py"))  # type: ignore[attr-defined]
        store.db.execute(cut, (json.dumps(_row(repo, "base", "web/shape.ts")), "web/shape.ts"))  # type: ignore[attr-defined]
    assert _said(_change(repo, comparison)) == expected
    assert _row(repo, "base", "app/calc.py")["symbols"] == [s[:-1] for s in row["symbols"]]
    assert _row(repo, "base", "web/shape.ts")["symbols"]


def test_the_key_names_the_rows_layout_and_the_records_fields(tmp_path: Path) -> None:
    """The extractor's fingerprint covers parse/, languages/, index/: a
    version whose rows or records differ in report/ or domain/ alone keys
    its rows otherwise."""
    from cartog_ci.report import side_cache

    repo = _repo(tmp_path)
    with open_store(repo) as store:
        cache = side_cache.side_cache(store, Limits(1000, 1000))
        assert cache is not None
        generation = json.loads(cache.generation)
    # a base row is ``marshal``'s, whose format is one interpreter's
    assert generation[3:] == [side_cache._FORMAT, side_cache._NAMES, side_cache._EDGE_NAMES, sys.implementation.cache_tag]
    assert "code_hash" in generation[4] and "target_name" in generation[5]


def test_a_row_of_edges_of_other_fields_is_read_again_from_the_file(tmp_path: Path) -> None:
    """The rows are made records without their ``__init__`` (store/records.py),
    which would take the first fields of a longer edge: such a row is a miss
    as a symbol of more fields is."""
    repo = _repo(tmp_path)
    comparison = sides.choose(repo, base="HEAD~1")
    expected = _said(_change(repo, comparison, cached=False))
    row = _row(repo, "base", "app/calc.py")
    assert row["edges"]
    for edge in row["edges"]:
        edge.append("a field this version has not")
    _put_row(repo, "base", "app/calc.py", row)
    assert _said(_change(repo, comparison)) == expected
    assert all(len(e) == len(row["edges"][0]) - 1 for e in _row(repo, "base", "app/calc.py")["edges"])
