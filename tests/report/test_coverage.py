"""Recorded coverage as an input (docs/coverage.md): a real tiny Python
project in tmp_path, its suite run with ``pytest --cov --cov-context=test``,
the data imported with ``cartog-ci coverage import``, and the report before
and after (golden Markdown, terminal and JSON).

Regenerate the goldens after an intended change with
``CARTOG_UPDATE_SNAPSHOTS=1 bash scripts/test tests/report``; review the diff.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cartog_ci.cli import main
from cartog_ci.domain.results import CoverageRun
from cartog_ci.report import coverage
from cartog_ci.report.coverage import IndexedPaths, function_lines, read_coverage_py, repository_path
from cartog_ci.store.coverage_rows import KEEP_RUNS
from cartog_ci.store.sqlite import SqliteStore
from tests.report.test_scenarios import _snapshot
from tests.testing.fixtures import commit, git, init_repo, write
from tests.testing.routes import ROUTES, use_this_pytest

pytest.importorskip("pytest_cov")  # the test extra (pyproject.toml) installs it

PROJECT = {
    "pyproject.toml": '[project]\nname = "app"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "app/__init__.py": "",
    "app/routes.py": ROUTES,
    "app/server.py": "from app.routes import ROUTES\n\n\ndef dispatch(name, *args):\n    return ROUTES[name](*args)\n",
    "tests/test_server.py": (
        "from app.server import dispatch\n\n\n"
        "def test_hello():\n    assert dispatch('hello', 'you') == 'hello you'\n\n\n"
        "def test_bye():\n    assert dispatch('bye', 'you') == 'bye you'\n"
    ),
}


def _record(repo: Path, data: Path, *extra: str) -> None:
    """The project's suite with per-test contexts, as its CI would run it
    (with ``extra`` arguments: ``--doctest-modules``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE"))}
    env["COVERAGE_FILE"] = str(data)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=app", "--cov-context=test", *extra],
        cwd=repo, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _recorded_then_edited(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    base: tuple[dict[str, str], str],
    edit: tuple[dict[str, str], str],
) -> Path:
    """A repository whose main commit (files, message) has its suite's
    coverage recorded and imported, and a branch ``feature`` with one
    commit of ``edit`` on top."""
    repo = init_repo(tmp_path / "repo")
    write(repo, base[0])
    commit(repo, base[1])
    data = tmp_path / "coverage.db"
    _record(repo, data)
    assert _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))[0] == 0
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, edit[0])
    commit(repo, edit[1])
    return repo


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _reports(capsys: pytest.CaptureFixture[str], repo: Path, name: str) -> dict[str, object]:
    args = ("report", "--repo", str(repo), "--base", "main", "--no-related")
    code, markdown, err = _cli(capsys, *args, "--format", "markdown")
    assert code == 0, err
    _snapshot(f"{name}.md", markdown)
    code, text, err = _cli(capsys, *args)
    assert code == 0, err
    _snapshot(f"{name}.txt", text)
    code, out, err = _cli(capsys, *args, "--format", "json")
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    _snapshot(f"{name}.json", json.dumps(data, indent=2, sort_keys=True) + "\n")
    return data


def _tests(data: dict[str, object]) -> list[tuple[str, list[str]]]:
    return [(t["id"], t["chosen_by"]) for t in data["tests"]]  # type: ignore[union-attr,index]


def test_recorded_coverage_changes_the_tests_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    base = commit(repo, "routes")
    git(repo, "checkout", "-q", "-b", "feature")
    routes = repo / "app/routes.py"
    routes.write_text(ROUTES.replace('"hello " + who', '"hello, " + who').replace("text.upper()", "text.upper() + '!'"))
    commit(repo, "comma; shout louder")

    # without coverage: what the graph knows, said as that; no verdict, no gate
    before = _reports(capsys, repo, "coverage_before")
    assert _tests(before) == []
    assert [(c["symbol"]["qualified_name"], c["unreached"], c["untested"]) for c in before["changed"] if c["symbol"]["kind"] == "function"] == [  # type: ignore[union-attr,index]
        ("hello", True, False),
        ("shout", True, False),
    ]
    code, _, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--fail-on", "untested")
    assert (code, err) == (
        0,
        "cartog-ci: --fail-on untested: no coverage recorded for this base, nothing to fail on "
        "(record it with `cartog-ci coverage import`, docs/coverage.md)\n",
    )

    # the default branch records its suite's coverage, and imports it
    git(repo, "checkout", "-q", "main")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    code, out, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, err) == (0, "")
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), 3 file(s), 3 of 6 function(s) executed by a test\n"

    # with it: the route's test is run, chosen by the recording; the helper
    # no test ran is "untested", said with the coverage's commit
    git(repo, "checkout", "-q", "feature")
    after = _reports(capsys, repo, "coverage_after")
    assert _tests(after) == [("tests/test_server.py:function:test_hello", ["coverage"])]
    assert after["test_commands"] == ["pytest tests/test_server.py::test_hello"]
    assert after["coverage"] == {"commit": base, "at_base": True, "contexts": 2}
    assert [(c["symbol"]["qualified_name"], c["covered_by"], c["untested"]) for c in after["changed"] if c["symbol"]["kind"] == "function"] == [  # type: ignore[union-attr,index]
        ("hello", ["tests/test_server.py:function:test_hello"], False),
        ("shout", [], True),
    ]
    code, _, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--fail-on", "untested")
    assert (code, err) == (
        1,
        f"cartog-ci: failing (--fail-on): coverage recorded at {base[:12]} shows no test executed 1 changed function(s)\n",
    )


