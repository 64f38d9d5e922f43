"""Listing and reading source files: what is skipped, and why.

Workers in the parse pool call ``load_and_parse``: it reads the bytes once,
hashes them (level 2 of the cascade) and parses only when the hash changed.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from cartog_ci.domain import FileExtraction, FileState
from cartog_ci.embed.text import texts_for
from cartog_ci.errors import ParseTimeout
from cartog_ci.parse.extract import extract
from cartog_ci.parse.languages import language_for_path

DEFAULT_MAX_BYTES = 2_000_000
DEFAULT_PARSE_TIMEOUT_MS = 20_000
# What a clone without git-lfs has on disk instead of the file (spec v1: a
# pointer is under 1024 bytes and starts with this line).
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".cartog-ci", "node_modules", ".venv", "venv", "__pycache__",
     ".mypy_cache", ".pytest_cache", ".tox", ".eggs"}
)  # fmt: skip


@dataclass(frozen=True)
class ParseJob:
    root: str
    path: str
    stored_sha: str | None
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_ms: int | None = DEFAULT_PARSE_TIMEOUT_MS


@dataclass(frozen=True)
class ParseResult:
    state: FileState
    extraction: FileExtraction | None  # None: unchanged (level 2) or skipped
    unchanged: bool = False
    vanished: bool = False


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


def decode_source(data: bytes) -> bytes | None:
    """UTF-8 bytes for the parser, or None when the text is not decodable."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return data


def load_and_parse(job: ParseJob) -> ParseResult:
    spec = language_for_path(job.path)
    language = spec.name if spec else None
    name = stored_name(job.path)
    if name != job.path:
        if spec is None:
            return _skip(name, _suffix(name), "unsupported language")
        return _skip(name, language, "file name is not valid UTF-8 (rename the file)")
    full = os.path.join(job.root, job.path)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return ParseResult(FileState(job.path, language, "", 0, status="skipped", reason="deleted"), None, vanished=True)
    except OSError as exc:
        return _skip(job.path, language, f"unreadable ({exc.strerror})")
    if stat.S_ISLNK(st.st_mode):
        return _skip(job.path, language, "symbolic link")
    if stat.S_ISDIR(st.st_mode):  # git lists a directory only for a gitlink
        return _skip(job.path, language, "git submodule (not indexed)")
    if not stat.S_ISREG(st.st_mode):
        return _skip(job.path, language, "not a regular file")
    if spec is None:
        return _skip(job.path, _suffix(job.path), "unsupported language", size=st.st_size)
    if st.st_size > job.max_bytes:
        return _skip(
            job.path, language, f"too large ({_size(st.st_size)} > {_size(job.max_bytes)} limit)", size=st.st_size
        )
    try:
        data = _read_regular(full, job.max_bytes + 1)
    except FileNotFoundError:
        return ParseResult(FileState(job.path, language, "", 0, status="skipped", reason="deleted"), None, vanished=True)
    except OSError as exc:
        reason = "symbolic link" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror})"
        return _skip(job.path, language, reason)
    if data is None:
        return _skip(job.path, language, "not a regular file")
    if len(data) > job.max_bytes:  # it grew after lstat
        return _skip(job.path, language, f"too large (over the {_size(job.max_bytes)} limit)", size=len(data))
    sha = hashlib.sha256(data).hexdigest()
    if job.stored_sha == sha:
        return ParseResult(FileState(job.path, language, sha, len(data)), None, unchanged=True)
    problem = content_problem(data)
    if problem:
        return _skip(job.path, language, problem, sha, len(data))
    source = decode_source(data)
    if source is None:
        return _skip(job.path, language, "not valid UTF-8 text", sha, len(data))
    try:
        result = extract(job.path, source, spec.name, timeout_ms=job.timeout_ms)
    except ParseTimeout as exc:
        return _skip(job.path, language, str(exc), sha, len(data))
    result = replace(result, texts=texts_for(result.symbols, source))
    state = FileState(job.path, language, sha, len(data), result.lines, result.merkle_hash)
    return ParseResult(state, result)


def _read_regular(full: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes, or None when it is no longer a regular file.

    The file may have been replaced since lstat: O_NOFOLLOW refuses a
    symbolic link swapped in (nothing is read outside the repository), and
    O_NONBLOCK plus fstat refuse a FIFO that would block the read forever."""
    fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read(limit)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _suffix(path: str) -> str | None:
    """What stats groups unsupported files by (``.c``, ``.toml`` …)."""
    return os.path.splitext(path)[1].lower() or None
