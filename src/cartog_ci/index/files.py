"""Read a file, skip it or extract it: the one pipeline of the indexer and
of the report (docs/architecture.md).

A job names a file and where its bytes come from: a work tree (read in the
worker, with the checks below) or a git revision (bytes read beforehand
through one ``git cat-file --batch``, see ``revision_jobs``). ``extract_file``
hashes the bytes once (level 2 of the cascade: bytes equal to the stored
hash are not parsed), says why a file is skipped, and parses the rest with
its language; ``extract_all`` runs many jobs, on a process pool when that pays.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git
from cartog_ci.config import DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_TIMEOUT_MS, INDEX_DIR
from cartog_ci.domain import Edge, FileExtraction, FileState, Symbol, SymbolText
from cartog_ci.errors import ParseTimeout
from cartog_ci.index.workers import pool as workers_pool
from cartog_ci.store.records import maker

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from cartog_ci.languages.base import Language
    from cartog_ci.parse.extract import CodeHashes

POOL_THRESHOLD = 48  # jobs: below this, a process pool costs more than it saves
# What a clone without git-lfs has on disk instead of the file (spec v1: a
# pointer is under 1024 bytes and starts with this line).
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", INDEX_DIR, "node_modules", ".venv", "venv", "__pycache__",
     ".mypy_cache", ".pytest_cache", ".tox", ".eggs"}
)  # fmt: skip

# Why a listed path that is a directory is not indexed: git lists a
# directory for a submodule (a gitlink, mode 160000 in its index: the
# indexer asks git, ``index/cascade.py``) and, with a trailing slash, for
# an untracked repository nested in the work tree; any other listed path
# is a file replaced by a directory, whose files git lists in the next run.
NOW_A_DIRECTORY = "now a directory"
SUBMODULE = "git submodule (not indexed)"
NESTED_REPOSITORY = "nested git repository (not indexed)"

Progress = Callable[[str], None]
Count = Callable[[int, int], None]  # (done, total) after each file
Select = Callable[[list[str]], list[str]]  # the files to index of those listed (index/selection.py)


@dataclass(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    timeout_ms: int | None = DEFAULT_PARSE_TIMEOUT_MS


@dataclass(frozen=True)
class ParseJob:
    """One file to read and extract. With ``root``, the bytes are read from
    that work tree; without, ``data`` holds them (None: no such file there)."""

    path: str
    root: str = ""
    data: bytes | None = None
    stored_sha: str | None = None  # bytes with this hash are not parsed again
    limits: Limits = field(default_factory=Limits)
    texts: bool = True  # build the search texts (the index stores them)
    keep_source: bool = False  # send the decoded source back (the report reads bodies)
    edge_kinds: frozenset[str] | None = None  # only these edges (None: all)
    code_hashes: CodeHashes = True  # the symbols' code hashes (the report's diff compares them)


@dataclass(frozen=True)
class ParseResult:
    state: FileState
    extraction: FileExtraction | None  # None: unchanged (level 2), skipped or absent
    unchanged: bool = False
    vanished: bool = False  # absent: deleted from the work tree, or not in the revision
    source: bytes = b""  # the UTF-8 source parsed, with ``keep_source``
    # what the work-tree file was when read, to compare with a later read
    # (``changed_since_read``): its bytes' SHA-256 (and, after ``STAMP``,
    # the file's stat when it had not changed for a while: ``_stamp_of``), why
    # it was skipped unread, or "absent"; "" for bytes not read from a work tree
    seen: str = ""


def walk(root: Path) -> list[str]:
    """All files below root when there is no git to ask (repo-relative, posix)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        rel = os.path.relpath(dirpath, root)
        for name in filenames:
            path = name if rel == "." else f"{rel}/{name}"
            out.append(path.replace(os.sep, "/"))
    return sorted(out)


def _skip(path: str, language: str | None, reason: str, sha: str = "", size: int = 0) -> ParseResult:
    status = "unsupported" if reason == "unsupported language" else "skipped"
    return ParseResult(FileState(path, language, sha, size, 0, "", status, reason), None)


def stored_name(path: str) -> str:
    """The path as the index stores and prints it. git allows any bytes in
    a file name; one that is not UTF-8 arrives with surrogate escapes, which
    SQLite and JSON cannot hold, so its odd bytes are kept as ``\\xNN``."""
    if path.isascii():  # nearly every path: no encoding to try (an index run names each listed file)
        return path
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return path


