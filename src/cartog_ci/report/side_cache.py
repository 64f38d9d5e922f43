"""What reading the sides of a changed file gave a report, kept in the index
for the next report of the same bytes (docs/report.md, step 3 "Symbol
diff"; store/side_rows.py).

A report reads the merge-base's side of every changed file (a parse and
the tags query, in the indexer's own pipeline), hashes the code of the
head's symbols whose content changed and parses again the head files with
a removed definition for what their grammar cannot read (report/diff.py
``unreadable_spans``): on Django 5.1 -> 5.1.4 HEAD~10 (56 files) 0.8 s,
0.2 s and 0.04 s of CPU of a 2.2 s report, the same work again in every
report of that range (a PR's report after each push, on the same
merge-base). Each is a function of the file's bytes and of the code that
reads them, so each is kept a file and side, keyed by the bytes' SHA-256
and a hash of the extractor (the fingerprint the index stores in its
meta, written by the refresh that precedes every report), the limits, the
language and its grammar's version and, for the merge-base, the edges
asked: any other bytes, extractor, grammar or limits read the file again. What a row holds is what the reading gave, field for
field; the code hashes of the merge-base's symbols are those the head
asked for (a symbol whose content differs on the two sides), so a row
holds the ones computed so far and answers when it has every one asked.
Only extractions of the tags extractor's languages that succeeded are
kept (a skip or a timeout is read again)."""

from __future__ import annotations

import hashlib
import json
import marshal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from cartog_ci import languages

from cartog_ci.domain import Edge, FileExtraction, FileState, Symbol
from cartog_ci.index.files import Limits, ParseJob, ParseResult, decode_source
from cartog_ci.languages.base import Language
from cartog_ci.store.records import maker

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

BASE, HEAD, UNREAD = "base", "head", "unread"
_SYMBOL_FIELDS = attrgetter(*(f.name for f in fields(Symbol)))
_EDGE_FIELDS = attrgetter(*(f.name for f in fields(Edge)))
_NAMES = [f.name for f in fields(Symbol)]
_EDGE_NAMES = [f.name for f in fields(Edge)]
# The rows' layout (``keep_base``, ``keep_head``, ``keep_unread``): part of
# every key with the records' field names, which the extractor's
# fingerprint does not cover (report/ and domain/ are not the extractor), so
# that a version that lays rows out otherwise reads none of an older one's.
# 2: a base row is ``marshal`` of tuples, its code hashes apart (``_BaseRow``);
# the interpreter's cache tag is in the key with it, since ``marshal``'s
# format is that of one Python version.
_FORMAT = 2
_CODE_HASH, _CONTENT_HASH = (_NAMES.index(n) for n in ("code_hash", "content_hash"))
# Symbol(*values) and Edge(*values) of a row's every field, without their
# __init__ (store/records.py: the same objects, as the store reads its rows)
_SYMBOL = maker(Symbol, len(_NAMES))
_EDGE = maker(Edge, len(_EDGE_NAMES))
# A base row: the file's state (language, size, lines, Merkle hash), the
# extraction's (language, Merkle hash, lines, error), every field of its
# symbols with an empty code hash, the code hashes computed so far by the
# symbol's position, and every field of its edges. ``marshal`` reads it back
# as such, tuples and all, at twice the speed of JSON of lists (Django 5.1
# -> 5.1.4 HEAD~10: 2.4 MB in 56 rows), and most symbols are made from
# their tuple as read: only the few the head changed take a code hash.
_BaseRow = tuple[
    tuple["str | None", int, int, str], tuple[str, str, int, str], tuple[tuple[Any, ...], ...], dict[int, str],
    tuple[tuple[Any, ...], ...],
]


