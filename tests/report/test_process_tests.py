"""Tests that start the program as a process (report/process_tests.py,
docs/coverage.md "Tests that start the program"): a real project in
tmp_path whose tests run it as ``python -m app``, ``python app/cli.py``,
``python -m app.cli`` and its console script, and the exact tests a change
of each script entry selects, on both backends.

Regenerate the goldens after an intended change with
``CARTOG_UPDATE_SNAPSHOTS=1 bash scripts/test tests/report``; review the diff.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cartog_ci.cli import main
from cartog_ci.report.process_tests import Program, literals
from tests.report.test_scenarios import _snapshot
from tests.testing.fixtures import branched, commit, git, init_repo, write

PROJECT = {
    "pyproject.toml": (
        '[project]\nname = "app"\n\n[project.scripts]\napp-tool = "app.tool:run"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    ),
    "app/__init__.py": "",
    "app/core.py": "def shout(text):\n    return text.upper()\n\n\ndef whisper(text):\n    return text.lower()\n",
    "app/__main__.py": (
        "import sys\n\nfrom app.core import whisper\n\n\n"
        "def main(argv):\n    print(whisper(argv[0]))\n\n\nmain(sys.argv[1:])\n"
    ),
    "app/cli.py": (
        "import sys\n\nfrom app.core import shout\n\n\n"
        "def main():\n    print(shout(sys.argv[1]))\n\n\n"
        "def banner():\n    return 'app'\n\n\n"
        "BANNER = banner()\n\n"
        'if __name__ == "__main__":\n    main()\n'
    ),
    "app/tool.py": "def run():\n    return 0\n",
    "tests/__init__.py": "",
    "tests/helpers.py": (
        "import subprocess\nimport sys\n\n\n"
        "def run_script(*args):\n    return subprocess.check_output([sys.executable, *args], text=True)\n"
    ),
    "tests/test_cli.py": (
        "import os\nimport subprocess as sp\nimport sys\nfrom subprocess import run\n\n"
        "from app.cli import main\nfrom app.core import shout\nfrom tests.helpers import run_script\n\n\n"
        "def test_package():\n"
        "    assert sp.run([sys.executable, '-m', 'app', 'Hi'], capture_output=True, text=True).stdout == 'hi\\n'\n\n\n"
        "def test_script_path():\n    assert run_script('app/cli.py', 'hi') == 'HI\\n'\n\n\n"
        "def test_dotted_module():\n"
        "    assert run([sys.executable, '-m', 'app.cli', 'hi'], capture_output=True, text=True).stdout == 'HI\\n'\n\n\n"
        "def test_console_script():\n    assert os.system('app-tool --quiet') in (0, 32512)\n\n\n"
        "def test_git_only():\n    assert sp.run(['git', '--version'], capture_output=True).returncode == 0\n\n\n"
        "def test_names_without_a_process():\n    assert 'app-tool' != 'app/cli.py'\n\n\n"
        "def test_shout():\n    assert shout('a') == 'A'\n"
    ),
}


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _changed(tmp_path: Path, edit: dict[str, str]) -> Path:
    return branched(tmp_path / "repo", dict(PROJECT), dict(edit))


def _json(capsys: pytest.CaptureFixture[str], repo: Path) -> dict[str, Any]:
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _selected(capsys: pytest.CaptureFixture[str], repo: Path) -> list[tuple[str, list[str]]]:
    return [(t["id"], t["chosen_by"]) for t in _json(capsys, repo)["tests"]]


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # code of a __main__.py: the test that runs python -m app
        (
            {"app/__main__.py": PROJECT["app/__main__.py"].replace("whisper(argv[0])", "whisper(argv[-1])")},
            [("tests/test_cli.py:function:test_package", ["process"])],
        ),
        # a function called under the main guard: python app/cli.py (through
        # a helper that starts the process) and python -m app.cli; its
        # in-process caller by the graph
        (
            {"app/cli.py": PROJECT["app/cli.py"].replace("sys.argv[1]", "sys.argv[-1]")},
            [
                ("tests/test_cli.py:function:test_script_path", ["process"]),
                ("tests/test_cli.py:function:test_dotted_module", ["process"]),
            ],
        ),
        # a console script's target: the test that runs the script by name
        (
            {"app/tool.py": "def run():\n    return 1\n"},
            [("tests/test_cli.py:function:test_console_script", ["process"])],
        ),
        # what the module calls at import, above its main guard, is no entry
        (
            {"app/cli.py": PROJECT["app/cli.py"].replace("return 'app'", "return 'app!'")},
            [],
        ),
        # code the entries call is no entry: the graph's test only
        (
            {"app/core.py": PROJECT["app/core.py"].replace("text.upper()", "text.upper().strip()")},
            [("tests/test_cli.py:function:test_shout", ["graph"])],
        ),
    ],
    ids=["dunder-main", "main-guard", "console-script", "above-the-guard", "not-an-entry"],
)
def test_a_changed_script_entry_selects_the_tests_that_start_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: dict[str, str], expected: list[tuple[str, list[str]]]
) -> None:
    assert _selected(capsys, _changed(tmp_path, edit)) == expected


def test_the_report_says_which_tests_start_the_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The golden wording: the tests chosen because they start the program,
    counted apart from the graph's; the entry is not "no test calls it"."""
    repo = _changed(tmp_path, {"app/cli.py": PROJECT["app/cli.py"].replace("sys.argv[1]", "sys.argv[-1]")})
    args = ("report", "--repo", str(repo), "--base", "main", "--no-related")
    code, markdown, err = _cli(capsys, *args, "--format", "markdown")
    assert code == 0, err
    _snapshot("process_tests.md", markdown)
    code, text, err = _cli(capsys, *args)
    assert code == 0, err
    _snapshot("process_tests.txt", text)
    data = _json(capsys, repo)
    assert [(c["symbol"]["qualified_name"], c["unreached"]) for c in data["changed"] if c["symbol"]["kind"] == "function"] == [
        ("main", False)
    ]
    assert data["test_commands"] == ["pytest tests/test_cli.py::test_script_path tests/test_cli.py::test_dotted_module"]
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, err) == (
        0,
        "cartog-ci: 2 test(s) reach the change (0 by the graph, 0 by recorded coverage, 2 by starting the program "
        "as a process), 0 edited by it; the commands run 2\n",
    )