def content_problem(data: bytes) -> str | None:
    """Why these bytes are not source to parse, or None."""
    if data.startswith(_LFS_POINTER) and len(data) < 1024:
        return "Git LFS pointer (run `git lfs pull` to index the file)"
    if b"\0" in data[:8192] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "binary content"
    return None


# GitHub's linguist calls a .js or .css file minified when its lines average
# over 110 characters. Its one-letter names and copied code are no symbols a
# reviewer reads or calls, and a change to it would be reported as renames of
# `D.createHeader.n`. Files under 4 KiB stay: cheap to parse, and a one-line
# re-export list of a compiled package is source its importers resolve through.
MINIFIED_LINE = 110
MINIFIED_MIN_BYTES = 4096


def minified(data: bytes) -> str | None:
    """Why these bytes are a minified bundle, or None."""
    if len(data) < MINIFIED_MIN_BYTES:
        return None
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if len(data) / lines <= MINIFIED_LINE:
        return None
    return f"{_MINIFIED} ({lines:,} line(s) of {len(data) // lines:,} bytes on average)"


_MINIFIED = "minified"


def is_minified(reason: str) -> bool:
    """Whether a file was skipped as a minified bundle (``minified``)."""
    return reason.startswith(_MINIFIED)


def decode_source(data: bytes) -> bytes | None:
    """UTF-8 bytes for the parser, or None when the text is not decodable."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return None
    if data.isascii():  # most source files: valid UTF-8 without decoding a copy of it
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return data


def extract_file(job: ParseJob) -> ParseResult:
    """Read (or take), check and extract one file; never raises for a bad file."""
    ready = _readied(job)
    if isinstance(ready, ParseResult):
        return ready
    spec, sha, size, source, seen = ready
    try:
        result = spec.extract(
            job.path, source, timeout_ms=job.limits.timeout_ms, edge_kinds=job.edge_kinds, code_hashes=job.code_hashes
        )
    except ParseTimeout as exc:
        return replace(_skip(job.path, spec.name, str(exc), sha, size), seen=seen)
    return _extracted(job, spec, sha, size, source, result, seen)


def _readied(job: ParseJob) -> ParseResult | tuple[Language, str, int, bytes, str]:
    """The file's language, SHA-256, size, UTF-8 source and what was seen
    of it (``ParseResult.seen``), to extract; or the result without
    extraction (unchanged, skipped, absent)."""
    # the languages (and tree-sitter) load with the first file to parse, not
    # with every command
    from cartog_ci import languages

    spec = languages.for_path(job.path)
    language = spec.name if spec else None
    if not job.root and job.data is None:
        return _absent(job.path, language)
    name = stored_name(job.path)
    if name != job.path:
        if spec is None:
            return _skip(name, _suffix(name), "unsupported language")
        return _skip(name, language, "file name is not valid UTF-8 (rename the file)")
    data, stamp = _read(job, language) if job.root else (job.data, "")
    seen = _seen(data) if job.root else ""
    if isinstance(data, ParseResult):
        return replace(data, seen=seen)
    if data is None:
        return replace(_absent(job.path, language), seen=seen)
    if spec is None:
        return _skip(job.path, _suffix(job.path), "unsupported language", size=len(data))
    if len(data) > job.limits.max_bytes:
        too_large = _too_large(len(data), job.limits.max_bytes)
        return replace(_skip(job.path, language, too_large, size=len(data)), seen=seen)
    sha = seen or hashlib.sha256(data).hexdigest()
    if stamp:
        seen = f"{seen}{STAMP}{stamp}"
    if job.stored_sha == sha:
        return ParseResult(FileState(job.path, language, sha, len(data)), None, unchanged=True, seen=seen)
    problem = content_problem(data) or (minified(data) if spec.minifiable else None)
    if problem:
        return replace(_skip(job.path, language, problem, sha, len(data)), seen=seen)
    source = decode_source(data)
    if source is None:
        return replace(_skip(job.path, language, "not valid UTF-8 text", sha, len(data)), seen=seen)
    return spec, sha, len(data), source, seen


def _seen(read: bytes | ParseResult | None) -> str:
    """What ``_read`` found, to compare with what it finds later."""
    if read is None:
        return "absent"
    if isinstance(read, ParseResult):  # not read (a link, a directory, too large …): why, and the size seen
        return f"{read.state.reason}\0{read.state.size}"
    return hashlib.sha256(read).hexdigest()


def changed_since_read(root: str, seen: dict[str, str], limits: Limits) -> list[str]:
    """The paths whose work-tree file is not what was seen when it was read
    (``ParseResult.seen``: path -> what was seen), found by reading each
    again the same way: changed, deleted, replaced by a directory or a
    link, or back since (docs/incremental.md, a consistent snapshot). A
    file whose stat was kept (``_stamp_of``) and is the same now is not read
    again: any write since would have moved its change time."""
    if not seen:  # nothing read (nothing changed): no language to import
        return []
    from cartog_ci import languages

    changed = []
    for path, was in seen.items():
        was, kept, stamp = was.partition(STAMP)
        if kept:
            try:
                if _stamp_of(os.lstat(os.path.join(root, path))) == stamp:
                    continue
            except OSError:
                pass  # read again: the read says what it is now
        spec = languages.for_path(path)
        job = ParseJob(path, root=root, limits=limits)
        if _seen(_read(job, spec.name if spec else None)[0]) != was:
            changed.append(path)
    return changed


def _extracted(
    job: ParseJob, spec: Language, sha: str, size: int, source: bytes, result: FileExtraction, seen: str = ""
) -> ParseResult:
    """The result of an extraction, with its texts when the job wants them."""
    if job.texts:
        from cartog_ci.embed.text import texts_for

        result = replace(result, texts=texts_for(result.symbols, source))
    state = FileState(job.path, spec.name, sha, size, result.lines, result.merkle_hash)
    return ParseResult(state, result, source=source if job.keep_source else b"", seen=seen)


def extract_all(
    jobs: Sequence[ParseJob], progress: Progress | None = None, count: Count | None = None
) -> list[ParseResult]:
    """``extract_file`` of every job, in order; on a process pool when there
    are enough of them. ``count`` hears (done, total) after each file."""
    with extracting(jobs, progress, count) as results:
        return list(results)


@contextmanager
def extracting(
    jobs: Sequence[ParseJob],
    progress: Progress | None = None,
    count: Count | None = None,
    *,
    busy_indexer: bool = False,
) -> Iterator[Iterator[ParseResult]]:
    """``extract_file`` of every job, in order, each as soon as it (and the
    ones before it) is done: the indexer stores a file while the pool parses
    the next ones (docs/architecture.md). The pool, when there are enough
    jobs for one, starts on entry and stops after the last result, or on
    exit without waiting for the files not yet parsed. ``busy_indexer``: the
    indexer's work on a file is about a parse's (an incremental run's Merkle
    diff and writes), so it keeps a core and the pool takes the others (2
    cores, scrapy HEAD~10 -> HEAD: one worker instead of two, the same wall
    time, less CPU: one fork and one compilation of the queries less, no
    third process on two cores)."""
    cores = os.cpu_count() or 1
    if len(jobs) < POOL_THRESHOLD or cores < 2:
        yield _counting(map(extract_file, jobs), len(jobs), count)
        return
    workers = cores - 1 if busy_indexer else cores
    if progress:
        progress(f"parsing {len(jobs)} files on {workers} processes")
    # loaded once here, the forked workers inherit the grammars and queries' modules
    from cartog_ci import languages

    _compile_queries(jobs, languages.for_path)
    if any(job.texts for job in jobs):
        # the search texts' module, which each worker imported for its first
        # file (1.5 ms of CPU a worker), imported once here: the indexer
        # builds texts of the chunks it parses itself anyway (``_InTurns``)
        from cartog_ci.embed import text  # noqa: F401
    # small chunks: the last one a worker takes is what the other one may
    # wait for, and what the indexer stores after every file is parsed
    # (scrapy: chunks of 31 files left a worker idle up to 90 ms)
    chunk = max(1, len(jobs) // (workers * 32))
    pool = workers_pool(workers)
    try:
        chunks = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
        futures = [pool.submit(_extract_chunk, c) for c in chunks]
        yield _counting(iter(_InTurns(futures, chunks)), len(jobs), count, pool)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _extract_chunk(jobs: Sequence[ParseJob]) -> list[tuple[ParseResult, _Packed | None]]:
    return [_extract_packed(job) for job in jobs]


class _InTurns:
    """The chunks' results in order. When the next one is not ready, the
    indexer does not wait: it parses the last chunk no worker has started
    (its future cancelled), so the end of the list is parsed from both
    sides, and what it parses itself is neither packed, pickled nor built
    again. A future a worker took cannot be cancelled, and the workers take
    them in order: once one refuses, every one before it is taken.
    ``here``: the files the indexer parsed itself."""

    def __init__(
        self, futures: Sequence[Future[list[tuple[ParseResult, _Packed | None]]]], chunks: Sequence[Sequence[ParseJob]]
    ) -> None:
        self.futures = futures
        self.chunks = chunks
        self.here = 0

    def __iter__(self) -> Iterator[ParseResult]:
        futures = self.futures
        own: dict[int, list[ParseResult]] = {}
        last = len(futures)  # the chunks from here on: parsed here, or refused
        for i, future in enumerate(futures):
            while i not in own and last > i and not future.done():
                last -= 1
                if futures[last].cancel():
                    own[last] = [extract_file(job) for job in self.chunks[last]]
                    self.here += len(own[last])
                else:
                    last = i
            if i in own:
                yield from own.pop(i)
            else:
                yield from map(_unpacked, future.result())


def _compile_queries(jobs: Sequence[ParseJob], for_path: Callable[[str], Language | None]) -> None:
    """The tags queries of the jobs' languages, compiled here before the
    fork. Each worker compiled every one it met, all of them in practice
    (the chunks interleave the files): ts-loader's .ts, .tsx and .js cost
    0.28 s of CPU in each of the 2 workers, for the same wall time as once
    here. Under another start method than fork nothing is inherited."""
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        return
    # the report's sides run narrowed queries (parse/extract.py), each for
    # the jobs of its own languages: Django HEAD~10's Markdown head file
    # compiled a second narrowed Python query (40 ms) no Python job ran
    for language, edge_kinds in {(for_path(job.path), job.edge_kinds) for job in jobs}:
        if language is not None:
            language.compile_queries(edge_kinds)


# A worker's extraction as the pool sends it: its records as tuples of their
# fields (path, language, symbols, edges, merkle hash, lines, error, texts).
_Packed = tuple[str, str, tuple[tuple[object, ...], ...], tuple[tuple[object, ...], ...], str, int, str,
                tuple[tuple[object, ...], ...]]  # fmt: skip
_SYMBOL_FIELDS = attrgetter(*(f.name for f in fields(Symbol)))
_TEXT_FIELDS = attrgetter(*(f.name for f in fields(SymbolText)))
# and built again without their __init__ (store/records.py): celery HEAD~10 -> HEAD, 20k edges
_make_symbol = maker(Symbol, len(fields(Symbol)))
_make_edge = maker(Edge, len(fields(Edge)))
_make_text = maker(SymbolText, len(fields(SymbolText)))


def _extract_packed(job: ParseJob) -> tuple[ParseResult, _Packed | None]:
    """``extract_file`` in a worker. The frozen dataclasses of the extraction
    go as tuples: pickling each record through its ``__getstate__`` cost more
    than extracting some files (scrapy: 72 ms to pickle, 29 ms as tuples),
    and the edges are never built here, only in the indexer."""
    ready = _readied(job)
    if isinstance(ready, ParseResult):
        return ready, None
    spec, sha, size, source, seen = ready
    try:
        found, edges = spec.extract_rows(
            job.path, source, timeout_ms=job.limits.timeout_ms, edge_kinds=job.edge_kinds, code_hashes=job.code_hashes
        )
    except ParseTimeout as exc:
        return replace(_skip(job.path, spec.name, str(exc), sha, size), seen=seen), None
    result = _extracted(job, spec, sha, size, source, found, seen)
    texts = result.extraction.texts if result.extraction is not None else ()
    packed = (
        found.path, found.language, tuple(map(_SYMBOL_FIELDS, found.symbols)), tuple(edges),
        found.merkle_hash, found.lines, found.error, tuple(map(_TEXT_FIELDS, texts)),
    )  # fmt: skip
    return replace(result, extraction=None), packed


def _unpacked(item: tuple[ParseResult, _Packed | None]) -> ParseResult:
    """The ParseResult ``_extract_packed`` sent, with its records built again."""
    result, packed = item
    if packed is None:
        return result
    path, language, symbols, edges, merkle_hash, lines, error, texts = packed
    found = FileExtraction(
        path, language, tuple(map(_make_symbol, symbols)), tuple(map(_make_edge, edges)), merkle_hash, lines, error,
        tuple(map(_make_text, texts)),
    )  # fmt: skip
    return replace(result, extraction=found)


def _counting(
    results: Iterator[ParseResult], total: int, count: Count | None, pool: ProcessPoolExecutor | None = None
) -> Iterator[ParseResult]:
    done = 0
    for result in results:
        done += 1
        if count is not None:
            count(done, total)
        yield result
    if pool is not None:  # its workers' memory is not held through the rest of the run
        pool.shutdown(wait=True)


def revision_jobs(
    repo: Path,
    rev: str,
    paths: Sequence[str],
    *,
    limits: Limits,
    keep_source: bool = False,
    edge_kinds: frozenset[str] | None = None,
) -> list[ParseJob]:
    """Jobs for the files as they are at ``rev`` ("" is the staged version),
    read through one ``git cat-file --batch``."""
    blobs = git.show_many(repo, [(rev, p) for p in paths])
    return [
        ParseJob(p, data=blobs.get((rev, p)), limits=limits, texts=False, keep_source=keep_source, edge_kinds=edge_kinds)
        for p in paths
    ]


def _read(job: ParseJob, language: str | None) -> tuple[bytes | ParseResult | None, str]:
    """The bytes of a work-tree file, None when it is gone, or why not; and
    the file's ``_stamp_of`` when its bytes were read and it had not changed
    for ``SETTLED_NS`` before (else "")."""
    full = os.path.join(job.root, job.path)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return _skip(job.path, language, f"unreadable ({exc.strerror})"), ""
    if stat.S_ISLNK(st.st_mode):
        return _skip(job.path, language, "symbolic link"), ""
    if stat.S_ISDIR(st.st_mode):  # a gitlink (the indexer asks git), or a file replaced by a directory
        return _skip(job.path, language, NESTED_REPOSITORY if job.path.endswith("/") else NOW_A_DIRECTORY), ""
    if not stat.S_ISREG(st.st_mode):
        return _skip(job.path, language, "not a regular file"), ""
    if language is None:
        return _skip(job.path, _suffix(job.path), "unsupported language", size=st.st_size), ""
    if st.st_size > job.limits.max_bytes:
        return _skip(job.path, language, _too_large(st.st_size, job.limits.max_bytes), size=st.st_size), ""
    now = time.time_ns()
    try:
        read = _read_regular(full, job.limits.max_bytes + 1)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        reason = "symbolic link" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror})"
        return _skip(job.path, language, reason), ""
    if read is None:
        return _skip(job.path, language, "not a regular file"), ""
    data, opened = read
    if len(data) > job.limits.max_bytes:  # it grew after lstat
        too_large = f"too large (over the {_size(job.limits.max_bytes)} limit)"
        return _skip(job.path, language, too_large, size=len(data)), ""
    return data, _stamp_of(opened) if opened.st_ctime_ns < now - SETTLED_NS else ""


# What separates a file's SHA-256 from its stat in ``ParseResult.seen``.
STAMP = "\x01"
# How long a file must have been left alone before it was read for its stat
# to stand for its bytes (``_stamp_of``): more than the coarsest timestamps a
# file system keeps (FAT's 2 s).
SETTLED_NS = 3_000_000_000


def _stamp_of(st: os.stat_result) -> str:
    """A file's identity, type, size and times: what a later ``lstat`` of
    the file compares to tell it was not written since it was read, without
    reading it again (``changed_since_read``: rollup's 12,307 files were
    read and hashed three times a cold run, 1.1 s of its 13.5 s of CPU).
    Only for a file whose change time was ``SETTLED_NS`` before the read
    began: any write after the read, or while it went on, sets the change
    time to the clock then, which no program can set back, and a file
    system that keeps it coarsely cannot give it the old value; the size
    and modification time are compared too. Git's index trusts a file's
    stat the same way, and reads a file changed too close to its own
    timestamp ("racy git")."""
    return f"{st.st_dev}:{st.st_ino}:{st.st_mode}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def _absent(path: str, language: str | None) -> ParseResult:
    return ParseResult(FileState(path, language, "", 0, status="skipped", reason="deleted"), None, vanished=True)


def _too_large(size: int, limit: int) -> str:
    return f"too large ({_size(size)} > {_size(limit)} limit)"


def _read_regular(full: str, limit: int) -> tuple[bytes, os.stat_result] | None:
    """Up to ``limit`` bytes and the file's stat when it was opened, or
    None when it is no longer a regular file.

    The file may have been replaced since lstat: O_NOFOLLOW refuses a
    symbolic link swapped in (nothing is read outside the repository), and
    O_NONBLOCK plus fstat refuse a FIFO that would block the read forever."""
    fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return None
        # the size it has, and a byte more to see one that grew since: a
        # read of the limit made a buffer of 2 MB, a mapping of its own
        # each file (mapped, shrunk, unmapped: its pages faulted in anew)
        data = fh.read(min(limit, opened.st_size + 1))
        if opened.st_size < len(data) < limit:  # it grew: the rest, up to the limit
            data += fh.read(limit - len(data))
        return data, opened


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _suffix(path: str) -> str | None:
    """What stats groups unsupported files by (``.c``, ``.toml`` …)."""
    return os.path.splitext(path)[1].lower() or None