def test_a_recording_of_an_older_commit_keeps_its_tests_but_says_no_untested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Coverage recorded at an ancestor of the base: a function changed in
    between keeps the tests that ran its older body, and is never called
    "untested" from it (the recording is not of the base's body)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    old = commit(repo, "routes")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    assert _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))[0] == 0
    write(repo, {"app/routes.py": ROUTES.replace("text.upper()", "text.upper().strip()")})
    commit(repo, "strip")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"app/routes.py": ROUTES.replace("text.upper()", "text.strip()").replace('"hello " + who', '"hi " + who')})
    commit(repo, "no shouting")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["coverage"] == {"commit": old, "at_base": False, "contexts": 2}
    assert [(c["symbol"]["qualified_name"], c["covered_by"], c["untested"]) for c in report["changed"] if c["symbol"]["kind"] == "function"] == [
        ("hello", ["tests/test_server.py:function:test_hello"], False),
        ("shout", [], False),  # its body at the base is not the one recorded
    ]
    code, markdown, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "markdown")
    assert code == 0, err
    assert (
        f"- reach the change: 1 test(s) (1 ran it before this change, in the coverage recorded at `{old[:12]}`, "
        "an ancestor of the base): `test_hello`\n"
    ) in markdown
    assert "Untested" not in markdown and "no coverage recorded" not in markdown
    assert (
        "No test calls `shout` within 2 calls in the graph, and none executed its older body in the coverage "
        f"recorded at `{old[:12]}` (it changed between that commit and the base).\n"
    ) in markdown


def test_import_refuses_what_it_cannot_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    base = commit(repo, "routes")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    (repo / "app/routes.py").write_text(ROUTES + "\n\ndef later():\n    return 1\n")
    code, _, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, err) == (
        2,
        f"cartog-ci: 1 measured file(s) differ in the work tree from commit {base[:12]} (e.g. app/routes.py): "
        "check out the commit the coverage was recorded on, or pass --commit\n",
    )
    not_data = tmp_path / "notes.txt"
    not_data.write_text("hello\n")
    code, _, err = _cli(capsys, "coverage", "import", str(not_data), "--repo", str(repo))
    accepted = (
        "pass a coverage.py data file (.coverage), V8 coverage JSON (NODE_V8_COVERAGE), istanbul coverage-final.json, "
        "a Go cover profile (go test -coverprofile) or a JaCoCo XML report (docs/coverage.md)"
    )
    assert (code, err) == (2, f"cartog-ci: {not_data} is no coverage format cartog-ci reads: {accepted}\n")
    code, _, err = _cli(capsys, "coverage", "import", str(tmp_path / "missing"), "--repo", str(repo))
    assert (code, err) == (2, f"cartog-ci: no coverage file {tmp_path / 'missing'}: {accepted}\n")


