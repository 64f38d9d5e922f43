"""The indexing cascade (docs/incremental.md): git -> SHA-256 -> Merkle symbol diff, then
edge invalidation, targeted re-resolution and in-degree for what changed.

One run is one transaction: a crash leaves the previous index intact.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import itertools
import json
import operator
import os
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

from cartog_ci import git
from cartog_ci.config import DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_TIMEOUT_MS, LANGUAGE_PACK_MODULE, in_index_dir
from cartog_ci.domain import (
    TYPE_KINDS, Edge, FileExtraction, FileState, IndexResult, NumberedEdge, Symbol,
)  # fmt: skip
from cartog_ci.errors import GitError
from cartog_ci.index.files import (
    NOW_A_DIRECTORY, SUBMODULE, Count, Limits, ParseJob, ParseResult, Progress, changed_since_read, extract_file,
    extracting, stored_name, walk,
)  # fmt: skip
from cartog_ci.index.files import Select
from cartog_ci.parse.merkle import diff_symbols

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.index.deps import Catalogue, FileDeps, Key
    from cartog_ci.index.resolve import Answer
    from cartog_ci.store.base import Store

_first, _second = operator.itemgetter(0), operator.itemgetter(1)  # of a (row ID, edge) pair
_keys_read = operator.itemgetter(3)  # of an edge carried (``_Revisit._pending_split``)


# an edge and its same edge before: source, kind, name, qualifier and alias (``_Revisit._matched``)
_SAME_EDGE = operator.attrgetter("source_id", "kind", "target_name", "qualifier", "alias")


@dataclass
class _Pending:
    """The re-parsed files' edges, with their row IDs: phase 2 carries each
    one's answer over from the same edge before, or resolves it again."""

    numbered: list[NumberedEdge] = field(default_factory=list)
    # row ID -> the target and resolution stored in a row kept for an edge
    # (``_write_edges``), which is the edge as extracted: phase 2 compares
    # its answer with the row's. The other rows hold their edge's own.
    targets: dict[int, tuple[str | None, str | None]] = field(default_factory=dict)

    def forget(self, path: str) -> None:
        """Not the edges of ``path``: its rows were deleted (their IDs may
        be given to other rows), to be written again or not at all."""
        for i, e in self.numbered:
            if e.file == path:
                self.targets.pop(i, None)
        self.numbered = [(i, e) for i, e in self.numbered if e.file != path]

    def stored(self, i: int, e: Edge) -> tuple[str | None, str | None]:
        """The target and resolution the row ``i`` of the edge ``e`` holds."""
        held = self.targets.get(i)
        return (e.target_id, e.resolution) if held is None else held


@dataclass
class _Change:
    """What the run changed, as the keys of the resolver's lookups it
    changes (index/deps.py): the re-parsed and dropped files' symbols and
    bindings; and what phase 2 compares with: their edges before (with
    their targets), the bases their types had."""

    keys: set[Key] = field(default_factory=set)
    old_rows: dict[str, list[NumberedEdge]] = field(default_factory=dict)  # a re-parsed file's, in (line, id) order
    # class ID -> (base, unknown) of its inherits edges before the run, in
    # order, for every type the re-parsed and dropped files had
    old_bases: dict[str, list[tuple[str | None, bool]]] = field(default_factory=dict)
    # a file that is no source (a manifest: package.json, go.mod) changed,
    # appeared or went: what languages derive from the disk may differ
    disk: bool = False
    noted: set[str] = field(default_factory=set)  # the files whose bases before are in ``old_bases``

    def note(
        self, path: str, old: dict[str, Symbol], new: dict[str, Symbol], before: list[Edge], after: list[Edge]
    ) -> None:
        from cartog_ci.index.deps import binding_keys, symbol_keys
        language = next((s.language for s in (*new.values(), *old.values()) if s.kind == "module"), "")
        self.keys |= symbol_keys(old, new) | binding_keys(path, before, after, language)
        if path in self.noted:  # read again in the run (a consistent snapshot): ``old`` is this run's
            return
        self.noted.add(path)
        for s in old.values():
            if s.kind in TYPE_KINDS:
                self.old_bases.setdefault(s.id, [])
        for e in before:  # stored in (line, id) order
            if e.kind == "inherits":
                self.old_bases.setdefault(e.source_id, []).append(_base(e.target_id, e.resolution))

    def on_disk(self, path: str) -> None:
        """A file no language indexes changed, appeared or went: what read it
        (``SymbolTable.reads_file``), and what languages derive from the disk."""
        self.keys.add(("F", path))
        self.disk = True

    @property
    def files(self) -> bool:
        """Whether a file appeared or went (its module symbol did)."""
        return ("f", None) in self.keys


@dataclass
class _Plan:
    listed: list[str]
    candidates: list[str]
    head: str | None
    dirty: list[str]
    mode: str
    in_git: bool = True  # listed by git (else by a walk of the directory)
    extractor: str = ""  # the sources' stat and fingerprint when the run began (``_extractor``)


# What a file that changed while it was read, then again when read once
# more, is stored as (docs/incremental.md, a consistent snapshot).
CHANGED_WHILE_READ = "changed while being read: indexed next run"


_EXTRACTOR_SOURCES = ("parse", "languages", "index", "embed/text.py")


@lru_cache(maxsize=1)
def extractor_fingerprint() -> str:
    """A hash of everything that turns bytes into stored symbols, edges and
    texts (queries, extractors, decoders, resolver, the text builder): an index built
    by another version re-parses every file once instead of keeping stale
    extractions behind unchanged file hashes."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for entry in _EXTRACTOR_SOURCES:
        target = package / entry
        files = sorted(target.rglob("*")) if target.is_dir() else [target]
        for f in files:
            if f.suffix in (".py", ".scm") and f.is_file():
                digest.update(str(f.relative_to(package)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


def _extractor_files() -> Iterable[Path]:
    package = Path(__file__).resolve().parent.parent
    for entry in _EXTRACTOR_SOURCES:
        target = package / entry
        if not target.is_dir():
            yield target
            continue
        for directory, subdirectories, names in os.walk(target):
            subdirectories.sort()
            yield from (Path(directory, n) for n in sorted(names) if n.endswith((".py", ".scm")))


def _extractor_stat() -> str:
    """What the extraction sources' metadata says (path, size, inode,
    modification and change times: any write changes the last, which no
    program sets back), 0.3 ms where their content's hash reads 0.57 MB
    (2 ms): stored beside the fingerprint it was taken with, it spares
    reading the sources while they have not been touched."""
    digest = hashlib.sha256()
    for f in _extractor_files():
        try:
            st = f.stat()
        except OSError:
            continue
        digest.update(f"{f}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\n".encode())
    return digest.hexdigest()


def _extractor(store: Store) -> str:
    """``extractor_fingerprint()`` and the sources' stat it goes with, as
    stored in ``meta.extractor_stat``: the stored fingerprint when the
    sources' stat is the one stored with it (nothing read), else their
    content's hash."""
    stat = _extractor_stat()
    stored = store.get_meta("extractor")
    if stored is not None and store.get_meta("extractor_stat") == f"{stat} {stored}":
        return f"{stat} {stored}"
    return f"{stat} {extractor_fingerprint()}"


