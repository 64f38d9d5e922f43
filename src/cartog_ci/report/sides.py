"""The two sides a report compares, and the files that differ between them.

The base is the merge-base of a base ref (``--base``, else the remote's
default branch, else main/master) and the head. The head is a commit
(``--head``, default HEAD), the staged change (``--staged``: what a commit
would record; at pre-commit's pre-push stage, the pushed range) or the work
tree (``--working-tree``). Before the first commit, everything is compared
with git's empty tree so that a hook reports instead of blocking.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cartog_ci import git, languages
from cartog_ci.config import in_index_dir
from cartog_ci.domain.results import ChangeSet, Comparison, Side
from cartog_ci.errors import CartogError, UnknownRef

_FALLBACK_BASES = ("origin/main", "origin/master", "main", "master")


def default_base(repo: Path) -> tuple[str, str]:
    """(ref, how it was chosen): the remote's default branch, else main, else master."""
    ref = git.remote_default_branch(repo)
    if ref:
        return ref, "the remote's default branch"
    for candidate in _FALLBACK_BASES:
        try:
            git.resolve_commit(repo, candidate)
        except UnknownRef:
            continue
        return candidate, "no remote default branch"
    raise CartogError("no base branch found (no origin/HEAD, main or master): pass --base REF")


def find_merge_base(repo: Path, base: str, head: str) -> str:
    # one git call where the base was resolved first, then given to
    # merge-base; when it answers nothing, the base is resolved apart for
    # the error that says why (an unknown name, a shallow clone, no history
    # in common)
    mb = git.merge_base_of(repo, base, head)
    if mb is not None:
        return mb
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


def choose(
    repo: Path,
    *,
    base: str | None,
    head: str | None = None,
    staged: bool = False,
    working_tree: bool = False,
    pushed: tuple[str, str] | None = None,
) -> Comparison:
    """The comparison the options ask for. ``pushed``: the (from, to) refs of
    a pre-push check, which ``staged`` then means."""
    head_sha = git.head(repo)
    uncommitted = staged or working_tree
    if head_sha is None and uncommitted and not base:
        return Comparison("(no commit yet)", "first commit", git.empty_tree(repo), _uncommitted(staged))
    if head_sha is None:
        raise CartogError("the repository has no commit yet: commit once, then run the report")
    if staged and pushed is not None:
        return _pushed(repo, base, *pushed)
    if base:
        base_ref, chosen = base, "--base"
    elif uncommitted:
        base_ref, chosen = "HEAD", "HEAD (uncommitted change)"
    else:
        base_ref, chosen = default_base(repo)
    if uncommitted:
        old = head_sha if base_ref == "HEAD" else find_merge_base(repo, base_ref, head_sha)
        return Comparison(base_ref, chosen, old, _uncommitted(staged))
    head_commit = git.resolve_commit(repo, head) if head else head_sha
    old = find_merge_base(repo, base_ref, head_commit)
    return Comparison(base_ref, chosen, old, Side("commit", head_commit, head or "HEAD"))


def branch(repo: Path, *, base: str | None) -> Comparison:
    """The branch against its base, for the hook under ``pre-commit run
    --all-files`` and in its manual stage: from the merge-base of HEAD and
    ``base`` (default: the remote's default branch, main or master, else the
    branch's upstream) to HEAD, or to the work tree when it has changes
    (pre-commit then checks the files as they are on disk)."""
    head_sha = git.head(repo)
    if head_sha is None:
        return choose(repo, base=None, working_tree=True)
    if base:
        base_ref, chosen = base, "--base"
    else:
        try:
            base_ref, chosen = default_base(repo)
        except CartogError:
            upstream = git.upstream(repo)
            if upstream is None:
                raise CartogError(
                    "no base branch found (no origin/HEAD, main, master or upstream): pass --base REF "
                    "(in a pre-commit hook: args: [--base, REF])"
                ) from None
            base_ref, chosen = upstream, "the branch's upstream"
    old = find_merge_base(repo, base_ref, head_sha)
    if git.changed_in_worktree(repo):
        return Comparison(base_ref, chosen, old, _uncommitted(False))
    return Comparison(base_ref, chosen, old, Side("commit", head_sha, "HEAD"))