def test_without_the_coverage_package_the_data_file_is_read_from_its_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GitHub Action installs no extra: coverage.py's SQLite tables
    (schema 7, numbits) give the same lines and contexts as its API; a
    SQLite file of another kind is one line."""
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    commit(repo, "routes")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    with_api = read_coverage_py(data)
    code, with_api_out, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, err) == (0, "")
    monkeypatch.setitem(sys.modules, "coverage", None)  # as if not installed: import fails
    assert read_coverage_py(data) == with_api
    assert sum(len(lines) for lines in with_api.values()) > 10
    code, out, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, out, err) == (0, with_api_out, "")
    sqlite3.connect(tmp_path / "x").execute("CREATE TABLE t (a)").connection.close()  # a SQLite file, as .coverage is
    code, _, err = _cli(capsys, "coverage", "import", str(tmp_path / "x"), "--repo", str(repo))
    assert (code, err) == (
        2,
        f"cartog-ci: {tmp_path / 'x'} is not a coverage.py data file (no such table: coverage_schema): "
        "pass the .coverage file that pytest --cov wrote\n",
    )


def test_contexts_without_tests_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, PROJECT)
    commit(repo, "routes")
    data = tmp_path / "plain.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE"))}
    env["COVERAGE_FILE"] = str(data)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=app"],
        cwd=repo, env=env, capture_output=True, check=True,
    )  # fmt: skip
    code, _, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, err) == (
        2,
        f"cartog-ci: {data} records no per-test contexts: record it with pytest --cov --cov-context=test, "
        "or [run] dynamic_context = test_function\n",
    )


# -- the parts, on their own ---------------------------------------------------


def _indexed(tmp_path: Path, files: dict[str, str]) -> SqliteStore:
    """The index of a repository committing ``files``."""
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo, "initial")
    assert main(["index", "--repo", str(repo)]) == 0
    return SqliteStore(repo / ".cartog-ci/index.db")


def test_a_functions_def_line_and_decorators_belong_to_what_encloses_it(tmp_path: Path) -> None:
    with _indexed(tmp_path, PROJECT) as store:
        owner = function_lines(store.symbols_in_file("app/routes.py"), ROUTES)
    # route: 4-9 (its def line 4 is module code); register: 5-7 within it
    assert {line: owner.get(line) for line in range(1, 24)} == {
        1: None, 2: None, 3: None, 4: None,
        5: "app/routes.py:function:route",  # `def register` runs when route is called
        6: "app/routes.py:function:route.register", 7: "app/routes.py:function:route.register",
        8: "app/routes.py:function:route", 9: "app/routes.py:function:route",
        10: None, 11: None, 12: None, 13: None,  # @route("hello") and its def: module code
        14: "app/routes.py:function:hello",
        15: None, 16: None, 17: None, 18: None,
        19: "app/routes.py:function:bye",
        20: None, 21: None, 22: None,
        23: "app/routes.py:function:shout",
    }  # fmt: skip


def test_a_function_written_on_its_def_line_owns_that_line(tmp_path: Path) -> None:
    # boltons' bucketize: `def key_func(x): return x[0]` was called "untested" while the suite ran it
    text = "def bucket(items):\n    def key(x): return x[0]\n    return sorted(items, key=key)\n"
    with _indexed(tmp_path, {**PROJECT, "app/sort.py": text}) as store:
        owner = function_lines(store.symbols_in_file("app/sort.py"), text)
    assert owner == {2: "app/sort.py:function:bucket.key", 3: "app/sort.py:function:bucket"}


def test_a_parameter_id_holding_double_colons_names_its_test(tmp_path: Path) -> None:
    # boltons' tests/test_urlutils.py::test_query_params[https://[::101.45.75.219]:80/?hi=bye]
    with _indexed(tmp_path, PROJECT) as store:
        names = coverage.TestNames(store, IndexedPaths(["app/routes.py", "app/server.py", "tests/test_server.py"]))
        found = [
            names.resolve(context)
            for context in (
                "tests/test_server.py::test_hello[https://[::1]:80/?hi=bye]|run",
                "tests/test_server.py::test_bye[a::b]",
                "tests/test_server.py::test_bye",
            )
        ]
    assert found == [
        ("tests/test_server.py:function:test_hello",),
        ("tests/test_server.py:function:test_bye",),
        ("tests/test_server.py:function:test_bye",),
    ]


def test_measured_paths_map_to_the_index(tmp_path: Path) -> None:
    known = IndexedPaths(["app/routes.py", "backend/app/routes.py", "app/server.py"])
    assert repository_path(str(tmp_path / "app/routes.py"), tmp_path, known) == "app/routes.py"
    # recorded in another checkout (a CI runner): the longest indexed path it ends with
    assert repository_path("/runner/work/x/backend/app/routes.py", tmp_path, known) == "backend/app/routes.py"
    assert repository_path("/usr/lib/python3/site.py", tmp_path, known) is None
    # an installed dependency's file is none of the repository's (V8 records
    # tape's node_modules/resumer/index.js beside minimist's index.js)
    deps = IndexedPaths(["index.js", "lib/routes.py"])
    assert repository_path("/home/u/app/node_modules/resumer/index.js", tmp_path, deps) is None
    assert repository_path("/venv/lib/python3.12/site-packages/lib/routes.py", tmp_path, deps) is None
    assert repository_path("/runner/work/app/index.js", tmp_path, deps) == "index.js"


def test_stored_per_commit_replaced_on_import_and_bounded(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "index.db") as store:
        with store.transaction():
            store.put_coverage(CoverageRun("a" * 40, "2026-01-01T00:00:00Z", 2, 1), {"f.py:function:f": "h1"}, [
                ("f.py:function:f", "t.py::test_f|run"),
                ("f.py:function:f", "t.py::gone|run"),
            ], {"t.py::test_f|run": ["t.py:function:test_f"]})  # fmt: skip
        found = store.recorded_coverage("a" * 40, ["f.py:function:f", "f.py:function:other"])
        assert {k: (v.content_hash, v.tests, v.unknown_contexts) for k, v in found.items()} == {
            "f.py:function:f": ("h1", ("t.py:function:test_f",), ("t.py::gone|run",)),
        }
        with store.transaction():  # the same commit again: replaced, not added to
            store.put_coverage(CoverageRun("a" * 40, "2026-01-02T00:00:00Z", 0, 1), {"f.py:function:f": "h2"}, [], {})
        again = store.recorded_coverage("a" * 40, ["f.py:function:f"])["f.py:function:f"]
        assert (again.content_hash, again.executed) == ("h2", False)
        for i in range(KEEP_RUNS + 2):
            with store.transaction():
                store.put_coverage(CoverageRun(f"{i:040d}", f"2026-02-{i + 1:02d}T00:00:00Z", 0, 1), {"g": "h"}, [], {})
        runs = store.coverage_runs()
        assert (len(runs), runs[0].commit, runs[-1].commit) == (KEEP_RUNS, f"{KEEP_RUNS + 1:040d}", f"{2:040d}")
        texts = store.db.execute("SELECT text FROM coverage_texts ORDER BY text").fetchall()
        assert texts == [("g",)]  # the dropped recordings' texts went with them


def test_the_test_command_runs_the_selection_with_the_projects_runner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cartog-ci test`: the report's commands, dry or run; the exit code is
    the runner's (pytest from this interpreter's folder)."""
    use_this_pytest(monkeypatch)
    repo = _recorded_then_edited(
        tmp_path, capsys, (PROJECT, "routes"), ({"app/routes.py": ROUTES.replace('"hello " + who', '"hello, " + who')}, "a comma")
    )
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, out, err) == (
        0,
        "pytest tests/test_server.py::test_hello\n",
        "cartog-ci: 1 test(s) reach the change (0 by the graph, 1 by recorded coverage), 0 edited by it; "
        "the commands run 1\n",
    )
    # the comma breaks test_hello: the runner's exit code is the command's
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider")
    assert code == 1
    assert json.loads(out)["results"] == [
        {"command": "pytest tests/test_server.py::test_hello -q -p no:cacheprovider", "exit": 1}
    ]
    git(repo, "checkout", "-q", "main")
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, out, err) == (0, "", "cartog-ci: no test to run for this change\n")


