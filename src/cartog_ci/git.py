"""Every git call goes through ``run``; file lists use ``-z`` output."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cartog_ci.errors import GitError, NotAGitRepository, UnknownRef

# A calling hook (pre-commit) may export these for *its* repository; they
# would redirect our calls on another directory.
_STRIPPED_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_INDEX_FILE",
)  # fmt: skip


def _env(repo: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
    env.setdefault("LC_ALL", "C")
    # every answer is read whole: no flush after each record, which git
    # does by default into a pipe (`check-attr --stdin` of rollup's 12,307
    # files: 36,921 writes; 34 -> 23 ms of git's CPU, 20 -> 7 ms of ours)
    env["GIT_FLUSH"] = "0"
    index_file = _hook_index_file(str(repo)) if repo is not None else None
    if index_file:
        env["GIT_INDEX_FILE"] = index_file
    return env


def _absolute_git_dir(directory: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", directory, "rev-parse", "--absolute-git-dir"], capture_output=True, env=_env()
    )
    out = proc.stdout.decode("utf-8", "surrogateescape").strip()
    return os.path.realpath(out) if proc.returncode == 0 and out else None


def _hook_index_file(repo: str) -> str | None:
    """GIT_INDEX_FILE, made absolute, when it belongs to ``repo``.

    git hands hooks a temporary index this way (``commit -a``, ``commit
    PATH``): the staged change is there. It is relative to the hook's
    directory, and it belongs to the repository of GIT_DIR (else of the
    current directory); pointed at another repository with --repo, it would
    make git read one repository's index for another's files."""
    value = os.environ.get("GIT_INDEX_FILE")
    if not value:
        return None
    return _index_file_of(repo, os.path.abspath(value), os.environ.get("GIT_DIR", ""), os.getcwd())


@lru_cache(maxsize=16)
def _index_file_of(repo: str, index_file: str, caller_git_dir: str, cwd: str) -> str | None:
    caller = os.path.realpath(os.path.join(cwd, caller_git_dir)) if caller_git_dir else _absolute_git_dir(cwd)
    return index_file if caller is not None and caller == _absolute_git_dir(repo) else None


def run(repo: Path, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    started = _PREFETCHED.pop((str(repo), args), None) if input is None else None
    try:
        if started is not None:
            stdout, stderr = started.communicate()
            returncode = started.returncode
        else:
            proc = subprocess.run(
                ["git", "-C", str(repo), *args],
                input=input,
                capture_output=True,
                env=_env(repo),
            )
            stdout, stderr, returncode = proc.stdout, proc.stderr, proc.returncode
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if check and returncode != 0:
        message = stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])} failed: {message[-1] if message else returncode}")
    return stdout


# git calls started ahead of need (``prefetching``), by (repository, arguments):
# ``run`` collects the answer instead of starting the same call again.
_PREFETCHED: dict[tuple[str, tuple[str, ...]], subprocess.Popen[bytes]] = {}

# What an index run asks git first (index/cascade.py ``_plan``): the top level,
# ``work_tree`` and the tracked files of ``tracked_and_untracked``.
_TOPLEVEL = ("rev-parse", "--show-toplevel")
_STATUS = (
    "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
    "--untracked-files=all", "--no-renames",
)  # fmt: skip
_TRACKED = ("ls-files", "-z", "--cached")


# Keys of the calls the executable started before its imports (launch.py):
# those of another directory than the run's are stopped when it starts.
_EARLY: set[tuple[str, tuple[str, ...]]] = set()


def adopt(started: dict[tuple[str, tuple[str, ...]], subprocess.Popen[bytes]]) -> None:
    """Take the calls ``launch.start_early`` started, as prefetched ones."""
    for key, proc in started.items():
        _PREFETCHED.setdefault(key, proc)
        _EARLY.add(key)


def _stop(key: tuple[str, tuple[str, ...]]) -> None:
    started = _PREFETCHED.pop(key, None)
    if started is not None:
        started.kill()
        started.communicate()


# Answers known inside a ``prefetching`` block, by repository: its top level
# (given by the caller), and the work tree's state once ``head`` read it.
_TOPLEVELS: dict[str, Path] = {}
_WORK_TREES: dict[str, WorkTree] = {}


@contextmanager
def prefetching(repo: Path, *, top: bool = False) -> Iterator[None]:
    """Start the git calls an index run begins with, in the background: git
    walks the work tree (django: 35 ms and more) while this process imports
    its modules and opens the index. Each answer is taken by the first
    ``run`` of the same call inside the block; those not taken are stopped
    when it ends, so no later call gets an answer older than its own block.
    ``top``: ``repo`` is git's top level, as ``workspace.locate`` found
    (resolved): ``toplevel`` answers so inside the block, without asking
    git again."""
    keys = [(str(repo), args) for args in (_TOPLEVEL, _STATUS, _TRACKED)]
    for key in _EARLY - set(keys):  # started early for another directory
        _stop(key)
    _EARLY.clear()
    if top:
        _TOPLEVELS[str(repo)] = repo
        _stop(keys[0])
    for key in keys[1:] if top else keys:
        if key in _PREFETCHED:
            continue
        try:
            _PREFETCHED[key] = subprocess.Popen(
                ["git", "-C", key[0], *key[1]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(repo)
            )
        except OSError:  # no git: the call itself will say so
            break
    try:
        yield
    finally:
        _TOPLEVELS.pop(str(repo), None)
        _WORK_TREES.pop(str(repo), None)
        for key in keys:
            _stop(key)


def _zsplit(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def toplevel(path: Path) -> Path | None:
    known = _TOPLEVELS.get(str(path))
    if known is not None:
        return known
    out = run(path, *_TOPLEVEL, check=False).decode().strip()  # nothing printed outside a repository
    return Path(out) if out else None


def without_work_tree(path: Path) -> str | None:
    """Why ``path``, in a git repository, has no work tree to read (a bare
    repository, or inside a .git directory), or None."""
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--is-bare-repository", "--is-inside-git-dir"],
        capture_output=True,
        env=_env(),
    )
    if proc.returncode != 0:
        return None
    bare, inside_git_dir = (proc.stdout.decode().split() + ["", ""])[:2]
    if bare == "true":
        return f"{path} is a bare git repository (no work tree): clone it, or `git worktree add` one, and run there"
    if inside_git_dir == "true":
        return f"{path} is inside a .git directory: run in the repository's work tree"
    return None


def require_repo(path: Path) -> Path:
    top = toplevel(path)
    if top is None:
        raise NotAGitRepository(
            f"not a git repository: {path} (run inside a clone, or pass --repo)"
        )
    return top


def head(repo: Path) -> str | None:
    status = _PREFETCHED.get((str(repo), _STATUS))
    if status is not None and status.poll() is not None:
        # the work tree's state, started already and done, says it (not
        # waited for: Django's git walk outlasts a report's imports, whose
        # work until the index run's needs it would wait)
        state = _WORK_TREES[str(repo)] = work_tree(repo)
        return state.head
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



def merge_base(repo: Path, a: str, b: str) -> str | None:
    out = run(repo, "merge-base", a, b, check=False).decode().strip()
    return out or None


def merge_base_of(repo: Path, ref: str, commit: str) -> str | None:
    """``merge_base`` of the commit ``ref`` names (as ``resolve_commit``
    reads it) and ``commit``, in one git call; None also when ``ref`` names
    no commit."""
    out = run(repo, "merge-base", "--end-of-options", f"{ref}^{{commit}}", commit, check=False).decode().strip()
    return out or None


def ancestor_distance(repo: Path, old: str, new: str) -> int | None:
    """How many commits ``new`` is past ``old``; None when ``old`` is not an
    ancestor of ``new`` (or unknown here)."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", old, new], capture_output=True, env=_env(repo)
    )
    if proc.returncode != 0:
        return None
    out = run(repo, "rev-list", "--count", f"{old}..{new}", check=False).decode().strip()
    return int(out) if out.isdigit() else None