def _pushed(repo: Path, base: str | None, from_ref: str, to_ref: str) -> Comparison:
    head_commit = git.resolve_commit(repo, to_ref)
    if not from_ref and not base:  # the whole history is new to the remote
        label = f"pushed {head_commit[:12]}"
        return Comparison("(new on the remote)", "pushed branch, all of it new to the remote", git.empty_tree(repo),
                          Side("commit", head_commit, label))  # fmt: skip
    base_ref, chosen = (base, "--base") if base else (from_ref, "pushed range (PRE_COMMIT_FROM_REF)")
    old = find_merge_base(repo, base_ref, head_commit)
    return Comparison(base_ref, chosen, old, Side("commit", head_commit, f"pushed {head_commit[:12]}"))


def _uncommitted(staged: bool) -> Side:
    return Side("staged", None, "staged change") if staged else Side("worktree", None, "working tree")


def changed_files(repo: Path, comparison: Comparison) -> list[str]:
    """Files that differ between the two sides (the index directory aside)."""
    head = comparison.head
    old = comparison.merge_base
    if head.kind == "commit":
        assert head.commit is not None
        files = git.changed_between(repo, old, head.commit)
    elif head.kind == "staged":
        files = git.staged_since(repo, old)
    else:
        files = git.worktree_since(repo, old)
    return [f for f in files if not in_index_dir(f)]


def changed_objects(repo: Path, comparison: Comparison) -> dict[str, tuple[str, str, str, str]] | None:
    """``changed_files`` of a commit head, each with its mode and object on
    both sides (``git.changed_objects``); None for the git index or the work
    tree."""
    head = comparison.head
    if head.kind != "commit":
        return None
    assert head.commit is not None
    found = git.changed_objects(repo, comparison.merge_base, head.commit)
    return {f: sides for f, sides in found.items() if not in_index_dir(f)}


def head_revision(head: Side) -> str | None:
    """The revision whose blobs are the head side ("" is the git index), or
    None for the work tree."""
    if head.kind == "worktree":
        return None
    return head.commit or "HEAD" if head.kind == "commit" else ""


def worktree_bytes(repo: Path, path: str) -> bytes | None:
    """A file's bytes in the work tree, None when absent or not a regular file."""
    full = repo / path
    if full.is_symlink() or not full.is_file():
        return None
    try:
        return full.read_bytes()
    except OSError:
        return None


def not_checked_out(repo: Path, blobs: dict[str, bytes | None]) -> list[str]:
    """Paths whose head version (``blobs``) is not what the work tree holds."""
    return [p for p, data in blobs.items() if data != worktree_bytes(repo, p)]


def unstaged_elsewhere(repo: Path, exclude: Sequence[str]) -> list[str]:
    """With ``--staged``: files of a parsed language with unstaged edits,
    which the graph holds too."""
    skip = set(exclude)
    return sorted(p for p in git.unstaged(repo) if languages.for_path(p) is not None and p not in skip)


def refuse_other_tree(repo: Path, change: ChangeSet, *, pushed: bool) -> bool:
    """The graph (callers, tests, broken references) is the work tree's: a
    head side the work tree does not hold would get wrong answers, so the
    user gets one line saying how to get right ones. True: no report, quietly
    (a pre-push hook for commits not checked out must not block the push)."""
    if not change.not_checked_out:
        return False
    first, count = change.not_checked_out[0], len(change.not_checked_out)
    if pushed:
        return True
    if change.head.kind == "staged":
        raise CartogError(
            f"unstaged edits in {count} changed file(s) (e.g. {first}) would mix into the callers: "
            "stash them (git stash --keep-index) or report --working-tree"
        )
    if change.head.commit == git.head(repo):
        raise CartogError(
            f"uncommitted edits in {count} changed file(s) (e.g. {first}) would mix into the callers: "
            "commit or stash them, or report --working-tree"
        )
    raise CartogError(
        f"{change.head.label} is not checked out ({count} changed file(s) differ from the work tree, "
        f"e.g. {first}): check it out (git switch, or git worktree add) and run the report there"
    )
