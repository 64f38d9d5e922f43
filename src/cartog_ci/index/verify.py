"""`index --verify`: an index against a cold build of the same work tree.

The incremental cascade (index/cascade.py) promises an index equal to what
``index --force`` builds from the same tree (docs/incremental.md). This
builds that cold index into a temporary SQLite file, with the index's own
settings (largest file, parse timeout; the ignore rules are the tree's), and
compares the two in a form neither backend shapes: files with their hashes,
symbols with every stored field, edges with their targets and tiers, the
search texts with the sizes of their full-text rows, and the marks the
repository's attributes give files (index/selection.py). So the same comparison
checks a SQLite file and a PostgreSQL graph, and a benchmark can call it.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci.config import in_index_dir
from cartog_ci.domain import Edge, FileState, SearchRow, Symbol
from cartog_ci.domain.answers import Difference, Verification
from cartog_ci.index.cascade import index_repository
from cartog_ci.index.selection import Selector, stored_marks
from cartog_ci.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from cartog_ci.config import Config
    from cartog_ci.store.base import Store
    from cartog_ci.workspace import Workspace

# An edge as written: (file, line, source, kind, target name, qualifier, alias);
# what resolution adds: (target, tier).
EdgeKey = tuple[str, int, str, str, str, str, str]
Resolved = tuple[str | None, str | None]
_NOT_COMPARED = frozenset({"code_hash"})  # computed at extraction, never stored


@dataclass(frozen=True)
class Snapshot:
    """An index in the comparison's terms."""

    files: dict[str, FileState]
    symbols: dict[str, Symbol]
    edges: Counter[tuple[EdgeKey, Resolved]]
    search: dict[str, SearchRow]
    marks: dict[str, frozenset[str]]

    def counts(self) -> tuple[tuple[str, int], ...]:
        return (
            ("files", len(self.files)),
            ("symbols", len(self.symbols)),
            ("edges", self.edges.total()),
            ("search rows", len(self.search)),
        )


def snapshot(store: Store, leave_out: frozenset[str] = frozenset()) -> Snapshot:
    """``leave_out``: paths of files not compared (the index's own)."""
    return Snapshot(
        files={p: f for p, f in store.file_states().items() if p not in leave_out},
        symbols={s.id: s for s in store.all_symbols()},
        edges=Counter((_written(e), (e.target_id, e.resolution)) for e in store.all_edges()),
        search={r.symbol_id: r for r in store.search_rows()},
        marks={p: m for p, m in stored_marks(store).items() if p not in leave_out},
    )


def cold_snapshot(
    root: Path, config: Config, *, scratch: Path | None = None, leave_out: frozenset[str] = frozenset()
) -> Snapshot:
    """A ``--force`` build of the work tree at ``root`` into a temporary file
    (in ``scratch``, else the system's temporary directory), read, then
    deleted with its side files. No embeddings: vectors are not compared."""
    with tempfile.TemporaryDirectory(prefix="cartog-ci-verify-", dir=scratch) as tmp:
        with SqliteStore(Path(tmp) / "cold.db") as cold:
            selector = Selector(root, config)
            index_repository(
                root, cold, force=True, max_bytes=config.max_file_bytes, parse_timeout_ms=config.parse_timeout_ms,
                select=selector.keep,
            )  # fmt: skip
            selector.write_marks(cold)
            return snapshot(cold, leave_out)


def verify(
    root: Path, store: Store, config: Config, *, scratch: Path | None = None, leave_out: frozenset[str] = frozenset()
) -> Verification:
    """``store`` (the index of the work tree at ``root``, up to date) against
    a cold build of the same tree."""
    clock = time.perf_counter()
    cold = cold_snapshot(root, config, scratch=scratch, leave_out=leave_out)
    stored = snapshot(store, leave_out)
    return Verification(stored.counts(), tuple(compare(stored, cold)), time.perf_counter() - clock)


def verify_workspace(ws: Workspace, store: Store) -> Verification:
    """``verify`` with the cold file next to the SQLite index (a disk the
    index fits on), unless that is in the work tree outside `.cartog-ci/`
    (never indexed): there the cold build would index its own file, so it
    goes to the system's temporary directory, and the index's own files
    (the database and its side files, changing as it is written) are left
    out of the comparison."""
    if ws.database_url:
        return verify(ws.root, store, ws.config)
    try:
        inside = ws.index_path.relative_to(ws.root).as_posix()
    except ValueError:
        return verify(ws.root, store, ws.config, scratch=ws.index_path.parent)
    if in_index_dir(inside):
        return verify(ws.root, store, ws.config, scratch=ws.index_path.parent)
    own = frozenset(inside + suffix for suffix in ("", "-wal", "-shm", "-journal", ".checked"))  # store/checksum.py
    return verify(ws.root, store, ws.config, leave_out=own)