def _ours(path: str) -> bool:
    """The index directory is never indexed, even when nothing ignores it."""
    return in_index_dir(path)


def _language_pack() -> str:
    """Whether the all-languages extra is installed (without importing it)."""
    return "installed" if importlib.util.find_spec(LANGUAGE_PACK_MODULE) is not None else "absent"


def _plan(root: Path, store: Store, force: bool, stored: Iterable[str], select: Select = list) -> _Plan:
    top = git.toplevel(root)
    if top is None or top.resolve() != root.resolve():
        files = select([p for p in walk(root) if not _ours(p)])
        return _Plan(files, files, None, [], "force" if force else "full", in_git=False)
    # HEAD, the changes against it and the untracked files: one `git status`
    state = git.work_tree(root)
    listed = select([p for p in git.tracked_and_untracked(root, state.untracked) if not _ours(p)])
    head = state.head
    dirty = sorted(p for p in set(state.changed) | set(state.untracked) if not _ours(p))
    last = store.get_meta("last_commit")
    previous_dirty = json.loads(store.get_meta("dirty_files") or "[]")
    extractor = _extractor(store)
    if store.get_meta("extractor") not in (None, extractor.partition(" ")[2]):
        # extractions from other code: unchanged bytes say nothing, re-insert all
        return _Plan(listed, listed, head, dirty, "force", extractor=extractor)
    since = None if force or last is None or head is None else [] if last == head else git.changed_since(root, last, head)
    if since is None:  # forced, a first run, no commit yet, or the last one gone
        return _Plan(listed, listed, head, dirty, "force" if force else "full", extractor=extractor)
    changed = since
    candidates = set(changed) | set(dirty) | set(previous_dirty)
    # A file stored as unsupported that a language now claims (the
    # all-languages extra installed since the last run) is parsed now.
    if store.get_meta("language_pack") != _language_pack():
        from cartog_ci import languages

        candidates |= {p for p in store.unsupported_paths() if languages.for_path(p) is not None}
    # Files that appeared in the listing but are unknown to the index
    # (e.g. the index was built with another .gitignore) are candidates too.
    known = set(stored)
    candidates |= {p for p in listed if stored_name(p) not in known}
    listed_set = set(listed)
    return _Plan(listed, sorted(c for c in candidates if c in listed_set), head, dirty, "incremental", extractor=extractor)


# What the runs of a process that ends without teardown made (launch.py
# ``exit_now``: `cartog-ci index`), kept to its end: freeing them object by
# object when a run's functions return only costs time in a process that
# will not use the memory again (celery HEAD~10 -> HEAD: the resolver's
# tables, the re-parsed files' edges before and after, every symbol). A run
# forgets the previous run's, so a process that runs again holds one run's.
_KEPT: list[dict[str, object]] = []
_keep = False


def keep_to_exit() -> None:
    """This process ends without teardown after its runs (launch.py): what
    a run made is not freed when it is done (``_KEPT``)."""
    global _keep
    _keep = True


def _kept(names: dict[str, object]) -> None:
    """A function's ``locals()`` when it is done: kept, where the process
    ends without teardown, so that they are not freed on its return."""
    if _keep:
        _KEPT.append(names)


def index_repository(
    root: Path,
    store: Store,
    *,
    force: bool = False,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    parse_timeout_ms: int | None = DEFAULT_PARSE_TIMEOUT_MS,
    progress: Progress | None = None,
    parse_count: Count | None = None,
    select: Select = list,
) -> IndexResult:
    """One run, one write transaction from the plan to the last write: a
    second indexer waits (busy timeout) instead of planning from a state
    that the first is about to change, and a kill leaves the previous index."""
    # The run allocates hundreds of thousands of small objects and makes no
    # cycles worth collecting: the cyclic GC only costs time here (~10 %).
    was_enabled = gc.isenabled()
    gc.disable()
    _KEPT.clear()
    try:
        with store.transaction():
            return _index(root, store, force, max_bytes, parse_timeout_ms, progress, parse_count, select)
    finally:
        if was_enabled:
            gc.enable()