def is_ancestor(repo: Path, older: str, newer: str) -> bool | None:
    """Whether ``older`` is ``newer`` or an ancestor of it; None when this
    repository cannot tell (a commit it lacks, or a shallow history that
    ends before their merge base)."""
    if not (commit_exists(repo, older) and commit_exists(repo, newer)):
        return None
    if merge_base(repo, older, newer) == older:
        return True
    return None if is_shallow(repo) else False


def is_shallow(repo: Path) -> bool:
    return run(repo, "rev-parse", "--is-shallow-repository", check=False).strip() == b"true"


def tracked_and_untracked(repo: Path, untracked: list[str] | None = None) -> list[str]:
    """Every file git knows or would add (tracked + untracked not ignored).
    With ``untracked`` already known (``work_tree``), only the tracked files
    are asked for: the walk of the work tree for untracked files is the
    costly part (django: ~35 ms of CPU each time)."""
    if untracked is None:
        out = run(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        return sorted(set(_zsplit(out)))
    return sorted(set(_zsplit(run(repo, *_TRACKED))) | set(untracked))


def untracked(repo: Path) -> list[str]:
    return _zsplit(run(repo, "ls-files", "-z", "--others", "--exclude-standard"))


def changed_between(repo: Path, old: str, new: str) -> list[str]:
    out = run(repo, "diff", "--name-only", "-z", "--no-renames", old, new)
    return _zsplit(out)


# the modes of ``git diff --raw`` that are no file's bytes to read
SYMLINK, GITLINK = "120000", "160000"


def changed_objects(repo: Path, old: str, new: str) -> dict[str, tuple[str, str, str, str]]:
    """``changed_between`` with each file's side in both commits: path ->
    (old mode, old object, new mode, new object), mode and object "" on the
    side without the file; one ``git diff --raw`` where the file list and an
    ``ls-tree`` of each side (the modes) were three calls."""
    out = run(repo, "diff", "--raw", "-z", "--no-abbrev", "--no-renames", old, new)
    fields = out.split(b"\0")  # :<old mode> <new mode> <old object> <new object> <status>, then the path
    found: dict[str, tuple[str, str, str, str]] = {}
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=True):
        old_mode, new_mode, old_object, new_object = meta[1:].decode("ascii").split(" ")[:4]
        old_side = ("", "") if old_mode == "000000" else (old_mode, old_object)
        new_side = ("", "") if new_mode == "000000" else (new_mode, new_object)
        found[path.decode("utf-8", "surrogateescape")] = (*old_side, *new_side)
    return found