def test_a_function_run_at_import_only_is_never_untested(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Run while the module is imported (collection, no test context): no
    test to name, but it ran, and a change to it reaches every importer."""
    repo = init_repo(tmp_path / "repo")
    banner = '\n\ndef banner():\n    return "routes"\n\n\nBANNER = banner()\n'
    write(repo, PROJECT | {"app/routes.py": ROUTES + banner})
    commit(repo, "routes")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    code, out, _ = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert code == 0 and "3 of 7 function(s) executed by a test" in out
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"app/routes.py": ROUTES + banner.replace('"routes"', '"ROUTES"')})
    commit(repo, "louder banner")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    changed = [c for c in json.loads(out)["changed"] if c["symbol"]["kind"] == "function"]
    assert [(c["symbol"]["qualified_name"], c["covered_by"], c["untested"]) for c in changed] == [("banner", [], False)]


# A test class whose tests live in a base class of another file, and a test
# class imported into a second file: pytest collects each test again under
# the collecting file (and class), and the recording names those runs.
INHERITED = {
    "tests/__init__.py": "",
    "tests/test_base.py": (
        "from app.server import dispatch\n\n\n"
        "class TestGreeting:\n    word = 'hello'\n\n"
        "    def test_greets(self):\n        assert dispatch(self.word, 'you') == self.word + ' you'\n"
    ),
    "tests/test_bye.py": (
        "from tests.test_base import TestGreeting\n\n\n"
        "class TestBye(TestGreeting):\n    word = 'bye'\n"
    ),
}


def test_tests_a_file_collects_but_does_not_define_are_run_where_the_recording_ran_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recording ran ``TestBye::test_greets`` (inherited) and
    ``test_bye.py::TestGreeting::test_greets`` (imported): each is a test to
    run, in its collecting file and class, though no symbol of that file
    defines it (found by benchmarks/test_impact.py on itsdangerous)."""
    repo = init_repo(tmp_path / "repo")
    files = {k: v for k, v in PROJECT.items() if k != "tests/test_server.py"}
    # and a doctest (`app/text.py::app.text.loud`): a dotted name, run by its node ID (report/doctests.py)
    files["pyproject.toml"] = files["pyproject.toml"].replace(
        'testpaths = ["tests"]', 'testpaths = ["tests", "app"]\naddopts = "--doctest-modules"'
    )
    files["app/text.py"] = 'def loud(text):\n    """\n    >>> loud("a")\n    \'A\'\n    """\n    return text.upper()\n'
    write(repo, files | INHERITED)
    commit(repo, "routes")
    data = tmp_path / "coverage.db"
    _record(repo, data)
    code, out, err = _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))
    assert (code, out, err) == (
        0,
        f"coverage recorded at {git(repo, 'rev-parse', 'HEAD').strip()[:12]}: 4 test context(s), 4 file(s), "
        "4 of 7 function(s) executed by a test\n",
        "",
    )
    git(repo, "checkout", "-q", "-b", "doctest")
    write(repo, {"app/text.py": files["app/text.py"].replace("text.upper()", "text.upper() + ''")})
    commit(repo, "the same, longer")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert (data_json["test_commands"], [(c["symbol"]["name"], c["untested"]) for c in data_json["changed"][:1]]) == (
        ["pytest --doctest-modules app/text.py::app.text.loud"],
        [("loud", False)],
    )
    assert _tests(data_json) == [("app/text.py:doctest:app.text.loud", ["coverage", "doctest"])]
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"app/routes.py": ROUTES.replace('"bye " + who', '"bye, " + who')})
    commit(repo, "a comma")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert _tests(data_json) == [("tests/test_bye.py:method:TestBye.test_greets", ["coverage"])]
    assert (data_json["test_commands"], data_json["tests_run"]) == (["pytest tests/test_bye.py::TestBye::test_greets"], 1)

    write(repo, {"app/routes.py": ROUTES.replace('"hello " + who', '"hello, " + who')})
    commit(repo, "the comma for hello instead")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert _tests(data_json) == [
        ("tests/test_base.py:method:TestGreeting.test_greets", ["coverage"]),
        ("tests/test_bye.py:method:TestGreeting.test_greets", ["coverage"]),
    ]
    assert data_json["test_commands"] == [
        "pytest tests/test_base.py::TestGreeting::test_greets tests/test_bye.py::TestGreeting::test_greets"
    ]
    # the command runs what the recording ran: the comma fails both
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *data_json["test_commands"][0].split()[1:]],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 1 and "2 failed" in proc.stdout, proc.stdout


