"""The symbol diff of a change (docs/report.md, step 3).

Only files changed between the two sides are read: the merge-base's blob is
parsed through the indexer's own pipeline (``index/files.py``); the head's
symbols are the index's when it holds the head's bytes (it was brought up to
date just before), else the head's blob is parsed too. The symbols are
classified with the Merkle hashes (``parse/merkle.py``), then removed/added
pairs with the same body are recognised as renames or moves, and modified
symbols are split into signature changes (callers may break) and body-only
changes.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import fields, replace
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from cartog_ci import git, languages
from cartog_ci.domain import CALLABLE_KINDS, TYPE_KINDS, FileExtraction, Symbol
from cartog_ci.domain.results import ChangeSet, Comparison, SymbolChange
from cartog_ci.errors import ParseTimeout
from cartog_ci.index.files import (
    Limits, ParseJob, ParseResult, Select, decode_source, extract_file, extracting, is_minified, revision_jobs, stored_name,
)  # fmt: skip
from cartog_ci.languages import signature_verdict, type_parameters
from cartog_ci.languages.base import Language
from cartog_ci.parse import budget
from cartog_ci.parse.extract import code_hashes
from cartog_ci.parse.merkle import SymbolDiff, diff_symbols
from cartog_ci.report import sides
from cartog_ci.report.side_cache import SideCache, side_cache
from cartog_ci.store.records import maker

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

MAX_RENAME_PAIRS = 40_000  # bodies compared pairing moves and renames (same name, or same parent)
# A stored symbol's fields that an extraction gives it too (not the graph's
# in_degree, nor a code hash, which the index never stores).
_EXTRACTED = attrgetter(*(f.name for f in fields(Symbol) if f.name not in ("in_degree", "code_hash")))
# Symbol(*_EXTRACTED(s)) without its __init__ (store/records.py): the two left out are its last fields
_AS_EXTRACTED = maker(Symbol, len(fields(Symbol)) - 2)
# The edges of the merge-base side the report reads: its imports and bases.
BASE_EDGES = frozenset({"imports", "inherits"})
T = TypeVar("T")


# A commit's change as ``begin`` reads it: the files with both sides' modes
# and objects, and the merge-base's blobs of those in a language, by object name.
Begun = tuple[dict[str, tuple[str, str, str, str]], Callable[[], dict[str, bytes]]]


def begin(repo: Path, comparison: Comparison) -> Begun | None:
    """For a commit head (else None): the change's files with both sides'
    modes and objects (one ``git diff --raw``), and the merge-base's blobs of
    the files in a language, begun on a thread (one ``git cat-file``): read
    while the index is brought up to date (commands/report.py), for
    ``compute_change``. Both sides are commits: nothing the index run does
    changes them."""
    objects = sides.changed_objects(repo, comparison)
    if objects is None:
        return None
    wanted = [
        name for path, (mode, name, _, _) in objects.items()
        if mode not in ("", git.SYMLINK, git.GITLINK) and languages.for_path(path) is not None
    ]  # fmt: skip
    return objects, _started(lambda: git.blobs(repo, wanted))


def compute_change(
    repo: Path,
    comparison: Comparison,
    *,
    limits: Limits,
    select: Select = list,
    store: Store | None = None,
    begun: Begun | None = None,
) -> ChangeSet:
    """``select``: the changed files the index holds (index/selection.py);
    ``store``: the index, up to date with the work tree, whose symbols of a
    head file with the same bytes are taken instead of parsing it again;
    ``begun``: what ``begin`` read of the same comparison."""
    head = comparison.head
    cs = ChangeSet(comparison.base_label, comparison.base_ref, comparison.merge_base, head, root=str(repo))
    # a commit head: the files with their modes and objects on both sides, in one git call
    if begun is None:
        begun = begin(repo, comparison)
    cs.files = select(list(begun[0]) if begun is not None else sides.changed_files(repo, comparison))
    # only files we parse are read, each side of them through one git process at most
    parsed = [p for p in cs.files if languages.for_path(p) is not None]
    # A symbolic link is a blob holding its target's path: never parsed (as
    # the index skips it), absent from its side, skipped with the reason.
    # The merge-base side feeds its graph (imports and bases, report/build.py);
    # the head side only its symbols: the index holds the head's edges.
    if begun is not None:
        # the head's bytes are found in the work tree (``_checked_out_side``)
        # while the merge-base's blobs are read from git
        objects, base_blobs = begun
        head_links, head_jobs, head_bytes, cs.not_checked_out = _checked_out_side(repo, objects, parsed, limits)
        links, jobs = _base_side(objects, parsed, limits, base_blobs())
        links |= head_links
    else:
        revision = sides.head_revision(head)
        # the staged files are read from git while the merge-base's are
        head_side = _started(lambda: _revision_side(repo, revision, parsed, limits)) if revision is not None else None
        links = git.symlinks(repo, comparison.merge_base, parsed)
        base_jobs = revision_jobs(repo, comparison.merge_base, parsed, limits=limits, keep_source=True, edge_kinds=BASE_EDGES)
        jobs = _without(base_jobs, links)
        if head_side is None:
            work_tree_links = {p for p in parsed if (repo / p).is_symlink()}
            links |= work_tree_links
            head_jobs = [
                ParseJob(p)
                if p in work_tree_links
                else ParseJob(p, root=str(repo), limits=limits, texts=False, keep_source=True, edge_kinds=frozenset())
                for p in parsed
            ]
            head_bytes = {p: sides.worktree_bytes(repo, p) for p in parsed if p not in work_tree_links}
        else:
            head_links, head_jobs = head_side()
            links |= head_links
            head_bytes = {j.path: j.data for j in head_jobs if j.path not in head_links}
            cs.not_checked_out = sides.not_checked_out(repo, head_bytes)
    if head.kind == "staged":  # unstaged edits elsewhere are in the graph too
        cs.unstaged_elsewhere = sides.unstaged_elsewhere(repo, exclude=cs.not_checked_out)
    indexed = _indexed(store, head_bytes, limits) if store is not None else {}
    # the base side of a file whose head the index holds hashes the code of
    # the symbols whose content changed alone (``_with_code_hashes``)
    jobs = [replace(j, code_hashes=_contents(indexed[j.path])) if j.path in indexed else j for j in jobs]
    # an indexed head file is hashed as soon as its base side is extracted:
    # on a process pool, while the workers extract the next files (Django
    # 5.1 -> 5.1.4 HEAD~10: 56 files, 0.45 s of head-side hashing in this
    # process that waited for the whole pool before)
    head_of = {j.path: j for j in head_jobs if j.path in indexed}
    # what an earlier report read of the same bytes (report/side_cache.py)
    cache = side_cache(store, limits) if store is not None else None
    cached = cache.bases(jobs) if cache is not None else {}
    if cache is not None:
        cache.read_heads({path: indexed[path].state.sha256 for path in head_of})
    before: dict[str, ParseResult] = {}
    hashed: dict[str, ParseResult] = {}
    fresh = [j for j in jobs if j.path not in cached]
    with extracting([*fresh, *(j for j in head_jobs if j.path not in indexed)]) as extracted:
        for path, job in zip(parsed, jobs, strict=True):
            result = cached.get(path)
            if result is None:
                result = next(extracted)
                if cache is not None:
                    cache.keep_base(job, result)
            before[path] = result
            if path in head_of:
                hashed[path] = _with_code_hashes(indexed[path], result, head_of[path], cache)
        parsed_after = list(extracted)
    rest = iter(parsed_after)
    after = {j.path: hashed[j.path] if j.path in indexed else next(rest) for j in head_jobs}
    for path in parsed:
        _add_file(cs, path, before[path], after[path])
        if path in links and not any(p == stored_name(path) for p, _ in cs.skipped):
            cs.skipped.append((stored_name(path), "symbolic link"))
    cs.changes = classify(cs)
    _drop_unread_removals(cs, limits, cache)
    if cache is not None:
        cache.write()
    cs.files = [stored_name(f) for f in cs.files]  # printable in JSON and Markdown
    return cs


def _revision_side(repo: Path, revision: str, parsed: list[str], limits: Limits) -> tuple[set[str], list[ParseJob]]:
    """The symbolic links among ``parsed`` at the head revision, and the
    jobs of the others, as git gives them."""
    links = git.symlinks(repo, revision, parsed)
    jobs = revision_jobs(repo, revision, parsed, limits=limits, keep_source=True, edge_kinds=frozenset())
    return links, _without(jobs, links)


def _base_side(
    objects: dict[str, tuple[str, str, str, str]], parsed: list[str], limits: Limits, found: dict[str, bytes]
) -> tuple[set[str], list[ParseJob]]:
    """The merge-base side of a commit head's change (``git.changed_objects``):
    its symbolic links, and the jobs of all files, with their blobs from
    ``found`` (by object name, ``begin``)."""
    links = {p for p in parsed if objects[p][0] == git.SYMLINK}
    read = {p: objects[p][1] for p in parsed if objects[p][0] not in ("", git.SYMLINK, git.GITLINK)}
    return links, [
        ParseJob(p, data=found.get(read[p]) if p in read else None, limits=limits, texts=False, keep_source=True,
                 edge_kinds=BASE_EDGES)
        for p in parsed
    ]  # fmt: skip


def _checked_out_side(
    repo: Path, objects: dict[str, tuple[str, str, str, str]], parsed: list[str], limits: Limits
) -> tuple[set[str], list[ParseJob], dict[str, bytes | None], list[str]]:
    """The head commit's side of a change (``git.changed_objects``): its
    symbolic links, the jobs of all files, the bytes of those that are no
    link, and the files the work tree does not hold as they are at the head
    (``sides.not_checked_out``). A work-tree file with the head's object name
    (``git.object_name``) is the head's blob: read from the work tree, which
    the check reads anyway, instead of from git (Django 5.1 -> 5.1.4 HEAD~10:
    2 MB through a second ``git cat-file``); the others through one."""
    links = {p for p in parsed if objects[p][2] == git.SYMLINK}
    on_disk = {p: sides.worktree_bytes(repo, p) for p in parsed if p not in links}
    found: dict[str, bytes | None] = {}
    unread: dict[str, str] = {}
    for path, data in on_disk.items():
        _, _, mode, name = objects[path]
        if mode in ("", git.GITLINK):  # no file, or a submodule's commit: no bytes, as ``git.show_many`` said
            found[path] = None
        elif data is not None and git.object_name(data, name) == name:
            found[path] = data
        else:
            unread[path] = name
    read = git.blobs(repo, list(unread.values()))
    found.update((path, read.get(name)) for path, name in unread.items())
    head_bytes = {path: found[path] for path in on_disk}
    jobs = [
        ParseJob(p, data=head_bytes.get(p), limits=limits, texts=False, keep_source=True, edge_kinds=frozenset())
        for p in parsed
    ]
    return links, jobs, head_bytes, [p for p, data in head_bytes.items() if data != on_disk[p]]


def _started(read: Callable[[], T]) -> Callable[[], T]:
    """``read`` begun on a thread of its own (git's time: the process waits
    on its pipes without the interpreter's lock); the function returned
    waits for it and gives its answer, or raises what it raised."""
    done: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            done.append((True, read()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller as it is
            done.append((False, exc))

    thread = threading.Thread(target=run, name="cartog-ci side read", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        ok, value = done[0]
        if not ok:
            raise cast(BaseException, value)
        return cast(T, value)

    return result


def _indexed(store: Store, head_bytes: dict[str, bytes | None], limits: Limits) -> dict[str, ParseResult]:
    """The head files whose bytes the index holds, as the index holds them:
    its symbols, which are those a parse of these bytes gives (the extractor
    that stored them is this one, docs/incremental.md), but for the code
    hashes it never stores (``_with_code_hashes``). Only languages read by
    the tags extractor (Markdown has its own) and files the index parsed."""
    tagged = {p: data for p, data in head_bytes.items() if data is not None and _tagged(p)}
    states = store.file_states_of(list(tagged)) if tagged else {}
    out: dict[str, ParseResult] = {}
    for path, data in tagged.items():
        state = states.get(path)
        if state is None or state.status != "indexed" or len(data) > limits.max_bytes:
            continue
        if hashlib.sha256(data).hexdigest() != state.sha256:
            continue
        source = decode_source(data)
        if source is None:
            continue
        # as extracted: no in_degree (the graph's count, read where it is shown);
        # a stored symbol has no code hash, and one of no in_degree is as extracted
        symbols = tuple(s if not s.in_degree else _AS_EXTRACTED(_EXTRACTED(s)) for s in store.symbols_in_file(path))
        found = FileExtraction(path, state.language or "", symbols, (), state.merkle_hash, state.lines)
        out[path] = ParseResult(state, found, source=source)
    return out


def _drop_unread_removals(cs: ChangeSet, limits: Limits, cache: SideCache | None = None) -> None:
    """A definition of the base that the head's file no longer yields is not
    said removed when its name is written inside what the head's grammar
    could not read (an ERROR node of tree-sitter's: a syntax error to the
    grammar, not always to the language's compiler): what became of it is
    not told. It is left out of the comparison, with the file and the lines
    as a note (redux-toolkit 2.2.7: tree-sitter-typescript 0.23 reads no
    three generic call signatures of an interface in a row; the declarations
    after them in listenerMiddleware/types.ts looked removed, and a
    reference to one "still called removed code"). Errors elsewhere in the
    file hide nothing: zod's `interface X<out O>` is one unread line each."""
    by_file: dict[str, list[SymbolChange]] = {}
    for c in cs.changes:
        if c.category == "removed" and c.old is not None and c.old.file in cs.head_sources:
            by_file.setdefault(c.old.file, []).append(c)
    unread: set[int] = set()
    for path, removed in by_file.items():
        source = cs.head_sources[path]
        spans = cs.unread_spans[path] = _unreadable_cached(path, source, limits.timeout_ms, cache)
        held = [(a, b) for a, b in spans if any(_names_in(c, source[a:b]) for c in removed)]
        if not held:
            continue
        here = [c for c in removed if any(_names_in(c, source[a:b]) for a, b in held)]
        unread.update(id(c) for c in here)
        start, end = min(a for a, _ in held), max(b for _, b in held)
        first, last = source.count(b"\n", 0, start) + 1, source.count(b"\n", 0, end) + 1
        cs.unread.append((stored_name(path), first, last, len(here)))
        for a, b in spans:
            cs.unread_names.update(re.findall(r"[^\W\d]\w*", source[a:b].decode("utf-8", "replace")))
    if unread:
        cs.changes = [c for c in cs.changes if id(c) not in unread]


def _names_in(change: SymbolChange, text: bytes) -> bool:
    assert change.old is not None
    return re.search(rb"\b%s\b" % re.escape(change.old.name.encode()), text) is not None


def _unreadable_cached(
    path: str, source: bytes, timeout_ms: int | None, cache: SideCache | None
) -> list[tuple[int, int]]:
    """``unreadable_spans``, kept in the report's cache a head file's source
    (report/side_cache.py): a parse each report of the same bytes (Django
    5.1 -> 5.1.4 HEAD~10: 4 files, 40 ms of CPU)."""
    if cache is None:
        return unreadable_spans(path, source, timeout_ms)
    sha = hashlib.sha256(source).hexdigest()
    found = cache.unread(path, sha)
    if found is None:
        found = _unreadable(path, source, timeout_ms)
        if found is None:
            return []
        cache.keep_unread(path, sha, found)
    return found


def unreadable_spans(path: str, source: bytes, timeout_ms: int | None) -> list[tuple[int, int]]:
    """The byte ranges of ``source`` its grammar could not read (ERROR nodes,
    and the loose tokens of a root that is one), or none: it parses whole
    (or cannot be parsed again in time)."""
    found = _unreadable(path, source, timeout_ms)
    return found if found is not None else []


def _unreadable(path: str, source: bytes, timeout_ms: int | None) -> list[tuple[int, int]] | None:
    """``unreadable_spans``, None when the parse ran out of time."""
    language = languages.for_path(path)
    if language is None or language.syntax is None:
        return []
    try:
        root = budget.parse(language.syntax.grammar, source, timeout_ms).root_node
    except ParseTimeout:
        return None
    if not root.has_error:
        return []
    out: list[tuple[int, int]] = []
    if root.type == "ERROR":
        # a root that is an error spans the file: its statements that read
        # whole are read; its loose tokens are what could not be
        stack = [c for c in root.children if c.has_error or not c.is_named or c.type in _LOOSE]
    else:
        stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing or node.parent is not None and node.parent.type == "ERROR":
            out.append((node.start_byte, node.end_byte))
            continue
        stack.extend(child for child in node.children if child.has_error)
    return sorted(out)


# Named nodes that are no statement: at an error root, pieces of one it could not read
_LOOSE = frozenset({"identifier", "type_identifier", "type_parameters", "type_arguments", "property_identifier"})


def _contents(result: ParseResult) -> dict[str, str]:
    """The content hash of each symbol of an extraction, by ID: a base side
    extracted with them hashes the code of the symbols whose content differs
    alone (``CodeHashes``), those the diff compares; hashing every symbol of
    a changed file walked the tokens of all of them (Django 5.1 -> 5.1.4
    HEAD~10: 4,223 symbols of 56 files, 0.64 s of CPU)."""
    assert result.extraction is not None
    return {s.id: s.content_hash for s in result.extraction.symbols if s.kind != "module"}


def _tagged(path: str) -> bool:
    language = languages.for_path(path)
    return language is not None and type(language).extract is Language.extract


def _with_code_hashes(
    after: ParseResult, before: ParseResult, job: ParseJob, cache: SideCache | None = None
) -> ParseResult:
    """An indexed head file with the code hashes the diff compares: those of
    its symbols whose content hash changed since the base (a change of
    docstrings, comments or white space alone is ``docs``), read from a
    parse without the tags query; the file is extracted whole when that
    cannot say."""
    assert after.extraction is not None
    old = {s.id: s for s in before.extraction.symbols} if before.extraction is not None else {}
    wanted = set()
    for s in after.extraction.symbols:
        was = old.get(s.id)
        if was is not None and was.code_hash and was.content_hash != s.content_hash:
            wanted.add(s.id)
    if not wanted:
        return after
    sha = after.state.sha256
    found = cache.head_hashes(after.state.path, sha, wanted) if cache is not None else None
    if found is None:
        language = languages.for_path(after.state.path)
        assert language is not None
        try:
            found = _statement_hashes(after.source, language, after.extraction.symbols, wanted, job.limits.timeout_ms)
            if found is None:
                found = code_hashes(
                    after.source, language.syntax, after.extraction.symbols, wanted, timeout_ms=job.limits.timeout_ms
                )
        except ParseTimeout:
            found = None
        if found is None:
            return extract_file(job)
        if cache is not None:
            cache.keep_head(after.state.path, sha, found)
    symbols = tuple(replace(s, code_hash=found[s.id]) if s.id in found else s for s in after.extraction.symbols)
    return replace(after, extraction=replace(after.extraction, symbols=symbols))


# Languages whose top-level statement starting a line parses alone as it
# does in its file (Python: a statement at column 0 closes every block
# before it), checked on every symbol of Django 5.1.4, celery 5.4, scrapy
# 2.11.2 and rich 13.7.1: the same code hash from its statement as from the
# file (docs/report.md, the head side).
_STATEMENT_PARSED = frozenset({"python"})


def _statement_hashes(
    source: bytes, language: Language, symbols: tuple[Symbol, ...], wanted: set[str], timeout_ms: int | None
) -> dict[str, str] | None:
    """``code_hashes`` of ``wanted``, each top-level statement that holds
    some of them parsed alone instead of the whole file (Django 5.1 -> 5.1.4
    HEAD~10: 0.56 of the 1.66 MB of 45 files hashed); None when the language
    or a statement does not allow it (the caller parses the file)."""
    if language.name not in _STATEMENT_PARSED:
        return None
    by_id = {s.id: s for s in symbols}
    groups: dict[str, set[str]] = {}
    for symbol_id in wanted:
        top = by_id[symbol_id]
        while (parent := by_id.get(top.parent_id or "")) is not None and parent.kind != "module":
            top = parent
        if top.start_byte and source[top.start_byte - 1 : top.start_byte] != b"\n":
            return None  # not the start of a line: not known to parse alone
        groups.setdefault(top.id, set()).add(symbol_id)
    out: dict[str, str] = {}
    for top_id, group in groups.items():
        top = by_id[top_id]
        within = (top.start_byte, top.end_byte)
        found = code_hashes(source, language.syntax, symbols, group, timeout_ms=timeout_ms, within=within)
        if found is None:
            return None
        out.update(found)
    return out


def _without(jobs: list[ParseJob], links: set[str]) -> list[ParseJob]:
    """The jobs, those of symbolic links with no bytes (absent on that side)."""
    return [replace(j, data=None) if j.path in links else j for j in jobs]


def _add_file(cs: ChangeSet, path: str, before: ParseResult, after: ParseResult) -> None:
    reason = _skip_reason(after) or _skip_reason(before)
    if reason:
        cs.skipped.append((stored_name(path), reason))
    if not before.vanished and not after.vanished and (before.extraction is None or after.extraction is None):
        if is_minified(_skip_reason(before)) and is_minified(_skip_reason(after)):
            return  # a bundle on both sides: no symbols to compare, by design (noted as skipped)
        # on both sides but unreadable on one: its symbols did not all
        # vanish (or appear), we cannot tell what changed
        cs.unparsed.append(stored_name(path))
        return
    if before.extraction is not None:
        cs.base_files[path] = before.extraction
        cs.base_sources[path] = before.source
    if after.extraction is not None:
        cs.head_files[path] = after.extraction
        cs.head_sources[path] = after.source


def _skip_reason(result: ParseResult) -> str:
    return "" if result.vanished or result.state.status == "indexed" else result.state.reason


def classify(cs: ChangeSet) -> list[SymbolChange]:
    old = {s.id: s for f in cs.base_files.values() for s in f.symbols}
    new = {s.id: s for f in cs.head_files.values() for s in f.symbols}
    diff = diff_symbols(old, new)
    _pair_overloads(diff)
    _pair_kind_changes(diff, cs)
    types = _named_types([*old.values(), *new.values()])
    renamed = _pair_renames(diff.removed, diff.added, cs.base_sources, cs.head_sources, old, new)
    # a type renamed by the change renames it in every signature too: that
    # alone is no signature change (Go traceFrame -> TraceFrame)
    type_renames = {
        c.old.name: c.symbol.name
        for c in renamed
        if c.old is not None and c.symbol is not None and c.old.kind in TYPE_KINDS and c.old.name != c.symbol.name
    }
    outer = _type_parameter_renames(diff.modified)
    changes = [
        SymbolChange("docs", s, before)
        if before.code_hash and before.code_hash == s.code_hash
        else _modified(before, s, types, type_renames, _enclosing(s, new, outer))
        for before, s in diff.modified
    ]
    changes += [SymbolChange("children_changed", s, before) for before, s in diff.children_changed]
    paired_old = {c.old.id for c in renamed if c.old}
    paired_new = {c.symbol.id for c in renamed if c.symbol}
    changes += renamed
    changes += [SymbolChange("removed", None, s) for s in diff.removed if s.id not in paired_old]
    changes += [SymbolChange("added", s, None) for s in diff.added if s.id not in paired_new]
    order = {"removed": 0, "renamed": 1, "modified": 2, "added": 3, "docs": 4, "children_changed": 5}
    changes.sort(key=lambda c: (order[c.category], _sym(c).file, _sym(c).start_line, _sym(c).id))
    return changes


def _pair_kind_changes(diff: SymbolDiff, cs: ChangeSet) -> None:
    """A type that changed kind under its name, in its file, is one type
    modified, not one removed and one added (redux-toolkit 2.2.7:
    `interface InjectedSlice<…> {…}` became `type InjectedSlice<…> = {…}`;
    Python: a class became a `type` alias, a Rust struct an enum). Its
    members that the new kind declares without symbols of their own (the
    methods of an object type) are not said removed while the type's lines
    still declare them (``Language.binds_by_assignment``). Likewise a
    function that became a method under its name (@tanstack/query-core
    5.56: `const batch = …` in `createNotifyManager` became the `batch:` of
    the object it returns)."""
    removed = {(s.file, s.qualified_name): s for s in diff.removed if s.kind in TYPE_KINDS or s.kind in CALLABLE_KINDS}
    paired: dict[str, Symbol] = {}
    for a in list(diff.added):
        b = removed.get((a.file, a.qualified_name))
        if b is None or b.kind == a.kind or not (
            a.kind in TYPE_KINDS and b.kind in TYPE_KINDS or a.kind in CALLABLE_KINDS and b.kind in CALLABLE_KINDS
        ):
            continue
        diff.added.remove(a)
        diff.removed.remove(b)
        diff.modified.append((b, a))
        paired[b.id] = a
    if not paired:
        return
    for s in list(diff.removed):
        owner = paired.get(s.parent_id or "")
        if owner is not None and still_declared(cs, s, owner):
            diff.removed.remove(s)


def still_declared(cs: ChangeSet, old: Symbol, scope: Symbol | None) -> bool:
    """Whether the head's ``scope`` (a type; None: the module) still binds
    ``old``'s name at the level ``old`` was defined at, without a symbol of
    its own (``Language.binds_by_assignment``: a Python assignment, a
    TypeScript object type's member); a function's local, whether the
    function still returns an object with that member
    (``Language.returns_member``)."""
    language = languages.get(old.language)
    base, head = cs.base_sources.get(old.file), cs.head_sources.get(old.file)
    if language is None or base is None or head is None:
        return False
    if scope is not None and scope.kind in CALLABLE_KINDS:  # a function's local, reached through what it returns
        return language.returns_member(head, scope, old.name)
    base_lines = _lines(base)
    if not 0 < old.start_line <= len(base_lines):
        return False
    first = base_lines[old.start_line - 1]  # the definition's (or its decorator's) line: the body's level
    lines = _lines(head)
    if scope is not None:
        lines = lines[scope.start_line - 1 : scope.end_line]
    return language.binds_by_assignment(lines, old.name, len(first) - len(first.lstrip()))


@lru_cache(maxsize=64)
def _lines(source: bytes) -> list[str]:
    """A file's lines, decoded once for all its removed definitions
    (pyparsing 3.1.2 removed 38 of core.py's; the callers only read them)."""
    return source.decode("utf-8", "replace").splitlines()


def _pair_overloads(diff: SymbolDiff) -> None:
    """Overloads of one name in one file, paired by what they are, not by
    their order: their IDs number them in source order (`m`, `m#2`), so
    two overloads swapped or one inserted above the others compared
    `indexOf(cs, int, start)` with `indexOf(cs, CharSequence, start)`
    (commons-lang3 3.12 -> 3.17: 117 "breaking" signatures, most of them
    overloads reordered). Equal text is no change; the same signature to
    callers is a body change; the rest keep their numbers' pairing."""
    befores: dict[tuple[str, str, str], list[Symbol]] = {}
    afters: dict[tuple[str, str, str], list[Symbol]] = {}
    for before, after in diff.modified:
        befores.setdefault((before.file, before.kind, before.qualified_name), []).append(before)
        afters.setdefault((after.file, after.kind, after.qualified_name), []).append(after)
    for s in diff.removed:
        befores.setdefault((s.file, s.kind, s.qualified_name), []).append(s)
    for s in diff.added:
        afters.setdefault((s.file, s.kind, s.qualified_name), []).append(s)
    groups = [k for k in afters if k in befores and len(befores[k]) + len(afters[k]) > 2]
    if not groups:
        return
    regrouped = set(groups)
    modified = [(b, a) for b, a in diff.modified if (a.file, a.kind, a.qualified_name) not in regrouped]
    removed = [s for s in diff.removed if (s.file, s.kind, s.qualified_name) not in regrouped]
    added = [s for s in diff.added if (s.file, s.kind, s.qualified_name) not in regrouped]
    for key in groups:
        old_left, new_left = list(befores[key]), list(afters[key])
        for same in (lambda b, a: b.content_hash == a.content_hash, _same_to_callers):
            for a in list(new_left):
                b = next((b for b in old_left if same(b, a)), None)
                if b is not None:
                    old_left.remove(b)
                    new_left.remove(a)
                    if b.content_hash != a.content_hash:
                        modified.append((b, a))
        by_id = {b.id: b for b in old_left}
        for a in new_left:
            b = by_id.pop(a.id, None)
            if b is None:
                added.append(a)
            else:
                modified.append((b, a))
        removed += by_id.values()
    diff.modified[:] = modified
    diff.removed[:] = removed
    diff.added[:] = added


def _same_to_callers(before: Symbol, after: Symbol) -> bool:
    """Whether callers see the same signature (annotations and parameter
    names aside where the language says so)."""
    if before.signature == after.signature:
        return True
    return after.kind in ("function", "method") and not signature_verdict(before.signature, after.signature, after.language)


def _sym(change: SymbolChange) -> Symbol:
    symbol = change.symbol or change.old
    assert symbol is not None
    return symbol


def _named_types(symbols: list[Symbol]) -> dict[str, str]:
    """Named types the changed files define on either side: name -> what it
    is defined as (Go `type H func(int) error` or `type H = ...`, whose
    signature starts at the name; TypeScript's `type H = A | B;`). A name
    defined as two different things (two files, or changed by the change)
    is left out: which one a signature means is not told."""
    out: dict[str, str] = {}
    ambiguous: set[str] = set()
    for s in symbols:
        if s.kind != "type":
            continue
        written = s.signature
        if written.startswith("type "):
            rest = written[5:].lstrip()
            after = rest[len(s.name) :].lstrip() if rest.startswith(s.name) else ""
            if not after.startswith("="):
                continue  # generic (`type H<T> = ...`) or not an alias
            definition = after[1:].strip().removesuffix(";").strip()
        elif written.startswith(s.name):
            definition = written[len(s.name) :].strip().removeprefix("=").strip()
        else:
            continue
        if out.setdefault(s.name, definition) != definition:
            ambiguous.add(s.name)
    return {name: definition for name, definition in out.items() if name not in ambiguous}


def _type_parameter_renames(modified: list[tuple[Symbol, Symbol]]) -> dict[str, dict[str, str]]:
    """Functions whose type parameters the change renamed, by position
    (after's ID -> old name -> new name): a function nested in one names
    them too (redux-toolkit 2.2.7 renamed `createDynamicMiddleware`'s
    `Dispatch` to `DispatchType`, and the arrow function inside it that reads
    `ActionFromDispatch<Dispatch>` changed no call)."""
    out: dict[str, dict[str, str]] = {}
    for before, after in modified:
        if after.kind not in CALLABLE_KINDS and after.kind not in TYPE_KINDS or before.signature == after.signature:
            continue
        was, now = type_parameters(before.signature, after.language), type_parameters(after.signature, after.language)
        if len(was) == len(now) and was != now:
            out[after.id] = {o: n for o, n in zip(was, now) if o != n}
    return out


def _enclosing(symbol: Symbol, symbols: dict[str, Symbol], renames: dict[str, dict[str, str]]) -> dict[str, str]:
    """The type parameter renames of the functions and types ``symbol`` is
    nested in, and its own, the nearest last (it shadows the others): a
    method's own `<R> R rethrow(…)` -> `<T> T rethrow(…)`, its class's
    `FailableStream<O>` -> `FailableStream<T>` (commons-lang3 3.17)."""
    if not renames:
        return {}
    chain: list[dict[str, str]] = [renames[symbol.id]] if symbol.id in renames else []
    parent = symbols.get(symbol.parent_id or "")
    while parent is not None:
        if parent.id in renames:
            chain.append(renames[parent.id])
        parent = symbols.get(parent.parent_id or "")
    return {was: now for found in reversed(chain) for was, now in found.items()}


def _modified(
    before: Symbol, after: Symbol, types: dict[str, str], type_renames: dict[str, str], enclosing: dict[str, str]
) -> SymbolChange:
    signature = before.signature
    for was, now in type_renames.items():
        signature = _rename_in(signature, was, now)
    if enclosing:  # at once: `A -> B, B -> A` swaps
        names = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, enclosing)) + r")(?![\w$])")
        signature = names.sub(lambda m: enclosing[m.group(1)], signature)
    verdict = _verdict(signature, after, types)
    return SymbolChange("modified", after, before, bool(verdict), signature_verdict=verdict)