def object_name(data: bytes, like: str) -> str:
    """The name git gives a blob of ``data``, in the hash of the object name
    ``like`` (SHA-1, or SHA-256 in a repository that uses it)."""
    digest = hashlib.sha1(usedforsecurity=False) if len(like) == 40 else hashlib.sha256()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def blobs(repo: Path, objects: Sequence[str]) -> dict[str, bytes]:
    """The bytes of blobs by object name, through one ``git cat-file --batch
    --buffer`` (its answer written whole, not object by object); an object
    missing, or not a blob, is absent."""
    if not objects:
        return {}
    wanted = list(dict.fromkeys(objects))
    data = run(repo, "cat-file", "--batch", "--buffer", input="".join(f"{o}\n" for o in wanted).encode("ascii"))
    found: dict[str, bytes] = {}
    pos = 0
    for name in wanted:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].split()  # <object> <type> <size>, or <object> missing
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue
        size = int(header[2])
        if header[1] == b"blob":
            found[name] = data[pos : pos + size]
        pos += size + 1
    return found


def changed_since(repo: Path, old: str, new: str) -> list[str] | None:
    """``changed_between``, or None when ``old`` is no commit any more
    (rebased away, garbage-collected): one git call where ``commit_exists``
    then ``changed_between`` were two."""
    try:
        return changed_between(repo, old, new)
    except GitError:
        if commit_exists(repo, old):
            raise
        return None


def staged_since(repo: Path, old: str) -> list[str]:
    """Files whose staged version differs from ``old``."""
    return _zsplit(run(repo, "diff", "--cached", "--name-only", "-z", "--no-renames", old))


def worktree_since(repo: Path, old: str) -> list[str]:
    """Files whose work-tree version differs from ``old``, untracked ones too."""
    changed = _zsplit(run(repo, "diff", "--name-only", "-z", "--no-renames", old))
    return sorted(set(changed) | set(untracked(repo)))


def unstaged(repo: Path) -> list[str]:
    """Files with edits the git index does not hold."""
    return _zsplit(run(repo, "diff", "--name-only", "-z", "--no-renames"))