# A function run while its module is imported: the value it computes is read
# by a test that never calls it (its recorded run names no test for it).
AT_IMPORT = PROJECT | {
    "app/routes.py": ROUTES
    + '\n\ndef banner():\n    return "routes"\n\n\nBANNER = banner()\n'
    + "\n\ndef greet(who, loud=False):\n    if loud:\n        return who.upper()\n    return who\n\n\nGREETING = greet('x')\n",
    "app/util.py": "def twice(x):\n    return 2 * x\n",
    "tests/test_server.py": PROJECT["tests/test_server.py"]
    + "\n\ndef test_banner():\n    from app import routes\n\n    assert routes.BANNER == 'routes'\n",
    "tests/test_util.py": "from app.util import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n",
    "tests/test_greet.py": "from app.routes import greet\n\n\ndef test_loud():\n    assert greet('a', loud=True) == 'A'\n",
    # pytest imports a conftest.py before the tests of its folder
    "tests/plugins/conftest.py": "import app.server\n",
    "tests/plugins/test_plain.py": "def test_plain():\n    assert 1 + 1 == 2\n",
}


def test_a_change_to_code_run_at_import_runs_the_tests_that_import_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recording shows `banner` ran at import only (coverage.py's empty
    context): the tests to run are those of the files whose import imports
    app/routes.py (through app/server.py, or a conftest.py of their folder);
    test_util.py imports none of it. The failing test is among them."""
    use_this_pytest(monkeypatch)
    # another size: Python takes a module's cached bytecode for its source when
    # the size and the modification second match (an edit in the second of the
    # recording run, which compiled it, then ran the old banner: a fresh
    # clone's .ci/run passed test_banner once, so the runner did not fail)
    louder = {"app/routes.py": AT_IMPORT["app/routes.py"].replace('return "routes"', 'return "ROUTES!"')}
    repo = _recorded_then_edited(tmp_path, capsys, (AT_IMPORT, "routes with a banner"), (louder, "louder banner"))
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert _tests(data_json) == [
        ("tests/plugins/test_plain.py:function:test_plain", ["import"]),
        ("tests/test_greet.py:function:test_loud", ["import"]),
        ("tests/test_server.py:function:test_hello", ["import"]),
        ("tests/test_server.py:function:test_bye", ["import"]),
        ("tests/test_server.py:function:test_banner", ["import"]),
    ]
    assert data_json["test_commands"] == [
        "pytest tests/plugins/test_plain.py::test_plain tests/test_greet.py::test_loud tests/test_server.py"
    ]
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, err) == (
        0,
        "cartog-ci: 5 test(s) reach the change (0 by the graph, 0 by recorded coverage, 5 by importing code the "
        "recording ran at import), 0 edited by it; the commands run 5\n",
    )
    # the selection holds the failing test: the runner fails
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider")
    assert code == 1

    # greet ran at import too, but not its loud branch: a change there runs
    # the one test that calls it and whose recorded run executed that line,
    # none of the importers
    git(repo, "checkout", "-q", "-b", "loud", "main")
    write(repo, {"app/routes.py": AT_IMPORT["app/routes.py"].replace("who.upper()", "who.upper() + '!'")})
    commit(repo, "louder")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    assert _tests(json.loads(out)) == [("tests/test_greet.py:function:test_loud", ["graph", "coverage"])]


# cachetools 8.0.2's shape: a decorator applied in a test module's class
# body runs at collection; the tests that use it are a mixin's, which
# pytest runs only in the TestCase classes that inherit it
MIXIN = PROJECT | {
    "app/memo.py": "def memo(func):\n    func.memo = True\n    return func\n",
    "tests/test_memo.py": (
        "import unittest\n\nfrom app.memo import memo\n\n\n"
        "class Cached:\n    @memo\n    def get(self):\n        return 1\n\n\n"
        "class MemoMixin:\n    def test_memo(self):\n        self.assertTrue(Cached.get.memo)\n\n\n"
        "class DictMemoTest(unittest.TestCase, MemoMixin):\n    pass\n\n\n"
        "class ListMemoTest(unittest.TestCase, MemoMixin):\n    def test_list(self):\n        self.assertTrue(Cached().get())\n"
    ),
}


def test_a_mixins_test_method_runs_in_the_test_classes_that_inherit_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memo` ran at collection only (the class body of tests/test_memo.py
    applies it): the importers' tests. `MemoMixin` is neither a `Test…`
    class nor a TestCase: pytest runs its `test_memo` as
    `DictMemoTest::test_memo` and `ListMemoTest::test_memo`, and its own
    node ID is "not found", which made `cartog-ci test` run no test at
    all. The import rule names the test as the recording does."""
    use_this_pytest(monkeypatch)
    broken = {"app/memo.py": MIXIN["app/memo.py"].replace("func.memo = True", "func.memo = False")}
    repo = _recorded_then_edited(tmp_path, capsys, (MIXIN, "memo"), (broken, "memo off"))
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert _tests(data_json) == [
        ("tests/test_memo.py:method:DictMemoTest.test_memo", ["import"]),
        ("tests/test_memo.py:method:ListMemoTest.test_memo", ["import"]),
        ("tests/test_memo.py:method:ListMemoTest.test_list", ["graph", "import"]),
    ]
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider")
    assert code == 1, (out, err)  # pytest's for failing tests; 4 for a node ID it cannot find
    assert "2 failed, 1 passed" in err, err


