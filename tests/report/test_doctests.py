"""Doctests as tests to run (report/doctests.py, docs/coverage.md "Doctests"):
a real tiny src-layout project in tmp_path whose docstrings hold ``>>>``
examples; the doctest is chosen by the coverage its recorded run left, or by
the changed function's own docstring where the project runs doctests, and
the command the report prints runs it (pytest node ID, ``--doctest-modules``).

Regenerate the goldens after an intended change with
``CARTOG_UPDATE_SNAPSHOTS=1 bash scripts/test tests/report``; review the diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cartog_ci.languages.testrunners import Workspace, collected_by_default, pytest_addopts
from cartog_ci.report.doctests import documented_lines, module_name
from tests.report.test_coverage import _cli, _record, _reports
from tests.testing.fixtures import commit, git, init_repo, write
from tests.testing.routes import use_this_pytest

pytest.importorskip("pytest_cov")  # the test extra (pyproject.toml) installs it

PYPROJECT = '[project]\nname = "app"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n'
NUM = '''def ordinal(n):
    """The ordinal of ``n``.

    >>> ordinal(3)
    '3rd'
    """
    return str(n) + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def double(n):
    return 2 * n


def outer(n):
    def inner():
        """
        >>> 1 + 1
        2
        """
        return n + 1

    return inner()


class Box:
    def size(self):
        """
        >>> Box().size()
        1
        """
        return 1
'''
PROJECT = {
    "pyproject.toml": PYPROJECT,
    "src/app/__init__.py": "",
    "src/app/num.py": NUM,
    "tests/test_num.py": "from app.num import double, outer\n\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
    "def test_outer():\n    assert outer(1) == 2\n",
}
# every function changed: ordinal's doctest fails, the others still pass
CHANGED = {
    "src/app/num.py": NUM.replace('3: "rd"', '3: "rx"')
    .replace("2 * n", "n + n")
    .replace("return n + 1", "return 1 + n")
    .replace("        return 1\n", "        return 2 - 1\n")
}
DOCTEST = "src/app/num.py:doctest:app.num.ordinal"
BOX = "src/app/num.py:doctest:app.num.Box.size"
FUNCTIONS = ("function", "method")


def _branch(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], *recorded: str) -> Path:
    """``files`` committed on main (its suite recorded and imported when
    ``recorded`` holds the recording's pytest arguments), ``CHANGED`` on
    the branch ``feature``."""
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo, "numbers")
    if recorded:
        data = tmp_path / "coverage.db"
        _record(repo, data, *recorded)
        assert _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))[0] == 0
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, CHANGED)
    commit(repo, "rx")
    return repo


def _json(capsys: pytest.CaptureFixture[str], repo: Path) -> dict[str, object]:
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    return data


def _tests(data: dict[str, object]) -> list[tuple[str, list[str]]]:
    return [(t["id"], t["chosen_by"]) for t in data["tests"]]  # type: ignore[union-attr,index]


def _run(repo: Path, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *command.split()[1:]],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip


def test_a_doctest_the_recording_ran_is_run_by_its_node_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's configuration does not run doctests, its CI does
    (``pytest --doctest-modules``, as tabulate's tox.ini): the recording
    names the doctests as contexts; the changed functions they ran get them
    as tests to run (by coverage, and by their own docstring: the recording
    ran doctests of that module), the command runs exactly them, and
    ordinal's fails."""
    use_this_pytest(monkeypatch)
    repo = _branch(tmp_path, capsys, PROJECT, "--doctest-modules")
    data = _json(capsys, repo)
    assert _tests(data) == [
        (DOCTEST, ["coverage", "doctest"]),
        (BOX, ["coverage", "doctest"]),
        ("tests/test_num.py:function:test_double", ["graph", "coverage"]),
        ("tests/test_num.py:function:test_outer", ["graph", "coverage"]),
    ]
    assert data["test_commands"] == [
        "pytest --doctest-modules tests/test_num.py src/app/num.py::app.num.ordinal src/app/num.py::app.num.Box.size"
    ]
    proc = _run(repo, data["test_commands"][0])  # type: ignore[index]
    assert proc.returncode == 1 and "1 failed, 3 passed" in proc.stdout, proc.stdout
    assert "FAILED src/app/num.py::app.num.ordinal" in proc.stdout, proc.stdout
    assert sorted((c["symbol"]["name"], c["untested"]) for c in data["changed"] if c["symbol"]["kind"] in FUNCTIONS) == [  # type: ignore[index,union-attr]
        ("double", False),
        ("inner", False),
        ("ordinal", False),
        ("outer", False),
        ("size", False),
    ]
    # `cartog-ci test` runs the same, one ID each, and exits as the runner did
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, out) == (
        0,
        "pytest --doctest-modules tests/test_num.py::test_double tests/test_num.py::test_outer "
        "src/app/num.py::app.num.ordinal src/app/num.py::app.num.Box.size\n",
    )
    assert err == (
        "cartog-ci: 4 test(s) reach the change (2 by the graph, 4 by recorded coverage, "
        "2 as its own docstring's examples (doctests)), 0 edited by it; the commands run 4\n"
    )


