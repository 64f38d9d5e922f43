"""Bytes flipped inside a record (store/checksum.py): SQLite's page checks
pass them, the file's checksum does not. Any command that opens the file
says so in one line, moves it aside, rebuilds it and answers as on a good
index; without a checksum (an older index) text that no longer decodes is
damage too, never a traceback. A checksum is cleared by the write that
changes the file and written when the writer closes; an unchanged file is
not read again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import apsw
import pytest

from cartog_ci.cli import main
from cartog_ci.store import checksum
from cartog_ci.store.sqlite import SqliteStore
from tests.robustness.test_index_faults import pristine  # noqa: F401 - the fixture: a repository, a good index of it

DOCSTRING = b"Shop package: re-exports the public API."


def _cli(capsys: pytest.CaptureFixture[str], repo: Path, db: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--repo", str(repo), "--index", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def _in_table(db: Path, table: str, needle: bytes) -> int:
    """The file offset of ``needle`` in one of ``table``'s own pages."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
    finally:
        conn.close()
    data = db.read_bytes()
    for page in pages:
        found = data.find(needle, (page - 1) * size, page * size)
        if found >= 0:
            return found
    raise AssertionError(f"{needle!r} not in {table}")


def _set(db: Path, offset: int, value: bytes) -> None:
    with db.open("r+b") as fh:
        fh.seek(offset)
        fh.write(value)


def _unstamp(db: Path) -> None:
    conn = apsw.Connection(str(db))
    try:
        conn.execute("PRAGMA user_version = 0; PRAGMA application_id = 0")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _notice(db: Path, reason: str) -> str:
    return f"cartog-ci: index {db} was unusable ({reason}); rebuilding it (old file kept as index.db.unusable)\n"


CHECKSUM = "its bytes differ from the checksum written with them: damaged on disk or in transit"


def test_an_index_run_leaves_its_file_stamped(pristine: tuple[Path, Path]) -> None:
    stored, computed = checksum.digest(pristine[1])
    assert stored == computed != 0