CLI = (
    "import sys\n\nfrom app.server import dispatch\n\n\n"
    "def main():\n    print(dispatch(sys.argv[1], sys.argv[2]))\n\n\n"
    "def serve():\n    return 'serving'\n\n\n"
    'if __name__ == "__main__":\n    main()\n'
)


def test_a_function_reached_from_a_script_entry_is_never_untested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tabulate's ``_main`` runs only as ``python tabulate/__init__.py`` in a
    test's child process: the recording (per-test contexts, the test's own
    process) never shows it executed, and the report called it untested."""
    project = PROJECT | {
        "pyproject.toml": PROJECT["pyproject.toml"].replace('name = "app"\n', 'name = "app"\n\n[project.scripts]\napp-serve = "app.cli:serve"\n'),
        "app/cli.py": CLI,
        "tests/test_cli.py": (
            "import subprocess\nimport sys\n\n\n"
            "def test_cli():\n"
            "    done = subprocess.run([sys.executable, '-m', 'app.cli', 'hello', 'you'], capture_output=True, text=True)\n"
            "    assert done.stdout == 'hello you\\n'\n"
        ),
    }
    edited = CLI.replace("print(dispatch(sys.argv[1], sys.argv[2]))", "print(dispatch(*sys.argv[1:3]))").replace("'serving'", "'served'")
    repo = _recorded_then_edited(tmp_path, capsys, (project, "cli"), ({"app/cli.py": edited}, "cli reads its arguments at once"))
    args = ("report", "--repo", str(repo), "--base", "main", "--no-related")
    code, out, err = _cli(capsys, *args, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    rows = [(c["symbol"]["qualified_name"], c["untested"], c["script_entry"]) for c in data["changed"] if c["symbol"]["kind"] == "function"]
    assert rows == [
        ("main", False, 'app/cli.py (if __name__ == "__main__")'),
        ("serve", False, "the script 'app-serve' (app.cli:serve)"),
    ]
    code, text, err = _cli(capsys, *args)
    commit_of = data["coverage"]["commit"][:10]
    assert (
        f"not executed in the coverage recorded at {commit_of}, but reached from a script entry, which a test may run in "
        'a child process the recording does not see: main from app/cli.py (if __name__ == "__main__"), '
        "serve from the script 'app-serve' (app.cli:serve)\n"
    ) in text
    assert "untested" not in text
    code, _, err = _cli(capsys, *args, "--fail-on", "untested")
    assert (code, err) == (0, "")


def test_script_entries_are_read_from_pyproject_and_setup_cfg(tmp_path: Path) -> None:
    from cartog_ci.report.entries import ScriptEntries

    write(tmp_path, {
        "pyproject.toml": (
            '[project.scripts]\ncli = "pkg.cli:main"\nbroken = "no-colon"\n\n[project.gui-scripts]\ngui = "pkg.gui:App.run [extra]"\n\n'
            '[tool.poetry.scripts]\npoet = "pkg.poet:go"\n'
        ),
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tool = pkg.tool:run\n    bad\ngui_scripts =\n    win = pkg.win:show\n",
    })  # fmt: skip
    assert ScriptEntries(tmp_path).scripts() == [
        ("cli", "pkg.cli", "main"),
        ("gui", "pkg.gui", "App.run"),
        ("poet", "pkg.poet", "go"),
        ("tool", "pkg.tool", "run"),
        ("win", "pkg.win", "show"),
    ]
    write(tmp_path, {"pyproject.toml": "[project\n", "setup.cfg": "no section header\n"})
    assert ScriptEntries(tmp_path).scripts() == []  # unreadable: no entry, no error


GRADE = {
    "pyproject.toml": PROJECT["pyproject.toml"],
    "app/__init__.py": "",
    "app/grade.py": (
        "def grade(score):\n"  # 1
        '    """The letter of a score."""\n'  # 2
        "    if score >= 90:\n"  # 3
        '        letter = "A"\n'  # 4
        "    else:\n"  # 5
        '        letter = "B"\n'  # 6
        "\n"  # 7
        "    return letter\n"  # 8
    ),
    "tests/test_grade.py": (
        "import subprocess\nimport sys\n\nfrom app.grade import grade\n\n\n"
        "def test_top():\n    assert grade(95) == 'A'\n\n\n"
        "def test_low():\n    assert grade(50) == 'B'\n\n\n"
        "def test_both():\n    assert [grade(99), grade(1)] == ['A', 'B']\n\n\n"
        "def test_cli():\n"
        "    assert grade(91) == 'A'\n"
        "    out = subprocess.run([sys.executable, '-m', 'app.grade'], capture_output=True, text=True)\n"
        "    assert out.returncode == 0\n"
    ),
}


ORDER = ("test_top", "test_low", "test_both", "test_cli")


@pytest.mark.parametrize(
    ("old", "new", "chosen"),
    [
        # the low branch's line: the tests whose recorded run executed it, and
        # the test that starts a process (the child's lines are not recorded)
        ('letter = "B"', 'letter = "C"', ["test_low", "test_both", "test_cli"]),
        # the top branch's line
        ('letter = "A"', 'letter = "A+"', ["test_top", "test_both", "test_cli"]),
        # `else:` starts no statement the recording can tell: the whole function's
        ("    else:\n", "    elif score >= 0:\n", ["test_top", "test_low", "test_both", "test_cli"]),
        # inserted before the blank line: where `return letter` runs
        ('"B"\n\n', '"B"\n    letter = letter.lower()\n\n', ["test_top", "test_low", "test_both", "test_cli"]),
        # the docstring: no test's recorded run depends on it (no doctests
        # here), but a child process may have run the function
        ("The letter", "A letter", ["test_cli"]),
    ],
)
def test_the_tests_to_run_are_those_whose_recorded_run_executed_the_changed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, chosen: list[str], backend: str
) -> None:
    """The line groups are stored as rows of the recording: the same in the
    SQLite index and in a shared PostgreSQL graph."""
    edited = {"app/grade.py": GRADE["app/grade.py"].replace(old, new, 1)}
    assert edited["app/grade.py"] != GRADE["app/grade.py"]
    repo = _recorded_then_edited(tmp_path, capsys, (GRADE, "grades"), (edited, "edit"))
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    (grade,) = (c for c in data["changed"] if c["symbol"]["id"] == "app/grade.py:function:grade")
    assert grade["covered_by"] == [f"tests/test_grade.py:function:{t}" for t in ORDER if t in chosen]
    # the graph's tests are listed beside them (every test here calls
    # grade), except for a change of its docstring alone
    graph = ["graph"] if old != "The letter" else []
    assert _tests(data) == [
        (f"tests/test_grade.py:function:{t}", graph + (["coverage"] if t in chosen else []))
        for t in ORDER
        if graph or t in chosen
    ]


def test_a_functions_lines_are_grouped_by_the_tests_that_ran_them(tmp_path: Path) -> None:
    """Lines after the function's first: a statement's lines together, a
    blank line with the next, a nested function's body in a group of no
    test, ``else:`` and a statement run at import in none."""
    text = (
        "def f(x):\n"  # 1
        "    if x:\n"  # 2
        "        y = (1 +\n"  # 3
        "             2)\n"  # 4
        "    else:\n"  # 5
        "        y = 0\n"  # 6
        "\n"  # 7
        "    def g():\n"  # 8
        "        return y\n"  # 9
        "    return g()\n"  # 10
    )
    from cartog_ci.domain import Symbol
    from cartog_ci.report.coverage import line_groups, statement_spans

    def symbol(name: str, start: int, end: int) -> Symbol:
        return Symbol(f"m.py:function:{name}", name, name, "function", "m.py", start, end, 0, 0, None, "", "python", "", "")

    symbols = [symbol("f", 1, 10), symbol("f.g", 8, 9)]

    class Names:
        def resolve(self, context: str) -> tuple[str, ...]:
            return (f"t:{context}",) if context else ()

    recorded = {2: {"a", "b"}, 3: {"a"}, 6: {"b"}, 8: {"a", "b"}, 9: {"a", "b"}, 10: {"a", "b", ""}}
    groups = line_groups(symbols, text, function_lines(symbols, text), statement_spans(text), recorded, Names(), {s.id for s in symbols})  # type: ignore[arg-type]
    assert groups == {
        "m.py:function:f": [("1,6-7", ("t:a", "t:b")), ("2-3", ("t:a",)), ("5", ("t:b",)), ("8", ())],
        "m.py:function:f.g": [("1", ("t:a", "t:b"))],
    }


# boltons 26.2.0's gcutils.py shape: a module-level instance built at
# import, a class docstring's example that uses it; boltons runs its
# doctests from the command line (tox: `pytest --doctest-modules boltons
# tests`), not from addopts
GREETER = PROJECT | {
    "app/greeter.py": (
        "class Greeter:\n"
        '    """Greets.\n\n'
        "    >>> hello.greet('you')\n"
        "    'hello you'\n"
        '    """\n\n'
        "    def __init__(self, word='hello'):\n"
        "        self.word = word\n\n"
        "    def greet(self, who):\n"
        "        return self.word + ' ' + who\n\n\n"
        "hello = Greeter()\n"
    ),
    "tests/test_greeter.py": (
        "from app.greeter import Greeter, hello\n\n\n"
        "def test_greet():\n    assert isinstance(hello, Greeter)\n    assert hello.greet('you').endswith('you')\n"
    ),
}


