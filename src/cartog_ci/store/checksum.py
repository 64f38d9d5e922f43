"""A checksum of the whole SQLite file, kept inside it (docs/robustness.md,
"Flipped bytes"): SQLite's own checks (page headers, ``quick_check``) pass
a byte flipped inside a record — a line number, a name, a key — and a
query then answers wrongly, or fails to decode text.

The checksum is the sum (mod 2**32) of each page's CRC-32, started from the
page's number, with a few header bytes masked: the two that hold it
(``PRAGMA user_version`` and ``application_id``, 4 bytes each) and the ones
SQLite rewrites on every commit (the change counter, the version-valid-for
number and the library version); the other 32 bits say which algorithm
(``_PAGES``, "crc2"). A flip of up to 32 consecutive bits changes one
page's CRC and so the sum; a page moved changes two; a random change is
missed once in 2**32. Being a sum of pages, it is updated by a writer from
the pages it wrote: before the log is copied into the file, the pages its
frames name are read as the file holds them (their old terms), after, as
it holds them now (``_written``, ``_updated``), where the whole file was
read before (scrapy's 17 MB index: 4.6 ms of CRC-32 a run that wrote,
Django's ~100 MB: ~50 ms; a one-file edit now reads its few dozen pages). A
file stamped before over its whole bytes (CRC-32, "crc1", or 64 bits of
SHA-1) is checked as it was, and stamped whole by its next writer. It is
written by the writer when it closes, under the write lock with the log
checkpointed into the file (``stamp``), and cleared in the same
transaction as any other write (``unstamp``): a run that is killed leaves
no stale checksum, only none. A file without one (an older cartog-ci's, a
killed run's) is not checked until the next run stamps it. A write that
did not clear it (a writer that does not know the checksum) makes the next
sum wrong: the file is then called damaged and rebuilt, as a whole-file
checksum would have it.

Checking (``damage``) reads the whole file once: 9.4 ms for scrapy's
16.1 MB index with SHA-1 (benchmarks/bitflip.py, docs/robustness.md). A note beside the file (``<index>.checked``)
remembers the file's identity (inode, size, modification and change times)
when it last matched: an unchanged file is not read again. Any write to
the file — a flipped byte, a restored cache — changes its change time,
which no program can set back.
"""

from __future__ import annotations

import hashlib
import sys
import zlib
from pathlib import Path
from typing import cast

import apsw

_MASKED = ((24, 28), (60, 64), (68, 72), (92, 100))
_CHUNK = 1 << 20
_STAMP_BUSY_MS = 1000  # how long the closing writer waits for readers to let it checkpoint