def compare(stored: Snapshot, cold: Snapshot) -> Iterator[Difference]:
    """Every difference, by category (files, symbols, edges, search rows),
    then by file and position; each line reads ``stored → cold``."""
    for path in sorted(stored.files.keys() | cold.files.keys()):
        line = _fields(stored.files.get(path), cold.files.get(path))
        if line:
            yield Difference("files", f"file {path}: {line}")
    ids = stored.symbols.keys() | cold.symbols.keys()
    for sid in sorted(ids, key=lambda i: _symbol_order(stored.symbols.get(i) or cold.symbols[i])):
        line = _fields(stored.symbols.get(sid), cold.symbols.get(sid))
        if line:
            yield Difference("symbols", f"symbol {sid}: {line}")
    yield from _edges(stored.edges, cold.edges)
    rows = stored.search.keys() | cold.search.keys()
    for sid in sorted(rows, key=lambda i: (_search_file(i, stored, cold), i)):
        line = _search_fields(stored.search.get(sid), cold.search.get(sid))
        if line:
            yield Difference("search rows", f"search row {sid}: {line}")
    for path in sorted(stored.marks.keys() | cold.marks.keys()):
        was, now = (sorted(s.marks.get(path, ())) for s in (stored, cold))
        if was != now:
            yield Difference("marks", f"marks of {path}: {was or 'none'} → {now or 'none'}")


def _search_file(symbol_id: str, *snapshots: Snapshot) -> str:
    """The file of a symbol's text, on whichever side has one."""
    rows = (s.search.get(symbol_id) for s in snapshots)
    return next((r.file for r in rows if r is not None and r.file is not None), "")


def _written(e: Edge) -> EdgeKey:
    return (e.file, e.line, e.source_id, e.kind, e.target_name, e.qualifier or "", e.alias or "")


def _symbol_order(s: Symbol) -> tuple[str, int, int, str]:
    return (s.file, s.start_line, s.start_byte, s.id)


def _edges(
    stored: Counter[tuple[EdgeKey, Resolved]], cold: Counter[tuple[EdgeKey, Resolved]]
) -> Iterator[Difference]:
    """Edges written alike are paired by target; an edge one side lacks
    reads ``no such edge`` there."""
    sides: dict[EdgeKey, tuple[list[Resolved], list[Resolved]]] = {}
    for side, extra in ((0, stored - cold), (1, cold - stored)):
        for (key, resolved), n in extra.items():
            sides.setdefault(key, ([], []))[side].extend([resolved] * n)
    for key in sorted(sides):
        mine, theirs = (sorted(s, key=lambda r: (r[0] or "", r[1] or "")) for s in sides[key])
        for i in range(max(len(mine), len(theirs))):
            was = _target(mine[i]) if i < len(mine) else "no such edge"
            now = _target(theirs[i]) if i < len(theirs) else "no such edge"
            yield Difference("edges", f"edge {_edge_name(key)}: {was} → {now}")


def _edge_name(key: EdgeKey) -> str:
    path, line, source, kind, name, qualifier, alias = key
    written = f"{path}:{line} {source} {kind} {name}"
    return written + (f" [qualifier {qualifier}]" if qualifier else "") + (f" [alias {alias}]" if alias else "")


def _target(resolved: Resolved) -> str:
    target, tier = resolved
    if target is None and tier is None:
        return "unresolved"
    return f"{target or 'no target'} ({tier or 'no tier'})"


Record = FileState | Symbol | SearchRow


def _fields(mine: Record | None, theirs: Record | None) -> str:
    """The fields of two records that differ, ``name stored → cold``; a
    record on one side only says so; "" when equal."""
    if mine is None:
        return "not in the index (a cold build has it)"
    if theirs is None:
        return "in the index, not in a cold build"
    names = [f.name for f in fields(mine) if f.name not in _NOT_COMPARED]
    changed = [n for n in names if getattr(mine, n) != getattr(theirs, n)]
    return ", ".join(_change(n, getattr(mine, n), getattr(theirs, n)) for n in changed)


def _search_fields(mine: SearchRow | None, theirs: SearchRow | None) -> str:
    if mine is not None and mine.file is None:  # full-text rows left without their text
        where = "a cold build has a text" if theirs is not None else "not in a cold build"
        tokens = f"keyword_tokens {_show(mine.keyword_tokens)}, trigram_tokens {_show(mine.trigram_tokens)}"
        return f"full-text rows without a text ({tokens}; {where})"
    return _fields(mine, theirs)


def _change(name: str, was: object, now: object) -> str:
    if name in ("content", "embed_text") and isinstance(was, str) and isinstance(now, str):
        return f"{name} differs ({len(was)} → {len(now)} characters)"
    return f"{name} {_show(was)} → {_show(now)}"


def _show(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
            return value[:12] + "…"  # a SHA-256: its start tells two apart
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, Iterable) and not isinstance(value, (bytes, str)):
        return repr(list(value))
    return str(value)