def test_a_change_to_code_run_at_import_runs_the_doctests_the_recording_ran_in_the_importing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Greeter.__init__` ran at import only (`hello = Greeter()`): the
    import rule chooses the tests of the files whose import imports
    app/greeter.py, and the doctests the recording ran in those files (the
    changed file's own class docstring here, which is what fails; no
    `--doctest-modules` in addopts, so the changed function's own-docstring
    rule does not apply, and `__init__` has no docstring anyway). Found by
    benchmarks/test_impact.py on boltons (gcutils.py:146)."""
    use_this_pytest(monkeypatch)
    repo = init_repo(tmp_path / "repo")
    write(repo, GREETER)
    commit(repo, "greeter")
    data = tmp_path / "coverage.db"
    _record(repo, data, "--doctest-modules", "app", "tests")
    assert _cli(capsys, "coverage", "import", str(data), "--repo", str(repo))[0] == 0
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"app/greeter.py": GREETER["app/greeter.py"].replace("self.word = word\n", "self.word = word.upper()\n")})
    commit(repo, "louder")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data_json = json.loads(out)
    assert _tests(data_json) == [
        ("app/greeter.py:doctest:app.greeter.Greeter", ["import"]),
        ("tests/test_greeter.py:function:test_greet", ["import"]),
    ]
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--json", "--", "-q", "-p", "no:cacheprovider")
    assert code == 1, (out, err)  # the doctest fails
    assert "1 failed, 1 passed" in err, err
