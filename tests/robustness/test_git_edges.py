"""Repositories as CI runners and hooks hand them over: shallow clones,
detached heads, no remote, unrelated or unknown bases, no commit yet, no
supported file, worktrees, and the GIT_* variables a calling hook exports.
Each works, or stops with one line that says what to do (exit 2).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from cartog_ci import git as git_mod
from cartog_ci.cli import main
from cartog_ci.errors import UnknownRef
from cartog_ci.report import sides
from tests.testing.fixtures import commit, git, init_repo, make_repo, write

PERSIST = "def persist(obj):"


def _cli(repo: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The CLI in this process; in a subprocess when a hook's directory and
    environment are the point."""
    if cwd is None and env is None:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main([*args, "--repo", str(repo)])
        return code, out.getvalue(), err.getvalue()
    proc = subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args, "--repo", str(repo)],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=600,  # a cap against a hang
    )  # fmt: skip
    assert "Traceback" not in proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def _report(repo: Path, *args: str, **kw: object) -> tuple[int, dict[str, object] | None, str]:
    code, out, err = _cli(repo, "report", "--json", "--no-related", *args, **kw)  # type: ignore[arg-type]
    return code, (json.loads(out) if code == 0 else None), err


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("cartog-ci: "), err
    return err[len("cartog-ci: ") : -1]


def _changed(report: dict[str, object] | None) -> set[tuple[str, str]]:
    assert report is not None
    return {(c["category"], c["symbol"]["id"]) for c in report["changed"]}  # type: ignore[index, union-attr]


@pytest.fixture
def pr(tmp_path: Path) -> Path:
    """pyproj on `feature`, one signature change ahead of `main`; `main` moved on too."""
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace(PERSIST, "def persist(obj, flag=False):"))
    commit(repo, "persist takes a flag")
    git(repo, "checkout", "-q", "main")
    write(repo, {"shop/util/later.py": "def later():\n    return 1\n"})
    commit(repo, "main moves on")
    git(repo, "checkout", "-q", "feature")
    return repo


EXPECTED = {
    ("modified", "shop/models/base.py:function:persist"),
    ("children_changed", "shop/models/base.py:module:shop.models.base"),
}


