"""The symbol diff of a change (SPEC §6 step 3).

Only files changed between the two sides are parsed, each at both versions
(``git show MB:path`` and the head version); their symbols are classified
with the Merkle hashes, then removed/added pairs with the same body are
recognised as renames or moves, and modified symbols are split into
signature changes (callers may break) and body-only changes.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cartog_ci import git
from cartog_ci.domain import FileExtraction, Symbol, SymbolChange
from cartog_ci.errors import CartogError, ParseTimeout, UnknownRef
from cartog_ci.index.files import content_problem, decode_source, stored_name
from cartog_ci.parse.extract import extract
from cartog_ci.parse.languages import language_for_path

MAX_RENAME_PAIRS = 40_000
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Side:
    """One side of the comparison: a commit, the git index, or the work tree."""

    kind: str  # commit | staged | worktree
    commit: str | None = None
    label: str = ""


@dataclass
class ChangeSet:
    base_label: str
    base_ref: str
    merge_base: str
    head: Side
    files: list[str] = field(default_factory=list)
    changes: list[SymbolChange] = field(default_factory=list)
    base_files: dict[str, FileExtraction] = field(default_factory=dict)
    head_files: dict[str, FileExtraction] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    base_sources: dict[str, bytes] = field(default_factory=dict)
    head_sources: dict[str, bytes] = field(default_factory=dict)
    root: str = ""  # the repository (module finders read go.mod / Cargo.toml there)
    unparsed: list[str] = field(default_factory=list)  # present at head, unreadable
    not_checked_out: list[str] = field(default_factory=list)  # head differs from the work tree
    unstaged_elsewhere: list[str] = field(default_factory=list)  # --staged: other files' edits

    def by_category(self, *categories: str) -> list[SymbolChange]:
        return [c for c in self.changes if c.category in categories]


def default_base(repo: Path) -> tuple[str, str]:
    """(ref, how it was chosen): the remote's default branch, else main, else master."""
    remote_head = git.run(repo, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False)
    ref = remote_head.decode().strip()
    if ref:
        return ref, "the remote's default branch"
    for candidate in ("origin/main", "origin/master", "main", "master"):
        try:
            git.resolve_commit(repo, candidate)
        except UnknownRef:
            continue
        return candidate, "no remote default branch"
    raise CartogError("no base branch found (no origin/HEAD, main or master): pass --base REF")


def find_merge_base(repo: Path, base: str, head: str) -> str:
    base_sha = git.resolve_commit(repo, base)
    mb = git.merge_base(repo, base_sha, head)
    if mb is not None:
        return mb
    if git.is_shallow(repo):
        raise CartogError(
            f"shallow clone: the merge-base of {base} and HEAD is not in the history; "
            "run `git fetch --deepen=200` (or `git fetch --unshallow`) and retry"
        )
    raise CartogError(f"{base} and HEAD share no history: pass a related --base REF")


def _changed_files(repo: Path, old: str, head: Side) -> list[str]:
    if head.kind == "commit":
        assert head.commit is not None
        return git.changed_between(repo, old, head.commit)
    if head.kind == "staged":
        out = git.run(repo, "diff", "--cached", "--name-only", "-z", "--no-renames", old)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]
    out = git.run(repo, "diff", "--name-only", "-z", "--no-renames", old)
    files = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
    return sorted(files | set(git.untracked(repo)))


def _read_worktree(repo: Path, path: str) -> bytes | None:
    full = repo / path
    if full.is_symlink() or not full.is_file():
        return None
    try:
        return full.read_bytes()
    except OSError:
        return None


def _parse(
    path: str, data: bytes | None, max_bytes: int, timeout_ms: int | None
) -> tuple[FileExtraction | None, bytes, str]:
    spec = language_for_path(path)
    if spec is None:
        return None, b"", "unsupported language"
    if stored_name(path) != path:
        return None, b"", "file name is not valid UTF-8 (rename the file)"
    if data is None:
        return None, b"", ""
    if len(data) > max_bytes:
        return None, b"", "too large"
    problem = content_problem(data)
    if problem:
        return None, b"", problem
    source = decode_source(data)
    if source is None:
        return None, b"", "not valid UTF-8 text"
    try:
        return extract(path, source, spec.name, timeout_ms=timeout_ms), source, ""
    except ParseTimeout as exc:
        return None, b"", str(exc)