def _verdict(old_signature: str, after: Symbol, types: dict[str, str] | None = None) -> str:
    """What a signature change does to callers (functions and methods only)."""
    if after.kind not in ("function", "method"):
        return ""
    return signature_verdict(old_signature, after.signature, after.language, types)


def _body(symbol: Symbol, sources: dict[str, bytes]) -> str | None:
    source = sources.get(symbol.file)
    if source is None:
        return None
    text = source[symbol.start_byte : symbol.end_byte].decode("utf-8", "replace")
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _pair_renames(
    removed: list[Symbol],
    added: list[Symbol],
    base_sources: dict[str, bytes],
    head_sources: dict[str, bytes],
    base_symbols: dict[str, Symbol],
    head_symbols: dict[str, Symbol],
) -> list[SymbolChange]:
    """A removed and an added symbol of the same kind whose bodies are equal
    once the old name is replaced by the new one: a move (same name, other
    file or parent), paired first, or a rename (new name, same parent: a
    method of another class with another name is never "renamed" to it).
    Never a definition that became local to a function (or stopped being
    one): nothing outside a function can reach it, so no reference follows
    it. Several removed definitions of one name with the same body (click
    8.1.8 deleted examples/ and its many `def cli(): pass`) make a move
    unprovable: one is paired only into a file the change added (a file
    moved: locales/ua.ts became uk.ts) or a file of its own file's name."""
    if not removed or not added:
        return []
    # a move keeps the name, a rename the parent: only those are compared
    # (a package moved under src/ pairs 600 symbols with 600, not 360,000 pairs)
    by_name: dict[tuple[str, str], list[Symbol]] = {}
    by_parent: dict[tuple[str, str], list[Symbol]] = {}
    for s in added:
        by_name.setdefault((s.kind, s.name), []).append(s)
        by_parent.setdefault((s.kind, _parent(s)), []).append(s)
    moves = sum(len(by_name.get((s.kind, s.name), ())) for s in removed)
    renames = sum(len(by_parent.get((s.kind, _parent(s)), ())) for s in removed)
    if moves > MAX_RENAME_PAIRS:
        return []
    # past the limit, moves alone: dateutil 2.9 moved dateutil/ under src/ and
    # its tests to tests/, whose classes of 100s of methods made 250,000
    # same-parent pairs, and 1,626 symbols were "removed", 1,637 "added"
    passes = (True, False) if moves + renames <= MAX_RENAME_PAIRS else (True,)
    new_bodies = {s.id: _body(s, head_sources) for s in added if s.kind != "module"}
    old_bodies = {s.id: _body(s, base_sources) for s in removed if s.kind != "module"}
    twins: dict[tuple[str, str, str], int] = {}  # (kind, name, body) -> removed symbols so
    for s in removed:
        if old_bodies.get(s.id) is not None:
            key = (s.kind, s.name, old_bodies[s.id] or "")
            twins[key] = twins.get(key, 0) + 1
    base_local = {s.id: _is_local(s, base_symbols) for s in removed}
    head_local = {s.id: _is_local(s, head_symbols) for s in added}
    out: list[SymbolChange] = []
    taken: set[str] = set()
    paired: set[str] = set()
    moved_files: dict[str, str] = {}  # a file's symbols went there: its children follow
    for same_name in passes:
        for old in sorted(removed, key=lambda s: s.qualified_name.count(".")):  # parents first
            body = old_bodies.get(old.id)
            if body is None or old.id in paired:
                continue
            matches = []
            for new in by_name.get((old.kind, old.name), ()) if same_name else by_parent.get((old.kind, _parent(old)), ()):
                if new.id in taken or new.kind != old.kind or new_bodies.get(new.id) is None:
                    continue
                if moved_files.get(old.file, new.file) != new.file:
                    continue
                if (old.name == new.name) != same_name or not same_name and _parent(old) != _parent(new):
                    continue
                if base_local[old.id] != head_local[new.id]:
                    continue
                if (
                    same_name
                    and twins[(old.kind, old.name, body)] > 1
                    and new.file in base_sources  # a file the change did not add
                    and Path(new.file).name != Path(old.file).name
                ):
                    continue
                candidate = body if same_name else _rename_in(body, old.name, new.name)
                if candidate == new_bodies[new.id]:
                    matches.append(new)
            if not matches:
                continue
            # of equal bodies, the one whose file is likeliest the old one's
            # (locales/ua.ts became uk.ts, kh.ts became km.ts)
            new = max(matches, key=lambda m: (m.file == old.file, _similarity(old.file, m.file)))
            taken.add(new.id)
            paired.add(old.id)
            if new.file != old.file:
                moved_files.setdefault(old.file, new.file)
            moved = new.file != old.file or new.parent_id != old.parent_id
            verdict = _verdict(_rename_in(old.signature, old.name, new.name), new)
            out.append(SymbolChange("renamed", new, old, bool(verdict), old.id if moved else None, verdict))
    return out


def _is_local(symbol: Symbol, symbols: dict[str, Symbol]) -> bool:
    """Whether a symbol is defined inside a function or method (also as a
    method of a class defined there)."""
    parent = symbols.get(symbol.parent_id) if symbol.parent_id else None
    while parent is not None:
        if parent.kind in CALLABLE_KINDS:
            return True
        parent = symbols.get(parent.parent_id) if parent.parent_id else None
    return False


def _similarity(a: str, b: str) -> float:
    import difflib  # only to choose among renames: not in every report's start-up

    return difflib.SequenceMatcher(None, a, b).ratio()


def _parent(symbol: Symbol) -> str:
    """The qualified name of what holds the symbol ("" at a file's top)."""
    return symbol.qualified_name.rpartition(".")[0]


def _rename_in(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", new, text)