def test_shallow_clone_without_the_merge_base(pr: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{pr}", str(clone))
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    code, _, err = _report(clone, "--base", "origin/main")
    assert code == 2
    assert _one_line(err) == (
        "shallow clone: the merge-base of origin/main and HEAD is not in the history; "
        "run `git fetch --deepen=200` (or `git fetch --unshallow`) and retry"
    )
    assert _cli(clone, "index", "--no-embed")[0] == 0  # indexing needs no history
    git(clone, "fetch", "-q", "--deepen=200", "origin", "feature", "main")
    code, report, err = _report(clone, "--base", "origin/main")
    assert code == 0, err
    assert _changed(report) == EXPECTED


def test_detached_head_reports_like_the_branch(pr: Path) -> None:
    _, on_branch, _ = _report(pr, "--base", "main")
    git(pr, "checkout", "-q", "--detach")
    code, detached, err = _report(pr, "--base", "main")
    assert code == 0, err
    assert _changed(detached) == _changed(on_branch) == EXPECTED


@pytest.mark.parametrize(
    ("setup", "chosen"),
    [("origin-head", "the remote's default branch"), ("main", "no remote default branch"), ("master", "no remote default branch")],
)
def test_default_base(setup: str, chosen: str, pr: Path, tmp_path: Path) -> None:
    if setup == "origin-head":
        remote = tmp_path / "remote.git"
        git(tmp_path, "clone", "-q", "--bare", str(pr), str(remote))
        git(pr, "remote", "add", "origin", str(remote))
        git(pr, "fetch", "-q", "origin")
        git(pr, "remote", "set-head", "origin", "main")
    elif setup == "master":
        git(pr, "branch", "-m", "main", "master")
    code, report, err = _report(pr)
    assert code == 0, err
    assert report is not None and report["base"]["chosen"] == chosen  # type: ignore[index]
    assert _changed(report) == EXPECTED


def test_no_default_base_at_all(pr: Path) -> None:
    git(pr, "branch", "-m", "main", "trunk")
    code, _, err = _report(pr)
    assert code == 2
    assert _one_line(err) == "no base branch found (no origin/HEAD, main or master): pass --base REF"


def test_a_base_that_is_not_an_ancestor(pr: Path) -> None:
    """main moved on: not an ancestor of HEAD; the merge-base is what counts."""
    assert subprocess.run(["git", "-C", str(pr), "merge-base", "--is-ancestor", "main", "HEAD"]).returncode == 1
    code, report, err = _report(pr, "--base", "main")
    assert code == 0, err
    assert _changed(report) == EXPECTED  # later.py (main's own change) is not in it


def test_a_base_with_no_history_in_common_or_unknown(pr: Path) -> None:
    git(pr, "checkout", "-q", "--orphan", "elsewhere")
    git(pr, "rm", "-q", "-r", "-f", ".")
    write(pr, {"other.py": "def other():\n    return 1\n"})
    commit(pr, "unrelated")
    git(pr, "checkout", "-q", "feature")
    code, _, err = _report(pr, "--base", "elsewhere")
    assert code == 2
    assert _one_line(err) == "elsewhere and HEAD share no history: pass a related --base REF"
    code, _, err = _report(pr, "--base", "no-such-branch")
    assert code == 2
    assert _one_line(err) == "unknown revision 'no-such-branch': check the name, or run `git fetch` first"
    code, _, err = _report(pr, "--base", "--upload-pack=touch /tmp/pwned")  # not an option to git
    assert code == 2 and "unknown revision" in err


def test_an_empty_repository(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "empty")
    code, out, err = _cli(repo, "index", "--no-embed", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["parsed"] == 0
    code, _, err = _report(repo)
    assert code == 2
    assert _one_line(err) == "the repository has no commit yet: commit once, then run the report"
    write(repo, {"first.py": "def first():\n    return 1\n"})
    git(repo, "add", "first.py")
    code, report, err = _report(repo, "--staged")
    assert code == 0, err
    assert _changed(report) == {("added", "first.py:function:first"), ("added", "first.py:module:first")}


def test_a_repository_without_a_supported_file(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "data")
    write(repo, {"README.txt": "hello\n", "data.csv": "a,b\n1,2\n", "Makefile": "all:\n\ttrue\n"})
    commit(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"data.csv": "a,b\n1,3\n"})
    commit(repo)
    assert _cli(repo, "index", "--no-embed")[0] == 0
    code, out, err = _cli(repo, "stats", "--json")
    assert code == 0, err
    stats = json.loads(out)
    assert (stats["files"], stats["symbols"]) == (0, 0)
    assert stats["unsupported"] == {".txt": 1, ".csv": 1, "(none)": 1}
    code, report, err = _report(repo, "--base", "main")
    assert code == 0, err
    assert report is not None and report["changed"] == [] and report["files"] == ["data.csv"]


def test_a_worktree(pr: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    git(pr, "worktree", "add", "-q", "-b", "wt-branch", str(worktree), "feature")
    assert (worktree / ".git").is_file()
    code, report, err = _report(worktree, "--base", "main")
    assert code == 0, err
    assert _changed(report) == EXPECTED
    assert (worktree / ".cartog-ci" / "index.db").exists()
    assert not (pr / ".cartog-ci").exists()  # each checkout has its own index
    assert git(pr, "status", "--porcelain") == ""  # and nothing leaks into git status


def _hook_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith(("GIT_CONFIG", "GIT_AUTHOR", "GIT_COMMITTER", "GIT_TEMPLATE"))}
    return env | extra


def test_a_hooks_git_variables_do_not_leak_into_another_repository(pr: Path, tmp_path: Path) -> None:
    """pre-commit runs hooks with GIT_DIR / GIT_INDEX_FILE / GIT_WORK_TREE of
    *its* repository; `cartog-ci report --repo OTHER` must read OTHER."""
    hooked = make_repo(tmp_path / "hooked", "jsproj")  # the repository whose hook runs us
    base = pr / "shop/models/base.py"
    base.write_text(base.read_text() + "\n\ndef staged_only():\n    return 1\n")
    git(pr, "add", "-A")
    clean = _report(pr, "--staged")
    assert clean[0] == 0 and ("added", "shop/models/base.py:function:staged_only") in _changed(clean[1])
    for index_file in (str(hooked / ".git" / "index"), ".git/index"):
        env = _hook_env(GIT_DIR=str(hooked / ".git"), GIT_WORK_TREE=str(hooked), GIT_INDEX_FILE=index_file)
        assert _report(pr, "--staged", cwd=hooked, env=env)[:2] == clean[:2]
        code, out, err = _cli(pr, "index", "--no-embed", "--json", cwd=hooked, env=env)
        assert code == 0, err
        assert not any(p.endswith(".js") for p in json.loads(out)["symbols"]["added"]["ids"])


def test_a_hooks_own_temporary_index_is_read(pr: Path) -> None:
    """`git commit -a` hands the hook a temporary index (relative to the
    repository's top): what it holds is the staged change, not .git/index."""
    base = pr / "shop/models/base.py"
    base.write_text(base.read_text() + "\n\ndef in_commit_a():\n    return 1\n")
    shutil.copy(pr / ".git" / "index", pr / ".git" / "index.hook")
    env = _hook_env(GIT_INDEX_FILE=".git/index.hook")
    subprocess.run(["git", "add", "-A"], cwd=pr, env=env, check=True)
    code, report, err = _report(pr, "--staged", cwd=pr, env=env | {"GIT_DIR": ".git"})
    assert code == 0, err
    assert ("added", "shop/models/base.py:function:in_commit_a") in _changed(report)
    code, report, err = _report(pr, "--staged", cwd=pr, env=_hook_env())  # .git/index: not staged there
    assert code == 0, err
    assert ("added", "shop/models/base.py:function:in_commit_a") not in _changed(report)


def test_committed_symbolic_links_are_skipped_never_edits(tmp_path: Path) -> None:
    """Links committed on the branch (to a file, dangling, and a file that
    became a link) on a clean tree: the report runs, each link skipped with
    its reason; the file that became a link loses its symbols (the index
    skips links too). The same for the staged change and the work tree."""
    repo = init_repo(tmp_path / "links")
    write(repo, {"a.py": "def a():\n    return 1\n", "was_file.py": "def gone():\n    return 2\n"})
    commit(repo, "initial")
    git(repo, "checkout", "-q", "-b", "feature")
    os.symlink("a.py", repo / "link.py")
    os.symlink("nowhere.py", repo / "dangling.py")
    (repo / "was_file.py").unlink()
    os.symlink("a.py", repo / "was_file.py")
    write(repo, {"b.py": "def b():\n    return a()\n"})
    expected_changes = {
        ("added", "b.py:function:b"), ("added", "b.py:module:b"),
        ("removed", "was_file.py:function:gone"), ("removed", "was_file.py:module:was_file"),
    }  # fmt: skip
    notes = [f"{p}: skipped (symbolic link)" for p in ("dangling.py", "link.py", "was_file.py")]
    def changes(report: dict[str, object] | None) -> set[tuple[str, str]]:
        assert report is not None
        return {(c["category"], (c["symbol"] or c["old"])["id"]) for c in report["changed"]}  # type: ignore[index, union-attr]

    code, report, err = _report(repo, "--working-tree")
    assert (code, err) == (0, "cartog-ci: indexing 5 files (first run)...\n")
    assert changes(report) == expected_changes
    git(repo, "add", "-A")
    code, report, err = _report(repo, "--staged")
    assert (code, err) == (0, "")
    assert changes(report) == expected_changes
    assert [n for n in report["notes"] if "symbolic link" in n] == notes  # type: ignore[index]
    commit(repo, "links")
    assert git(repo, "status", "--porcelain") == ""
    code, report, err = _report(repo, "--base", "main")
    assert (code, err) == (0, "")  # not "uncommitted edits in 3 changed file(s) (e.g. dangling.py)"
    assert changes(report) == expected_changes
    assert [n for n in report["notes"] if "symbolic link" in n] == notes  # type: ignore[index]
    assert report["files"] == ["b.py", "dangling.py", "link.py", "was_file.py"]  # type: ignore[index]


@pytest.mark.parametrize("where", ["bare clone", "inside .git"])
def test_a_repository_without_a_work_tree_is_one_line(where: str, pr: Path, tmp_path: Path) -> None:
    """A bare repository (or a .git directory) holds git's internals, not
    source: every command says so in one line, exit 2, and creates nothing."""
    if where == "bare clone":
        target = tmp_path / "bare.git"
        git(tmp_path, "clone", "-q", "--bare", str(pr), str(target))
        expected = f"{target} is a bare git repository (no work tree): clone it, or `git worktree add` one, and run there"
    else:
        target = pr / ".git"
        expected = f"{target} is inside a .git directory: run in the repository's work tree"
    before = sorted(p.name for p in target.iterdir())
    for args in (["index", "--no-embed"], ["report", "--base", "main", "--no-related"], ["stats"], ["refs", "persist"]):
        code, out, err = _cli(target, *args)
        assert (code, out) == (2, ""), args
        assert _one_line(err) == expected, args
        code, out, err = _cli(target, *args, cwd=target)  # run from there, as `cd bare.git && cartog-ci …`
        assert (code, _one_line(err)) == (2, expected), args
    assert sorted(p.name for p in target.iterdir()) == before


def test_the_merge_base_of_a_named_base_is_one_git_call(tmp_path: Path) -> None:
    """``git.merge_base_of`` resolves the base as ``resolve_commit`` does (an
    annotated tag peeled to its commit) inside merge-base; it answers None
    where the report then resolves the base apart for the error."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "a = 1\n"})
    base = commit(repo, "base")
    git(repo, "tag", "-a", "-m", "release", "v1")
    write(repo, {"a.py": "a = 2\n"})
    head = commit(repo, "head")
    assert git_mod.merge_base_of(repo, "v1", head) == git_mod.merge_base(repo, git_mod.resolve_commit(repo, "v1"), head)
    assert git_mod.merge_base_of(repo, "v1", head) == base == sides.find_merge_base(repo, "v1", head)
    assert git_mod.merge_base_of(repo, "HEAD", head) == head
    for unknown in ("no-such-branch", "--output=/tmp/x", "v1^{tree}"):
        assert git_mod.merge_base_of(repo, unknown, head) is None
        with pytest.raises(UnknownRef):
            sides.find_merge_base(repo, unknown, head)