def _index(
    root: Path,
    store: Store,
    force: bool,
    max_bytes: int,
    timeout_ms: int | None,
    progress: Progress | None,
    parse_count: Count | None = None,
    select: Select = list,
) -> IndexResult:
    result = IndexResult(notices=list(store.notices))
    clock = time.perf_counter()
    stored_states = store.file_hashes()  # path -> (sha256, status)
    plan = _plan(root, store, force, stored_states, select)
    result.mode = plan.mode
    result.head, result.dirty = plan.head, plan.dirty
    result.candidates = len(plan.candidates)
    result.timings["git"] = time.perf_counter() - clock

    clock = time.perf_counter()
    limits = Limits(max_bytes, timeout_ms)
    jobs = [
        # no code hashes: the index stores none (only the report's diff compares them)
        ParseJob(
            p, root=str(root), stored_sha=None if plan.mode == "force" else _stored_sha(stored_states, p),
            limits=limits, code_hashes=False,
        )  # fmt: skip
        for p in plan.candidates
    ]
    listed = {stored_name(p) for p in plan.listed}
    applying = 0.0  # of the time files come in, the part spent storing them
    # each file stored as it comes: parsing the next ones goes on meanwhile
    busy = plan.mode == "incremental"  # storing a file costs about what parsing it does
    # no savepoint of its own: the run's one transaction is index_repository's.
    # One here journalled every page the run changed to a temporary file (its
    # sub-journal: 12,564 writes on celery HEAD~10 -> HEAD) for a rollback
    # that the transaction's own does anyway.
    with extracting(jobs, progress, parse_count, busy_indexer=busy) as parsed:
        gone = [p for p in stored_states if p not in listed]
        change = _Change()
        old_targets: set[str] = set()
        reparsed: list[str] = []
        pending = _Pending()  # the re-parsed files' edges
        vanished: set[str] = set()  # IDs of the symbols of dropped files
        stored_symbols: dict[str, list[Symbol]] | None = None  # file -> its symbols as stored, kept up to date
        current = dict(stored_states)  # path -> (sha256, status) as stored now, kept up to date
        dropped: list[str] = []  # the files whose rows went, in order
        dropped_ids: dict[str, list[str]] = {}  # their symbols' IDs, as stored
        seen: dict[str, str] = {}  # path -> what was read of it (``ParseResult.seen``)

        def drop(path: str) -> None:
            edges = store.edges_in_file(path)
            symbols = store.symbols_in_file(path)
            vanished.update(s.id for s in symbols)
            dropped_ids.setdefault(path, []).extend(s.id for s in symbols)
            if symbols:
                change.note(path, {s.id: s for s in symbols}, {}, edges, [])
            else:  # no source: a manifest, a file no language claims
                change.on_disk(path)
            old_targets.update(e.target_id for e in edges if e.target_id)
            store.delete_file(path)
            dropped.append(path)
            current.pop(path, None)
            if stored_symbols is not None:
                stored_symbols.pop(path, None)

        for path in gone:
            drop(path)
        # nothing stored to compare with or delete: fill the tables in bulk
        # (an incremental run reads the chunks of each file it writes)
        fresh = plan.mode == "force" or (plan.mode == "full" and not stored_states)
        bulk = ExitStack()
        if plan.mode == "force":
            store.clear()
        write_deferred: Callable[[], None] | None = None
        if fresh:
            bulk.enter_context(store.bulk_load())
        else:  # file by file, the same statements again: some are cheaper once at the end
            write_deferred = bulk.enter_context(store.deferred_writes())
        if plan.mode == "incremental" and _parsed_elsewhere(len(jobs)) and len(jobs) * 4 >= len(stored_states):
            # every symbol, for the resolver, read while the pool parses
            # (the main process waits for its first files), then kept as
            # the files are written: not read again after the last one. Only
            # when a quarter of the files or more change: a smaller change
            # reads the graph on demand (``_resolve``), and the read would be
            # spent (django HEAD~10: 116 of 2,899 files, 46 MiB and ~1 s)
            stored_symbols = {}
            for s in store.all_symbols():
                stored_symbols.setdefault(s.file, []).append(s)

        def take(item: ParseResult) -> None:
            """Store what was read of one file."""
            nonlocal applying
            path = item.state.path
            if item.seen:
                seen[path] = item.seen
            if item.unchanged:
                result.skipped_by_hash += 1
                return
            if item.vanished:  # deleted from the work tree only: as if git had lost it
                if path in current:
                    drop(path)
                return
            if item.extraction is None:
                state = _directory_named(root, item.state) if plan.in_git else item.state
                if _status(current, path) == "indexed":
                    drop(path)  # a module gone: what read it is resolved again
                else:
                    change.on_disk(path)  # no source: what a language reads of the disk may differ
                store.put_file(state)
                current[path] = (state.sha256, state.status)
                if state.status == "skipped":
                    result.skipped_files.append((path, state.reason))
                return
            result.parsed += 1
            started = time.perf_counter()
            _apply_file(
                store, item.extraction, result, pending, old_targets, change,
                fresh=fresh, search_index=plan.mode == "incremental",
            )  # fmt: skip
            store.put_file(item.state)
            current[path] = (item.state.sha256, "indexed")
            reparsed.append(path)
            if stored_symbols is not None:  # as written: one symbol an ID, the last
                stored_symbols[path] = list({s.id: s for s in item.extraction.symbols}.values())
            applying += time.perf_counter() - started

        def forget(path: str) -> None:
            """What this run stored of ``path`` goes, to read it again."""
            if path in current:
                drop(path)
            pending.forget(path)
            reparsed[:] = [p for p in reparsed if p != path]
            result.skipped_files[:] = [s for s in result.skipped_files if s[0] != path]

        for item in parsed:
            take(item)
        result.timings["read_parse"] = time.perf_counter() - clock - applying
        result.timings["merkle"] = applying
        # A file that changed after it was read is read again, once; one that
        # changed again is stored as skipped and left dirty for the next run
        # (docs/incremental.md, a consistent snapshot).
        clock = time.perf_counter()
        unsettled = _settle(root, limits, seen, forget, take)
        for path in unsettled:
            store.put_file(_unsettled_state(path))
            current[path] = ("", "skipped")
            result.skipped_files.append((path, CHANGED_WHILE_READ))
        result.timings["snapshot"] = time.perf_counter() - clock
        # stored before, gone now (a file skipped now is not deleted: it is listed)
        result.deleted_files = [p for p in dict.fromkeys(dropped) if p in stored_states and p not in current]
        # a deleted file's symbols are removed ones too (the summary said "-0" beside "2 deleted")
        counted = set(result.categories["removed"])
        result.categories["removed"] += [
            i for p in result.deleted_files for i in dict.fromkeys(dropped_ids.get(p, ())) if i not in counted
        ]

        clock = time.perf_counter()
        # an incremental run removed these symbols, nothing else: only edges to them can dangle
        result.edges_invalidated = store.invalidate_dangling_edges(
            vanished | set(result.categories["removed"]) if plan.mode == "incremental" else None
        )
        result.edges_resolved, touched = _resolve(
            store, change, pending, reparsed,
            everything=plan.mode != "incremental", root=root,
            symbols=None if stored_symbols is None else lambda: _all_symbols(stored_symbols),
            # every text in one pass: cheaper than file by file, and compact;
            # done while a forked process resolves edges (an incremental run:
            # the writes deferred so far, before it resolves)
            meanwhile=store.rebuild_search_index if plan.mode != "incremental" else write_deferred,
        )
        bulk.close()  # the indexes again (the deferred writes), before the in-degree counts read edges by target
        result.timings["resolve"] = time.perf_counter() - clock

        clock = time.perf_counter()
        if plan.mode != "incremental":
            result.in_degree_updated = store.recompute_in_degree()
        else:
            # and the symbols added: one dropped and read again in the run (a
            # consistent snapshot) is new to its rows, not to the edges that
            # kept their answer (a node computed again to the same value)
            result.in_degree_updated = store.recompute_in_degree(touched | old_targets | set(result.categories["added"]))
        result.timings["centrality"] = time.perf_counter() - clock
        store.set_meta("last_commit", plan.head)
        extractor = plan.extractor or _extractor(store)
        store.set_meta("extractor", extractor.partition(" ")[2])
        store.set_meta("extractor_stat", extractor)
        clock = time.perf_counter()
        store.set_meta("dirty_files", json.dumps(_dirty(root, plan, limits, seen, unsettled)))
        result.timings["snapshot"] += time.perf_counter() - clock
        store.set_meta("language_pack", _language_pack())
        store.set_meta("languages", json.dumps(store.indexed_languages()))
    _kept(locals())
    return result


def _settle(
    root: Path,
    limits: Limits,
    seen: dict[str, str],
    forget: Callable[[str], None],
    take: Callable[[ParseResult], None],
) -> list[str]:
    """Every file read is read again: one that changed since (rewritten,
    deleted, replaced by a directory or a link, even back and forth) is
    forgotten and read once more, here; those that changed again by then,
    forgotten, are returned. What is stored was thus the whole file at one
    moment, never a file read half-way through a write."""
    changed = changed_since_read(str(root), seen, limits)
    for path in changed:
        forget(path)
    for path in changed:
        take(extract_file(ParseJob(path, root=str(root), limits=limits, code_hashes=False)))
    again = changed_since_read(str(root), {p: seen[p] for p in changed if p in seen}, limits)
    for path in again:
        forget(path)
    return again


