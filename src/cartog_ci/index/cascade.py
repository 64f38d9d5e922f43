"""The indexing cascade (docs/incremental.md): git -> SHA-256 -> Merkle symbol diff, then
edge invalidation, targeted re-resolution and in-degree for what changed.

One run is one transaction: a crash leaves the previous index intact.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git
from cartog_ci.config import DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_TIMEOUT_MS, LANGUAGE_PACK_MODULE, in_index_dir
from cartog_ci.domain import (
    CALLABLE_KINDS, TYPE_KINDS, Edge, FileExtraction, FileState, IndexResult, NumberedEdge, Symbol,
)  # fmt: skip
from cartog_ci.errors import GitError
from cartog_ci.index.files import (
    NOW_A_DIRECTORY, SUBMODULE, Count, Limits, ParseJob, ParseResult, Progress, changed_since_read, extract_file,
    extracting, stored_name, walk,
)  # fmt: skip
from cartog_ci.parse.merkle import diff_symbols

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.languages.base import ScopeRules
    from cartog_ci.store.base import Store

_SELF_QUALIFIERS = ("self", "cls", "this", "super")


@dataclass
class _Hierarchy:
    """Whether the class hierarchy may have changed, which re-resolves
    every call on a receiver (`self.m()`, `Foo().m()`). ``forced``: it may
    have (a file or a type gone, a type changed where methods live away from
    it); otherwise it is decided once the inherits edges are resolved again:
    a class of a re-parsed file whose bases now resolve otherwise, or an
    inherits edge elsewhere that does (docs/incremental.md)."""

    forced: bool = False
    # class ID -> (base ID, unknown) of its inherits edges before the run, in
    # order, for every type the re-parsed files had (none: an empty list)
    old_bases: dict[str, list[tuple[str | None, bool]]] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)  # the re-parsed files
    # the classes with other bases and their subclasses, when all are
    # declared in ``files`` (None: one is elsewhere, or none was found yet)
    within: set[str] | None = None


@dataclass
class _Pending:
    """The re-parsed files' edges that phase 2 resolves (those that carry no
    target over, and those naming what their file imports otherwise): with
    their row IDs, or by value where the store could not number the rows
    it inserted (``files``: theirs, read back)."""

    numbered: list[NumberedEdge] = field(default_factory=list)
    unnumbered: set[Edge] = field(default_factory=set)
    files: list[str] = field(default_factory=list)

    def forget(self, path: str) -> None:
        """Not the edges of ``path``: its rows were deleted (their IDs may
        be given to other rows), to be written again or not at all."""
        self.numbered = [(i, e) for i, e in self.numbered if e.file != path]
        self.unnumbered = {e for e in self.unnumbered if e.file != path}
        self.files = [f for f in self.files if f != path]


@dataclass(frozen=True)
class _Names:
    """What phase 2 re-resolves by name. An edge to a name defined, removed
    or bound otherwise may find another target; one to a symbol edited in
    place still finds it (its ID holds its kind, qualified name and file),
    but what a call on it gives may differ (`f().m()` when f's return
    annotation changed, `X.m()` when X's bases did)."""

    defined: set[str]
    edited: set[str]

    @property
    def any(self) -> list[str]:
        return sorted(n for n in self.defined | self.edited if n)


@dataclass
class _Plan:
    listed: list[str]
    candidates: list[str]
    head: str | None
    dirty: list[str]
    mode: str
    in_git: bool = True  # listed by git (else by a walk of the directory)


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


def _ours(path: str) -> bool:
    """The index directory is never indexed, even when nothing ignores it."""
    return in_index_dir(path)


def _language_pack() -> str:
    """Whether the all-languages extra is installed (without importing it)."""
    return "installed" if importlib.util.find_spec(LANGUAGE_PACK_MODULE) is not None else "absent"


def _plan(root: Path, store: Store, force: bool, stored: Iterable[str]) -> _Plan:
    top = git.toplevel(root)
    if top is None or top.resolve() != root.resolve():
        files = [p for p in walk(root) if not _ours(p)]
        return _Plan(files, files, None, [], "force" if force else "full", in_git=False)
    # HEAD, the changes against it and the untracked files: one `git status`
    state = git.work_tree(root)
    listed = [p for p in git.tracked_and_untracked(root, state.untracked) if not _ours(p)]
    head = state.head
    dirty = sorted(p for p in set(state.changed) | set(state.untracked) if not _ours(p))
    last = store.get_meta("last_commit")
    previous_dirty = json.loads(store.get_meta("dirty_files") or "[]")
    if store.get_meta("extractor") not in (None, extractor_fingerprint()):
        # extractions from other code: unchanged bytes say nothing, re-insert all
        return _Plan(listed, listed, head, dirty, "force")
    since = None if force or last is None or head is None else [] if last == head else git.changed_since(root, last, head)
    if since is None:  # forced, a first run, no commit yet, or the last one gone
        return _Plan(listed, listed, head, dirty, "force" if force else "full")
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
    return _Plan(listed, sorted(c for c in candidates if c in listed_set), head, dirty, "incremental")


def index_repository(
    root: Path,
    store: Store,
    *,
    force: bool = False,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    parse_timeout_ms: int | None = DEFAULT_PARSE_TIMEOUT_MS,
    progress: Progress | None = None,
    parse_count: Count | None = None,
) -> IndexResult:
    """One run, one write transaction from the plan to the last write: a
    second indexer waits (busy timeout) instead of planning from a state
    that the first is about to change, and a kill leaves the previous index."""
    # The run allocates hundreds of thousands of small objects and makes no
    # cycles worth collecting: the cyclic GC only costs time here (~10 %).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with store.transaction():
            return _index(root, store, force, max_bytes, parse_timeout_ms, progress, parse_count)
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
) -> IndexResult:
    result = IndexResult(notices=list(store.notices))
    clock = time.perf_counter()
    stored_states = store.file_hashes()  # path -> (sha256, status)
    plan = _plan(root, store, force, stored_states)
    result.mode = plan.mode
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
    with extracting(jobs, progress, parse_count, busy_indexer=busy) as parsed, store.transaction():
        gone = [p for p in stored_states if p not in listed]
        # the Python import roots before the run, when a Python file may appear or go
        roots_before = (
            _python_roots(store, root)
            if plan.mode == "incremental" and any(
                _PY_MODULE.search(p) for p in [*gone, *(c for c in plan.candidates if c not in stored_states)]
            )
            else None
        )  # fmt: skip
        affected_names: set[str] = set()
        reshaped: set[str] = set()  # names of symbols edited in place (same ID)
        old_targets: set[str] = set()
        rebound: dict[str, set[str] | None] = {}  # file -> the names it binds otherwise (None: any)
        reparsed: list[str] = []
        pending = _Pending()  # the re-parsed files' edges that carry no target over
        hierarchy = _Hierarchy()
        vanished: set[str] = set()  # IDs of the symbols of dropped files
        unbound: dict[str, set[str]] = {}  # dropped file -> the names its imports bound
        stored_symbols: dict[str, list[Symbol]] | None = None  # file -> its symbols as stored, kept up to date
        current = dict(stored_states)  # path -> (sha256, status) as stored now, kept up to date
        dropped: list[str] = []  # the files whose rows went, in order
        seen: dict[str, str] = {}  # path -> what was read of it (``ParseResult.seen``)

        def drop(path: str) -> None:
            edges = store.edges_in_file(path)
            nonlocal affected_names
            symbols = store.symbols_in_file(path)
            vanished.update(s.id for s in symbols)
            hierarchy.forced |= _types_away(symbols)
            # its symbols' names; the names its imports bound are seen by other
            # files only through an import of it (``_importers``), but for a
            # path reaching them with none (Rust), as for a re-parsed file's
            reached = any(_paths_reach(s.language) for s in symbols[:1])
            affected_names |= _names_of(symbols, edges if reached else ())
            unbound[path] = _names_of((), edges) - {""}
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
        if plan.mode == "incremental" and _parsed_elsewhere(len(jobs)):
            # every symbol, for the resolver, read while the pool parses
            # (the main process waits for its first files), then kept as
            # the files are written: not read again after the last one
            stored_symbols = {}
            for s in store.all_symbols():
                stored_symbols.setdefault(s.file, []).append(s)

        def take(item: ParseResult) -> None:
            """Store what was read of one file."""
            nonlocal affected_names, reshaped, applying
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
                    drop(path)  # a module gone: its importers are revisited (``left`` below)
                store.put_file(state)
                current[path] = (state.sha256, state.status)
                if state.status == "skipped":
                    result.skipped_files.append((path, state.reason))
                return
            result.parsed += 1
            started = time.perf_counter()
            names, edited, rebinds = _apply_file(
                store, item.extraction, result, hierarchy, pending, old_targets,
                fresh=fresh, search_index=plan.mode == "incremental",
            )  # fmt: skip
            if rebinds is None or rebinds:  # what this module re-exports may have changed
                rebound[path] = rebinds
            affected_names |= names
            reshaped |= edited
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

        # A module appearing or vanishing changes how imports of it resolve
        # (missing module -> external), even in files nobody touched: a file
        # indexed now that was not (new, or skipped before) or the reverse
        # (now a directory, binary, a link …).
        new_files = [p for p in reparsed if _status(stored_states, p) != "indexed"]
        left = [p for p in stored_states if _status(stored_states, p) == "indexed" != _status(current, p)]
        importers: set[str] = set()
        # read once for the importers and the resolver (their targets are not used)
        imports = _Lazy(store.import_edges)
        if plan.mode == "incremental":  # else every edge is resolved again
            appeared = {p: None for p in new_files + result.deleted_files + left}  # a module appearing binds anything
            # where the roots stay, a Python module found from them is found by
            # its path (not known before: a file deleted from the work tree only)
            exact = not any(_PY_MODULE.search(p) for p in appeared) or (
                roots_before is not None and roots_before == _python_roots(store, root)
            )
            names_of_importers, importers = _importers(imports, {**rebound, **appeared}, exact=exact, unbound=unbound)
            affected_names |= names_of_importers
        if plan.mode == "incremental" and not hierarchy.forced:
            # a base that is no longer there: its subclasses lose it (and the
            # edge its target, in phase 1, before it could be compared)
            removed = sorted(vanished | set(result.categories["removed"]))
            hierarchy.forced = bool(removed and store.edges_to(removed, ("inherits",)))
        hierarchy.files = set(reparsed)
        clock = time.perf_counter()
        # an incremental run removed these symbols, nothing else: only edges to them can dangle
        result.edges_invalidated = store.invalidate_dangling_edges(
            vanished | set(result.categories["removed"]) if plan.mode == "incremental" else None
        )
        result.edges_resolved, touched = _resolve(
            store, _Files(reparsed, sorted(importers), pending), _Names(affected_names, reshaped), hierarchy,
            everything=plan.mode != "incremental",
            files_changed=bool(new_files or result.deleted_files or left), root=root, imports=imports,
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
            result.in_degree_updated = store.recompute_in_degree(touched | old_targets)
        result.timings["centrality"] = time.perf_counter() - clock
        store.set_meta("last_commit", plan.head)
        store.set_meta("extractor", extractor_fingerprint())
        clock = time.perf_counter()
        store.set_meta("dirty_files", json.dumps(_dirty(root, plan, limits, seen, unsettled)))
        result.timings["snapshot"] += time.perf_counter() - clock
        store.set_meta("language_pack", _language_pack())
        store.set_meta("languages", json.dumps(store.indexed_languages()))
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


def _names_of(symbols: Iterable[Symbol], edges: Iterable[Edge]) -> set[str]:
    names = {s.name for s in symbols if s.kind != "module"}
    for e in edges:
        if e.kind == "imports":
            names.add(e.alias or e.target_name)
            names.add(e.target_name)
            names.add((e.qualifier or "").split(".")[0])
    return names


def _apply_file(
    store: Store,
    extraction: FileExtraction,
    result: IndexResult,
    hierarchy: _Hierarchy,
    pending: _Pending,
    old_targets: set[str],
    *,
    fresh: bool,
    search_index: bool = True,
) -> tuple[set[str], set[str], set[str] | None]:
    """Merkle-diff one re-parsed file against the store and apply it: the
    names defined or removed, the names of the symbols edited in place, and
    the names the file's imports bind otherwise (None: any, a star import
    changed). The targets its stored edges had go to ``old_targets``; its
    edges that name what it imports otherwise (the names an import added,
    removed or changed binds: ``Any`` for a new ``from typing import Any``)
    go to ``pending``: another file's edge naming one depends on this
    file's binding only through an import of it (``_importers``)."""
    path = extraction.path
    names: set[str] = set()
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
        edges, carried = _carry(old_edges, extraction, unsettled={s.id for s in added + modified}, removed=removed)
        # a carried edge, resolved or not, answers as before unless a name
        # or a binding it depends on changed (``_edges_to_revisit``)
        changed = _import_keys(old_edges) ^ _import_keys(extraction.edges)
        rebinding = [e for e in old_edges + list(extraction.edges) if _import_key(e) in changed]
        local = _names_of((), rebinding) - {""}
        if not _write_edges(store, old_rows, edges, carried, pending, local) or _paths_reach(extraction.language):
            names |= local  # by name in every file, as they are found
    store.replace_texts(
        path, extraction.texts, {s.id: s.name for s in extraction.symbols}, search_index=search_index, fresh=fresh,
        previous_names=None if fresh else {s.id: s.name for s in old.values()},
    )  # fmt: skip
    result.categories["added"] += [s.id for s in added]
    result.categories["modified"] += [s.id for s in modified]
    result.categories["children_changed"] += [s.id for s in children_changed]
    result.categories["removed"] += [s.id for s in removed]
    # a module is found by its path, never by name (a file appearing or
    # going revisits its importers, ``_importers``): a new `x.test.ts`
    # names no edge `test(...)` (zod: 1,621 of them revisited)
    names |= {s.name for s in added + removed if s.kind != "module"}
    rebinds: set[str] | None = set()
    if not fresh:
        rebinds = None if any(e.target_name == "*" for e in rebinding) else _bound_names(rebinding)
        _note_types(hierarchy, old.values(), old_edges, added, removed, modified)
    # Another file's edge depends on a symbol edited in place only through
    # its signature (`f().m()`: f's return annotation; `r.add()`: a JS
    # constant's `new Registry()`); its children and bases are followed
    # apart. A body edit re-resolves nothing of other files.
    reshaped = {s.name for s in modified if s.signature != old[s.id].signature}
    return names, reshaped, rebinds


def _paths_reach(language: str) -> bool:
    """Whether another file may reach this one's bindings with no import of
    it: a Rust path (`crate::a::f()` finds a's `pub use b::f`)."""
    return _scope_of(language).qualifier_paths


def _same_but_position(a: Symbol, b: Symbol) -> bool:
    """Whether two symbols of one ID differ at most in their lines and bytes."""
    return (
        a.name, a.qualified_name, a.kind, a.parent_id, a.signature, a.language,
        a.content_hash, a.subtree_hash, a.decorators, a.docstring,
    ) == (
        b.name, b.qualified_name, b.kind, b.parent_id, b.signature, b.language,
        b.content_hash, b.subtree_hash, b.decorators, b.docstring,
    )  # fmt: skip


# Kept rows, their target carried over (a base is always resolved again).
_CARRIED_KINDS = frozenset({"calls", "references", "raises"})
# Rows inserted anew (their order across lines means something: the last
# import of a name binds it), with the target carried over all the same.
_CARRIED_TARGETS = _CARRIED_KINDS | {"imports"}


def _carry(
    old_edges: list[Edge], new: FileExtraction, *, unsettled: set[str], removed: list[Symbol]
) -> tuple[list[Edge], list[bool]]:
    """The file's new edges, with the target of the same edge before (same
    source, name, kind, qualifier) where nothing it depends on can have
    changed: its source symbol's own content is the same (Go-style receivers,
    locals), it is no base, and no name it could mean is defined twice in
    the file (the definition seen from a line then depends on the line). An
    import is the module's edge: kept while the module's own code (its
    top-level statements) is the same, as an import of a file the run did
    not touch is; what it finds changes only with the module it names, whose
    changes revisit it by name or as an importer (``_edges_to_revisit``,
    ``_importers``), in this file as in any other. With the edges: whether
    each was carried over."""
    if not _scope_of(new.language).carry_resolutions:
        return list(new.edges), [False] * len(new.edges)
    counts = Counter(s.name for s in new.symbols) + Counter(s.name for s in removed)
    repeated = {n for n, c in counts.items() if c > 1}
    before: dict[tuple[str, str, str, str | None], list[Edge]] = {}
    for e in old_edges:
        if e.kind in _CARRIED_TARGETS:
            before.setdefault((e.source_id, e.target_name, e.kind, e.qualifier), []).append(e)
    out: list[Edge] = []
    carried: list[bool] = []
    for e in new.edges:
        same = before.get((e.source_id, e.target_name, e.kind, e.qualifier))
        kept = (
            bool(same) and e.kind in _CARRIED_TARGETS and e.source_id not in unsettled
            and (e.kind == "imports" or e.target_name not in repeated)
        )  # fmt: skip
        if kept:
            e = _targeted(e, same.pop(0))  # type: ignore[union-attr]
        out.append(e)
        carried.append(kept)
    return out, carried


def _targeted(e: Edge, old: Edge) -> Edge:
    """``e`` with the target (and its resolution) ``old`` had; built directly:
    dataclasses.replace costs 3x (HEAD~10 on scrapy: 6k edges)."""
    return Edge(e.source_id, e.target_name, e.kind, e.file, e.line, e.qualifier, e.alias, old.target_id, old.resolution)


def _row_key(e: Edge) -> tuple[str, str, str, str | None, str | None]:
    return (e.source_id, e.target_name, e.kind, e.qualifier, e.alias)


def _write_edges(
    store: Store, old: list[NumberedEdge], new: list[Edge], carried: list[bool], pending: _Pending, local: set[str]
) -> bool:
    """Store a re-parsed file's edges over its stored ones (``old``, in
    (line, id) order); those not ``carried``, and those that name one of
    ``local`` as ``_edges_to_revisit`` finds names, go to ``pending`` with
    their row IDs (a kept row's, an inserted row's). False when the store
    did not number the rows it inserted (the carried ones are then left out). A stored call or reference with the same source,
    name, kind, qualifier and alias is kept, its line and target set where
    they differ, instead of being deleted and inserted again (seven indexes a
    row: django's query.py, 783 edges, after a one-line edit). The rest of
    the old rows go, the rest of the new edges are inserted, in order.

    Row IDs order only the edges of one line (every query sorts by file and
    line first; imports and bases, whose order means something across lines,
    are always inserted anew): a line keeps its rows only when they come
    first among its edges and in ID order, so that its rows read back in the
    order the file has them, as after a cold build (new rows get larger IDs)."""
    free: dict[tuple[str, str, str, str | None, str | None], list[NumberedEdge]] = {}
    for row in old:
        if row[1].kind in _CARRIED_KINDS:
            free.setdefault(_row_key(row[1]), []).append(row)
    kept: list[NumberedEdge | None] = []
    for e in new:
        rows = free.get(_row_key(e)) if e.kind in _CARRIED_KINDS else None
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
    # a kept row resolved again keeps its target until then: phase 2 tells
    # an answer that changed from one found again (``_calls_on_returns``)
    new = [e if c or row is None else _targeted(e, row[1]) for row, e, c in zip(kept, new, carried)]
    reused = {row[0] for row in kept if row is not None}
    store.delete_edges([i for i, _ in old if i not in reused])
    pairs = [(row, e) for row, e in zip(kept, new) if row is not None]
    store.set_lines([(i, e.line) for (i, was), e in pairs if was.line != e.line])
    store.set_targets(
        [(i, e.target_id, e.resolution) for (i, was), e in pairs if (was.target_id, was.resolution) != (e.target_id, e.resolution)]
    )
    wanted = [not c or (bool(local) and _names_any(e, local)) for e, c in zip(new, carried)]
    pending.numbered += [(row[0], e) for row, e, w in zip(kept, new, wanted) if row is not None and w]
    inserted = [(e, c, w) for row, e, c, w in zip(kept, new, carried, wanted) if row is None]
    numbers = store.insert_numbered_edges([e for e, _, _ in inserted])
    if numbers is not None:
        pending.numbered += [(i, e) for i, (e, _, w) in zip(numbers, inserted) if w]
        return True
    if any(not c for _, c, _ in inserted):
        pending.unnumbered.update(e for e, c, _ in inserted if not c)
        pending.files.append(new[0].file)
    return False


def _names_any(e: Edge, names: set[str]) -> bool:
    """Whether ``_edges_to_revisit`` finds this edge by one of ``names``:
    its target or alias, its qualifier, a part of a constructed receiver."""
    q = e.qualifier
    return (
        e.target_name in names or e.alias in names or q in names
        or (q is not None and q.endswith("()") and not names.isdisjoint(q.removesuffix("()").split(".")))
    )  # fmt: skip


def _bound_names(imports: Iterable[Edge]) -> set[str]:
    """The names these import edges bind in their file (``import a.b``: ``a``
    and ``a.b``)."""
    out: set[str] = set()
    for e in imports:
        out |= {e.alias or e.target_name, e.target_name, e.target_name.split(".")[0]}
    return out


def _note_types(
    hierarchy: _Hierarchy,
    old_symbols: Iterable[Symbol],
    old_edges: list[Edge],
    added: list[Symbol],
    removed: list[Symbol],
    modified: list[Symbol],
) -> None:
    """A re-parsed file's part of the hierarchy check: its types' bases as
    they were; a type changed where methods may live away from it forces the
    check (a removed base forces it in ``_index``)."""
    hierarchy.forced |= _types_away(added + removed) or _types_away(modified, edited=True)
    for s in old_symbols:
        if s.kind in TYPE_KINDS:
            hierarchy.old_bases.setdefault(s.id, [])
    for e in old_edges:  # stored in (line, id) order
        if e.kind == "inherits":
            hierarchy.old_bases.setdefault(e.source_id, []).append(_base(e.target_id, e.resolution))


def _types_away(symbols: Iterable[Symbol], *, edited: bool = False) -> bool:
    """Whether one of these is a type whose methods may be declared away
    from it (Go, Rust, a JS prototype): its methods are found by name. In
    JS/TS, whose only such methods are a prototype's, neither an interface
    or type alias (no prototype) nor a class ``edited`` in place (its
    prototype's methods stay its own; its `extends` is an inherits edge,
    compared as any base is) is one: zod HEAD~10 -> HEAD, 4 interfaces and
    a class edited made every call on a receiver (7,685) resolve again."""
    for s in symbols:
        if s.kind not in TYPE_KINDS:
            continue
        scope = _scope_of(s.language)
        if scope.nested_methods or (scope.prototype_methods and (edited or s.kind in ("interface", "type"))):
            continue
        return True
    return False


def _base(target: str | None, resolution: str | None) -> tuple[str | None, bool]:
    """What the hierarchy holds of an inherits edge: its target, and whether
    it is unknown (neither in the project nor known to be outside)."""
    return target, target is None and resolution is None


_SPEC_SPLIT = re.compile(r"[./:\\]+")


def _module_key(path_or_spec: str, *, suffixed: bool = True) -> str:
    """Last meaningful component: ``pkg/b.py``, ``..pkg.b``, ``./b.js`` -> ``b``.
    ``suffixed=False``: the text names no file by its extension (a Python
    spec: ``pkg.js`` is the module js of pkg)."""
    parts = [p for p in _SPEC_SPLIT.split(path_or_spec) if p]
    if suffixed and len(parts) > 1 and parts[-1] in _source_suffixes():
        parts.pop()
    if len(parts) > 1 and parts[-1] in _package_files():
        parts.pop()
    return parts[-1] if parts else ""


def _spec_key(edge: Edge) -> str:
    """The module key of what an import edge imports from. A Python spec is
    dotted module names, never a file with its extension: `from pkg.js
    import C` imports from pkg/js.py (key `js`, as ``_keys_of`` gives it),
    and `pkg.r` stays `r` whichever languages of the pack the process has
    met (``_source_suffixes``)."""
    return _module_key(edge.qualifier or "", suffixed=_PY_MODULE.search(edge.file) is None)


@lru_cache(maxsize=1)
def _package_files() -> frozenset[str]:
    """File stems that stand for their directory (`__init__`, `index`, `mod`)."""
    from cartog_ci import languages

    return frozenset(stem for language in languages.LANGUAGES.values() for stem in language.package_files)


@lru_cache(maxsize=1)
def _source_suffixes() -> frozenset[str]:
    from cartog_ci import languages

    return frozenset(ext.lstrip(".") for language in languages.LANGUAGES.values() for ext in language.extensions)


class _Lazy:
    """A list read on the first call, and the same list after."""

    def __init__(self, read: Callable[[], list[Edge]]) -> None:
        self._read = read
        self._value: list[Edge] | None = None

    def __call__(self) -> list[Edge]:
        if self._value is None:
            self._value = self._read()
        return self._value


def _importers(
    import_edges: Callable[[], list[Edge]],
    files: dict[str, set[str] | None],
    *,
    exact: bool = False,
    unbound: dict[str, set[str]] | None = None,
) -> tuple[set[str], set[str]]:
    """The names that files importing one of ``files`` (a module that
    appeared, vanished or re-exports otherwise) bind through it, and those
    files: every edge of theirs may now resolve otherwise, a call on what an
    imported function returns (``to_unicode(x).split()``) as much as the
    import itself. A file maps to the names it binds otherwise (None: any
    name, a module that appeared or vanished): importing another name of
    it, or the module whole, changes nothing (django: a changed import in
    one module no longer re-resolves every file importing any module of
    that name). ``exact`` (the Python import roots are the same as before
    the run): an absolute Python import is matched with the modules whose
    path it can name, not only with their last component (celery
    HEAD~10 -> HEAD: 104 importers -> 48; a new ``t/smoke/signals.py`` is
    not what ``from celery import signals`` finds). ``unbound``: a deleted
    file -> the names its imports bound, which a star import of it (a
    barrel's `export * from "./m2"`) bound too, for its own importers."""
    keys: dict[str, set[str] | None] = {}
    by_key: dict[str, list[tuple[list[str] | None, set[str] | None]]] = {}
    names: set[str] = set()
    star_bound: dict[str, set[str]] = {}
    for path, rebinds in files.items():
        scope = _scope_at(path)
        for key in _keys_of(path):
            known = keys.get(key, set())
            keys[key] = None if rebinds is None or known is None else known | rebinds
            by_key.setdefault(key, []).append((_python_module(path), rebinds))
            star_bound.setdefault(key, set()).update((unbound or {}).get(path, ()))
            # a module's name where a file may use it unimported (a Python
            # star import passes a submodule on); JS/TS bind only what an
            # import says (`x.test.ts`'s key `test` names no `test(...)`)
            if key and (scope is None or not scope.imports_only):
                names.add(key)
    if not keys:
        return set(), set()
    importers: set[str] = set()
    for edge in import_edges():
        if _imports_through(edge, keys) and (not exact or _may_name(edge, by_key)):
            if edge.target_name == "*":  # what it imports otherwise it binds too, for its own importers
                key = _spec_key(edge)
                rebinds = keys.get(key)
                names |= (rebinds or set()) | star_bound.get(key, set())
                # `import * as z`: with the names the module binds otherwise
                # known, `z.X` finds another target only for those X (zod:
                # 6,480 `z.` edges revisited for a dozen names)
                bound = {edge.target_name, (edge.qualifier or "").split(".")[0]}
                names |= bound if rebinds is not None else bound | {edge.alias or ""}
            else:
                names |= {edge.alias or "", edge.target_name, (edge.qualifier or "").split(".")[0]}
            importers.add(edge.file)
    return names, importers


_PY_MODULE = re.compile(r"\.pyi?$")


def _python_module(path: str) -> list[str] | None:
    """The dotted parts of a Python file's module from the repository root
    (``a/b/__init__.py`` -> a, b), None for another file."""
    match = _PY_MODULE.search(path)
    if match is None:
        return None
    stem = path[: match.start()]
    return stem.removesuffix("/__init__").split("/") if stem != "__init__" else None  # the root: as the key says


def _may_name(edge: Edge, by_key: dict[str, list[tuple[list[str] | None, set[str] | None]]]) -> bool:
    """Whether an import edge matched by module key (``_imports_through``)
    can reach one of those modules. An absolute Python import ``from q import
    t`` / ``import q`` finds files only as ``<root>/q`` or ``<root>/q/t``
    (languages/python.py ``find_module``, ``submodule``): a module whose path
    ends with a start of those (a root's part before it) is reachable, any
    other is not, while the roots stay. Anything else: as the key says."""
    spec = edge.qualifier or ""
    if not spec or spec.startswith(".") or _PY_MODULE.search(edge.file) is None:
        return True
    first = spec.split(".")
    specs = [first] if edge.target_name in ("*", spec) else [first, first + edge.target_name.split(".")]
    for key in {edge.target_name, _spec_key(edge)}:
        for parts, rebinds in by_key.get(key, ()):
            if parts is None:
                return True
            if _imports_through(edge, {key: rebinds}) and any(_overlaps(parts, s) for s in specs):
                return True
    return False


def _overlaps(module: list[str], spec: list[str]) -> bool:
    """Whether an end of ``module`` is a start of ``spec`` (``src.a.b`` and ``a.b.c``)."""
    return any(module[i:] == spec[: len(module) - i] for i in range(len(module)))


def _python_roots(store: Store, root: Path) -> frozenset[str]:
    """The directories absolute Python imports are found from, for the
    files stored now (languages/python.py ``_roots``)."""
    from cartog_ci.index.resolve import SymbolTable
    from cartog_ci.languages.python import _roots

    table = SymbolTable(language_of_file={f: language for f, _, language in store.modules()}, root=str(root))
    return _roots(table)


def _imports_through(edge: Edge, keys: dict[str, set[str] | None]) -> bool:
    if edge.target_name in keys and _names_modules(edge.file):  # `from pkg import mod`, `import mod`
        return True
    key = _spec_key(edge)
    if key not in keys:
        return False
    rebinds = keys[key]
    whole = edge.target_name in ("*", edge.qualifier)  # a star import, `import pkg.mod`
    return rebinds is None or whole or edge.target_name in rebinds


def _keys_of(path: str) -> list[str]:
    """The module keys imports of ``path`` may have: its own (``_module_key``:
    `src/v4/index.ts` -> `v4`); for a package file, the spec's that names
    it relative to a directory (`./index`; in JS/TS also `.`): the spec
    alone does not say which directory, so any such import counts; where a
    package is a directory (Go), the directory's (a file appearing in
    `lib/` changes what `import ".../lib"` resolves to)."""
    key = _module_key(path)
    keys = [key] if key else []
    scope = _scope_at(path)
    directory, _, name = path.rpartition("/")
    stem = name.split(".")[0]
    if stem in _package_files():
        keys.append(stem)
        if scope is not None and scope.imports_only:
            keys.append("")
    if scope is not None and scope.package_is_directory and directory:
        keys.append(directory.rpartition("/")[2])  # Go: `import "example.com/m/lib"`
    return keys


def _scope_at(path: str) -> ScopeRules | None:
    """The rules of the language of ``path``, None for a file none indexes."""
    from cartog_ci import languages

    language = languages.for_path(path)
    return language.scope if language is not None else None


def _names_modules(path: str) -> bool:
    """Whether an import in this file may bind a module by its name
    (``ScopeRules.imported_names_may_be_modules``; zod: `import { test }`
    from vitest made 144 files importers of each `*.test.ts` changed)."""
    scope = _scope_at(path)
    return scope is None or scope.imported_names_may_be_modules


def _import_key(e: Edge) -> tuple[str, str | None, str | None, str]:
    return (e.target_name, e.qualifier, e.alias, e.source_id)


def _import_keys(edges: Iterable[Edge]) -> set[tuple[str, str | None, str | None, str]]:
    return {_import_key(e) for e in edges if e.kind == "imports"}


@dataclass(frozen=True)
class _Files:
    """The files whose edges phase 2 revisits: the re-parsed ones (their
    ``pending`` edges: those that carried no target over) and the importers
    of a module that appeared, vanished or binds otherwise (every edge)."""

    reparsed: list[str]
    importers: list[str]
    pending: _Pending


def _resolve(
    store: Store,
    files: _Files,
    names: _Names,
    hierarchy: _Hierarchy,
    *,
    everything: bool,
    files_changed: bool = False,
    root: Path | None = None,
    meanwhile: Callable[[], None] | None = None,
    imports: Callable[[], list[Edge]] | None = None,
    symbols: Callable[[], list[Symbol]] | None = None,
) -> tuple[int, set[str]]:
    """Phase 2: re-resolve the edges whose answer may have changed;
    ``meanwhile`` (store work) runs once the edges are read, alongside a
    forked resolver when there is one.

    When nothing can have changed, the symbol table is not even built: that
    is most of a nothing-changed run (benchmarks/incremental.py)."""
    if everything:
        work = store.numbered_edges()
    else:
        work = _edges_to_revisit(store, files, names, hierarchy.forced, files_changed=files_changed)
        if not work and not hierarchy.forced and any(hierarchy.old_bases.values()):
            hierarchy.forced = True  # bases dropped with every edge of their file: nothing to compare with
            work = _edges_to_revisit(store, files, names, hierarchy.forced, files_changed=files_changed)
    if not work:
        if meanwhile is not None:
            meanwhile()
        return 0, set()
    # imported here: a run where nothing can have changed never builds a resolver
    from cartog_ci.index.resolve import resolve_edges, resolver_for, resolver_on_demand

    imports = imports or store.import_edges
    where = str(root) if root is not None else ""
    # Many edges: read every symbol once (~25 µs a symbol on django); a few:
    # read what they need as they go (~40 µs an edge). The answers are the
    # same (tests/index/test_on_demand.py); only the cost differs.
    on_demand = not everything and len(work) * 2 < store.symbol_count()
    resolver = (
        resolver_on_demand(store, root=where)
        if on_demand
        else resolver_for((symbols or store.all_symbols)(), imports(), root=where)
    )
    before = {edge_id: edge.target_id for edge_id, edge in work}
    stored = {edge_id: (edge.target_id, edge.resolution) for edge_id, edge in work}

    def changed(found: list[tuple[int, str | None, str | None]]) -> list[tuple[int, str | None, str | None]]:
        # an edge that resolves as stored needs no write (most of them: a cold
        # run's unresolved edges, an incremental run's re-checked ones)
        return [u for u in found if stored[u[0]] != (u[1], u[2])]

    inherits = [(i, e) for i, e in work if e.kind == "inherits"]
    updates = resolve_edges(resolver, inherits)
    store.set_targets(changed(updates))
    classes = [] if everything or hierarchy.forced else _bases_changed(hierarchy, inherits, updates, stored)
    if classes:
        known = set(before)
        extra = [(i, e) for i, e in _hierarchy_edges(store, hierarchy, classes, imports) if i not in known]
        work += extra
        before.update((i, e.target_id) for i, e in extra)
        stored.update((i, (e.target_id, e.resolution)) for i, e in extra)
    if on_demand:  # a class's bases when it is met
        resolver.set_hierarchy_on_demand(store.bases_of, store.has_unknown_base)
    else:
        resolver.set_hierarchy(store.bases(), store.classes_with_unknown_bases())
    # A table read whole can be shared with a forked process (never the
    # store): for a run that resolves every edge, or an incremental one that
    # resolves many. Below FORK_INCREMENTAL the fork does not pay, its copied
    # pages cost both processes more than the edges (HEAD~10 -> HEAD on
    # scrapy: 12k edges, 75 ms of CPU alone; forked: 60-100 ms more CPU, no
    # less wall time); zod's 25k: 1,013 -> 948 ms wall, CPU the same.
    forked = (
        (everything or len(work) >= FORK_INCREMENTAL) and not on_demand and (os.cpu_count() or 1) >= 2
    )
    rest = resolve_edges(resolver, [(i, e) for i, e in work if e.kind != "inherits"], forked=forked, meanwhile=meanwhile)
    store.set_targets(changed(rest))
    updates += rest
    if not everything:
        extra = _calls_on_returns(store, work, changed(rest), set(names.any))
        before.update((i, e.target_id) for i, e in extra)
        stored.update((i, (e.target_id, e.resolution)) for i, e in extra)
        again = resolve_edges(resolver, extra)
        store.set_targets(changed(again))
        updates += again
    touched = {t for t in before.values() if t} | {t for _, t, _ in updates if t}
    return len(updates), touched


def _calls_on_returns(
    store: Store, work: list[NumberedEdge], found: list[tuple[int, str | None, str | None]], revisited: set[str]
) -> list[NumberedEdge]:
    """The calls on what a function returns (`f().m()`, `mod.f().m()`)
    whose answer may have changed although f did not: one of f's
    references (its return annotation's among them) now finds another
    target, the name bound otherwise in f's file (another import, a
    definition of its own, a module it imports from binding it otherwise).
    None for the functions whose name ``_edges_to_revisit`` already found
    them by (``revisited``), nor those already in ``work``."""
    edges = dict(work)
    sources = {edges[i].source_id for i, _, _ in found if edges[i].kind == "references"}
    if not sources:
        return []
    functions = {s.name for s in store.symbols(sorted(sources)).values() if s.kind in CALLABLE_KINDS} - revisited
    if not functions:
        return []
    return [(i, e) for i, e in store.edges_on_constructed_receivers(naming=functions) if i not in edges]


# Edges an incremental run resolves in two processes from (zod HEAD~10 -> HEAD:
# 25k edges, 0.25 s in one process).
FORK_INCREMENTAL = 16_000


def _edges_to_revisit(
    store: Store, files: _Files, names: _Names, hierarchy_changed: bool, *, files_changed: bool
) -> list[NumberedEdge]:
    found: dict[int, Edge] = dict(store.edges_of_files(files.importers))
    found.update(files.pending.numbered)
    if files.pending.files:
        found.update((i, e) for i, e in store.edges_of_files(files.pending.files) if e in files.pending.unnumbered)
    found.update(store.edges_naming(sorted(n for n in names.defined if n)))
    name_list = names.any
    found.update(store.edges_qualified_by(name_list))
    if name_list:
        # calls on what a call returns: `to_unicode(x).split()` has the
        # qualifier `to_unicode()`, `mod.f(x).g()` has `mod.f()`
        found.update(store.edges_on_constructed_receivers(naming=name_list))
    if files_changed:
        # unresolved imports and file links (Markdown): their target may have appeared
        found.update(store.unresolved_imports_and_file_links())
    if hierarchy_changed:
        found.update(_receiver_edges(store))
    return sorted(found.items())


def _receiver_edges(store: Store, hierarchy: _Hierarchy | None = None) -> list[NumberedEdge]:
    """Calls on a method's own object, on `Foo()` and on receivers holding
    a `Foo()`: where the method comes from depends on the bases. With
    ``hierarchy`` of a run whose changed bases reach no class outside the
    re-parsed files (``hierarchy.within``), a method's own object is only
    called in those files, by the methods of those classes: their calls
    only (an unchanged method's were carried over, not resolved again:
    `from a import Base` become `from c import Base` under an unchanged
    `class Child(Base)`). And imports of a member (Java `import static
    a.C.m`): `m` may be inherited by `C`."""
    if hierarchy is not None and hierarchy.within is not None:
        own = _own_calls_within(store, hierarchy.files, hierarchy.within)
    else:
        own = store.edges_qualified_by(_receiver_qualifiers(store))
    return own + store.edges_on_constructed_receivers() + _member_imports(store)


def _member_imports(store: Store) -> list[NumberedEdge]:
    """Imports of a member (Java `import static a.C.m`: `m` may be inherited
    by `C`) and the edges of their file naming what they bind (`m()`): the
    call is found through the import, whose answer may change."""
    imports = store.member_imports()
    bound = {(e.file, e.alias) for _, e in imports if e.alias}
    uses = [
        (i, e) for i, e in store.edges_naming(sorted({alias for _, alias in bound}))
        if e.kind != "imports" and e.qualifier is None and (e.file, e.target_name) in bound
    ]  # fmt: skip
    return imports + uses


def _own_calls_within(store: Store, files: set[str], classes: set[str]) -> list[NumberedEdge]:
    """The calls on a method's own object (`self.m()`, `super().m()`) made
    inside one of ``classes``, all declared in ``files``."""
    inside: dict[str, bool] = {}
    for path in sorted(files):
        for s in store.symbols_in_file(path):  # outer before inner
            inside[s.id] = s.id in classes or inside.get(s.parent_id or "", False)
    qualifiers = set(_receiver_qualifiers(store))
    return [(i, e) for i, e in store.edges_of_files(sorted(files)) if e.qualifier in qualifiers and inside.get(e.source_id)]


def _bases_changed(
    hierarchy: _Hierarchy,
    inherits: list[NumberedEdge],
    updates: list[tuple[int, str | None, str | None]],
    stored: dict[int, tuple[str | None, str | None]],
) -> list[str]:
    """The classes that were there before and now have other bases: of a
    re-parsed file (its inherits edges are new rows: compared with the old
    ones), or elsewhere, whose inherits edge resolves otherwise. A class new
    in this run has no subclass outside its file that naming it would not
    re-resolve."""
    found = {i: _base(t, r) for i, t, r in updates}
    new_bases: dict[str, list[tuple[int, int, tuple[str | None, bool]]]] = {}
    changed: list[str] = []
    for i, e in inherits:
        if e.file in hierarchy.files:
            new_bases.setdefault(e.source_id, []).append((e.line, i, found[i]))
        elif _base(*stored[i]) != found[i]:
            changed.append(e.source_id)  # a class elsewhere: its file is not re-resolved
    changed += [c for c, old in hierarchy.old_bases.items() if [b for *_, b in sorted(new_bases.get(c, []))] != old]
    return list(dict.fromkeys(changed))


def _with_subclasses(store: Store, classes: list[str]) -> dict[str, Symbol]:
    """``classes`` and every subclass of theirs, however deep, by ID."""
    seen = set(classes)
    frontier = classes
    while frontier:
        below = store.edges_to(frontier, ("inherits",))
        frontier = list(dict.fromkeys(e.source_id for e in below if e.source_id not in seen))
        seen.update(frontier)
    return store.symbols(sorted(seen))


def _hierarchy_edges(
    store: Store, hierarchy: _Hierarchy, classes: list[str], imports: Callable[[], list[Edge]]
) -> list[NumberedEdge]:
    """The edges whose answer may depend on the bases of ``classes``, which
    changed: a method is looked up in the bases of a class, and of its
    subclasses, only from an edge in a file declaring one (`self.m()`,
    `super().m()`, `cls().m()`), or from a name that finds the class (`K.m()`,
    `mod.K().m()`, an alias it is imported as) or a function returning it
    (`make().m()` with `def make() -> K`, or `-> Self` in K). Languages that
    find a type otherwise too (a parameter's declared type, an implicit
    `this`, methods away from their type): ``_receiver_edges``. Inherits
    edges are left out: they resolve before any base is known."""
    affected = _with_subclasses(store, classes)
    rules = {s.language: _scope_of(s.language) for s in affected.values()}
    if not all(_bases_found_by_name(r) for r in rules.values()):
        # all in re-parsed files: their methods' own-object calls only (``_receiver_edges``)
        hierarchy.within = set(affected) if all(s.file in hierarchy.files for s in affected.values()) else None
        return _receiver_edges(store, hierarchy)
    files = sorted({s.file for s in affected.values()})
    own = set(_SELF_QUALIFIERS).union(*(r.self_names for r in rules.values()))
    found = {
        i: e for i, e in store.edges_of_files(files) if e.qualifier in own or (e.qualifier or "").endswith("()")
    }
    names = _imported_as({s.name for s in affected.values()}, imports())
    names = _imported_as(names | _returning(store, rules, names, set(files)), imports())
    found.update(store.edges_with_qualifier_parts(sorted(names)))
    found.update(_member_imports(store))
    return [(i, e) for i, e in sorted(found.items()) if e.kind != "inherits"]


def _bases_found_by_name(rules: ScopeRules) -> bool:
    """Whether a class's bases are only consulted from an edge inside it or
    from a name finding it (``_hierarchy_edges``): not through a parameter's
    declared type (Go, Java, Rust), an implicit `this` (Java, Ruby), a
    constant holding an instance or prototype methods (JS/TS), or methods
    declared away from their type."""
    return rules.nested_methods and not (
        rules.implicit_self or rules.parameter_pattern or rules.instance_constants or rules.prototype_methods
    )


def _imported_as(names: set[str], imports: list[Edge]) -> set[str]:
    """``names`` and the aliases that imports of one bind, of those too."""
    names = set(names)
    while True:
        more = {e.alias for e in imports if e.alias and not names.isdisjoint(e.target_name.split("."))} - names
        if not more:
            return names
        names |= more


def _returning(store: Store, rules: dict[str, ScopeRules], names: set[str], files: set[str]) -> set[str]:
    """The functions whose return annotation names one of ``names`` (a part
    of a dotted name), or the class they are declared in (``-> Self``: in
    one of ``files``): what a call of theirs gives is such a class."""
    from cartog_ci.index.resolve import SELF_TYPES, returned_name

    found: set[str] = set()
    mentioning = sorted(names | {"Self"})  # SELF_TYPES, as their last part
    for language, scope in rules.items():
        for name, file, signature in store.callable_signatures(language, mentioning):
            named = returned_name(signature, scope)
            if named is not None and (file in files if named in SELF_TYPES else not names.isdisjoint(named.split("."))):
                found.add(name)
    return found


def _scope_of(language: str) -> ScopeRules:
    from cartog_ci import languages

    return languages.scope_of(language)


def _receiver_qualifiers(store: Store) -> list[str]:
    """What methods call their own object: `self`/`this`, every language's
    self names (Rust `Self`) and Go receivers (`func (s *Server)` -> `s`),
    read from the stored signatures. A base added in one file changes what
    `s.Close()` means in the package's other files too."""
    from cartog_ci import languages

    names = set(_SELF_QUALIFIERS)
    for language in languages.LANGUAGES.values():
        spec = language.scope
        names.update(spec.self_names)
        if not spec.receiver_pattern:
            continue
        for signature in store.method_signatures(language.name):
            match = re.match(spec.receiver_pattern, signature)
            if match:
                names.add(match.group(1))
    return sorted(names)
