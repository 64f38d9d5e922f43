"""The ``cartog-ci`` executable (cartog_ci/launch.py) starts an index run's
first git calls before Python imports the tool; the run takes those answers
only for the repository it indexes, and its output is the command's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cartog_ci import git as git_mod
from cartog_ci import launch
from tests.testing.fixtures import commit, init_repo, write


def test_the_early_calls_are_the_ones_an_index_run_asks_for() -> None:
    assert launch.EARLY_CALLS == (git_mod._TOPLEVEL, git_mod._STATUS, git_mod._TRACKED)
    assert launch.HOOK_VARIABLES == git_mod._STRIPPED_ENV


def test_the_directory_a_command_line_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = init_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    other = init_repo(tmp_path / "other")
    monkeypatch.chdir(repo)
    top, elsewhere = os.path.realpath(repo), os.path.realpath(other)
    assert launch.early_directory(["index"]) == top
    assert launch.early_directory(["index", "--no-embed", "--json"]) == top
    assert launch.early_directory(["index", str(other)]) == elsewhere
    assert launch.early_directory(["index", "--index", "x.db", "--json", str(other)]) == elsewhere
    assert launch.early_directory(["index", "--index", str(other)]) == top  # the index file's value, not a path
    assert launch.early_directory(["index", f"--repo={other}"]) == elsewhere
    assert launch.early_directory(["report", "--repo", str(other), "--base", "main"]) == elsewhere
    assert launch.early_directory(["report", "--base", "main"]) == top
    assert launch.early_directory(["search", "sub", "--repo", str(other)]) == elsewhere  # a query, not a path
    assert launch.early_directory(["search", "how does it work"]) == top
    # not a top level (git is asked as it always was), another command, no command
    assert launch.early_directory(["index", "sub"]) is None
    assert launch.early_directory(["index", str(tmp_path / "missing")]) is None
    assert launch.early_directory(["stats"]) is None
    assert launch.early_directory([]) is None
    # a hook's variables: git._env decides what git sees
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "index"))
    assert launch.early_directory(["index"]) is None


def test_early_calls_answer_their_repository_and_are_stopped_for_another(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    other = init_repo(tmp_path / "other")
    for r in (repo, other):
        write(r, {"a.py": "a = 1\n"})
        commit(r, "first")
    write(repo, {"a.py": "a = 2\n", "new.py": "n = 1\n"})
    expected = (git_mod.work_tree(repo), git_mod.tracked_and_untracked(repo, ["new.py"]))
    early = {**launch.start_early(str(repo.resolve())), **launch.start_early(str(other.resolve()))}
    git_mod.adopt(early)
    assert git_mod.toplevel(repo.resolve()) == repo.resolve()  # workspace.locate's call, taken early
    with git_mod.prefetching(repo.resolve()):
        stopped = [p for (d, _), p in early.items() if d == str(other.resolve())]
        assert len(stopped) == 3 and all(p.returncode is not None for p in stopped)
        assert all(key[0] == str(repo.resolve()) for key in git_mod._PREFETCHED)
        got = (git_mod.work_tree(repo.resolve()), git_mod.tracked_and_untracked(repo.resolve(), ["new.py"]))
    assert got == expected
    assert expected[0].changed == ["a.py"] and expected[1] == ["a.py", "new.py"]
    assert not git_mod._PREFETCHED


def test_the_executable_indexes_as_the_cli_does(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"pkg/a.py": "def f():\n    pass\n", "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    f()\n"})
    commit(repo, "first")
    write(repo, {"pkg/c.py": "from pkg.b import g\n\n\ndef h():\n    g()\n"})  # untracked: from git status

    def run(module: str, db: str) -> tuple[int, str]:
        proc = subprocess.run(
            [sys.executable, "-c", f"import sys; from cartog_ci.{module} import main; sys.exit(main())",
             "index", "--no-embed", "--index", str(tmp_path / db)],
            cwd=repo, capture_output=True, text=True,
        )  # fmt: skip
        return proc.returncode, proc.stdout.splitlines()[0]

    assert run("launch", "launched.db") == run("cli", "cli.db") == (0, "full: 3 candidate files, 0 unchanged, 3 parsed, 0 deleted")
    exported = [
        subprocess.run(
            [sys.executable, "-m", "cartog_ci.cli", "export", "--json", "--index", str(tmp_path / db)],
            cwd=repo, capture_output=True, text=True, check=True,
        ).stdout
        for db in ("launched.db", "cli.db")
    ]  # fmt: skip
    assert exported[0] == exported[1] and '"pkg/c.py:function:h"' in exported[0]


def _one_file_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository of one committed module, and where its index goes."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"pkg/a.py": "def f():\n    pass\n"})
    commit(repo, "first")
    return repo, str(tmp_path / "i.db")


def _printed_at_exit(repo: Path, module: str, shown: str, *args: str) -> str:
    """What ``shown`` (an expression, ``gc`` imported) is at the exit of a
    command run by ``cartog_ci.<module>.main`` in a process of its own."""
    probe = (
        "import atexit, gc, sys; "
        f"atexit.register(lambda: print({shown})); "
        f"from cartog_ci.{module} import main; sys.exit(main())"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=repo, capture_output=True, text=True, check=True)
    return proc.stdout.splitlines()[-1]


def test_the_executable_freezes_its_imports_and_runs_an_index_without_the_collector(tmp_path: Path) -> None:
    """launch.main: the objects imports make are frozen (no collection walks
    them again); `index` runs with the collector off to the end, `search`
    with it on and a larger young generation; ``cli.main`` (the tests', a
    library's) changes none of it."""
    repo, db = _one_file_repo(tmp_path)
    shown = "'collector', gc.isenabled(), gc.get_threshold()[0], 'frozen', gc.get_freeze_count() > 1000"

    def state(module: str, *args: str) -> str:
        return _printed_at_exit(repo, module, shown, *args)

    assert state("launch", "index", "--no-embed", "--index", db) == "collector False 700 frozen True"
    assert state("cli", "index", "--no-embed", "--index", db) == "collector True 700 frozen False"
    assert state("launch", "search", "f", "--index", db) == "collector True 100000 frozen True"
    assert state("cli", "search", "f", "--index", db) == "collector True 700 frozen False"


def test_the_executable_runs_sqlite_without_its_memory_statistics(tmp_path: Path) -> None:
    """launch.py ``_sqlite_without_statistics``: a command through the
    executable reads its index with SQLite counting no memory (no mutex
    around each allocation); ``cli.main`` keeps SQLite's defaults."""
    repo, db = _one_file_repo(tmp_path)

    def used(module: str, *args: str) -> str:
        # SQLite's peak of the memory it counted: none past what importing apsw
        # allocates (56 bytes); apsw imported at exit, not before launch.py's set-up
        shown = "'memory counted', __import__('apsw').memory_high_water() > 100_000"
        return _printed_at_exit(repo, module, shown, *args)

    assert used("cli", "index", "--no-embed", "--index", db) == "memory counted True"
    assert used("launch", "stats", "--index", db) == "memory counted False"


def test_a_search_through_the_executable_answers_as_the_cli_does(tmp_path: Path) -> None:
    """``search`` ends without the interpreter's teardown (launch.exit_now):
    its whole answer still reaches a pipe, and its exit codes are the CLI's."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"pkg/retry.py": "def retry_later(task):\n    return task\n\n\ndef give_up():\n    pass\n"})
    commit(repo, "first")
    db = str(tmp_path / "i.db")
    subprocess.run([sys.executable, "-m", "cartog_ci.cli", "index", "--no-embed", "--index", db], cwd=repo, check=True)

    def run(module: str, query: str) -> tuple[int, str, str]:
        proc = subprocess.run(
            [sys.executable, "-c", f"import sys; from cartog_ci.{module} import main; sys.exit(main())",
             "search", query, "--index", db],
            cwd=repo, capture_output=True, text=True,
        )  # fmt: skip
        return proc.returncode, proc.stdout, proc.stderr

    found = run("launch", "retry_later")  # git's top level asked before the imports
    assert found == run("cli", "retry_later")
    assert found[0] == 0 and "pkg/retry.py:1  function retry_later" in found[1]
    empty = run("launch", " ")
    assert empty == run("cli", " ") == (2, "", "cartog-ci: search: the query is empty: ask for a name, an error string or a question\n")


def test_a_search_starts_the_top_levels_call_only(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    started = launch.start_early(str(repo.resolve()), launch.EARLY_CALLS[:1])
    git_mod.adopt(started)
    try:
        assert list(started) == [(str(repo.resolve()), git_mod._TOPLEVEL)]
        assert git_mod.toplevel(repo.resolve()) == repo.resolve()
        assert not git_mod._PREFETCHED  # the answer was the early call's
    finally:
        git_mod._EARLY.clear()
