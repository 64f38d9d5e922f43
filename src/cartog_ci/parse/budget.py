"""Parsing with a time budget: a grammar that meets a pathological file
must not hang the indexer (robustness issue; ``parse_timeout_ms``).

py-tree-sitter 0.25+ has no ``Parser.timeout_micros`` any more; the way to
stop a parse is a ``progress_callback`` that returns True. The binding
ignores that callback when it is given a bytestring, so the source is
handed over through a read callback (``_Reader``: the whole source at the
first read, nothing copied). A halted parse raises ``ValueError("Parsing
failed")``.

The tree keeps that callback as its source: ``Node.text`` and the text
predicates of a query read through it, and py-tree-sitter 0.26.1 crashes
when it returns anything but ``bytes`` there, or raises (#435, fixed by #465
after 0.26.1). So nothing reads a node's text from such a tree: the
extractors slice the file's bytes (parse/nodes.py ``reading``) and the
queries' text predicates are checked on those bytes (parse/predicates.py).
The tree used to be parsed a second time from the bytes, reusing the first
tree, only to be read safely: a quarter of the parse's CPU (scrapy 2.11.2:
parse 264 ms, with the second 353 ms). ``_Reader`` still answers a stray
``Node.text`` correctly (bytes it keeps alive, ``_TAIL`` at a time).

The queries after the parse cannot be stopped that way (a progress callback
on ``QueryCursor.matches`` segfaults in 0.26.1), and deep nesting makes them
quadratic (a 10,000-deep nested call: 4 s in Ruby, 11 s in Elixir).
``MATCH_LIMIT`` caps the matches a cursor keeps open: no file of 5,028 real
ones (Django, Celery, Rich, Jinja, crypto/jsonnet/rxjs) goes over 64, and a
file that goes over the cap is skipped rather than indexed with matches
silently dropped. The Python loops over the matches check the deadline.

The budget is CPU time of the parsing thread (``time.thread_time``), not
wall time: on a loaded machine (a shared CI runner, a hook beside a build) a
process waiting for a core would otherwise skip files that a quiet machine
indexes, and two runs of the same tree would not agree.
"""

from __future__ import annotations

import time

import tree_sitter as ts

from cartog_ci.errors import ParseTimeout
from cartog_ci.parse.predicates import Predicates, keep

_TAIL = 256  # bytes per read after the first (a stray Node.text)
MATCH_LIMIT = 1024


_clock = time.thread_time  # CPU seconds of this thread


def deadline(timeout_ms: int | None) -> float | None:
    return _clock() + timeout_ms / 1000 if timeout_ms else None


def check(until: float | None, timeout_ms: int | None) -> None:
    """ParseTimeout once past ``until`` (from ``deadline``)."""
    if until is not None and _clock() > until:
        raise ParseTimeout(_timed_out(timeout_ms))


def _timed_out(timeout_ms: int | None) -> str:
    return f"parse timed out (over {timeout_ms} ms of CPU); raise parse_timeout_ms to index it"


def matches(
    query: ts.Query,
    node: ts.Node,
    *,
    max_start_depth: int | None = None,
    source: bytes = b"",
    checks: Predicates | None = None,
) -> list[tuple[int, dict[str, list[ts.Node]]]]:
    """``QueryCursor.matches`` with ``MATCH_LIMIT`` open matches at most
    (that start ``max_start_depth`` levels below ``node`` at most), those of
    a pattern with text predicates (``checks``, of a query compiled without
    them: parse/predicates.py) kept when they pass on ``source``."""
    cursor = ts.QueryCursor(query, match_limit=MATCH_LIMIT)
    if max_start_depth is not None:
        cursor.set_max_start_depth(max_start_depth)
    found = cursor.matches(node)
    if cursor.did_exceed_match_limit:
        raise ParseTimeout(f"nested too deeply (over {MATCH_LIMIT:,} open query matches)")
    if checks:
        get = checks.get
        found = [m for m in found if (wanted := get(m[0])) is None or keep(wanted, m[1], source)]
    return found


def parse(
    language: ts.Language,
    source: bytes,
    timeout_ms: int | None = None,
    *,
    included_ranges: list[ts.Range] | None = None,
) -> ts.Tree:
    """The tree of ``source``; ParseTimeout when it takes over ``timeout_ms``
    (None or 0: no limit)."""
    parser = ts.Parser(language)
    if included_ranges is not None:
        parser.included_ranges = included_ranges
    if not timeout_ms:
        return parser.parse(source)
    deadline = _clock() + timeout_ms / 1000
    # The thread's CPU time grows no faster than wall time, so before the
    # wall clock passes the budget the CPU clock cannot have: the monotonic
    # clock (75 ns a read here) answers the binding's calls every 100 parse
    # operations until then, the thread's CPU clock (a system call, 410 ns)
    # after. Celery 5.4.0, 385 files: the callback was 19 % of the parse.
    wall = time.monotonic() + timeout_ms / 1000
    monotonic = time.monotonic

    def halt(_offset: int, _has_error: bool) -> bool:
        return monotonic() > wall and _clock() > deadline

    try:
        return parser.parse(_Reader(bytes(source)), progress_callback=halt)
    except ValueError:
        if _clock() > deadline:
            raise ParseTimeout(_timed_out(timeout_ms)) from None
        raise


class _Reader:
    """The read callback of a parse, which the tree keeps as its source:
    always ``bytes``, and the last answer kept alive (the binding's
    ``Node.text`` reads the bytes of an answer after dropping its reference
    to it). The parser gets the whole source at once; a later read gets
    ``_TAIL`` bytes, enough for most nodes (the binding reads on until the
    node's end)."""

    __slots__ = ("_last", "_source")

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._last = source

    def __call__(self, offset: int, _point: ts.Point) -> bytes:
        self._last = self._source if offset == 0 else self._source[offset : offset + _TAIL]
        return self._last