def remote_default_branch(repo: Path) -> str | None:
    """``origin/main`` when origin/HEAD says so, else None."""
    ref = run(repo, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False).decode().strip()
    return ref or None


def upstream(repo: Path) -> str | None:
    """The checked-out branch's upstream (``origin/feature``), None without one."""
    ref = run(repo, "rev-parse", "-q", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", check=False)
    return ref.decode().strip() or None


def merging(repo: Path) -> bool:
    """Whether a merge is in progress (MERGE_HEAD exists)."""
    return bool(run(repo, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).strip())


def current_branch(repo: Path) -> str | None:
    """The checked-out branch, None when HEAD is detached."""
    ref = run(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False).decode().strip()
    return ref or None


def remote_url(repo: Path, remote: str = "origin") -> str | None:
    url = run(repo, "config", "--get", f"remote.{remote}.url", check=False).decode().strip()
    return url or None


def empty_tree(repo: Path) -> str:
    """The ID of git's empty tree (what a first commit is compared with)."""
    return run(repo, "hash-object", "-t", "tree", "--stdin", input=b"").decode().strip()


@dataclass(frozen=True)
class WorkTree:
    """What one ``git status`` says of a work tree."""

    head: str | None  # the HEAD commit, None before the first commit
    changed: list[str]  # staged or unstaged changes against HEAD (``changed_in_worktree``)
    untracked: list[str]  # untracked files not ignored (``untracked``)


def work_tree(repo: Path) -> WorkTree:
    """``head``, ``changed_in_worktree`` and ``untracked`` in one git call
    instead of four (porcelain v2: the HEAD commit in a header line, each
    changed, unmerged or untracked path in an entry). ``--no-optional-locks``:
    the index stays unwritten, as with ``git diff``. Inside a ``prefetching``
    block, the state ``head`` read, once."""
    kept = _WORK_TREES.pop(str(repo), None)
    if kept is not None:
        return kept
    out = run(repo, *_STATUS)
    head: str | None = None
    changed: set[str] = set()
    untracked_paths: list[str] = []
    for entry in _zsplit(out):
        kind = entry[:2]
        if kind == "# ":
            key, _, value = entry[2:].partition(" ")
            if key == "branch.oid" and value != "(initial)":
                head = value
        elif kind == "? ":
            untracked_paths.append(entry[2:])
        elif kind == "1 ":  # 1 XY sub mH mI mW hH hI path
            changed.add(entry.split(" ", 8)[8])
        elif kind == "u ":  # u XY sub m1 m2 m3 mW h1 h2 h3 path
            changed.add(entry.split(" ", 10)[10])
        elif kind == "2 ":  # a rename or copy: --no-renames makes none
            raise GitError(f"git status: unexpected rename entry {entry!r}")
    return WorkTree(head, sorted(changed) if head else [], sorted(untracked_paths))


def changed_in_worktree(repo: Path) -> list[str]:
    """Unstaged and staged changes against HEAD (or everything staged if no HEAD)."""
    staged = _zsplit(run(repo, "diff", "--cached", "--name-only", "-z", "--no-renames"))
    return sorted(set(unstaged(repo)) | set(staged))


def symlinks(repo: Path, rev: str, paths: list[str]) -> set[str]:
    """Which of ``paths`` are symbolic links (mode 120000) at ``rev`` ("" is
    the staged version): git stores a link as a blob holding its target."""
    return _of_mode(repo, rev, paths, "120000")


def gitlinks(repo: Path, paths: list[str]) -> set[str]:
    """Which of ``paths`` are submodules in git's index (gitlinks, mode
    160000): a path listed by git that is a directory on disk is one only then."""
    return _of_mode(repo, "", paths, "160000")


def _of_mode(repo: Path, rev: str, paths: list[str], mode: str) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        if rev == "":  # <mode> <object> <stage>\t<path>
            out = run(repo, "--literal-pathspecs", "ls-files", "-s", "-z", "--", *chunk)
        else:  # <mode> <type> <object>\t<path>
            out = run(repo, "--literal-pathspecs", "ls-tree", "-r", "-z", rev, "--", *chunk)
        for entry in _zsplit(out):
            meta, _, path = entry.partition("\t")
            if meta.startswith(mode + " "):
                found.add(path)
    return found


def differing_from(repo: Path, commit: str, paths: list[str]) -> set[str]:
    """Which of ``paths`` differ in the work tree from ``commit``, staged or
    not (deleted ones too): git's view of them now."""
    args = ("--no-optional-locks", "diff", "--name-only", "-z", "--no-renames", commit)
    if len(paths) > 2_000:  # one walk of the index costs less than many calls
        return set(_zsplit(run(repo, *args))) & set(paths)
    found: set[str] = set()
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        found.update(_zsplit(run(repo, "--literal-pathspecs", *args, "--", *chunk)))
    return found


def show(repo: Path, rev: str, path: str) -> bytes | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", f"{rev}:{path}"],
        capture_output=True,
        env=_env(repo),
    )
    return proc.stdout if proc.returncode == 0 else None