class SideCache:
    """The rows of one report: read once for the files it compares, written
    once for those it had to read."""

    def __init__(self, store: Store, generation: str) -> None:
        self.store = store
        self.generation = generation
        self._base_rows: dict[str, dict[int, str]] = {}  # path -> the code hashes read (to merge)
        self._head_rows: dict[str, dict[str, str]] = {}
        self._put: dict[str, list[tuple[str, str, str | bytes]]] = {BASE: [], HEAD: [], UNREAD: []}

    def _key(self, path: str, sha: str, *parts: object) -> str:
        return hashlib.sha256(json.dumps([sha, self.generation, _reader(path), *parts]).encode()).hexdigest()

    # -- the merge-base's side ------------------------------------------------

    def _base_key(self, job: ParseJob, sha: str) -> str:
        return self._key(job.path, sha, sorted(job.edge_kinds) if job.edge_kinds is not None else None)

    def bases(self, jobs: Sequence[ParseJob]) -> dict[str, ParseResult]:
        """The jobs' results that the cache holds whole, by path: only jobs of
        bytes given, with the code hashes of a head side (a mapping)."""
        keys: dict[str, str] = {}
        data: dict[str, tuple[bytes, str]] = {}  # the bytes and their SHA-256
        for job in jobs:
            if job.data is None or not isinstance(job.code_hashes, Mapping) or len(job.data) > job.limits.max_bytes:
                continue
            sha = hashlib.sha256(job.data).hexdigest()
            keys[job.path] = self._base_key(job, sha)
            data[job.path] = (job.data, sha)
        if not keys:
            return {}
        rows = self.store.report_sides(BASE, keys)
        wanted = {job.path: job for job in jobs if job.path in rows}
        out: dict[str, ParseResult] = {}
        for path, text in rows.items():
            if not isinstance(text, bytes):  # JSON text, as an older version wrote: read the file
                continue
            try:
                row = marshal.loads(text)
                found = _base_result(wanted[path], *data[path], row)
            except (ValueError, TypeError, KeyError, IndexError, EOFError):  # a row this code cannot read: read the file
                continue
            self._base_rows[path] = row[3]
            if found is not None:
                out[path] = found
        return out

    def keep_base(self, job: ParseJob, result: ParseResult) -> None:
        """Remember a result read from the bytes (written by ``write``)."""
        found = result.extraction
        if job.data is None or found is None or result.state.status != "indexed" or result.vanished or result.unchanged:
            return
        language = languages.for_path(job.path)
        if language is None or type(language).extract is not Language.extract:  # Markdown's own extractor
            return
        symbols = [_SYMBOL_FIELDS(s) for s in found.symbols]
        hashes = {i: values[_CODE_HASH] for i, values in enumerate(symbols) if values[_CODE_HASH]}
        earlier = self._base_rows.get(job.path)
        if earlier is not None:  # the same bytes: the code hashes of both
            hashes = {**earlier, **hashes}
        row: _BaseRow = (
            (result.state.language, result.state.size, result.state.lines, result.state.merkle_hash),
            (found.language, found.merkle_hash, found.lines, found.error),
            tuple((*values[:_CODE_HASH], "", *values[_CODE_HASH + 1 :]) for values in symbols),
            hashes,
            tuple(_EDGE_FIELDS(e) for e in found.edges),
        )
        key = self._base_key(job, result.state.sha256)
        self._put[BASE].append((job.path, key, marshal.dumps(row)))

    # -- the head's side -----------------------------------------------------

    def read_heads(self, shas: Mapping[str, str]) -> None:
        """Read the rows of these head files (path -> their bytes' SHA-256) at once."""
        keys = {path: self._key(path, sha) for path, sha in shas.items() if path not in self._head_rows}
        rows = self.store.report_sides(HEAD, keys) if keys else {}
        for path in keys:
            self._head_rows[path] = _json_object(rows.get(path))

    def head_hashes(self, path: str, sha: str, wanted: set[str]) -> dict[str, str] | None:
        """The code hashes of ``wanted`` of the head file with these bytes,
        when the cache holds every one."""
        self.read_heads({path: sha})
        row = self._head_rows[path]
        return {i: row[i] for i in wanted} if wanted <= row.keys() else None

    def keep_head(self, path: str, sha: str, found: Mapping[str, str]) -> None:
        row = {**self._head_rows.get(path, {}), **found}
        self._put[HEAD].append((path, self._key(path, sha), json.dumps(row, sort_keys=True, separators=(",", ":"))))

    # -- what the head's grammar cannot read (report/diff.py unreadable_spans) --

    def unread(self, path: str, sha: str) -> list[tuple[int, int]] | None:
        """The unreadable spans of the head file whose source has this SHA-256, when cached."""
        text = self.store.report_sides(UNREAD, {path: self._key(path, sha)}).get(path)
        try:
            return None if text is None else [(int(a), int(b)) for a, b in json.loads(text)]
        except (ValueError, TypeError):  # a row this code cannot read: read the file
            return None

    def keep_unread(self, path: str, sha: str, spans: list[tuple[int, int]]) -> None:
        self._put[UNREAD].append((path, self._key(path, sha), json.dumps(spans)))

    def write(self) -> None:
        if not any(self._put.values()):
            return
        with self.store.transaction():
            for side, rows in self._put.items():
                if rows:
                    self.store.put_report_sides(side, rows)
        self._put = {BASE: [], HEAD: [], UNREAD: []}