def test_literals_and_how_they_name_a_program() -> None:
    text = "def t():\n    run([sys.executable, \"-m\", 'pkg.cli', r'x\\'y'], shell='''a\nb''')\n"
    assert literals(text) == ["-m", "pkg.cli", "x\\'y", "a\nb"]
    module = Program("python -m pkg.cli", module="src.pkg.cli", path="src/pkg/cli.py")
    assert module.named_by(["-m", "pkg.cli"], ["-m", "pkg.cli"])
    assert module.named_by(["python", "-m", "src.pkg.cli"], ["python -m src.pkg.cli"])
    assert not module.named_by(["-m", "kg.cli"], ["-m", "kg.cli"])
    assert module.named_by(["/abs/src/pkg/cli.py"], ["/abs/src/pkg/cli.py"])
    assert module.named_by(["pkg/cli.py"], ["pkg/cli.py"])
    assert not module.named_by(["cli.py"], ["cli.py"])  # a bare file name names no file
    script = Program("the script 'tool'", script="tool")
    assert script.named_by(["tool", "--help"], ["tool --help"])
    assert not script.named_by(["toolbox"], ["toolbox"])


CHILD_CONFIG = "[run]\nparallel = true\nsource = app\ncontext = ${PYTEST_CURRENT_TEST-}\n"


def test_coverage_recorded_in_the_child_process_names_the_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The measured route: child processes started with
    ``COVERAGE_PROCESS_START`` (coverage.py's .pth hook) and ``context =
    ${PYTEST_CURRENT_TEST-}`` record the starting test's node ID as their
    context ("tests/test_cli.py::test_dotted_module (call)"), which pytest-cov
    combines into the data file and ``coverage import`` maps to the test:
    the script entry is executed by it, chosen by coverage too."""
    pytest.importorskip("pytest_cov")
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT | {"child.coveragerc": CHILD_CONFIG})
    commit(repo, "app")
    data = tmp_path / "coverage.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE", "COVERAGE_"))}
    env |= {"COVERAGE_FILE": str(data), "COVERAGE_PROCESS_START": str(repo / "child.coveragerc")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=app", "--cov-context=test",
         "tests/test_cli.py::test_dotted_module", "tests/test_cli.py::test_shout"],
        cwd=repo, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code, out, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, err) == (0, "")
    # cli.main and banner in the child, core.shout there and in test_shout's own process
    assert out.endswith(": 2 test context(s), 5 file(s), 3 of 6 function(s) executed by a test\n"), out
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"app/cli.py": PROJECT["app/cli.py"].replace("sys.argv[1]", "sys.argv[-1]")})
    commit(repo, "edit")
    report = _json(capsys, repo)
    assert [(t["id"], t["chosen_by"]) for t in report["tests"]] == [
        ("tests/test_cli.py:function:test_script_path", ["process"]),
        ("tests/test_cli.py:function:test_dotted_module", ["process", "coverage"]),
    ]
    main_row = next(c for c in report["changed"] if c["symbol"]["qualified_name"] == "main")
    assert (main_row["untested"], main_row["script_entry"], main_row["covered_by"]) == (
        False, None, ["tests/test_cli.py:function:test_dotted_module"]
    )  # fmt: skip