def show_many(repo: Path, specs: list[tuple[str, str]]) -> dict[tuple[str, str], bytes | None]:
    """``git show REV:PATH`` for many files through one ``git cat-file --batch``
    (one process instead of one per file). ``REV`` "" is the staged version."""
    out: dict[tuple[str, str], bytes | None] = {}
    batchable = [(rev, path) for rev, path in specs if "\n" not in path and "\r" not in path]
    for rev, path in specs:
        if (rev, path) not in out and ("\n" in path or "\r" in path):
            out[(rev, path)] = show(repo, rev, path)  # the batch protocol is line-based
    if not batchable:
        return out
    request = b"".join(f"{rev}:{path}\n".encode("utf-8", "surrogateescape") for rev, path in batchable)
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch", "--buffer"], input=request, capture_output=True, env=_env(repo)
    )
    data, pos = proc.stdout, 0
    for key in batchable:
        end = data.find(b"\n", pos)
        if end < 0:
            out[key] = None
            continue
        header = data[pos:end].split()
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            out[key] = None
            if len(header) == 3 and header[2].isdigit():  # a tree or another object: skip its body
                pos += int(header[2]) + 1
            continue
        size = int(header[2])
        out[key] = data[pos : pos + size]
        pos += size + 1
    return out



def check_attr(repo: Path, attributes: Sequence[str], paths: Sequence[str]) -> dict[str, dict[str, str]]:
    """path -> {attribute: "set" | "unset" | its value} for the attributes
    given to some of ``paths`` (unspecified ones are absent), through one
    ``git check-attr -z --stdin`` for all of them."""
    if not paths:
        return {}
    request = "\0".join(paths).encode("utf-8", "surrogateescape") + b"\0"
    out = run(repo, "check-attr", "-z", "--stdin", *attributes, input=request)
    # path, attribute, info: of rollup's 12,307 files and three attributes
    # none is given one, and only the given are decoded (36,921 triples: 19
    # ms when each field was decoded, docs/incremental.md "Which files")
    fields = out.split(b"\0")
    infos = fields[2::3]
    found: dict[str, dict[str, str]] = {}
    if infos.count(b"unspecified") == len(infos):
        return found
    for i, info in enumerate(infos):
        if info != b"unspecified":
            path, attribute = (f.decode("utf-8", "surrogateescape") for f in fields[3 * i : 3 * i + 2])
            found.setdefault(path, {})[attribute] = info.decode("utf-8", "surrogateescape")
    return found


def attributes_file(repo: Path) -> Path | None:
    """The repository's own ``info/attributes`` (beside its .gitattributes
    files), when it has one. A top level whose ``.git`` is the repository's
    own directory (not a linked work tree's: no ``commondir``) holds it at
    ``.git/info/attributes``, where git would say (``git._env`` runs git
    without a caller's GIT_DIR): asked without a process, as every run that
    lists no .gitattributes asks it; else git says where."""
    own = repo / ".git"
    if own.is_dir() and not (own / "commondir").exists():
        found = own / "info" / "attributes"
        return found if found.is_file() else None
    out = run(repo, "rev-parse", "--git-path", "info/attributes", check=False).decode().strip()
    if not out:
        return None
    path = Path(out) if os.path.isabs(out) else repo / out
    return path if path.is_file() else None
