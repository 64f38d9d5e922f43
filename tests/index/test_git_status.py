"""Level 1 of the cascade asks git once (`git status`, git.work_tree) what
it asked four commands before: HEAD, the staged and unstaged changes, the
untracked files. Both must say the same of every kind of work-tree state."""

from __future__ import annotations

from pathlib import Path

from cartog_ci import git as git_mod
from tests.testing.fixtures import commit, exported, git, index, init_repo, write


def _separately(repo: Path) -> tuple[str | None, list[str], list[str]]:
    head = git_mod.head(repo)
    return head, git_mod.changed_in_worktree(repo) if head else [], sorted(git_mod.untracked(repo))


def test_one_status_says_what_the_separate_calls_said(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "staged.py": "a = 1\n", "unstaged.py": "b = 1\n", "both.py": "c = 1\n", "reverted.py": "d = 1\n",
        "deleted.py": "e = 1\n", "removed.py": "f = 1\n", "with space.py": "g = 1\n", "conflict.py": "h = 1\n",
        "same.py": "i = 1\n", ".gitignore": "ignored/\n",
    })  # fmt: skip
    commit(repo, "first")
    git(repo, "checkout", "-q", "-b", "other")
    write(repo, {"conflict.py": "h = 2\n"})
    commit(repo, "other side")
    git(repo, "checkout", "-q", "main")
    write(repo, {"conflict.py": "h = 3\n"})
    commit(repo, "this side")
    git_mod.run(repo, "merge", "-q", "other", check=False)  # fails: conflict.py is left unmerged
    write(repo, {"staged.py": "a = 2\n", "both.py": "c = 2\n", "reverted.py": "d = 2\n", "with space.py": "g = 2\n"})
    git(repo, "add", "staged.py", "both.py", "reverted.py", "with space.py")
    write(repo, {
        "unstaged.py": "b = 2\n", "both.py": "c = 3\n", "reverted.py": "d = 1\n",
        "new dir/untracked one.py": "x = 1\n", "ignored/skip.py": "y = 1\n", "untracked.py": "z = 1\n",
    })  # fmt: skip
    (repo / "deleted.py").unlink()
    git(repo, "rm", "-q", "--cached", "removed.py")
    (repo / "same.py").touch()  # stat-dirty only: no change

    state = git_mod.work_tree(repo)

    assert (state.head, state.changed, state.untracked) == _separately(repo)
    assert state.changed == [
        "both.py", "conflict.py", "deleted.py", "removed.py", "reverted.py", "staged.py", "unstaged.py", "with space.py"
    ]  # fmt: skip
    assert state.untracked == ["new dir/untracked one.py", "removed.py", "untracked.py"]
    listed = git_mod.tracked_and_untracked(repo, state.untracked)
    assert listed == git_mod.tracked_and_untracked(repo)
    assert "ignored/skip.py" not in listed and "deleted.py" in listed


def test_no_commit_yet(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    git(repo, "add", "a.py")
    state = git_mod.work_tree(repo)
    assert (state.head, state.changed, state.untracked) == (None, [], ["b.py"]) == _separately(repo)


def test_dirty_files_then_committed_index_as_cold(tmp_path: Path) -> None:
    """The dirty files a run records (from the one status) are candidates of
    the next run, once committed as they were, and once reverted."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def f():\n    return 1\n", "b.py": "from a import f\n\ndef g():\n    return f()\n"})
    first = commit(repo, "first")
    index(repo)
    write(repo, {"a.py": "def f():\n    return 2\n\ndef h():\n    return 3\n", "c.py": "from a import h\n"})
    git(repo, "add", "a.py")
    assert index(repo).parsed == 2
    commit(repo, "second")
    assert index(repo).parsed == 0
    git(repo, "reset", "-q", "--hard", first)
    result = index(repo)
    assert (result.mode, result.parsed, result.deleted_files) == ("incremental", 1, ["c.py"])
    cold = tmp_path / "cold.db"
    index(repo, force=True, db=cold)
    assert exported(repo) == exported(repo, cold)


def test_prefetched_calls_answer_as_run_and_never_outlive_their_block(tmp_path: Path) -> None:
    """`git.prefetching` starts the first calls of an index run early: inside
    the block they answer as calls made then; an answer not taken is dropped
    when the block ends, so a later call sees the work tree as it is then."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "a = 1\n"})
    commit(repo, "first")
    write(repo, {"a.py": "a = 2\n", "new.py": "n = 1\n"})
    expected = (git_mod.toplevel(repo), git_mod.work_tree(repo), git_mod.tracked_and_untracked(repo, ["new.py"]))
    with git_mod.prefetching(repo):
        got = (git_mod.toplevel(repo), git_mod.work_tree(repo), git_mod.tracked_and_untracked(repo, ["new.py"]))
    assert got == expected == (repo.resolve(), git_mod.WorkTree(expected[1].head, ["a.py"], ["new.py"]), ["a.py", "new.py"])
    assert not git_mod._PREFETCHED

    with git_mod.prefetching(repo):
        pass  # nothing taken: the three calls are stopped
    assert not git_mod._PREFETCHED
    write(repo, {"later.py": "l = 1\n"})
    assert git_mod.work_tree(repo).untracked == ["later.py", "new.py"]


def test_a_prefetching_block_at_the_top_level_asks_git_once_for_it_and_for_the_work_tree(tmp_path: Path) -> None:
    """With ``top``, the top level ``workspace.locate`` found is the answer
    inside the block (no second ``rev-parse``), and HEAD is read from the
    ``git status`` begun already when it is done, whose state the index run
    then takes: one call for both, the same answers as asked apart."""
    repo = init_repo(tmp_path / "repo").resolve()
    write(repo, {"a.py": "a = 1\n"})
    first = commit(repo, "first")
    write(repo, {"a.py": "a = 2\n", "new.py": "n = 1\n"})
    expected = (repo, first, git_mod.work_tree(repo))
    with git_mod.prefetching(repo, top=True):
        assert [key[1] for key in git_mod._PREFETCHED] == [git_mod._STATUS, git_mod._TRACKED]
        git_mod._PREFETCHED[(str(repo), git_mod._STATUS)].wait()  # done: its answer is HEAD's
        got = (git_mod.toplevel(repo), git_mod.head(repo))
        assert list(git_mod._PREFETCHED) == [(str(repo), git_mod._TRACKED)]  # the status was taken
        got += (git_mod.work_tree(repo),)
        assert git_mod.head(repo) == first  # asked again: git answers (rev-parse)
    assert got == expected == (repo, first, git_mod.WorkTree(first, ["a.py"], ["new.py"]))
    assert not git_mod._PREFETCHED and not git_mod._TOPLEVELS and not git_mod._WORK_TREES
    with git_mod.prefetching(repo, top=True):
        git_mod._PREFETCHED[(str(repo), git_mod._STATUS)].wait()
        assert git_mod.head(repo) == first  # its state not taken: dropped with the block
    assert not git_mod._WORK_TREES
    write(repo, {"later.py": "l = 1\n"})
    assert git_mod.work_tree(repo).untracked == ["later.py", "new.py"]
    # a status not done (its answer, over a pipe's 64 KB, waits to be read):
    # HEAD from git rev-parse, the status left to the index run
    write(repo, {f"untracked/{'u' * 60}{i}.py": "" for i in range(1_500)})
    with git_mod.prefetching(repo, top=True):
        status = git_mod._PREFETCHED[(str(repo), git_mod._STATUS)]
        assert git_mod.head(repo) == first and not git_mod._WORK_TREES and status.poll() is None
        assert len(git_mod.work_tree(repo).untracked) == 1_502