def test_a_changed_functions_own_doctest_is_run_where_the_project_runs_doctests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No recording: ``addopts = --doctest-modules`` says the project runs
    the doctests of its modules, so a changed function or method whose own
    docstring holds examples has its doctest to run (not ``inner``'s:
    pytest does not collect a function defined in a function); the report
    says which source chose each test (golden Markdown, terminal, JSON)."""
    use_this_pytest(monkeypatch)
    files = PROJECT | {"pyproject.toml": PYPROJECT + 'addopts = "--doctest-modules"\n'}
    repo = _branch(tmp_path, capsys, files)
    data = _reports(capsys, repo, "doctest_own")
    assert _tests(data) == [
        (DOCTEST, ["doctest"]),
        (BOX, ["doctest"]),
        ("tests/test_num.py:function:test_double", ["graph"]),
        ("tests/test_num.py:function:test_outer", ["graph"]),
    ]
    proc = _run(repo, data["test_commands"][0])  # type: ignore[index]
    assert proc.returncode == 1 and "1 failed, 3 passed" in proc.stdout, proc.stdout
    # ordinal and size had no test in the graph: their doctests are theirs
    assert sorted((c["symbol"]["name"], c["unreached"]) for c in data["changed"] if c["symbol"]["kind"] in FUNCTIONS) == [  # type: ignore[index,union-attr]
        ("double", False),
        ("inner", False),
        ("ordinal", False),
        ("outer", False),
        ("size", False),
    ]


def test_without_doctests_in_the_configuration_or_the_recording_none_is_chosen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project never runs doctests (no ``--doctest-modules`` in its
    configuration, a recording without it): the examples are documentation,
    no test to run."""
    use_this_pytest(monkeypatch)
    for recorded in ((), ("-q",)):
        repo = _branch(tmp_path / str(len(recorded)), capsys, PROJECT, *recorded)
        data = _json(capsys, repo)
        by = ["graph", "coverage"] if recorded else ["graph"]
        assert _tests(data) == [
            ("tests/test_num.py:function:test_double", by),
            ("tests/test_num.py:function:test_outer", by),
        ]
        assert data["test_commands"] == ["pytest tests/test_num.py"]
        # and no test reaches ordinal or size in the graph
        unreached = [c["symbol"]["name"] for c in data["changed"] if c["unreached"]]  # type: ignore[index,union-attr]
        assert sorted(unreached) == ["ordinal", "size"]


def test_doctests_outside_the_testpaths_are_not_the_projects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--doctest-modules`` with ``testpaths = ["tests"]`` (requests 2.32's
    configuration): a plain ``pytest`` collects ``tests/`` alone, so the
    doctests of ``src/`` are no test of the project's and none is chosen;
    with ``src`` among the testpaths they are."""
    use_this_pytest(monkeypatch)
    for testpaths, chosen in (('["tests"]', []), ('["src", "tests"]', [DOCTEST, BOX])):
        config = PYPROJECT + f'addopts = "--doctest-modules"\ntestpaths = {testpaths}\n'
        repo = _branch(tmp_path / str(len(chosen)), capsys, PROJECT | {"pyproject.toml": config})
        data = _json(capsys, repo)
        assert [t for t, by in _tests(data) if by == ["doctest"]] == chosen


def test_configuration_module_names_and_documented_lines(tmp_path: Path) -> None:
    """``addopts`` as pytest reads it (a string of ``[tool.pytest.ini_options]``,
    pytest 9's ``[tool.pytest]`` list, ``[pytest]`` of pytest.ini, the
    nearest file that fixes the rootdir); the module name pytest imports a
    file as; the lines of the definitions whose docstring holds examples."""
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.pytest]\naddopts = ["--doctest-modules", "-ra"]\n',
            "sub/pytest.ini": "[pytest]\naddopts = -q --doctest-glob='*.rst'\n",
            "sub/src/pkg/__init__.py": "",
            "sub/src/pkg/inner/__init__.py": "",
            "sub/src/pkg/inner/mod.py": "",
            "old/setup.cfg": "[tool:pytest]\naddopts = --strict-markers\n",
        },
    )
    ws = Workspace(str(tmp_path))
    assert [pytest_addopts(ws, p) for p in ("a.py", "sub/src/pkg/x.py", "old/t.py")] == [
        ["--doctest-modules", "-ra"],
        ["-q", "--doctest-glob=*.rst"],
        ["--strict-markers"],
    ]
    assert [module_name(ws, p) for p in ("sub/src/pkg/inner/mod.py", "sub/src/pkg/__init__.py", "top.py")] == [
        "pkg.inner.mod",
        "pkg",
        "top",
    ]
    assert documented_lines(NUM) == {1, 15, 26}
    write(tmp_path, {"sub/pytest.ini": "[pytest]\ntestpaths = tests src/pkg*\n", "old/setup.cfg": "[tool:pytest]\ntestpaths = .\n"})
    ws = Workspace(str(tmp_path))  # it reads each file once
    assert [collected_by_default(ws, p) for p in ("sub/src/pkg/inner/mod.py", "sub/src/other.py", "sub/tests/t.py", "old/x/y.py", "a.py")] == [
        True,
        False,
        True,
        True,
        True,
    ]


def test_an_edited_example_runs_its_doctest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change to a docstring's examples alone (a documentation change:
    no caller and no test of the graph is affected) runs that doctest,
    which is what checks it; here it fails."""
    use_this_pytest(monkeypatch)
    files = PROJECT | {"pyproject.toml": PYPROJECT + 'addopts = "--doctest-modules"\n'}
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo, "numbers")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"src/app/num.py": NUM.replace("        >>> Box().size()\n        1\n", "        >>> Box().size()\n        2\n")})
    commit(repo, "a wrong example")
    data = _json(capsys, repo)
    assert (_tests(data), data["test_commands"]) == (
        [(BOX, ["doctest"])],
        ["pytest --doctest-modules src/app/num.py::app.num.Box.size"],
    )
    proc = _run(repo, data["test_commands"][0])  # type: ignore[index]
    assert proc.returncode == 1 and "1 failed in" in proc.stdout, proc.stdout
