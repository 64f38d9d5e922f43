"""Every git call goes through ``run``; file lists use ``-z`` output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cartog_ci.errors import GitError, NotAGitRepository, UnknownRef

# A calling hook (pre-commit) may export these for *its* repository; they
# would redirect our calls on another directory. GIT_INDEX_FILE is kept: it
# is how a hook tells us which index holds the staged change.
_STRIPPED_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
    env.setdefault("LC_ALL", "C")
    return env


def run(repo: Path, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=input,
            capture_output=True,
            env=_env(),
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])} failed: {message[-1] if message else proc.returncode}")
    return proc.stdout


def _zsplit(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def toplevel(path: Path) -> Path | None:
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
        capture_output=True,
        env=_env(),
    )
    if proc.returncode != 0:
        return None
    return Path(proc.stdout.decode().strip())


def require_repo(path: Path) -> Path:
    top = toplevel(path)
    if top is None:
        raise NotAGitRepository(
            f"not a git repository: {path} (run inside a clone, or pass --repo)"
        )
    return top


def head(repo: Path) -> str | None:
    proc = run(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    sha = proc.decode().strip()
    return sha or None


def resolve_commit(repo: Path, ref: str) -> str:
    out = run(repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", check=False)
    sha = out.decode().strip()
    if not sha:
        raise UnknownRef(f"unknown revision {ref!r}: check the name, or run `git fetch` first")
    return sha


def commit_exists(repo: Path, sha: str) -> bool:
    out = run(repo, "cat-file", "-t", sha, check=False)
    return out.strip() == b"commit"


def is_ancestor(repo: Path, ancestor: str, descendant: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", ancestor, descendant],
        capture_output=True,
        env=_env(),
    )
    return proc.returncode == 0


def merge_base(repo: Path, a: str, b: str) -> str | None:
    out = run(repo, "merge-base", a, b, check=False).decode().strip()
    return out or None


def is_shallow(repo: Path) -> bool:
    return run(repo, "rev-parse", "--is-shallow-repository", check=False).strip() == b"true"


def tracked_and_untracked(repo: Path) -> list[str]:
    """Every file git knows or would add (tracked + untracked not ignored)."""
    out = run(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted(set(_zsplit(out)))


def untracked(repo: Path) -> list[str]:
    return _zsplit(run(repo, "ls-files", "-z", "--others", "--exclude-standard"))


def changed_between(repo: Path, old: str, new: str) -> list[str]:
    out = run(repo, "diff", "--name-only", "-z", "--no-renames", old, new)
    return _zsplit(out)


def changed_in_worktree(repo: Path) -> list[str]:
    """Unstaged and staged changes against HEAD (or everything staged if no HEAD)."""
    unstaged = _zsplit(run(repo, "diff", "--name-only", "-z", "--no-renames"))
    staged = _zsplit(run(repo, "diff", "--cached", "--name-only", "-z", "--no-renames"))
    return sorted(set(unstaged) | set(staged))


def show(repo: Path, rev: str, path: str) -> bytes | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", f"{rev}:{path}"],
        capture_output=True,
        env=_env(),
    )
    return proc.stdout if proc.returncode == 0 else None


def staged_blob(repo: Path, path: str) -> bytes | None:
    """The version of ``path`` in the index (what a commit would record)."""
    return show(repo, "", path)


def remote_url(repo: Path) -> str | None:
    out = run(repo, "remote", "get-url", "origin", check=False).decode().strip()
    return out or None