def _unsettled_state(path: str) -> FileState:
    from cartog_ci import languages

    spec = languages.for_path(path)
    return FileState(stored_name(path), spec.name if spec else None, "", 0, status="skipped", reason=CHANGED_WHILE_READ)


def _directory_named(root: Path, state: FileState) -> FileState:
    """A listed path found to be a directory is a submodule only when git's
    index says so (a gitlink); otherwise a file was replaced by one."""
    if state.reason == NOW_A_DIRECTORY and git.gitlinks(root, [state.path]):
        return replace(state, reason=SUBMODULE)
    return state


def _dirty(root: Path, plan: _Plan, limits: Limits, seen: dict[str, str], unsettled: list[str]) -> list[str]:
    """The files the next run reads whatever git says then: those changed
    when the run began, and of the others it read, those git now sees as
    changed since ``last_commit`` and those changed since they were read
    (in that order: a file that was the commit's for git may have been
    edited before it was read, then checked out again; the next run would
    take it for the commit's)."""
    dirty = set(plan.dirty) | set(unsettled)
    clean = {p: s for p, s in seen.items() if p not in dirty}  # said unchanged by git when the run began
    if plan.head is not None and clean:
        try:
            dirty |= git.differing_from(root, plan.head, sorted(clean))
        except GitError:  # no answer: each is read again
            dirty |= set(clean)
        dirty |= set(changed_since_read(str(root), clean, limits))
    return sorted(p for p in dirty if not _ours(p))


def _parsed_elsewhere(jobs: int) -> bool:
    """Whether these many files are parsed by a process pool (index/files.py)."""
    from cartog_ci.index import files

    return jobs >= files.POOL_THRESHOLD and (os.cpu_count() or 1) >= 2


def _all_symbols(by_file: dict[str, list[Symbol]]) -> list[Symbol]:
    """``store.all_symbols()`` from the symbols kept file by file: in its
    order (store/symbols.py ALL_ORDER; texts compare by code point in
    Python, by UTF-8 bytes in SQLite: the same order). Their in-degrees may
    be stale: resolution never reads them."""
    return sorted(
        (s for symbols in by_file.values() for s in symbols), key=lambda s: (s.file, s.start_byte, -s.end_byte, s.id)
    )


def _status(states: dict[str, tuple[str, str]], path: str) -> str:
    """The file's status in ``states`` (path -> (SHA-256, status)), "" when absent."""
    state = states.get(path)
    return state[1] if state is not None else ""


def _stored_sha(states: dict[str, tuple[str, str]], path: str) -> str | None:
    state = states.get(path)
    return state[0] if state is not None else None


def _apply_file(
    store: Store,
    extraction: FileExtraction,
    result: IndexResult,
    pending: _Pending,
    old_targets: set[str],
    change: _Change,
    *,
    fresh: bool,
    search_index: bool = True,
) -> None:
    """Merkle-diff one re-parsed file against the store and apply it; what
    it changed goes to ``change`` (the keys of the lookups it changes), its
    edges to ``pending``, the targets its stored edges had to ``old_targets``."""
    path = extraction.path
    new = {s.id: s for s in extraction.symbols}
    old = {} if fresh else {s.id: s for s in store.symbols_in_file(path)}
    old_rows = [] if fresh else store.numbered_edges_in_file(path)
    old_edges = [e for _, e in old_rows]
    old_targets.update(e.target_id for e in old_edges if e.target_id)
    diff = diff_symbols(old, new)
    added, removed = diff.added, diff.removed
    modified = [s for _, s in diff.modified]
    children_changed = [s for _, s in diff.children_changed]
    # same content, new position: keep line numbers right, not a change
    relocated = [s for s in diff.moved if _same_but_position(old[s.id], s)]
    store.set_positions(relocated)
    store.update_symbols([s for s in diff.moved if not _same_but_position(old[s.id], s)])
    result.categories["unchanged"] += [s.id for s in diff.moved + diff.unchanged]
    store.insert_symbols(added)
    store.update_symbols(modified + children_changed)
    store.delete_symbols(s.id for s in removed)
    if fresh:
        store.insert_edges(extraction.edges)
    else:
        _write_edges(store, old_rows, list(extraction.edges), pending)
        change.note(path, old, new, old_edges, list(extraction.edges))
        change.old_rows[path] = old_rows
    store.replace_texts(
        path, extraction.texts, {s.id: s.name for s in extraction.symbols}, search_index=search_index, fresh=fresh,
        previous_names=None if fresh else {s.id: s.name for s in old.values()},
    )  # fmt: skip
    result.categories["added"] += [s.id for s in added]
    result.categories["modified"] += [s.id for s in modified]
    result.categories["children_changed"] += [s.id for s in children_changed]
    result.categories["removed"] += [s.id for s in removed]


def _same_but_position(a: Symbol, b: Symbol) -> bool:
    """Whether two symbols of one ID differ at most in their lines and bytes."""
    return (
        a.name, a.qualified_name, a.kind, a.parent_id, a.signature, a.language,
        a.content_hash, a.subtree_hash, a.decorators, a.docstring,
    ) == (
        b.name, b.qualified_name, b.kind, b.parent_id, b.signature, b.language,
        b.content_hash, b.subtree_hash, b.decorators, b.docstring,
    )  # fmt: skip


# Kept rows (imports and bases, whose order across lines means something:
# the last import of a name binds it, are inserted anew).
_KEPT_KINDS = frozenset({"calls", "references", "raises"})


# an edge as a stored row it may keep: source, name, kind, qualifier and alias
_row_key = operator.attrgetter("source_id", "target_name", "kind", "qualifier", "alias")


