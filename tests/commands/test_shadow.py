"""`cartog-ci test --shadow` (issue 30, part 3): the selection, then the
whole suite, and the failing tests the selection skipped. A real git
repository with a real pytest suite: a route reached through a registry
(no static graph sees its test call it) and a helper its test calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, git, init_repo, write
from tests.testing.routes import ROUTES, use_this_pytest

PROJECT = {
    "pyproject.toml": '[project]\nname = "app"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "app/__init__.py": "",
    "app/routes.py": ROUTES,
    "tests/test_routes.py": (
        "from app.routes import ROUTES, shout\n\n\n"
        "def test_hello():\n    assert ROUTES['hello']('you') == 'hello you'\n\n\n"
        "def test_shout():\n    assert shout('hi') == 'HI'\n"
    ),
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_this_pytest(monkeypatch)
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    commit(repo, "routes")
    git(repo, "checkout", "-q", "-b", "feature")
    return repo


def _shadow(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[int, dict[str, object], str]:
    code = main(["test", "--repo", str(repo), "--base", "main", "--shadow", "--json", "--", "-p", "no:cacheprovider"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err.rstrip("\n").rsplit("\n", 1)[-1]


def test_a_failing_test_the_selection_skipped_is_named(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The route is reached through the registry: the graph selects no
    test, the whole suite fails test_hello, and the shadow run says so."""
    write(repo, {"app/routes.py": ROUTES.replace('"hello " + who', '"hello, " + who')})
    commit(repo, "a comma")
    code, data, last = _shadow(capsys, repo)
    assert (code, last) == (1, "cartog-ci: selection missed 1 failing test(s): tests/test_routes.py::test_hello")
    assert data == {
        "summary": "0 test(s) reach the change (0 by the graph, 0 by recorded coverage), 0 edited by it; the commands run 0",
        "commands": [],
        "results": [],
        "shadow": {
            "suite": [{"command": "pytest -p no:cacheprovider", "exit": 1}],
            "failing": ["tests/test_routes.py::test_hello"],
            "missed": ["tests/test_routes.py::test_hello"],
            "unknown": [],
            "summary": "selection missed 1 failing test(s): tests/test_routes.py::test_hello",
        },
    }


def test_a_failing_test_the_selection_ran_is_no_miss(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """test_shout calls shout: selected, run, failing; the suite's exit code."""
    write(repo, {"app/routes.py": ROUTES.replace("text.upper()", "text.lower()")})
    commit(repo, "quieter")
    code, data, last = _shadow(capsys, repo)
    assert (code, last) == (1, "cartog-ci: selection missed no failing test (1 failing in the whole suite)")
    assert (data["commands"], data["results"]) == (
        ["pytest tests/test_routes.py::test_shout -p no:cacheprovider"],
        [{"command": "pytest tests/test_routes.py::test_shout -p no:cacheprovider", "exit": 1}],
    )
    assert data["shadow"] == {
        "suite": [{"command": "pytest -p no:cacheprovider", "exit": 1}],
        "failing": ["tests/test_routes.py::test_shout"],
        "missed": [],
        "unknown": [],
        "summary": "selection missed no failing test (1 failing in the whole suite)",
    }


def test_a_change_that_breaks_nothing_passes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, {"app/routes.py": ROUTES.replace("text.upper()", "str.upper(text)")})
    commit(repo, "the same, said otherwise")
    code, data, last = _shadow(capsys, repo)
    assert (code, last) == (0, "cartog-ci: selection missed no failing test (0 failing in the whole suite)")
    assert data["shadow"]["suite"] == [{"command": "pytest -p no:cacheprovider", "exit": 0}]  # type: ignore[index]


def test_shadow_and_dry_run_are_one_or_the_other(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["test", "--repo", str(repo), "--shadow", "--dry-run"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (
        "cartog-ci test: argument --dry-run: not allowed with argument --shadow (see cartog-ci test --help)\n"
    )