def side_cache(store: Store, limits: Limits) -> SideCache | None:
    """The cache of this index, or None: a store without one, or an index
    that says not which extractor wrote it."""
    if not getattr(store, "supports_report_sides", False):
        return None
    extractor = store.get_meta("extractor")
    if not extractor:
        return None
    return SideCache(
        store,
        json.dumps(
            [extractor, limits.max_bytes, limits.timeout_ms, _FORMAT, _NAMES, _EDGE_NAMES, sys.implementation.cache_tag]
        ),
    )


def _json_object(text: str | bytes | None) -> dict[str, Any]:
    """A head row's code hashes by symbol ID; none when absent or unreadable."""
    try:
        row = json.loads(text) if text is not None else {}
    except ValueError:
        return {}
    return row if isinstance(row, dict) and all(isinstance(v, str) for v in row.values()) else {}


def _reader(path: str) -> list[object] | None:
    """What reads a file of this path: its language and its grammar's
    version (a grammar upgraded alone reads the same bytes otherwise)."""
    language = languages.for_path(path)
    if language is None:
        return None
    grammar = language.syntax.grammar
    return [language.name, grammar.semantic_version, grammar.abi_version, grammar.parse_state_count]


def _base_result(job: ParseJob, data: bytes, sha: str, row: _BaseRow) -> ParseResult | None:
    """What extracting ``job`` gives, from its row; None when the row lacks a
    code hash the job asks for. ``sha``: the SHA-256 of ``data``, as ``bases``
    hashed it for the key."""
    asked = job.code_hashes
    assert isinstance(asked, Mapping)
    (language, size, lines, merkle_hash), found_row, kept, hashes, kept_edges = row
    symbols: list[Symbol] = []
    for values in kept:
        if len(values) != len(_NAMES):  # as Symbol(*values) would say (``_SYMBOL`` takes the first ones)
            raise TypeError(f"{len(values)} values for {len(_NAMES)} fields")
        other = asked.get(values[0])
        if other is not None and other != values[_CONTENT_HASH]:  # hashed by the extraction (parse/extract.py _symbols)
            code = hashes.get(len(symbols))
            if not code:
                return None
            values = (*values[:_CODE_HASH], code, *values[_CODE_HASH + 1 :])
        symbols.append(_SYMBOL(values))
    source = decode_source(data)
    if source is None:
        return None
    found_language, found_merkle, found_lines, error = found_row
    if any(len(values) != len(_EDGE_NAMES) for values in kept_edges):
        raise TypeError("an edge of other fields")
    edges = tuple(map(_EDGE, kept_edges))
    found = FileExtraction(job.path, found_language, tuple(symbols), edges, found_merkle, found_lines, error)
    state = FileState(job.path, language, sha, size, lines, merkle_hash)
    return ParseResult(state, found, source=source if job.keep_source else b"")
