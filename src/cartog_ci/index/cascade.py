"""The indexing cascade (docs/incremental.md): git -> SHA-256 -> Merkle symbol diff, then
edge invalidation, targeted re-resolution and in-degree for what changed.

One run is one transaction: a crash leaves the previous index intact.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import re
import time
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git
from cartog_ci.config import DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_TIMEOUT_MS, LANGUAGE_PACK_MODULE, in_index_dir
from cartog_ci.domain import TYPE_KINDS, Edge, FileExtraction, FileState, IndexResult, NumberedEdge, Symbol
from cartog_ci.index.files import Count, Limits, ParseJob, Progress, extract_all, stored_name, walk
from cartog_ci.parse.merkle import diff_symbols

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

_SELF_QUALIFIERS = ("self", "cls", "this", "super")


@dataclass
class _Plan:
    listed: list[str]
    candidates: list[str]
    head: str | None
    dirty: list[str]
    mode: str


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
        return _Plan(files, files, None, [], "force" if force else "full")
    listed = [p for p in git.tracked_and_untracked(root) if not _ours(p)]
    head = git.head(root)
    worktree = git.changed_in_worktree(root) if head else []
    dirty = sorted(p for p in set(worktree) | set(git.untracked(root)) if not _ours(p))
    last = store.get_meta("last_commit")
    previous_dirty = json.loads(store.get_meta("dirty_files") or "[]")
    if store.get_meta("extractor") not in (None, extractor_fingerprint()):
        # extractions from other code: unchanged bytes say nothing, re-insert all
        return _Plan(listed, listed, head, dirty, "force")
    if force or last is None or head is None or not git.commit_exists(root, last):
        return _Plan(listed, listed, head, dirty, "force" if force else "full")
    changed = git.changed_between(root, last, head) if last != head else []
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
    stored_states = store.file_states()
    plan = _plan(root, store, force, stored_states)
    result.mode = plan.mode
    result.candidates = len(plan.candidates)
    result.timings["git"] = time.perf_counter() - clock

    clock = time.perf_counter()
    limits = Limits(max_bytes, timeout_ms)
    jobs = [
        ParseJob(p, root=str(root), stored_sha=None if plan.mode == "force" else _stored_sha(stored_states, p), limits=limits)
        for p in plan.candidates
    ]
    parsed = extract_all(jobs, progress, parse_count)
    result.timings["read_parse"] = time.perf_counter() - clock

    clock = time.perf_counter()
    listed = {stored_name(p) for p in plan.listed}
    with store.transaction():
        gone = [p for p in stored_states if p not in listed]
        affected_names: set[str] = set()
        old_targets: set[str] = set()
        rebound_files: list[str] = []
        reparsed: list[str] = []
        hierarchy_changed = False
        vanished: set[str] = set()  # IDs of the symbols of dropped files

        def drop(path: str) -> None:
            edges = store.edges_in_file(path)
            nonlocal affected_names
            symbols = store.symbols_in_file(path)
            vanished.update(s.id for s in symbols)
            affected_names |= _names_of(symbols, edges)
            old_targets.update(e.target_id for e in edges if e.target_id)
            store.delete_file(path)
            result.deleted_files.append(path)

        for path in gone:
            hierarchy_changed = True
            drop(path)
        # nothing stored to compare with or delete: fill the tables in bulk
        # (an incremental run reads the chunks of each file it writes)
        fresh = plan.mode == "force" or (plan.mode == "full" and not stored_states)
        bulk = ExitStack()
        if plan.mode == "force":
            store.clear()
        if fresh:
            bulk.enter_context(store.bulk_load())
        for item in parsed:
            path = item.state.path
            if item.unchanged:
                result.skipped_by_hash += 1
                continue
            if item.vanished:  # deleted from the work tree only: as if git had lost it
                if path in stored_states:
                    hierarchy_changed = True
                    drop(path)
                continue
            if item.extraction is None:
                if path in stored_states and stored_states[path].status == "indexed":
                    drop(path)
                    result.deleted_files.pop()
                store.put_file(item.state)
                if item.state.status == "skipped":
                    result.skipped_files.append((path, item.state.reason))
                continue
            result.parsed += 1
            if not fresh:
                old_targets.update(e.target_id for e in store.edges_in_file(path) if e.target_id)
            names, class_change, rebound = _apply_file(
                store, item.extraction, result, fresh=fresh, search_index=plan.mode == "incremental"
            )
            if rebound:  # what this module re-exports may have changed
                rebound_files.append(path)
            affected_names |= names
            hierarchy_changed |= class_change
            store.put_file(item.state)
            reparsed.append(path)
        if plan.mode != "incremental":
            # every text in one pass: cheaper than file by file, and compact
            store.rebuild_search_index()
        result.timings["merkle"] = time.perf_counter() - clock

        # A module appearing or vanishing changes how imports of it resolve
        # (missing module -> external), even in files nobody touched.
        new_files = [p for p in reparsed if p not in stored_states]
        names_of_importers, importers = _importers(store, new_files + result.deleted_files + rebound_files)
        affected_names |= names_of_importers
        clock = time.perf_counter()
        # an incremental run removed these symbols, nothing else: only edges to them can dangle
        result.edges_invalidated = store.invalidate_dangling_edges(
            vanished | set(result.categories["removed"]) if plan.mode == "incremental" else None
        )
        result.edges_resolved, touched = _resolve(
            store, reparsed + sorted(importers), affected_names, hierarchy_changed,
            everything=plan.mode != "incremental",
            files_changed=bool(new_files or result.deleted_files), root=root,
        )
        bulk.close()  # the indexes again, before the in-degree counts read edges by target
        result.timings["resolve"] = time.perf_counter() - clock

        clock = time.perf_counter()
        if plan.mode != "incremental":
            result.in_degree_updated = store.recompute_in_degree()
        else:
            result.in_degree_updated = store.recompute_in_degree(touched | old_targets)
        result.timings["centrality"] = time.perf_counter() - clock
        store.set_meta("last_commit", plan.head)
        store.set_meta("extractor", extractor_fingerprint())
        store.set_meta("dirty_files", json.dumps(plan.dirty))
        store.set_meta("language_pack", _language_pack())
        store.set_meta("languages", json.dumps(store.indexed_languages()))
    return result


def _stored_sha(states: dict[str, FileState], path: str) -> str | None:
    state = states.get(path)
    return getattr(state, "sha256", None) if state is not None else None


def _names_of(symbols: Iterable[Symbol], edges: Iterable[Edge]) -> set[str]:
    names = {s.name for s in symbols if s.kind != "module"}
    for e in edges:
        if e.kind == "imports":
            names.add(e.alias or e.target_name)
            names.add(e.target_name)
            names.add((e.qualifier or "").split(".")[0])
    return names


def _apply_file(
    store: Store, extraction: FileExtraction, result: IndexResult, *, fresh: bool, search_index: bool = True
) -> tuple[set[str], bool, bool]:
    """Merkle-diff one re-parsed file against the store and apply it."""
    path = extraction.path
    new = {s.id: s for s in extraction.symbols}
    old = {} if fresh else {s.id: s for s in store.symbols_in_file(path)}
    old_edges = [] if fresh else store.edges_in_file(path)
    diff = diff_symbols(old, new)
    added, removed = diff.added, diff.removed
    modified = [s for _, s in diff.modified]
    children_changed = [s for _, s in diff.children_changed]
    # same content, new position: keep line numbers right, not a change
    store.update_symbols(diff.moved)
    result.categories["unchanged"] += [s.id for s in diff.moved + diff.unchanged]
    store.insert_symbols(added)
    store.update_symbols(modified + children_changed)
    store.delete_symbols(s.id for s in removed)
    if not fresh:
        store.delete_edges_of_files([path])
    store.insert_edges(extraction.edges)
    store.replace_texts(
        path, extraction.texts, {s.id: s.name for s in extraction.symbols}, search_index=search_index, fresh=fresh
    )
    result.categories["added"] += [s.id for s in added]
    result.categories["modified"] += [s.id for s in modified]
    result.categories["children_changed"] += [s.id for s in children_changed]
    result.categories["removed"] += [s.id for s in removed]
    names = {s.name for s in added + removed + modified}
    rebound = False
    if not fresh:
        changed = _import_keys(old_edges) ^ _import_keys(extraction.edges)
        names |= _names_of((), (e for e in old_edges + list(extraction.edges) if _import_key(e) in changed))
        rebound = bool(changed)
    class_change = any(s.kind in TYPE_KINDS for s in added + removed + modified)
    return names, class_change, rebound


_SPEC_SPLIT = re.compile(r"[./:\\]+")


def _module_key(path_or_spec: str) -> str:
    """Last meaningful component: ``pkg/b.py``, ``..pkg.b``, ``./b.js`` -> ``b``."""
    parts = [p for p in _SPEC_SPLIT.split(path_or_spec) if p]
    if len(parts) > 1 and parts[-1] in _source_suffixes():
        parts.pop()
    if len(parts) > 1 and parts[-1] in _package_files():
        parts.pop()
    return parts[-1] if parts else ""


@lru_cache(maxsize=1)
def _package_files() -> frozenset[str]:
    """File stems that stand for their directory (`__init__`, `index`, `mod`)."""
    from cartog_ci import languages

    return frozenset(stem for language in languages.LANGUAGES.values() for stem in language.package_files)


@lru_cache(maxsize=1)
def _source_suffixes() -> frozenset[str]:
    from cartog_ci import languages

    return frozenset(ext.lstrip(".") for language in languages.LANGUAGES.values() for ext in language.extensions)


def _importers(store: Store, files: list[str]) -> tuple[set[str], set[str]]:
    """The names that files importing one of ``files`` (a module that
    appeared, vanished or re-exports otherwise) bind through it, and those
    files: every edge of theirs may now resolve otherwise, a call on what an
    imported function returns (``to_unicode(x).split()``) as much as the
    import itself."""
    keys = {_module_key(f) for f in files} - {""}
    if not keys:
        return set(), set()
    names = set(keys)
    importers: set[str] = set()
    for edge in store.import_edges():
        if _module_key(edge.qualifier or "") in keys or edge.target_name in keys:
            names |= {edge.alias or "", edge.target_name, (edge.qualifier or "").split(".")[0]}
            importers.add(edge.file)
    return names, importers


def _import_key(e: Edge) -> tuple[str, str | None, str | None, str]:
    return (e.target_name, e.qualifier, e.alias, e.source_id)


def _import_keys(edges: Iterable[Edge]) -> set[tuple[str, str | None, str | None, str]]:
    return {_import_key(e) for e in edges if e.kind == "imports"}


def _resolve(
    store: Store,
    reparsed: list[str],
    names: set[str],
    hierarchy_changed: bool,
    *,
    everything: bool,
    files_changed: bool = False,
    root: Path | None = None,
) -> tuple[int, set[str]]:
    """Phase 2: re-resolve the edges whose answer may have changed.

    When nothing can have changed, the symbol table is not even built: that
    is most of a nothing-changed run (benchmarks/incremental.py)."""
    if everything:
        work = store.numbered_edges()
    else:
        work = _edges_to_revisit(store, reparsed, names, hierarchy_changed, files_changed=files_changed)
    if not work:
        return 0, set()
    # imported here: a run where nothing can have changed never builds a resolver
    from cartog_ci.index.resolve import resolve_edges, resolver_for, resolver_on_demand

    where = str(root) if root is not None else ""
    # Many edges: read every symbol once (~25 µs a symbol on django); a few:
    # read what they need as they go (~40 µs an edge). The answers are the
    # same (tests/index/test_on_demand.py); only the cost differs.
    on_demand = not everything and len(work) * 2 < store.symbol_count()
    resolver = (
        resolver_on_demand(store, root=where)
        if on_demand
        else resolver_for(store.all_symbols(), store.import_edges(), root=where)
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
    if on_demand:  # a class's bases when it is met
        resolver.set_hierarchy_on_demand(store.bases_of, store.has_unknown_base)
    else:
        resolver.set_hierarchy(store.bases(), store.classes_with_unknown_bases())
    rest = resolve_edges(resolver, [(i, e) for i, e in work if e.kind != "inherits"])
    store.set_targets(changed(rest))
    updates += rest
    touched = {t for t in before.values() if t} | {t for _, t, _ in updates if t}
    return len(updates), touched


def _edges_to_revisit(
    store: Store, reparsed: list[str], names: set[str], hierarchy_changed: bool, *, files_changed: bool
) -> list[NumberedEdge]:
    found: dict[int, Edge] = dict(store.edges_of_files(reparsed))
    name_list = sorted(n for n in names if n)
    found.update(store.edges_naming(name_list))
    found.update(store.edges_qualified_by(name_list))
    if name_list:
        # calls on what a call returns: `to_unicode(x).split()` has the
        # qualifier `to_unicode()`, `mod.f(x).g()` has `mod.f()`
        found.update(store.edges_on_constructed_receivers(naming=name_list))
    if files_changed:
        # unresolved imports and file links (Markdown): their target may have appeared
        found.update(store.unresolved_imports_and_file_links())
    if hierarchy_changed:
        found.update(store.edges_qualified_by(_receiver_qualifiers(store)))
        # `Foo().run()` and receivers holding a `Foo()`: the method may now
        # come from another base
        found.update(store.edges_on_constructed_receivers())
    return sorted(found.items())


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