def _write_edges(store: Store, old: list[NumberedEdge], new: list[Edge], pending: _Pending) -> None:
    """Store a re-parsed file's edges over its stored ones (``old``, in
    (line, id) order), every one to ``pending`` with its row ID. A stored
    call or reference with the same source, name, kind, qualifier and alias
    is kept, its line set where it differs and its target kept until phase 2
    (which carries it over or resolves the edge again), instead of being
    deleted and inserted again (seven indexes a row: django's query.py, 783
    edges, after a one-line edit). The rest of the old rows go, the rest of
    the new edges are inserted, in order.

    Row IDs order only the edges of one line (every query sorts by file and
    line first; imports and bases, whose order means something across lines,
    are always inserted anew): a line keeps its rows only when they come
    first among its edges and in ID order, so that its rows read back in the
    order the file has them, as after a cold build (new rows get larger IDs)."""
    free: dict[tuple[str, str, str, str | None, str | None], list[NumberedEdge]] = {}
    for row in old:
        if row[1].kind in _KEPT_KINDS:
            free.setdefault(_row_key(row[1]), []).append(row)
    kept: list[NumberedEdge | None] = []
    for e in new:
        rows = free.get(_row_key(e)) if e.kind in _KEPT_KINDS else None
        kept.append(rows.pop(0) if rows else None)
    lines: dict[int, list[int]] = {}
    for position, e in enumerate(new):
        lines.setdefault(e.line, []).append(position)
    for positions in lines.values():
        if len(positions) < 2:  # most lines: one edge, in order whatever its row
            continue
        ids = [row[0] for row in (kept[p] for p in positions) if row is not None]
        first = [row[0] for row in (kept[p] for p in positions[: len(ids)]) if row is not None]
        if first != ids or any(a >= b for a, b in zip(ids, ids[1:])):
            for p in positions:
                kept[p] = None
    # a kept row's target stays in the row until phase 2, beside the edge as
    # extracted (``_Pending.targets``): not a copy of each edge with it
    # (celery HEAD~10 -> HEAD keeps some 15k rows)
    pending.targets.update((row[0], (row[1].target_id, row[1].resolution)) for row in kept if row is not None)
    reused = {row[0] for row in kept if row is not None}
    store.delete_edges([i for i, _ in old if i not in reused])
    pairs = [(row, e) for row, e in zip(kept, new) if row is not None]
    store.set_lines([(i, e.line) for (i, was), e in pairs if was.line != e.line])
    pending.numbered += [(row[0], e) for row, e in pairs]
    inserted = [e for row, e in zip(kept, new) if row is None]
    numbers = store.insert_numbered_edges(inserted)
    if numbers is None and inserted:  # a store that does not number its rows: read them back
        wanted = set(inserted)
        pending.numbered += [(i, e) for i, e in store.edges_of_files([new[0].file]) if e in wanted]
    elif numbers is not None:
        pending.numbered += list(zip(numbers, inserted))


def _base(target: str | None, resolution: str | None) -> tuple[str | None, bool]:
    """What the hierarchy holds of an inherits edge: its target, and whether
    it is unknown (neither in the project nor known to be outside)."""
    return target, target is None and resolution is None


# The dependencies an index holds were recorded by this scheme of keys
# (index/deps.py); another (or none: an index from before) is recorded anew.
DEPS_VERSION = "3"  # 1: 32-bit key hashes; 2: the catalogue of nodes in one text
# Edges an incremental run resolves in two processes from (zod HEAD~10 -> HEAD:
# 25k edges, 0.25 s in one process).
FORK_INCREMENTAL = 16_000
# A run that resolves fewer edges than the symbols / ON_DEMAND_SHARE reads
# the symbols it needs as it goes, else reads them all once: recorded, an
# edge resolved on demand cost ~140 us, one on the whole table ~37 us after
# ~15 us a symbol to read and build it (celery 5.3.6 -> 5.4.0, HEAD~10 ->
# HEAD: 3,560 edges, 8,642 symbols; on demand 490-530 ms of resolution,
# read whole 107 + 20 ms, then 130 ms; the run 1.83 -> 1.48 s of CPU).
ON_DEMAND_SHARE = 6


def _resolve(
    store: Store,
    change: _Change,
    pending: _Pending,
    reparsed: list[str],
    *,
    everything: bool,
    root: Path | None = None,
    meanwhile: Callable[[], None] | None = None,
    symbols: Callable[[], list[Symbol]] | None = None,
) -> tuple[int, set[str]]:
    """Phase 2: resolve again the edges whose answer may have changed:
    those that read a key the run changed (docs/incremental.md, "Recorded
    dependencies"); ``meanwhile`` (store work) runs once the edges are
    read, alongside a forked resolver when there is one. Returns the number
    of edges resolved and the targets touched.

    When nothing can have changed, the symbol table is not even built: that
    is most of a nothing-changed run (benchmarks/incremental.py)."""
    recorded = store.supports_dependencies
    if not everything and not change.keys and not pending.numbered and not change.disk:
        if meanwhile is not None:
            meanwhile()
        return 0, set()
    if not everything and (not recorded or store.get_meta("deps") != DEPS_VERSION):
        everything = True  # no dependencies to go by: every edge again (and recorded)
    if everything:
        return _resolve_everything(store, recorded, root, meanwhile, symbols)
    plan = _Revisit(store, change, pending, reparsed)
    # imported here: a run where nothing can have changed never builds a resolver
    from cartog_ci.index.resolve import resolve_edges, resolver_for, resolver_on_demand

    where = str(root) if root is not None else ""
    # First what may have changed, a node reached counted as changed: the
    # bases to resolve again (before any node is computed again: a node is
    # computed when it is first needed, the bases' before the hierarchy is
    # known, as in a cold run) and the size of the run.
    plan.reach(plan.expand(plan.hashes), bases=True)
    # Many edges: read every symbol once; a few: read what they need as they
    # go (``ON_DEMAND_SHARE``). The answers are the same
    # (tests/index/test_on_demand.py); only the cost differs.
    on_demand = plan.reachable + plan.expected() < store.symbol_count() // ON_DEMAND_SHARE
    resolver = (
        resolver_on_demand(store, root=where, record=True)
        if on_demand
        else resolver_for((symbols or store.all_symbols)(), store.import_edges(), root=where, record=True)
    )
    plan.reach(plan.expand(plan.derived(resolver.t)), bases=True)

    # bases first: no answer reads a base before they are resolved
    inherits = plan.inherits()
    answers = resolve_edges(resolver, inherits)
    plan.answered(inherits, answers)
    plan.bases_changed(inherits, answers)
    if on_demand:  # a class's bases when it is met
        resolver.set_hierarchy_on_demand(store.bases_of, store.has_unknown_base)
    else:
        resolver.set_hierarchy(store.bases(), store.classes_with_unknown_bases())
    # Then what did change: the nodes a change reached computed again, those
    # with another value changed; the other edges that read a change.
    plan.reach(plan.verify(resolver), bases=False)
    rest = plan.rest()
    forked = len(rest) >= FORK_INCREMENTAL and not on_demand and (os.cpu_count() or 1) >= 2
    found = resolve_edges(resolver, rest, forked=forked, meanwhile=meanwhile)
    plan.answered(rest, found)
    plan.write(resolver)
    _kept(locals())
    return len(inherits) + len(rest), plan.touched


