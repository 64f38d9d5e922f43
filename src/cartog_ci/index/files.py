"""Listing and reading source files: what is skipped, and why.

Workers in the parse pool call ``load_and_parse``: it reads the bytes once,
hashes them (level 2 of the cascade) and parses only when the hash changed.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from cartog_ci.domain import FileExtraction, FileState
from cartog_ci.embed.text import texts_for
from cartog_ci.parse.extract import extract
from cartog_ci.parse.languages import language_for_path

DEFAULT_MAX_BYTES = 2_000_000
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
    full = os.path.join(job.root, job.path)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return ParseResult(FileState(job.path, language, "", 0, status="skipped", reason="deleted"), None, vanished=True)
    except OSError as exc:
        return _skip(job.path, language, f"unreadable ({exc.strerror})")
    if stat.S_ISLNK(st.st_mode):
        return _skip(job.path, language, "symbolic link")
    if not stat.S_ISREG(st.st_mode):
        return _skip(job.path, language, "not a regular file")
    if spec is None:
        return _skip(job.path, _suffix(job.path), "unsupported language", size=st.st_size)
    if st.st_size > job.max_bytes:
        return _skip(
            job.path, language,
            f"too large ({st.st_size / 1e6:.1f} MB > {job.max_bytes / 1e6:.1f} MB limit)",
            size=st.st_size,
        )  # fmt: skip
    try:
        with open(full, "rb") as fh:
            data = fh.read(job.max_bytes + 1)
    except FileNotFoundError:
        return ParseResult(FileState(job.path, language, "", 0, status="skipped", reason="deleted"), None, vanished=True)
    except OSError as exc:
        return _skip(job.path, language, f"unreadable ({exc.strerror})")
    sha = hashlib.sha256(data).hexdigest()
    if job.stored_sha == sha:
        return ParseResult(FileState(job.path, language, sha, len(data)), None, unchanged=True)
    if b"\0" in data[:8192] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _skip(job.path, language, "binary content", sha, len(data))
    source = decode_source(data)
    if source is None:
        return _skip(job.path, language, "not valid UTF-8 text", sha, len(data))
    result = extract(job.path, source, language)
    result = replace(result, texts=texts_for(result.symbols, source))
    state = FileState(job.path, language, sha, len(data), result.lines, result.merkle_hash)
    return ParseResult(state, result)


def _suffix(path: str) -> str | None:
    """What stats groups unsupported files by (``.c``, ``.toml`` …)."""
    return os.path.splitext(path)[1].lower() or None