def _signed(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def _stored(head: bytes) -> int:
    """The checksum in the header (user_version, application_id: big-endian)."""
    return (int.from_bytes(head[60:64], "big") << 32) | int.from_bytes(head[68:72], "big")


# The high 32 bits of a CRC-32 checksum ("crc1"); of a sum of pages' CRC-32s
# ("crc2", ``_pages``); any other: 64 bits of SHA-1.
_CRC = 0x63726331
_PAGES = 0x63726332


def digest(path: Path) -> tuple[int, int]:
    """(the checksum the file holds, the one its bytes give now, by the
    algorithm of the one it holds: the sum of its pages' CRC-32s, or for a
    file stamped so before, CRC-32 or SHA-1 of the whole)."""
    with path.open("rb") as fh:
        stored = _stored(fh.read(100))
    if stored == 0 or stored >> 32 == _PAGES:
        return stored, _pages(path)
    return _digest(path, legacy=stored >> 32 != _CRC)


def _page_crc(number: int, page: bytes | bytearray | memoryview) -> int:
    """A page's share of the sum: CRC-32 of its bytes started from its
    number (a page moved elsewhere counts as changed)."""
    if number == 1:
        head = bytearray(page)
        for start, end in _MASKED:
            head[start:end] = bytes(end - start)
        page = head
    return zlib.crc32(page, number)


def _page_size(head: bytes) -> int:
    size = int.from_bytes(head[16:18], "big")
    return 65536 if size == 1 else size


def _pages(path: Path) -> int:
    """The checksum of the file's bytes as they are: the sum (mod 2**32) of
    each page's ``_page_crc``. A page rewritten changes its term alone, so a
    writer updates the sum from the pages it wrote (``stamp``); a flip of up
    to 32 consecutive bits changes one page's CRC, and so the sum."""
    with path.open("rb") as fh:
        size = _page_size(fh.read(100))
        fh.seek(0)
        total, number = 0, 1
        # one buffer read into again and again: a fresh megabyte a read is
        # mapped anew, page faults each time (celery's 19 MB index: 1,027
        # faults and 15 ms of system time a pass, against 256 once)
        buffer = bytearray(size * max(1, _CHUNK // size))
        whole = memoryview(buffer)
        while got := fh.readinto(buffer):
            for at in range(0, got, size):
                total += _page_crc(number, whole[at : min(at + size, got)])
                number += 1
    return (_PAGES << 32) | (total & 0xFFFFFFFF)


def _digest(path: Path, *, legacy: bool) -> tuple[int, int]:
    with path.open("rb") as fh:
        head = bytearray(fh.read(100))
        stored = _stored(bytes(head))
        for start, end in _MASKED:
            head[start:end] = bytes(end - start)
        if not legacy:
            crc = zlib.crc32(head)
            while chunk := fh.read(_CHUNK):
                crc = zlib.crc32(chunk, crc)
            return stored, (_CRC << 32) | crc
        h = hashlib.sha1(usedforsecurity=False)
        h.update(head)
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return stored, int.from_bytes(h.digest()[:8], "big") or 1


def _log_empty(path: Path) -> bool:
    wal = Path(f"{path}-wal")
    try:
        return wal.stat().st_size == 0
    except FileNotFoundError:
        return True


def _identity(path: Path) -> str:
    st = path.stat()
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def _note(path: Path) -> Path:
    return Path(f"{path}.checked")


def _remember(path: Path, identity: str, stored: int) -> None:
    """The file as it matched its checksum (best effort: a read-only directory keeps none)."""
    try:
        _note(path).write_text(f"{identity} {stored}\n")
    except OSError:
        pass


def damage(path: Path) -> str | None:
    """Why the file's bytes are not those its writer stamped, or None: they
    are, or nothing can tell (no checksum, a log being written)."""
    if not _log_empty(path):
        return None  # a writer at work, or a killed one's log: the file alone is not the index
    before = _identity(path)
    try:
        noted = _note(path).read_text().split()
    except (OSError, UnicodeDecodeError):
        noted = []
    with path.open("rb") as fh:
        stored = _stored(fh.read(100))
    if stored == 0:
        return None
    if " ".join(noted) == f"{before} {stored}":
        return None  # unchanged since it last matched
    stored, computed = digest(path)
    if stored == computed:
        _remember(path, before, stored)
        return None
    if _identity(path) != before or not _log_empty(path):
        return None  # written while it was read: a writer's, not damage
    return "its bytes differ from the checksum written with them: damaged on disk or in transit"


def unstamp(db: apsw.Connection) -> None:
    """Inside a write transaction, before it writes: the file will change."""
    values = db.execute("SELECT * FROM pragma_user_version, pragma_application_id").fetchall()
    if values != [(0, 0)]:
        db.execute("PRAGMA user_version = 0")
        db.execute("PRAGMA application_id = 0")


def stamp(db: apsw.Connection, path: Path, busy_timeout_ms: int) -> bool:
    """The file's checksum written into it, by a writer done writing; False
    when readers kept the log from being emptied, or another writer has
    written since (then that one stamps)."""
    db.set_busy_timeout(_STAMP_BUSY_MS)
    try:
        version = _data_version(db)
        written = _written(path)
        if not _checkpointed(db):
            return False
        db.execute("BEGIN IMMEDIATE")
        value = None
        try:
            if _log_empty(path):  # else another writer committed since the checkpoint
                # the pages the log held, unless another writer committed meanwhile
                value = _updated(path, written) if written and _data_version(db) == version else None
                value = value or _pages(path)
                db.execute(f"PRAGMA user_version = {_signed(value >> 32)}")
                db.execute(f"PRAGMA application_id = {_signed(value & 0xFFFFFFFF)}")
                db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        if value is None:
            return False
        if _checkpointed(db):
            _remember(path, _identity(path), value)
        return True
    except apsw.BusyError:
        return False
    finally:
        db.set_busy_timeout(busy_timeout_ms)


def _data_version(db: apsw.Connection) -> int:
    """Changes when another connection commits (SQLite's ``data_version``)."""
    return int(cast("tuple[int]", db.execute("PRAGMA data_version").fetchone())[0])


# What a writer's stamp starts from (``_written``): the sum the file holds,
# its size in pages, the page size, and each page the log rewrites -> its
# term in that sum (None: a page the file does not have yet).
_Written = tuple[int, int, int, dict[int, "int | None"]]
_WAL_MAGIC = (0x377F0682, 0x377F0683)


def _written(path: Path) -> _Written | None:
    """Before the log is copied into the file: what the sum the file holds
    (a sum of pages, ``_pages``) becomes by the pages the log rewrites, read
    from the frames of the log's current generation (its salts), and those
    pages' terms as the file holds them now. None when the file holds no
    such sum (a first stamp, an older algorithm, a run that committed a
    write: it cleared it) or the log is not one SQLite wrote (all of the
    file is read then)."""
    with path.open("rb") as fh:
        head = fh.read(100)
        stored = _stored(head)
        if stored >> 32 != _PAGES or len(head) < 100:
            return None
        size = _page_size(head)
        fh.seek(0, 2)
        count = fh.tell() // size
        try:
            wal = Path(f"{path}-wal").open("rb")
        except OSError:
            return None
        with wal:
            header = wal.read(32)
            if len(header) < 32 or int.from_bytes(header[:4], "big") not in _WAL_MAGIC:
                return None
            if int.from_bytes(header[8:12], "big") != size:
                return None
            salts = header[16:24]
            numbers: set[int] = set()
            frame = 24 + size
            at = 32
            while True:
                wal.seek(at)
                found = wal.read(16)
                if len(found) < 16:
                    break
                if found[8:16] == salts:  # else a frame of an earlier generation
                    numbers.add(int.from_bytes(found[:4], "big"))
                at += frame
        if not numbers:
            return None
        terms: dict[int, int | None] = {}
        for number in sorted(numbers):
            if number > count:
                terms[number] = None
                continue
            fh.seek((number - 1) * size)
            terms[number] = _page_crc(number, fh.read(size))
    return stored, count, size, terms


def _updated(path: Path, written: _Written) -> int | None:
    """Once the log is copied into the file: the sum ``written`` started
    from, each page the log rewrote read again and its term replaced.
    None when the file shrank (the pages it lost would be read)."""
    stored, count, size, terms = written
    total = stored & 0xFFFFFFFF
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() // size < count or fh.tell() % size:
            return None
        for number, before in terms.items():
            fh.seek((number - 1) * size)
            page = fh.read(size)
            if len(page) < size:
                return None
            total += _page_crc(number, page) - (before or 0)
    return (_PAGES << 32) | (total & 0xFFFFFFFF)


def _checkpointed(db: apsw.Connection) -> bool:
    """The log copied into the file and emptied."""
    busy, frames, copied = cast("tuple[int, int, int]", db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
    return not busy and frames in (0, -1) and copied in (0, -1)


def behind_error(path: Path, exc: BaseException) -> str | None:
    """Whether damage to the file explains ``exc``, raised while a command
    read it (text that does not decode, a value no writer stores): the
    reason, or None (a bug: the caller reports it as one). A file whose
    checksum matches is not damaged; undecodable text is (every text is
    stored from a Python string: valid UTF-8); anything else is when
    ``PRAGMA integrity_check`` finds an index entry that no longer matches
    its row, or a damaged page."""
    if not path.exists() or path.stat().st_size == 0 or not _log_empty(path):
        return None
    stored, computed = digest(path)
    if stored and stored == computed:
        return None
    if stored:
        return "its bytes differ from the checksum written with them: damaged on disk or in transit"
    if isinstance(exc, UnicodeDecodeError):
        return f"text that does not decode ({exc.reason} at byte {exc.start})"
    db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = [str(r[0]) for r in db.execute("PRAGMA integrity_check(3)")]
    except apsw.Error as error:
        return str(error)
    finally:
        db.close()
    return None if rows == ["ok"] else f"integrity check: {rows[0]}"


def compact(source: Path, target: Path) -> None:
    """A compact copy of the index (``VACUUM INTO``: no free pages), with a
    checksum of its own: the copy keeps the source's header values, and so
    its checksum, over other bytes (action.yml's Pack step; a cache
    restored from it is checked on its first open)."""
    db = apsw.Connection(str(source), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        db.execute("VACUUM INTO ?", (str(target),))
    finally:
        db.close()
    copy = apsw.Connection(str(target))
    try:
        if not stamp(copy, target, _STAMP_BUSY_MS):
            raise RuntimeError(f"could not stamp {target}")
    finally:
        copy.close()


def main(argv: list[str]) -> int:
    """``python -m cartog_ci.store.checksum compact SOURCE TARGET`` (action.yml)."""
    if len(argv) != 3 or argv[0] != "compact":
        sys.stderr.write("usage: python -m cartog_ci.store.checksum compact SOURCE TARGET\n")
        return 2
    compact(Path(argv[1]), Path(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