def _resolve_everything(
    store: Store,
    recorded: bool,
    root: Path | None,
    meanwhile: Callable[[], None] | None,
    symbols: Callable[[], list[Symbol]] | None,
) -> tuple[int, set[str]]:
    """Every edge resolved again (a cold run, or no dependencies recorded),
    with the dependencies of each answer recorded where the store keeps them."""
    from cartog_ci.index.deps import Catalogue, FileDeps
    work = store.numbered_edges()
    if not work:
        if meanwhile is not None:
            meanwhile()
        return 0, set()
    from cartog_ci.index.resolve import hashed_nodes, printed_nodes, resolve_edges, resolver_for

    where = str(root) if root is not None else ""
    resolver = resolver_for((symbols or store.all_symbols)(), store.import_edges(), root=where, record=recorded)
    stored = {i: (e.target_id, e.resolution) for i, e in work}
    inherits = [(i, e) for i, e in work if e.kind == "inherits"]
    answers = resolve_edges(resolver, inherits)
    store.set_targets([(i, t, r) for i, t, r, *_ in answers if stored[i] != (t, r)])
    resolver.set_hierarchy(store.bases(), store.classes_with_unknown_bases())
    # A table read whole can be shared with a forked process (never the store).
    forked = (os.cpu_count() or 1) >= 2
    rest = resolve_edges(resolver, [(i, e) for i, e in work if e.kind != "inherits"], forked=forked, meanwhile=meanwhile)
    store.set_targets([(i, t, r) for i, t, r, *_ in rest if stored[i] != (t, r)])
    answers += rest
    if recorded:
        rows: dict[str, list[NumberedEdge]] = {}
        for i, e in work:  # in ID order
            rows.setdefault(e.file, []).append((i, e))
        file_of = {i: e.file for i, e in work}
        by_file: dict[str, FileDeps] = {p: FileDeps() for p in rows}
        for i, _, _, deps, outside in answers:  # each row once: ``FileDeps.record`` without its comparison
            found = by_file[file_of[i]]
            found.by_row[i] = deps
            found.outside.update(outside)
        store.replace_dependencies(
            ((p, d.encode(rows[p]), d.outside) for p, d in sorted(by_file.items())), hashed_nodes(resolver)
        )
        Catalogue(printed_nodes(resolver), read=store.get_meta).save(store.set_meta)
        _remember_derived(store, resolver, replace=True)
        store.set_meta("deps", DEPS_VERSION)
    touched = {t for t, _ in stored.values() if t} | {t for _, t, *_ in answers if t}
    _kept(locals())
    return len(answers), touched


def _remember_derived(store: Store, resolver: object, *, replace: bool) -> None:
    """What the languages derived this run, by fingerprint (a cache that is
    no derived value: None, changed whenever the files or the disk do)."""
    from cartog_ci.index.deps import fingerprint
    table = resolver.t  # type: ignore[attr-defined]
    known: dict[str, str | None] = {} if replace else json.loads(store.get_meta("derived") or "{}")
    from cartog_ci.index.resolve import unlooked

    known.update({name: None for name in cast(dict[str, object], unlooked(table.caches))})
    known.update({name: fingerprint(value) for name, value in table.derived_values.items()})
    store.set_meta("derived", json.dumps(known, sort_keys=True))