@pytest.mark.parametrize("command", [("refs", "persist", "--json"), ("export", "--json"), ("index", "--no-embed")])
def test_a_path_changed_inside_a_record_is_caught_before_any_answer(
    command: tuple[str, ...], pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One letter of a stored path changed (``base.py`` -> ``case.py``):
    SQLite's quick_check passes it; the checksum does not."""
    repo, good = pristine
    expected = _cli(capsys, repo, good, *command)
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    _set(db, _in_table(db, "files", b"shop/models/base.py") + len("shop/models/"), b"c")
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    code, out, err = _cli(capsys, repo, db, *command)
    assert err == _notice(db, CHECKSUM)
    assert code == 0
    if command[0] != "index":  # its own line has timings
        assert out == expected[1]
    assert checksum.damage(db) is None
    assert _cli(capsys, repo, db, "refs", "persist", "--json")[1] == _cli(capsys, repo, good, "refs", "persist", "--json")[1]


def test_undecodable_text_in_an_unstamped_index_is_damage(
    pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index without a checksum (an older cartog-ci's): a docstring
    byte that no longer decodes as UTF-8 is met by `export` — one notice,
    rebuilt, the good answer, no crash log."""
    repo, good = pristine
    expected = _cli(capsys, repo, good, "export", "--json")
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    _unstamp(db)
    _set(db, _in_table(db, "symbol_rows", DOCSTRING) + 4, b"\xff")
    code, out, err = _cli(capsys, repo, db, "export", "--json")
    assert err == _notice(db, "text that does not decode (invalid start byte at byte 4)")
    assert (code, json.loads(out)) == (0, json.loads(expected[1]))


def test_a_write_clears_the_checksum_and_the_writer_stamps_it_when_it_closes(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    store = SqliteStore(db)
    try:
        with store.transaction():
            store.set_meta("note", "written")
        # a run killed now leaves no stale checksum, only a log: nothing to check
        assert checksum.damage(db) is None
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
        finally:
            conn.close()
    finally:
        store.close()
    stored, computed = checksum.digest(db)
    assert stored == computed != 0
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0


def test_an_unchanged_file_is_not_read_again(pristine: tuple[Path, Path], tmp_path: Path) -> None:
    """Both sides: a note of the file's identity is trusted (a flip made
    behind a forged note goes unread), and any write to the file makes it
    read again (the flip is caught)."""
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    assert checksum.damage(db) is None  # read in full, and noted
    _set(db, _in_table(db, "files", b"shop/models/base.py"), b"S")
    assert checksum.damage(db) == CHECKSUM
    stored, _ = checksum.digest(db)
    st = db.stat()
    Path(f"{db}.checked").write_text(f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {stored}\n")
    assert checksum.damage(db) is None


def test_a_writer_that_meets_undecodable_text_stamps_nothing_and_rebuilds(
    pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`index` reads the stored symbols of a file it re-parses: a docstring
    that no longer decodes fails its run, which then leaves no checksum
    vouching for the damaged file; the command line moves it aside and the
    run, done again on a new file, succeeds."""
    repo = tmp_path / "repo"
    shutil.copytree(pristine[0], repo)
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    _unstamp(db)
    _set(db, _in_table(db, "symbol_rows", DOCSTRING) + 4, b"\xff")
    init = repo / "shop" / "__init__.py"
    init.write_text(init.read_text() + "\n\ndef added():\n    return 1\n")
    code, _, err = _cli(capsys, repo, db, "index", "--no-embed")
    assert (code, err) == (0, _notice(db, "text that does not decode (invalid start byte at byte 4)"))
    stored, computed = checksum.digest(db)
    assert stored == computed != 0
    assert _cli(capsys, repo, db, "refs", "added", "--json")[0] == 0


def test_a_store_whose_transaction_failed_stamps_nothing(pristine: tuple[Path, Path], tmp_path: Path) -> None:
    """A failed transaction (what it met may have been damage) leaves the
    file without a checksum rather than one vouching for what it read."""
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    store = SqliteStore(db)
    with pytest.raises(RuntimeError), store:
        with store.transaction():
            store.set_meta("note", "written")
        with store.transaction():
            raise RuntimeError("met damage")
    assert checksum.digest(db)[0] == 0


def test_a_compact_copy_for_the_cache_carries_a_checksum_of_its_own(pristine: tuple[Path, Path], tmp_path: Path) -> None:
    """``VACUUM INTO`` copies the header's values (the checksum) over other
    bytes: a plain copy reads as damaged, ``compact``'s (action.yml's Pack
    step) as sound, and it answers as the original."""
    plain, compacted = tmp_path / "plain.db", tmp_path / "compact.db"
    conn = apsw.Connection(str(pristine[1]), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.execute("VACUUM INTO ?", (str(plain),))
    finally:
        conn.close()
    assert checksum.damage(plain) == CHECKSUM
    checksum.compact(pristine[1], compacted)
    assert checksum.damage(compacted) is None
    with SqliteStore(compacted, rebuild=False) as a, SqliteStore(pristine[1], rebuild=False) as b:
        assert a.all_symbols() == b.all_symbols()


def _stamp_whole(db: Path, algorithm: str) -> int:
    """The file stamped as cartog-ci stamped it before the sum of pages: the
    first 64 bits of SHA-1, or "crc1" and CRC-32, over the whole file, the
    header's checksum and counters masked."""
    import hashlib
    import zlib

    head = bytearray(db.read_bytes())
    for start, end in ((24, 28), (60, 64), (68, 72), (92, 100)):
        head[start:end] = bytes(end - start)
    if algorithm == "sha1":
        value = int.from_bytes(hashlib.sha1(bytes(head)).digest()[:8], "big") or 1
    else:
        value = (0x63726331 << 32) | zlib.crc32(bytes(head))
    conn = apsw.Connection(str(db))
    try:
        high, low = value >> 32, value & 0xFFFFFFFF
        conn.execute(f"PRAGMA user_version = {high - (1 << 32) if high >= 1 << 31 else high}")
        conn.execute(f"PRAGMA application_id = {low - (1 << 32) if low >= 1 << 31 else low}")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return value


@pytest.mark.parametrize("algorithm", ["sha1", "crc1"])
def test_a_file_stamped_whole_before_is_checked_as_it_was(
    algorithm: str, pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    """A stamp is a sum of the pages' CRC-32s now (its high 32 bits say
    "crc2"); a file stamped over its whole bytes by an earlier run (SHA-1,
    then CRC-32) is sound as it is and damaged once a byte flips. The next
    writer stamps it with the sum of pages."""
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    assert checksum.digest(db)[0] >> 32 == 0x63726332  # "crc2"
    value = _stamp_whole(db, algorithm)
    assert checksum.digest(db) == (value, value)
    assert checksum.damage(db) is None
    flipped = tmp_path / "flipped.db"
    shutil.copy(db, flipped)
    _set(flipped, _in_table(flipped, "files", b"shop/models/base.py"), b"S")
    assert checksum.damage(flipped) == CHECKSUM
    with SqliteStore(db) as store, store.transaction():
        store.set_meta("note", "written")
    stored, computed = checksum.digest(db)
    assert stored == computed and stored >> 32 == 0x63726332


def test_a_writer_updates_the_sum_from_the_pages_it_wrote(
    pristine: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stamped file written again: the sum is updated from the pages the
    log held and equals the sum of the whole file read again; a page moved
    afterwards is still caught."""
    db = tmp_path / "index.db"
    shutil.copy(pristine[1], db)
    updates: list[int | None] = []
    updated = checksum._updated
    monkeypatch.setattr(checksum, "_updated", lambda path, written: updates.append(updated(path, written)) or updates[-1])
    for n in range(3):
        with SqliteStore(db) as store, store.transaction():
            store.set_meta("note", "written" * (n * 500 + 1))  # a page or more of the table
        stored, computed = checksum.digest(db)
        assert updates[-1] == stored == computed and stored >> 32 == 0x63726332
    assert len(updates) == 3
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    data = db.read_bytes()
    db.write_bytes(data[:size] + data[2 * size : 3 * size] + data[size : 2 * size] + data[3 * size :])
    assert checksum.damage(db) == CHECKSUM
