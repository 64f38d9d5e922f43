"""`cartog-ci test` runs exactly the tests the report selects, one ID each,
where the report prints shorter commands that run whole files past
MAX_TEST_IDS (docs/coverage.md, "Running the selection"); a selection too
long for one command line is split into several. Real repositories, real
pytest runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cartog_ci.cli import main
from cartog_ci.languages.testrunners import MAX_COMMAND_CHARS
from tests.testing.fixtures import commit, git, init_repo, write
from tests.testing.routes import use_this_pytest

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


def _changed_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"pytest.ini": "[pytest]\npythonpath = .\n", "calc.py": CALC, **files})
    commit(repo, "initial")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"calc.py": CALC.replace("return a + b", "return b + a")})
    commit(repo, "add, swapped")
    return repo


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object], str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_past_thirty_ids_the_report_runs_a_file_whole_and_cartog_ci_test_each_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 8 files, each with 4 tests of add and 5 of mul: 32 tests reach add
    files = {}
    for f in range(8):
        tests = [f"def test_add_{i}():\n    assert add({i}, 0) == {i}\n" for i in range(4)]
        tests += [f"def test_mul_{i}():\n    assert mul({i}, 1) == {i}\n" for i in range(5)]
        files[f"tests/test_f{f}.py"] = "from calc import add, mul\n\n\n" + "\n\n".join(tests)
    repo = _changed_repo(tmp_path, files)
    use_this_pytest(monkeypatch)
    _, report, _ = _json(capsys, "report", "--repo", str(repo), "--base", "main", "--format", "json")
    ids = [f"tests/test_f{f}.py::test_add_{i}" for f in range(8) for i in range(4)]
    # the report's command: the first file whole (37 tests)
    assert report["test_commands"] == ["pytest tests/test_f0.py " + " ".join(ids[4:])]
    assert report["tests_run"] == 37
    code, data, err = _json(
        capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider"
    )
    assert code == 0, err
    assert data["summary"] == (
        "32 test(s) reach the change (32 by the graph, 0 by recorded coverage), 0 edited by it; the commands run 32"
    )
    assert data["commands"] == ["pytest " + " ".join(ids) + " -q -p no:cacheprovider"]
    assert re.search(r"^32 passed\b", err, re.M), err


def test_a_selection_longer_than_one_command_line_is_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 400 tests of add, each ID about 100 characters: 40,000 in all
    names = [f"test_add_{i:03}_" + "x" * 70 for i in range(400)]
    body = "\n\n".join(f"def {n}():\n    assert add({i}, 0) == {i}\n" for i, n in enumerate(names))
    repo = _changed_repo(tmp_path, {"tests/test_long.py": "from calc import add\n\n\n" + body})
    use_this_pytest(monkeypatch)
    code, data, err = _json(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run", "--json")
    assert code == 0
    commands = data["commands"]
    assert isinstance(commands, list) and len(commands) == 2
    assert all(len(c) <= MAX_COMMAND_CHARS and c.startswith("pytest tests/test_long.py::") for c in commands)
    assert [w for c in commands for w in c.split()[1:]] == [f"tests/test_long.py::{n}" for n in names]
    assert data["summary"].endswith("the commands run 400")  # type: ignore[union-attr]
    code, data, err = _json(
        capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider"
    )
    assert (code, [r["exit"] for r in data["results"]]) == (0, [0, 0])  # type: ignore[index,union-attr]
    passed = [int(n) for n in re.findall(r"^(\d+) passed\b", err, re.M)]
    assert len(passed) == 2 and sum(passed) == 400, err


def test_a_failing_test_fails_the_split_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first failing command's exit code, whichever part holds it."""
    names = [f"test_add_{i:03}_" + "x" * 70 for i in range(400)]
    body = "\n\n".join(f"def {n}():\n    assert add({i}, 0) == {i}\n" for i, n in enumerate(names))
    body += "\n\ndef test_add_order():\n    assert add('a', 'b') == 'ab'\n"
    repo = _changed_repo(tmp_path, {"tests/test_long.py": "from calc import add\n\n\n" + body})
    use_this_pytest(monkeypatch)
    code, data, _ = _json(
        capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider"
    )
    assert (code, [r["exit"] for r in data["results"]]) == (1, [0, 1])  # type: ignore[index,union-attr]