class _Revisit:
    """The edges an incremental run resolves again, and what it writes of
    their answers (docs/incremental.md, "Recorded dependencies"):

    - the keys the run changed: its files' symbols and bindings (``_Change``),
      what languages derive (``derived``), the bases of a class whose bases
      changed (``("h", class)``, once the bases are resolved again);
    - the nodes that read one: computed again, changed when their value
      differs (``verify``), and so on to the end;
    - every edge of another file that read one of those (found by the keys,
      ``store.files_reading``, then by each edge's own keys);
    - a re-parsed file's edges, but for those whose same edge before read
      no key the run changed: those keep its answer (and its keys), unless
      it read its own line and the line moved.

    The bases are resolved first, from what *may* have changed (every node
    reached counted as changed): no node is computed again before them."""

    def __init__(self, store: Store, change: _Change, pending: _Pending, reparsed: list[str]) -> None:
        from cartog_ci.index.deps import FileDeps, key_hash
        self.store = store
        self.change = change
        self.pending = pending
        self.reparsed = set(reparsed)
        self.keys: set[Key] = set(change.keys)
        self.hashes = {key_hash(k) for k in self.keys}  # changed keys (after ``verify``: and nodes)
        self.expanded: set[int] = set()  # ``expand``: what may have changed
        self.reached: dict[bool, set[int]] = {True: set(), False: set()}  # by ``reach(bases=)``
        self.reachable = 0  # edges of other files that read what may have changed
        self.work: dict[int, Edge] = {}  # other files' edges to resolve again
        self.deps: dict[str, FileDeps | None] = {}  # the recorded dependencies of the files met
        self.rows: dict[str, list[NumberedEdge]] = {}  # the files met read whole: their edges, in ID order
        self.old: dict[str, FileDeps | None] = {
            p: FileDeps.decode(b, sorted(change.old_rows.get(p, [])))
            for p, b in store.dependencies(sorted(self.reparsed)).items()
        }
        self.answers: dict[int, tuple[str | None, str | None, tuple[int, ...], tuple[int, ...]]] = {}
        self.stored: dict[int, tuple[str | None, str | None]] = {}
        self.touched: set[str] = set()
        # a re-parsed file -> the keys its answers kept read (``rest``), and its outside keys before
        self.carried_keys: dict[str, tuple[list[tuple[int, ...]], set[int]]] = {}
        self.catalogue: Catalogue | None = None
        self._matches: list[tuple[int, Edge, Edge | None, tuple[int, ...] | None, FileDeps | None]] | None = None
        # ``_pending_split``'s answer and the keys changed when it was made
        self._split: tuple[set[int], list[NumberedEdge], list[tuple[int, Edge, Edge, tuple[int, ...], FileDeps]]] | None = None

    def derived(self, table: object) -> set[int]:
        """The keys of what languages derive from the whole table or the
        disk, computed again with the resolver's ``table`` and compared by
        fingerprint when a file appeared or went or the disk changed: the
        hashes of those new to the run."""
        from cartog_ci.index.deps import fingerprint
        extra: set[Key] = set()
        if self.change.files or self.change.disk:
            t = table
            from cartog_ci.languages.base import DERIVED

            stored: dict[str, str | None] = json.loads(self.store.get_meta("derived") or "{}")
            for name, print_ in stored.items():
                compute = DERIVED.get(name)
                if print_ is None or compute is None or fingerprint(t.derived(name, compute)) != print_:  # type: ignore[attr-defined]
                    extra.add(("k", name))
        return self._add(extra)

    def expand(self, hashes: set[int]) -> set[int]:
        """``hashes`` and the nodes that read one of them, and those that
        read one of those, to the end: what may have changed."""
        out = set(hashes)
        frontier = set(hashes)
        while frontier:
            frontier = self.store.nodes_reading(frontier) - self.expanded - out
            out |= frontier
        self.expanded |= out
        return out

    def verify(self, resolver: object) -> set[int]:
        """The changed keys and the nodes that changed: a node that read a
        changed key is computed again (``SymbolTable.remember``: the value
        of this run, kept for its answers) and changed when its value's
        digest differs from the one stored (or none is); then the nodes that
        read one of those, to the end. Each node is computed once: its
        value is this run's whatever the order."""
        from cartog_ci.index.deps import Catalogue
        checked: set[int] = set()
        frontier = set(self.hashes)
        while frontier:
            found = self.store.nodes_reading(frontier) - checked - self.hashes
            checked |= found
            frontier = set()
            if found and self.catalogue is None:
                self.catalogue = Catalogue(read=self.store.get_meta)
            for node in sorted(found):
                assert self.catalogue is not None
                known = self.catalogue.under(node)  # more than one: nodes whose keys share a hash
                if not known or any(
                    key is None or resolver.recompute(*key) != before  # type: ignore[attr-defined]
                    for key, before in known
                ):
                    frontier.add(node)  # another value, or not known: changed
            self.hashes |= frontier
        return self.hashes

    def _add(self, keys: set[Key]) -> set[int]:
        from cartog_ci.index.deps import key_hash
        new = {key_hash(k) for k in keys} - self.hashes
        self.keys |= keys
        self.hashes |= new
        return new

    def reach(self, hashes: set[int], *, bases: bool) -> None:
        """Other files' edges that read one of these keys go to ``work``
        (``bases``: their inherits edges only, else the others): found by
        each edge's recorded keys, read by ID (a file whose keys are not
        recorded, or whose rows are not those recorded: all of its edges)."""
        from cartog_ci.index.deps import FileDeps
        hashes = hashes - self.reached[bases]
        if not hashes:
            return
        self.reached[bases] |= hashes
        files = self.store.files_reading(hashes) - self.reparsed
        unread = sorted(files - self.deps.keys())
        if unread:
            blobs = self.store.dependencies(unread)
            for p in unread:
                blob = blobs.get(p)
                self.deps[p] = FileDeps.decode(blob) if blob is not None else None
        wanted: dict[int, str] = {}
        whole: list[str] = []
        for path in sorted(files):
            deps = self.deps.get(path)
            if deps is None:
                whole.append(path)
                continue
            wanted.update((i, path) for i in deps.rows_reading(hashes) if i not in self.work)
        if bases:  # the bases alone built: the other rows are only checked to be those recorded
            self.reachable += len(wanted)
            places = self.store.edge_places(sorted(wanted))
            same = [i for i, (file, _) in places.items() if file == wanted[i]]
            for i in same:
                del wanted[i]
            self.work.update(self.store.numbered_edges_by_id(sorted(i for i in same if places[i][1] == "inherits")))
        else:
            for i, e in self.store.numbered_edges_by_id(sorted(wanted)):
                if e.file == wanted[i]:
                    if e.kind != "inherits":
                        self.work[i] = e
                    del wanted[i]
        for path in sorted(set(wanted.values())):  # rows not those recorded
            self.deps[path] = None
            whole.append(path)
        unread = sorted(set(whole) - self.rows.keys())
        for i, e in self.store.edges_of_files(unread):  # in ID order
            self.rows.setdefault(e.file, []).append((i, e))
        for path in sorted(set(whole)):
            if bases:
                self.reachable += len(self.rows.get(path, []))
            self.work.update((i, e) for i, e in self.rows.get(path, []) if (e.kind == "inherits") == bases)

    def inherits(self) -> list[NumberedEdge]:
        """The bases to resolve again: a re-parsed file's all (cheap, and
        compared with the bases its types had), others' that read what may
        have changed."""
        return sorted(
            [(i, e) for i, e in self.pending.numbered if e.kind == "inherits"]
            + [(i, e) for i, e in self.work.items() if e.kind == "inherits"]
        )

    def bases_changed(self, inherits: list[NumberedEdge], answers: list[Answer]) -> set[int]:
        """``("h", class)`` for the classes that were there before and now
        have other bases; the hashes of those new to the run."""
        found = {a[0]: _base(a[1], a[2]) for a in answers}
        new_bases: dict[str, list[tuple[int, int, tuple[str | None, bool]]]] = {}
        changed: set[Key] = set()
        for i, e in inherits:
            if e.file in self.reparsed:
                new_bases.setdefault(e.source_id, []).append((e.line, i, found[i]))
            elif _base(*self.stored[i]) != found[i]:
                changed.add(("h", e.source_id))
        for class_id, before in self.change.old_bases.items():
            if [b for *_, b in sorted(new_bases.get(class_id, []))] != before:
                changed.add(("h", class_id))
        if changed:
            changed.add(("h", None))  # the whole table, were it listed
        return self._add(changed)

    def expected(self) -> int:
        """How many re-parsed files' edges resolve again, as far as the keys
        changed so far tell (nodes a change reaches may add some): what the
        resolver's read of the graph is sized by."""
        return len(self._pending_split()[0])

    def _matched(self) -> list[tuple[int, Edge, Edge | None, tuple[int, ...] | None, FileDeps | None]]:
        """Each re-parsed file's edge (not its bases) with its same edge
        before (source, kind, name, qualifier and alias; of several, the one
        on its line) and the keys that one read: None when there was none,
        or its keys are not known. Matched once a run: ``expected`` and
        ``rest`` split the same list by the keys changed when they ask."""
        if self._matches is not None:
            return self._matches
        old_deps = self.old
        # the same edge before, by (source, kind, name, qualifier, alias): a
        # source's ID names its file. Not for a file whose keys are not known.
        same: dict[tuple[str, str, str, str | None, str | None], list[NumberedEdge]] = {}
        find = same.get
        key_of = _SAME_EDGE  # the key as one tuple built in C, not five reads in Python
        for path in self.reparsed:
            if old_deps.get(path) is None:
                continue
            for numbered in self.change.old_rows.get(path, ()):
                key = key_of(numbered[1])
                if key[1] != "inherits":
                    found = find(key)
                    if found is None:
                        same[key] = [numbered]
                    else:
                        found.append(numbered)
        out: list[tuple[int, Edge, Edge | None, tuple[int, ...] | None, FileDeps | None]] = []
        append = out.append
        by_rows: dict[str, dict[int, tuple[int, ...] | None]] = {}  # a file's ``by_row`` before, read once
        for i, e in self.pending.numbered:
            key = key_of(e)
            if key[1] == "inherits":
                continue
            olds = find(key)
            deps = old_deps.get(e.file) if olds else None
            if olds is None or deps is None:
                append((i, e, None, None, None))
                continue
            at = 0
            if len(olds) > 1:  # the one on its line, else the first
                line = e.line
                for k, (_, o) in enumerate(olds):
                    if o.line == line:
                        at = k
                        break
            row, old = olds.pop(at)
            by_row = by_rows.get(e.file)
            if by_row is None:
                by_row = by_rows[e.file] = deps.by_row
            read = by_row.get(row)
            append((i, e, old, read, deps) if read is not None else (i, e, None, None, None))
        self._matches = out
        return out

    def _pending_split(self) -> tuple[list[NumberedEdge], list[tuple[int, Edge, Edge, tuple[int, ...], FileDeps]]]:
        """Each re-parsed file's edges (not its bases): to resolve again,
        those whose same edge before read a key the run changed (or was not
        there); carried, the others, with that edge and what it read."""
        from cartog_ci.index.deps import SITE_HASH
        changed = self.hashes
        if self._split is not None:  # asked before (``expected``): the keys changed since can only add edges
            before, out, carried = self._split
            added = changed - before
            if added:
                clear = list(map(added.isdisjoint, map(_keys_read, carried)))
                out = out + [(c[0], c[1]) for c in itertools.compress(carried, map(operator.not_, clear))]
                carried = list(itertools.compress(carried, clear))
            self._split = (set(changed), out, carried)
            return out, carried
        out = []
        carried = []
        disjoint = changed.isdisjoint
        for i, e, old, read, deps in self._matched():
            if read is None or not disjoint(read) or (old.line != e.line and SITE_HASH in read):  # type: ignore[union-attr]
                out.append((i, e))
            else:
                carried.append((i, e, old, read, deps))  # type: ignore[arg-type]
        self._split = (set(changed), out, carried)
        return out, carried

    def rest(self) -> list[NumberedEdge]:
        """The other edges to resolve: those reached, and each re-parsed
        file's edge whose same edge before read a key the run changed (or
        was not there); the others keep that edge's answer (and are not
        answered again: ``stored`` is only for the edges answered). Of the
        keys a kept answer read, those another file's change may change are
        the file's ``outside`` keys before among them: for the file, all
        its kept answers' keys at once (``carried_keys``, ``write``)."""
        again, carried = self._pending_split()
        out = [(i, e) for i, e in self.work.items() if e.kind != "inherits"] + again
        updates = []
        answers, touched = self.answers, self.touched
        kept: dict[str, list[tuple[int, ...]]] = {}
        stored_in = self.pending.stored
        for i, e, old, read, deps in carried:
            target, resolution = old.target_id, old.resolution
            now = stored_in(i, e)
            if now[0] != target or now[1] != resolution:
                updates.append((i, target, resolution))
            answers[i] = (target, resolution, read, ())
            reads = kept.get(e.file)
            if reads is None:
                reads = kept[e.file] = []
                self.carried_keys[e.file] = (reads, deps.outside)
            reads.append(read)
            if now[0]:
                touched.add(now[0])
            if target:
                touched.add(target)
        self.store.set_targets(updates)
        self._stored(out)
        return sorted(out)

    def _stored(self, edges: list[NumberedEdge]) -> None:
        """What the rows of these edges hold, before they are answered: a
        re-parsed file's edge, the row's (``_Pending.stored``)."""
        held, stored = self.pending.stored, self.stored
        for i, e in edges:
            if i not in stored:
                stored[i] = held(i, e)

    def answered(self, edges: list[NumberedEdge], answers: list[Answer]) -> None:
        self._stored(edges)
        updates: list[tuple[int, str | None, str | None]] = []
        for i, t, r, deps, outside in answers:
            self.answers[i] = (t, r, deps, outside)
            if self.stored[i] != (t, r):
                updates.append((i, t, r))
            self.touched.update(x for x in (t, self.stored[i][0]) if x)
        self.store.set_targets(updates)

    def write(self, resolver: object) -> None:
        """The dependencies of the re-parsed files' edges and of those
        resolved again elsewhere; the nodes computed this run."""
        from cartog_ci.index.deps import Catalogue, FileDeps, checksum
        from cartog_ci.store.dependency_format import encode_rows
        # a re-parsed file's rows in ID order, each with the keys its answer
        # read (None: not answered) and the keys of those another file's
        # change may change: its stored form, built from them directly
        rows: dict[str, list[NumberedEdge]] = {p: [] for p in self.reparsed}
        for numbered in sorted(self.pending.numbered, key=_first):
            rows[numbered[1].file].append(numbered)
        answer_of = self.answers.get

        def reparsed(path: str) -> tuple[str, bytes, set[int]]:
            read: list[tuple[int, ...] | None] = []
            theirs: set[tuple[int, ...]] = set()
            for i, _ in rows[path]:
                answer = answer_of(i)
                if answer is None:
                    read.append(None)
                else:
                    read.append(answer[2])
                    theirs.add(answer[3])
            outside: set[int] = set().union(*theirs)
            kept = self.carried_keys.get(path)
            if kept is not None:  # the answers kept: the keys they read that were outside keys before
                outside |= set().union(*kept[0]) & kept[1]
            ids = list(map(_first, rows[path]))
            return path, encode_rows(ids, checksum(map(_second, rows[path])), read, outside), outside

        # the outside keys as stored of the files decoded (not read again to
        # tell which index rows change)
        stored = {p: d.outside for p, d in self.old.items() if d is not None}
        fresh: dict[str, FileDeps] = {}  # other files whose edges were resolved again
        for i, e in self.work.items():
            answer = self.answers.get(i)
            if answer is None:
                continue
            if e.file not in fresh:  # (never a re-parsed file: ``reach`` skips those)
                known = self.deps.get(e.file)
                if known is not None:
                    stored[e.file] = set(known.outside)
                fresh[e.file] = known if known is not None else FileDeps()
                if e.file in self.rows:  # read whole: its rows make the stored form
                    rows[e.file] = self.rows[e.file]
            fresh[e.file].record(i, answer[2], answer[3])

        def items() -> Iterable[tuple[str, bytes, set[int]]]:
            for p in sorted(self.reparsed | fresh.keys()):
                d = fresh.get(p)
                if d is None:
                    yield reparsed(p)
                elif p in rows or d.changed:  # a file revisited whose edges read what they read before: as stored
                    yield p, d.encode(rows[p]) if p in rows else d.encode(), d.outside

        self.store.put_dependencies(items(), stored)
        from cartog_ci.index.resolve import hashed_nodes, printed_nodes

        self.store.put_nodes(hashed_nodes(resolver))  # type: ignore[arg-type]
        computed = printed_nodes(resolver)  # type: ignore[arg-type]
        if computed:  # the parts of the catalogue that hold them read, those changed written
            if self.catalogue is None:
                self.catalogue = Catalogue(read=self.store.get_meta)
            self.catalogue.update(computed)
            self.catalogue.save(self.store.set_meta)
        _remember_derived(self.store, resolver, replace=False)