POOL_THRESHOLD = 48  # files: below this a process pool costs more than it saves


def _parse_job(job: tuple[str, bytes | None, int, int | None]) -> tuple[FileExtraction | None, bytes, str]:
    return _parse(*job)


def _parse_jobs(
    jobs: list[tuple[str, bytes | None, int, int | None]],
) -> list[tuple[FileExtraction | None, bytes, str]]:
    workers = os.cpu_count() or 1
    if len(jobs) < POOL_THRESHOLD or workers < 2:
        return [_parse_job(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_parse_job, jobs, chunksize=max(1, len(jobs) // (workers * 4))))


def compute_change(
    repo: Path,
    *,
    old: str,
    head: Side,
    base_label: str,
    base_ref: str,
    max_bytes: int,
    parse_timeout_ms: int | None = None,
) -> ChangeSet:
    cs = ChangeSet(base_label, base_ref, old, head, root=str(repo))
    cs.files = [f for f in _changed_files(repo, old, head) if not f.startswith(".cartog-ci/")]
    # only files we parse are read, both sides through one git process each
    parsed = [p for p in cs.files if language_for_path(p) is not None]
    before_blobs = git.show_many(repo, [(old, p) for p in parsed])
    if head.kind == "worktree":
        after_blobs = {p: _read_worktree(repo, p) for p in parsed}
    else:
        rev = head.commit or "HEAD" if head.kind == "commit" else ""
        after_blobs = {p: b for (_, p), b in git.show_many(repo, [(rev, p) for p in parsed]).items()}
    jobs = [(p, before_blobs.get((old, p)), max_bytes, parse_timeout_ms) for p in parsed]
    jobs += [(p, after_blobs.get(p), max_bytes, parse_timeout_ms) for p in parsed]
    results = _parse_jobs(jobs)
    if head.kind != "worktree":
        cs.not_checked_out = [p for p in parsed if after_blobs.get(p) != _read_worktree(repo, p)]
    if head.kind == "staged":  # unstaged edits elsewhere are in the graph too
        unstaged = git.run(repo, "diff", "--name-only", "-z", "--no-renames").split(b"\0")
        cs.unstaged_elsewhere = sorted(
            p for p in (u.decode("utf-8", "surrogateescape") for u in unstaged if u)
            if language_for_path(p) is not None and p not in cs.not_checked_out
        )
    for i, path in enumerate(parsed):
        before, before_src, why_before = results[i]
        after, after_src, why_after = results[len(parsed) + i]
        reason = why_after or why_before
        if reason and reason != "unsupported language":
            cs.skipped.append((stored_name(path), reason))
        present = before_blobs.get((old, path)) is not None, after_blobs.get(path) is not None
        if all(present) and (before is None or after is None):
            # on both sides but unreadable on one: its symbols did not all
            # vanish (or appear), we cannot tell what changed
            cs.unparsed.append(stored_name(path))
            continue
        if before is not None:
            cs.base_files[path] = before
            cs.base_sources[path] = before_src
        if after is not None:
            cs.head_files[path] = after
            cs.head_sources[path] = after_src
    cs.changes = classify(cs.base_files, cs.head_files, cs.base_sources, cs.head_sources)
    cs.files = [stored_name(f) for f in cs.files]  # printable in JSON and Markdown
    return cs


def classify(
    base_files: dict[str, FileExtraction],
    head_files: dict[str, FileExtraction],
    base_sources: dict[str, bytes],
    head_sources: dict[str, bytes],
) -> list[SymbolChange]:
    old = {s.id: s for f in base_files.values() for s in f.symbols}
    new = {s.id: s for f in head_files.values() for s in f.symbols}
    changes: list[SymbolChange] = []
    for sid, s in new.items():
        before = old.get(sid)
        if before is None:
            continue
        if before.content_hash != s.content_hash:
            changes.append(SymbolChange("modified", s, before, _signature_changed(before, s)))
        elif before.subtree_hash != s.subtree_hash:
            changes.append(SymbolChange("children_changed", s, before))
    removed = [s for sid, s in old.items() if sid not in new]
    added = [s for sid, s in new.items() if sid not in old]
    renamed = _pair_renames(removed, added, base_sources, head_sources)
    paired_old = {c.old.id for c in renamed if c.old}
    paired_new = {c.symbol.id for c in renamed if c.symbol}
    changes += renamed
    changes += [SymbolChange("removed", None, s) for s in removed if s.id not in paired_old]
    changes += [SymbolChange("added", s, None) for s in added if s.id not in paired_new]
    order = {"removed": 0, "renamed": 1, "modified": 2, "added": 3, "children_changed": 4}
    changes.sort(key=lambda c: (order[c.category], _sym(c).file, _sym(c).start_line, _sym(c).id))
    return changes


def _sym(change: SymbolChange) -> Symbol:
    symbol = change.symbol or change.old
    assert symbol is not None
    return symbol


def _normalise_signature(signature: str) -> str:
    return _WS.sub("", signature)


# Dynamic languages, where a parameter's type annotation does not change how it is
# called: adding `: int` or `-> str` is not a signature change for callers.
_ANNOTATED = frozenset({"python", "javascript"})
_OPEN, _CLOSE = "([{<", ")]}>"


def _top_level_split(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _parameters(signature: str) -> str | None:
    """The text inside the first balanced parentheses, or None."""
    start = signature.find("(")
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(signature)):
        depth += signature[i] == "("
        depth -= signature[i] == ")"
        if depth == 0:
            return signature[start + 1 : i]
    return None


def call_shape(signature: str, language: str) -> str:
    """What callers depend on: parameter names, order, defaults and
    variadics; annotations left out where the language writes them apart."""
    if language not in _ANNOTATED:
        return _normalise_signature(signature)
    params = _parameters(signature)
    if params is None:
        return _normalise_signature(signature)
    shape = []
    for param in _top_level_split(params, ","):
        default = len(_top_level_split(param, "=")) > 1
        name = _top_level_split(_top_level_split(param, "=")[0], ":")[0]
        shape.append(_WS.sub(" ", name).strip() + ("=" if default else ""))
    return ",".join(p for p in shape if p)


def _signature_changed(before: Symbol, after: Symbol) -> bool:
    if after.kind not in ("function", "method"):
        return False
    return call_shape(before.signature, before.language) != call_shape(after.signature, after.language)


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
) -> list[SymbolChange]:
    """A removed and an added symbol of the same kind whose bodies are equal
    once the old name is replaced by the new one: a rename (new name) or a
    move (same name, other file or parent)."""
    if not removed or not added or len(removed) * len(added) > MAX_RENAME_PAIRS:
        return []
    new_bodies = {s.id: _body(s, head_sources) for s in added if s.kind != "module"}
    out: list[SymbolChange] = []
    taken: set[str] = set()
    for old in removed:
        if old.kind == "module":
            continue
        body = _body(old, base_sources)
        if body is None:
            continue
        for new in added:
            if new.id in taken or new.kind != old.kind or new_bodies.get(new.id) is None:
                continue
            candidate = body if old.name == new.name else _rename_in(body, old.name, new.name)
            if candidate == new_bodies[new.id]:
                taken.add(new.id)
                moved = new.file != old.file or new.parent_id != old.parent_id
                changed = _signature_changed_besides_name(old, new)
                out.append(SymbolChange("renamed", new, old, changed, old.id if moved else None))
                break
    return out


def _rename_in(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", new, text)


def _signature_changed_besides_name(old: Symbol, new: Symbol) -> bool:
    if new.kind not in ("function", "method"):
        return False
    renamed = _rename_in(old.signature, old.name, new.name)
    return call_shape(renamed, old.language) != call_shape(new.signature, new.language)
