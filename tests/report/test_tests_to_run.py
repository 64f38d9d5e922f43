"""Tests to run, from each project's own configuration (docs/report.md,
"Tests to run"): real repositories with real configuration files, a change
on a branch, and the exact commands of ``cartog-ci report``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cartog_ci.cli import main
from cartog_ci.store.sqlite import SqliteStore
from cartog_ci.report.testplan import RanTests, own_tests, select_tests
from tests.testing.fixtures import commit, git, index, init_repo, write


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo, "initial")
    git(repo, "checkout", "-q", "-b", "feature")
    return repo


def _report(repo: Path, capsys: pytest.CaptureFixture[str], change: dict[str, str]) -> dict[str, object]:
    for path, (old, new) in ((p, c.split(" => ")) for p, c in change.items()):
        text = (repo / path).read_text()
        assert old in text, (path, old)
        (repo / path).write_text(text.replace(old, new))
    commit(repo, "change")
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, object] = json.loads(out.out)
    return data


def _commands(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], change: dict[str, str]) -> list[str]:
    data = _report(_repo(tmp_path, files), capsys, change)
    commands = data["test_commands"]
    assert isinstance(commands, list)
    return commands


def _chosen(data: dict[str, object]) -> list[tuple[str, list[str]]]:
    """(test ID, what chose it) of a report's tests, sorted."""
    tests = data["tests"]
    assert isinstance(tests, list)
    return sorted((t["id"], t["chosen_by"]) for t in tests)


# --- Python ---------------------------------------------------------------

FIXTURES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests", "other"]\nusefixtures = ["cwd"]\n',
    "tests/conftest.py": (
        "import pytest\n\n\n@pytest.fixture\ndef cwd():\n    return '.'\n\n\n"
        "@pytest.fixture\ndef db():\n    return {'a': 1}\n\n\n"
        "@pytest.fixture\ndef client(db):\n    return ('client', db)\n\n\n"
        "@pytest.fixture(name='conn')\ndef _conn():\n    return 'conn'\n"
    ),
    "tests/test_db.py": (
        "import pytest\n\n\ndef test_read(db):\n    assert db['a'] == 1\n\n\n"
        "def test_api(client):\n    assert client[0] == 'client'\n\n\n"
        "def test_conn(conn):\n    assert conn == 'conn'\n\n\n"
        "def test_plain():\n    assert True\n\n\n"
        "@pytest.mark.usefixtures('db')\nclass TestMarked:\n    def test_a(self):\n        assert True\n\n"
        "    def test_b(self):\n        assert True\n"
    ),
    "tests/sub/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef env():\n    return 'env'\n",
    "tests/sub/test_sub.py": "def test_one():\n    assert True\n\n\ndef test_two(tmp_path):\n    assert tmp_path\n",
    "other/test_other.py": "import pytest\n\n\n@pytest.fixture\ndef db():\n    return {}\n\n\ndef test_elsewhere(db):\n    assert db == {}\n",
}


def test_the_tests_that_use_a_changed_pytest_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A conftest.py edit chose no test: pytest gives a test the fixture its
    parameter names, and no call edge goes from the test to the fixture.
    Now: the tests within the fixture's reach (its conftest's folder and
    below) that request it by a parameter, through another fixture
    (``client(db)``), by ``usefixtures`` on their class, under its
    ``name=``, or all of them for an ``autouse`` fixture; not a test of
    another folder whose own ``db`` it is, nor a test that requests none."""
    change = {
        "tests/conftest.py": "return {'a': 1} => return {'a': 1, 'b': 2}",
        "tests/sub/conftest.py": "return 'env' => return 'env!'",
    }
    data = _report(_repo(tmp_path, FIXTURES), capsys, change)
    assert _chosen(data) == [
        ("tests/sub/test_sub.py:function:test_one", ["fixture"]),
        ("tests/sub/test_sub.py:function:test_two", ["fixture"]),
        ("tests/test_db.py:function:test_api", ["fixture"]),
        ("tests/test_db.py:function:test_read", ["fixture"]),
        ("tests/test_db.py:method:TestMarked.test_a", ["fixture"]),
        ("tests/test_db.py:method:TestMarked.test_b", ["fixture"]),
    ]
    # four of the file's six tests: the whole file (languages/testrunners.py)
    assert data["test_commands"] == ["pytest tests/sub/test_sub.py tests/test_db.py"]


def test_a_fixture_the_configuration_uses_is_used_by_every_test_within_its_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scrapy's pytest.ini: ``usefixtures = chdir``, every test uses it."""
    data = _report(_repo(tmp_path, FIXTURES), capsys, {"tests/conftest.py": "return '.' => return './'"})
    assert [i for i, _ in _chosen(data)] == [
        "tests/sub/test_sub.py:function:test_one",
        "tests/sub/test_sub.py:function:test_two",
        "tests/test_db.py:function:test_api",
        "tests/test_db.py:function:test_conn",
        "tests/test_db.py:function:test_plain",
        "tests/test_db.py:function:test_read",
        "tests/test_db.py:method:TestMarked.test_a",
        "tests/test_db.py:method:TestMarked.test_b",
    ]


def test_a_fixture_of_a_module_a_conftest_names_in_pytest_plugins_serves_that_conftests_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pytest_plugins = ["tests.plugins.db"]`` in the root conftest.py:
    the fixtures of tests/plugins/db.py serve every test, not that module
    alone."""
    files = {
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "conftest.py": 'pytest_plugins = ["tests.plugins.db"]\n',
        "tests/__init__.py": "",
        "tests/plugins/__init__.py": "",
        "tests/plugins/db.py": "import pytest\n\n\n@pytest.fixture\ndef pg():\n    return 'pg'\n",
        "tests/test_x.py": "def test_x(pg):\n    assert pg\n\n\ndef test_y():\n    assert True\n",
    }
    data = _report(_repo(tmp_path, files), capsys, {"tests/plugins/db.py": "return 'pg' => return 'pg!'"})
    assert _chosen(data) == [("tests/test_x.py:function:test_x", ["fixture"])]


def test_a_fixture_renamed_by_name_is_requested_by_that_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``@pytest.fixture(name='conn') def _conn()`` is requested as ``conn``."""
    data = _report(_repo(tmp_path, FIXTURES), capsys, {"tests/conftest.py": "return 'conn' => return 'conn!'"})
    assert _chosen(data) == [("tests/test_db.py:function:test_conn", ["fixture"])]


def test_the_tests_a_changed_set_up_runs_around(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A changed ``setUp`` of a TestCase base class chose no test; it runs
    around each test of its class and of its subclasses. A pytest
    ``setup_module`` runs around each test of its module."""
    files = {
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "tests/test_unit.py": (
            "import unittest\n\n\nclass Base(unittest.TestCase):\n    def setUp(self):\n        self.x = 1\n\n\n"
            "class TestA(Base):\n    def test_a(self):\n        self.assertEqual(self.x, 1)\n\n"
            "    def test_b(self):\n        self.assertTrue(self.x)\n\n\n"
            "class TestOther(unittest.TestCase):\n    def test_c(self):\n        self.assertTrue(True)\n\n\n"
            "class TestOtherToo(unittest.TestCase):\n    def test_d(self):\n        self.assertTrue(True)\n"
        ),
        "tests/test_mod.py": (
            "STATE = {}\n\n\ndef setup_module(module):\n    STATE['on'] = True\n\n\n"
            "def test_on():\n    assert STATE['on']\n\n\ndef test_also():\n    assert STATE\n"
        ),
        "tests/test_else.py": "def test_else():\n    assert True\n",
    }
    change = {"tests/test_unit.py": "self.x = 1 => self.x = 2", "tests/test_mod.py": "STATE['on'] = True => STATE['on'] = 1"}
    assert _chosen(_report(_repo(tmp_path, files), capsys, change)) == [
        ("tests/test_mod.py:function:test_also", ["fixture"]),
        ("tests/test_mod.py:function:test_on", ["fixture"]),
        ("tests/test_unit.py:method:TestA.test_a", ["fixture"]),
        ("tests/test_unit.py:method:TestA.test_b", ["fixture"]),
    ]


CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
PYTEST_PROJECT = {
    "backend/pyproject.toml": '[project]\nname = "app"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "backend/app/__init__.py": "",
    "backend/app/calc.py": CALC,
    # two tests of three reach add: the whole file
    "backend/tests/test_calc.py": (
        "from app.calc import add, mul\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_add_negative():\n    assert add(-1, 1) == 0\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    ),
    # two of the class's three, two of the file's four: the class
    "backend/tests/test_more.py": (
        "from app.calc import add, mul\n\n\n"
        "class TestMore:\n"
        "    def test_add_big(self):\n        assert add(10**6, 1) > 10**6\n\n"
        "    def test_add_zero(self):\n        assert add(0, 0) == 0\n\n"
        "    def test_mul_one(self):\n        assert mul(1, 5) == 5\n\n\n"
        "def test_mul_zero():\n    assert mul(0, 5) == 0\n"
    ),
    # one of three: its node ID
    "backend/tests/test_misc.py": (
        "from app.calc import add, mul\n\n\n"
        "def test_add_once():\n    assert add(1, 1) == 2\n\n\n"
        "def test_mul_a():\n    assert mul(1, 1) == 1\n\n\n"
        "def test_mul_b():\n    assert mul(2, 1) == 2\n"
    ),
}


def test_pytest_from_the_folder_of_its_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, PYTEST_PROJECT)
    data = _report(repo, capsys, {"backend/app/calc.py": "return a + b => return b + a"})
    assert data["test_commands"] == [
        "cd backend && pytest tests/test_calc.py tests/test_misc.py::test_add_once tests/test_more.py::TestMore"
    ]
    # the tests listed are those that reach the change; the command runs 7
    assert len(data["tests"]) == 5  # type: ignore[arg-type]


def test_a_helper_module_beside_the_tests_is_no_test_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # attrs 24.2: tests/typing_example.py holds `def test(cls)`, a type-check
    # example pytest never collects (and would fail on: no fixture `cls`)
    files = {
        "pytest.ini": "[pytest]\n",
        "calc.py": CALC,
        "tests/typing_example.py": "from calc import add\n\n\ndef test(cls):\n    return add(cls, 1)\n",
        "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        "tests/calc_tests.py": "from calc import add\n\n\ndef test_add_more():\n    assert add(2, 2) == 4\n",
    }
    data = _report(_repo(tmp_path, files), capsys, {"calc.py": "return a + b => return b + a"})
    assert data["test_commands"] == ["pytest tests/calc_tests.py::test_add_more tests/test_calc.py::test_add"]
    assert sorted(t["qualified_name"] for t in data["tests"]) == ["test_add", "test_add_more"]  # type: ignore[index, union-attr]


def test_a_repository_without_test_files_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # rich 13.8.1's sdist ships no tests: "no test calls these within 2 calls"
    # listed 77 functions, as it would any function of the package
    repo = _repo(tmp_path, {"calc.py": CALC, "docs/index.md": "# Calc\n"})
    (repo / "calc.py").write_text(CALC.replace("return a + b", "return b + a"))
    commit(repo, "change")
    assert main(["report", "--repo", str(repo), "--base", "main", "--format", "text", "--no-related"]) == 0
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if "test" in line] == [
        "the repository holds no test file: no test reaches the change"
    ]
    other = _repo(tmp_path / "other", {"calc.py": CALC, "tests/test_other.py": "def test_nothing():\n    assert True\n"})
    (other / "calc.py").write_text(CALC.replace("return a + b", "return b + a"))
    commit(other, "change")
    assert main(["report", "--repo", str(other), "--base", "main", "--format", "markdown", "--no-related"]) == 0
    markdown = capsys.readouterr().out
    assert "No test calls the changed code within 2 calls in the graph." in markdown
    assert "holds no test file" not in markdown


def test_past_thirty_ids_the_cheapest_files_run_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 8 files, each with 4 tests of add and 5 of mul: 32 IDs; running one file
    # whole adds 5 tests and saves 3 IDs: the first file whole makes 29
    files = {"pytest.ini": "[pytest]\n", "calc.py": CALC}
    for f in range(8):
        tests = [f"def test_add_{i}():\n    assert add({i}, 0) == {i}\n" for i in range(4)]
        tests += [f"def test_mul_{i}():\n    assert mul({i}, 1) == {i}\n" for i in range(5)]
        files[f"tests/test_f{f}.py"] = "from calc import add, mul\n\n\n" + "\n\n".join(tests)
    commands = _commands(tmp_path, capsys, files, {"calc.py": "return a + b => return b + a"})
    ids = [f"tests/test_f{f}.py::test_add_{i}" for f in range(1, 8) for i in range(4)]
    assert commands == ["pytest tests/test_f0.py " + " ".join(ids)]


UNITTEST_PROJECT = {
    "calc.py": CALC,
    "tests/__init__.py": "",
    "tests/test_calc.py": (
        "import unittest\n\nfrom calc import add, mul\n\n\n"
        "class TestCalc(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
        "    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n"
    ),
}


def test_unittest_without_a_pytest_setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(tmp_path, capsys, UNITTEST_PROJECT, {"calc.py": "return a + b => return b + a"})
    assert commands == ["python -m unittest tests.test_calc.TestCalc.test_add"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\naddopts = -q\n"),
        ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n'),
        ("setup.cfg", "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n"),
        ("tox.ini", "[tox]\nenvlist = py311\n\n[pytest]\naddopts = -q\n"),
        ("tests/conftest.py", "import pytest\n"),
        ("pyproject.toml", '[project]\nname = "calc"\n\n[project.optional-dependencies]\ndev = ["pytest>=8", "ruff"]\n'),
        ("pyproject.toml", '[project]\nname = "calc"\n\n[dependency-groups]\ntest = ["pytest"]\n'),
        ("pyproject.toml", '[tool.poetry.group.dev.dependencies]\npytest = "^8.0"\n'),
        ("requirements-dev.txt", "ruff\npytest==8.3.2\n"),
        ("requirements-dev.txt", "pytest-django>=4\n"),
        ("pyproject.toml", '[tool.poetry.group.test.dependencies]\npytest-asyncio = "*"\n'),
        ("tox.ini", "[testenv]\ndeps =\n    pytest\ncommands = pytest\n"),
    ],
)
def test_a_pytest_setup_means_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    files = {**UNITTEST_PROJECT, name: text}
    commands = _commands(tmp_path, capsys, files, {"calc.py": "return a + b => return b + a"})
    assert commands == ["pytest tests/test_calc.py::TestCalc::test_add"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("setup.cfg", "[metadata]\nname = calc\n\n[flake8]\nmax-line-length = 100\n"),
        ("pyproject.toml", '[project]\nname = "calc"\n\n[project.optional-dependencies]\ndev = ["nose2", "pytestify"]\n'),
        ("requirements-dev.txt", "ruff\nmypy\n"),
    ],
)
def test_no_pytest_setup_means_unittest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    files = {**UNITTEST_PROJECT, name: text}
    commands = _commands(tmp_path, capsys, files, {"calc.py": "return a + b => return b + a"})
    assert commands == ["python -m unittest tests.test_calc.TestCalc.test_add"]


@pytest.mark.parametrize(
    "text",
    [
        # a class without a base: unittest would collect nothing from it
        "from calc import add, mul\n\n\nclass TestCalc:\n"
        "    def test_add(self):\n        assert add(1, 2) == 3\n\n"
        "    def test_mul(self):\n        assert mul(2, 3) == 6\n",
        # a TestCase whose file imports pytest (its marks need pytest); packaging 24.0's layout
        "import unittest\n\nimport pytest\n\nfrom calc import add, mul\n\n\n"
        "class TestCalc(unittest.TestCase):\n"
        "    @pytest.mark.slow\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
        "    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n",
    ],
)
def test_methods_unittest_cannot_run_are_run_with_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    files = {**UNITTEST_PROJECT, "tests/test_calc.py": text}
    commands = _commands(tmp_path, capsys, files, {"calc.py": "return a + b => return b + a"})
    assert commands == ["pytest tests/test_calc.py::TestCalc::test_add"]


def test_a_django_project_runs_manage_py_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {
        "site/manage.py": "import sys\n",
        "site/shop/__init__.py": "",
        "site/shop/calc.py": CALC,
        "site/shop/tests.py": UNITTEST_PROJECT["tests/test_calc.py"].replace("from calc", "from shop.calc"),
    }
    commands = _commands(tmp_path, capsys, files, {"site/shop/calc.py": "return a + b => return b + a"})
    assert commands == ["cd site && python manage.py test shop.tests.TestCalc.test_add"]


def test_plain_test_functions_run_with_pytest_even_without_a_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"calc.py": CALC, "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"}
    commands = _commands(tmp_path, capsys, files, {"calc.py": "return a + b => return b + a"})
    assert commands == ["pytest tests/test_calc.py::test_add"]


# --- JavaScript and TypeScript ----------------------------------------------

JS_MONOREPO = {
    "package.json": '{"name": "root", "private": true, "scripts": {"test": "jest"}, "devDependencies": {"jest": "^29.7.0"}}\n',
    "package-lock.json": '{"lockfileVersion": 3}\n',
    "lib/sum.js": "export function sum(a, b) {\n  return a + b;\n}\n",
    "lib/sum.test.js": 'import { sum } from "./sum";\n\ntest("sums", () => {\n  expect(sum(1, 2)).toBe(3);\n});\n',
    "ui/package.json": '{"name": "ui", "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "^2.1.0"}}\n',
    "ui/pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "ui/src/math.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    "ui/src/math.test.ts": (
        'import { describe, expect, it } from "vitest";\nimport { add } from "./math";\n\n'
        'describe("add", () => {\n  it("adds", () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n'
    ),
    "ui/src/__tests__/more.ts": (
        'import { expect, test } from "vitest";\nimport { add } from "../math";\n\n'
        'test("adds more", () => {\n  expect(add(2, 2)).toBe(4);\n});\n'
    ),
    # a helper under test/ is no test file: its callers are
    "ui/test/helpers.ts": 'import { add } from "../src/math";\n\nexport function two(): number {\n  return add(1, 1);\n}\n',
    "api/package.json": '{"name": "api", "scripts": {"test": "mocha --recursive"}, "devDependencies": {"mocha": "^10.0.0"}}\n',
    "api/yarn.lock": "# yarn lockfile v1\n",
    "api/src/server.js": "export function start(port) {\n  return port;\n}\n",
    "api/test/server.spec.js": (
        'import { start } from "../src/server.js";\n\ndescribe("start", () => {\n'
        '  it("returns the port", () => {\n    start(8080);\n  });\n});\n'
    ),
}


def test_each_package_runs_its_own_runner_from_its_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(
        tmp_path,
        capsys,
        JS_MONOREPO,
        {
            "lib/sum.js": "return a + b; => return b + a;",
            "ui/src/math.ts": "return a + b; => return b + a;",
            "api/src/server.js": "return port; => return port + 0;",
        },
    )
    assert commands == [
        "npx jest lib/sum.test.js",
        "cd api && yarn mocha test/server.spec.js",
        "cd ui && pnpm exec vitest run src/__tests__/more.ts src/math.test.ts",
    ]


def test_the_runner_from_dev_dependencies_without_a_test_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "web/package.json": '{"name": "web", "devDependencies": {"vitest": "^2.1.0"}}\n',
        "web/src/math.ts": JS_MONOREPO["ui/src/math.ts"],
        "web/src/math.test.ts": JS_MONOREPO["ui/src/math.test.ts"],
    }
    commands = _commands(tmp_path, capsys, files, {"web/src/math.ts": "return a + b; => return b + a;"})
    assert commands == ["cd web && npx vitest run src/math.test.ts"]


def test_a_test_script_that_runs_another_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {
        "package.json": '{"scripts": {"test": "npm run test:unit", "test:unit": "jest --ci"}, "devDependencies": {"vitest": "^2"}}\n',
        "src/math.ts": JS_MONOREPO["ui/src/math.ts"],
        # jest's globals (a file importing from "vitest" is vitest's, whatever the script)
        "src/math.test.ts": JS_MONOREPO["ui/src/math.test.ts"].replace('import { describe, expect, it } from "vitest";\n', ""),
    }
    commands = _commands(tmp_path, capsys, files, {"src/math.ts": "return a + b; => return b + a;"})
    assert commands == ["npx jest src/math.test.ts"]


def test_tape_and_mocha_run_the_files_of_their_test_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tape suite (qs, minimist: ``tape 'test/**/*.js'``) is files of
    ``test/`` whose calls sit in ``test(...)`` callbacks: the file is the
    test, run with tape (found by benchmarks/test_impact.py: no test was
    selected for any change of qs)."""
    files = {
        "package.json": (
            '{"name": "qs", "scripts": {"test": "npm run tests-only", "tests-only": "nyc tape \'test/**/*.js\'"}, '
            '"devDependencies": {"tape": "^5.10.3"}}\n'
        ),
        "lib/utils.js": (
            "var isEmpty = function isEmpty(text) {\n  return text.length === 0;\n};\n\n"
            "var trim = function trim(text) {\n  return text.trim();\n};\n\n"
            "module.exports = {\n  isEmpty: isEmpty,\n  trim: trim\n};\n"
        ),
        "test/utils.js": (
            "var test = require('tape');\nvar utils = require('../lib/utils');\n\n"
            "test('isEmpty', function (t) {\n  t.ok(utils.isEmpty(''));\n  t.end();\n});\n"
        ),
        "test/trim.js": (
            "var test = require('tape');\nvar utils = require('../lib/utils');\n\n"
            "test('trim', function (t) {\n  t.equal(utils.trim(' a '), 'a');\n  t.end();\n});\n"
        ),
        "api/package.json": '{"name": "api", "scripts": {"test": "mocha"}, "devDependencies": {"mocha": "^10.0.0"}}\n',
        "api/src/server.js": JS_MONOREPO["api/src/server.js"],
        "api/test/server.js": JS_MONOREPO["api/test/server.spec.js"],
    }
    change = {
        "lib/utils.js": "text.length === 0 => text.length < 1",
        "api/src/server.js": "return port; => return port + 0;",
    }
    assert _commands(tmp_path, capsys, files, change) == ["npx tape test/utils.js", "cd api && npx mocha test/server.js"]



def test_an_edited_test_that_calls_the_change_reaches_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qs 6.11.0 -> 6.13.0 and minimist 1.2.6 -> 1.2.8 edit their tape test
    files as well as the code those call: the report said "0 reach the
    change: 0 call it within 2 calls in the graph; 3 edited by the change"
    though test/parse.js calls the changed parse. An edited test that calls
    the change also reaches it; one that does not is only edited."""
    files = {
        "package.json": '{"name": "qs", "scripts": {"test": "tape \'test/**/*.js\'"}, "devDependencies": {"tape": "^5.10.3"}}\n',
        "lib/utils.js": (
            "var isEmpty = function isEmpty(text) {\n  return text.length === 0;\n};\n\n"
            "module.exports = {\n  isEmpty: isEmpty\n};\n"
        ),
        "test/utils.js": (
            "var test = require('tape');\nvar utils = require('../lib/utils');\n\n"
            "test('isEmpty', function (t) {\n  t.ok(utils.isEmpty(''));\n  t.end();\n});\n"
        ),
        "test/other.js": "var test = require('tape');\n\ntest('sum', function (t) {\n  t.equal(1 + 1, 2);\n  t.end();\n});\n",
    }
    repo = _repo(tmp_path, files)
    change = {
        "lib/utils.js": "text.length === 0 => text.length < 1",
        "test/utils.js": "t.ok(utils.isEmpty('')); => t.ok(utils.isEmpty(''));\n  t.notOk(utils.isEmpty('a'));",
        "test/other.js": "1 + 1, 2 => 2 + 2, 4",
    }
    data = _report(repo, capsys, change)
    assert _chosen(data) == [
        ("test/other.js:module:test.other", ["edited"]),
        ("test/utils.js:module:test.utils", ["edited", "graph"]),
    ]
    assert main(["report", "--repo", str(repo), "--base", "main"]) == 0
    text = capsys.readouterr().out
    assert (
        "tests to run (1 reach the change: 1 call it within 2 calls in the graph; 2 edited by the change; "
        "the commands run 2):\n  npx tape test/other.js test/utils.js\n"
    ) in text, text


def test_tape_runs_only_the_files_its_script_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """object-inspect 1.13.1 runs ``tape 'test/*.js'``; its
    test/browser/dom.js is for browsers (``document is not defined`` under
    node): the report printed ``npx tape ... test/browser/dom.js ...``, a
    command that fails. A glob with ``**`` (qs: ``test/**/*.js``) takes the
    folders below."""
    lib = "module.exports = function inspect(value) {\n  return String(value);\n};\n"
    test = "var test = require('tape');\nvar inspect = require('../{up}');\n\ntest('x', function (t) {\n  t.equal(inspect(1), '1');\n  t.end();\n});\n"
    files = {
        "package.json": (
            '{"name": "object-inspect", "scripts": {"test": "npm run tests-only", "tests-only": "nyc tape \'test/*.js\'"}, '
            '"devDependencies": {"tape": "^5.7.1"}}\n'
        ),
        "index.js": lib,
        "test/values.js": test.replace("{up}", ""),
        "test/browser/dom.js": test.replace("{up}", "../"),
        "deep/package.json": '{"name": "qs", "scripts": {"test": "tape \'test/**/*.js\' --strict"}, "devDependencies": {"tape": "^5"}}\n',
        "deep/index.js": lib,
        "deep/test/values.js": test.replace("{up}", ""),
        "deep/test/browser/dom.js": test.replace("{up}", "../"),
    }
    change = {"index.js": "String(value) => String(value) + ''", "deep/index.js": "String(value) => String(value) + ''"}
    assert _commands(tmp_path, capsys, files, change) == [
        "npx tape test/values.js",
        "cd deep && npx tape test/browser/dom.js test/values.js",
    ]


def test_a_js_test_file_is_one_test_and_its_functions_are_helpers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """qs 6.13.0: ``npx tape test/parse.js test/stringify.js`` was said to
    run 11 tests: the 2 files and 9 helpers of theirs (``var decoder =
    function …``, ``sort``, ``filter``). The `test(...)` callbacks are no
    symbols: a file is the test the command runs."""
    files = {
        "package.json": '{"name": "qs", "scripts": {"test": "tape \'test/**/*.js\'"}, "devDependencies": {"tape": "^5"}}\n',
        "lib/utils.js": "var isEmpty = function isEmpty(text) {\n  return text.length === 0;\n};\n\nmodule.exports = { isEmpty: isEmpty };\n",
        "test/utils.js": (
            "var test = require('tape');\nvar utils = require('../lib/utils');\n\n"
            "var decoder = function (str) {\n  return str.trim();\n};\n\nfunction sort(a, b) {\n  return a - b;\n}\n\n"
            "test('isEmpty', function (t) {\n  t.ok(utils.isEmpty(decoder(' ')));\n  t.deepEqual([2, 1].sort(sort), [1, 2]);\n  t.end();\n});\n"
        ),
    }
    data = _report(_repo(tmp_path, files), capsys, {"lib/utils.js": "text.length === 0 => text.length < 1"})
    assert (data["test_commands"], data["tests_run"]) == (["npx tape test/utils.js"], 1)


def test_a_js_test_files_helpers_are_listed_as_their_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """zod 4.5.4 -> 4.6.0 said "140 reach the change: 140 call it …; 115
    edited by the change; the commands run 97": the reaching and edited
    lists held the helpers of the test files (compile-generative.test.ts:
    `mulberry32`, `leaf.valid` … 52 symbols), though a file is the test its
    command runs. Each file is listed once, as its module: edited when a
    helper of it is, reaching when it or one of its helpers calls the
    change."""
    files = {
        "package.json": '{"name": "u", "scripts": {"test": "tape \'test/*.js\'"}, "devDependencies": {"tape": "^5"}}\n',
        "lib/utils.js": "var isEmpty = function isEmpty(text) {\n  return text.length === 0;\n};\n\nmodule.exports = { isEmpty: isEmpty };\n",
        "test/utils.js": (
            "var test = require('tape');\nvar utils = require('../lib/utils');\n\n"
            "function check(t, text) {\n  t.ok(utils.isEmpty(text));\n}\n\nfunction blank() {\n  return '';\n}\n\n"
            "test('isEmpty', function (t) {\n  check(t, blank());\n  t.end();\n});\n"
        ),
        "test/other.js": (
            "var test = require('tape');\n\nfunction unused() {\n  return 1;\n}\n\n"
            "test('one', function (t) {\n  t.equal(1, 1);\n  t.end();\n});\n"
        ),
    }
    change = {
        "lib/utils.js": "text.length === 0 => text.length < 1",
        "test/utils.js": "return ''; => return ' '.trim();",
        "test/other.js": "return 1; => return 2 - 1;",
    }
    data = _report(_repo(tmp_path, files), capsys, change)
    assert _chosen(data) == [
        ("test/other.js:module:test.other", ["edited"]),
        ("test/utils.js:module:test.utils", ["edited", "graph"]),
    ]
    assert (data["test_commands"], data["tests_run"]) == (["npx tape test/other.js test/utils.js"], 2)


def test_a_js_file_no_command_runs_is_no_test_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """object-inspect 1.13.1: test/browser/dom.js, outside ``tape
    'test/*.js'``, was among "19 reach the change" of 18 files run; qs
    6.13.0: its edited data file test/empty-keys-cases.js (no tape in it)
    among "3 edited by the change" of 2 files run."""
    lib = "module.exports = function inspect(value) {\n  return String(value);\n};\n"
    test = "var test = require('tape');\nvar inspect = require('../{up}');\n\ntest('x', function (t) {\n  t.equal(inspect(1), '1');\n  t.end();\n});\n"
    files = {
        "package.json": '{"name": "oi", "scripts": {"test": "tape \'test/*.js\'"}, "devDependencies": {"tape": "^5"}}\n',
        "index.js": lib,
        "test/values.js": test.replace("{up}", ""),
        "test/browser/dom.js": test.replace("{up}", "../"),
        "test/cases.js": "var inspect = require('../');\n\nexports.cases = [inspect(1)];\n",
    }
    change = {"index.js": "String(value) => String(value) + ''", "test/cases.js": "inspect(1)] => inspect(1), inspect(2)]"}
    data = _report(_repo(tmp_path, files), capsys, change)
    assert _chosen(data) == [("test/values.js:module:test.values", ["graph"])]
    assert (data["test_commands"], data["tests_run"]) == (["npx tape test/values.js"], 1)


def test_a_script_that_asserts_is_a_tape_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """buffer 6.0.3 runs Node's own tests of Buffer with tape (``tape
    test/*.js test/node/*.js``): scripts that load no runner and throw from
    Node's ``assert``. No command ran them, so the report dropped them, and
    with them every failing test file of 55 of 100 mutants the benchmark
    kept (docs/coverage.md). A data file under ``test/`` stays no test."""
    lib = "module.exports = function inspect(value) {\n  return String(value);\n};\n"
    files = {
        "package.json": '{"name": "buffer", "scripts": {"test": "node ./bin/test.js"}, "devDependencies": {"tape": "^5"}}\n',
        "index.js": lib,
        "test/values.js": "var test = require('tape');\nvar inspect = require('../');\n\ntest('x', function (t) {\n  t.equal(inspect(1), '1');\n  t.end();\n});\n",
        "test/node/test-values.js": "'use strict';\nvar assert = require('assert');\nvar inspect = require('../../');\n\nassert.strictEqual(inspect(2), '2');\n",
        "test/node/test-strict.js": "import assert from 'node:assert/strict';\nimport inspect from '../../index.js';\n\nassert.equal(inspect(3), '3');\n",
        "test/node/cases.js": "var inspect = require('../../');\n\nexports.cases = [inspect(1)];\n",
    }
    data = _report(_repo(tmp_path, files), capsys, {"index.js": "String(value) => String(value) + ''"})
    assert _chosen(data) == [
        ("test/node/test-strict.js:module:test.node.test-strict", ["graph"]),
        ("test/node/test-values.js:module:test.node.test-values", ["graph"]),
        ("test/values.js:module:test.values", ["graph"]),
    ]
    assert data["test_commands"] == ["npx tape test/node/test-strict.js test/node/test-values.js test/values.js"]


def test_a_js_test_file_runs_with_the_runner_it_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pino 9.4: its test script is ``tap --ts && jest test/jest``, its
    ``test/*.test.js`` load tap and its browser tests tape; the report said
    ``npx jest test/basic.test.js …`` (jest, the only runner the script's
    pattern knew), and a fixture the tests start was no test to run."""
    files = {
        "package.json": (
            '{"name": "pino", "scripts": {"test": "npm run lint && tap --ts && jest test/jest", "lint": "eslint ."}, '
            '"devDependencies": {"jest": "^29.0.3", "tap": "^16.2.0", "tape": "^5.5.3"}}\n'
        ),
        "lib/levels.js": "function level(n) {\n  return n * 10;\n}\n\nmodule.exports = { level };\n",
        "test/levels.test.js": (
            "const { test } = require('tap');\nconst { level } = require('../lib/levels');\n\n"
            "test('level', async ({ equal }) => {\n  equal(level(3), 30);\n});\n"
        ),
        "test/browser-levels.test.js": (
            "const test = require('tape');\nconst { level } = require('../lib/levels');\n\n"
            "test('browser level', ({ end }) => {\n  level(1);\n  end();\n});\n"
        ),
        "test/fixtures/exit.js": "const { level } = require('../../lib/levels');\n\nfunction main() {\n  level(2);\n}\n\nmain();\n",
    }
    change = {"lib/levels.js": "return n * 10; => return 10 * n;"}
    assert _commands(tmp_path, capsys, files, change) == [
        "npx tap test/levels.test.js", "npx tape test/browser-levels.test.js"
    ]


def test_node_test_runs_with_node_not_a_package_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A package whose test script is Node's own runner (``node --test``,
    options before the flag included) runs its selected files with
    ``node --test``, the files of its test folder included; never ``npx
    jest``, which it does not have."""
    files = {
        "package.json": '{"name": "calc", "scripts": {"test": "node --test"}}\n',
        "lib/sum.js": "function sum(a, b) {\n  return a + b;\n}\n\nmodule.exports = { sum };\n",
        "test/sum.js": (
            "const test = require('node:test');\nconst assert = require('node:assert');\n"
            "const { sum } = require('../lib/sum');\n\n"
            "test('sum', () => {\n  assert.equal(sum(1, 2), 3);\n});\n"
        ),
        "web/package.json": '{"name": "web", "scripts": {"test": "node --import tsx --test src/"}}\n',
        "web/src/area.js": "export function area(w, h) {\n  return w * h;\n}\n",
        "web/src/area.test.js": (
            "import test from 'node:test';\nimport { area } from './area.js';\n\n"
            "test('area', () => {\n  area(2, 3);\n});\n"
        ),
    }
    change = {"lib/sum.js": "return a + b; => return b + a;", "web/src/area.js": "return w * h; => return h * w;"}
    assert _commands(tmp_path, capsys, files, change) == ["node --test test/sum.js", "cd web && node --test src/area.test.js"]


# --- Go -------------------------------------------------------------------

GO_MODULE = {
    "README.md": "# A Go module in a subfolder\n",
    "backend/go.mod": "module example.com/backend\n\ngo 1.22\n",
    "backend/store/store.go": "package store\n\nfunc Save(key string) error {\n\treturn nil\n}\n",
    "backend/store/store_test.go": (
        'package store\n\nimport "testing"\n\n'
        'func TestSave(t *testing.T) {\n\tif Save("a") != nil {\n\t\tt.Fatal("save")\n\t}\n}\n\n'
        'func TestSaveTwice(t *testing.T) {\n\t_ = Save("a")\n\t_ = Save("a")\n}\n\n'
        'func BenchmarkSave(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\t_ = Save("a")\n\t}\n}\n\n'
        'func ExampleSave() {\n\t_ = Save("a")\n\t// Output:\n}\n\n'
        'func ExampleSave_quiet() {\n\t_ = Save("q")\n}\n\n'
        'func FuzzSave(f *testing.F) {\n\tf.Add("s")\n\tf.Fuzz(func(t *testing.T, key string) {\n\t\t_ = Save(key)\n\t})\n}\n\n'
        "func Testable() bool {\n\treturn Save(\"b\") == nil\n}\n"
    ),
    "backend/api/api.go": (
        'package api\n\nimport "example.com/backend/store"\n\nfunc Handle() error {\n\treturn store.Save("k")\n}\n'
    ),
    "backend/api/api_test.go": 'package api\n\nimport "testing"\n\nfunc TestHandle(t *testing.T) {\n\t_ = Handle()\n}\n',
    "backend/main_test.go": (
        'package main\n\nimport (\n\t"testing"\n\n\t"example.com/backend/store"\n)\n\n'
        'func TestMain_Save(t *testing.T) {\n\t_ = store.Save("m")\n}\n'
    ),
    "backend/main.go": "package main\n\nfunc main() {}\n",
}


def test_go_test_per_package_from_the_module_root_with_what_go_test_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-run`` runs tests, fuzz tests' seeds and examples that have an
    output comment (``go help testflag``); a benchmark, an example without
    output (compiled, not run) and ``Testable`` (no test) are left out."""
    commands = _commands(tmp_path, capsys, GO_MODULE, {"backend/store/store.go": "return nil => return error(nil)"})
    assert commands == [
        "cd backend && go test . -run '^(TestMain_Save)$'",
        "cd backend && go test ./api -run '^(TestHandle)$'",
        "cd backend && go test ./store -run '^(ExampleSave|FuzzSave|TestSave|TestSaveTwice)$'",
    ]


# --- Rust -----------------------------------------------------------------

CARGO_WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/core", "crates/cli"]\nresolver = "2"\n',
    "crates/core/Cargo.toml": '[package]\nname = "my-core"\nversion = "0.1.0"\nedition = "2021"\n',
    "crates/core/src/lib.rs": (
        "pub fn parse(text: &str) -> usize {\n    text.len()\n}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        '    #[test]\n    fn parses() {\n        assert_eq!(parse("ab"), 2);\n    }\n\n'
        '    #[test]\n    fn parses_empty() {\n        assert_eq!(parse(""), 0);\n    }\n}\n'
    ),
    "crates/cli/Cargo.toml": (
        '[package]\nname = "my-cli"\nversion = "0.1.0"\nedition = "2021"\n\n'
        '[dependencies]\nmy-core = { path = "../core" }\n'
    ),
    "crates/cli/src/lib.rs": (
        'pub fn run() -> usize {\n    my_core::parse("run")\n}\n\n'
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    #[test]\n    fn runs() {\n        assert_eq!(run(), 3);\n    }\n}\n"
    ),
}


def test_cargo_test_per_package_of_the_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(tmp_path, capsys, CARGO_WORKSPACE, {"crates/core/src/lib.rs": "    text.len() =>     text.chars().count()"})
    assert commands == [
        "cargo test -p my-cli tests::runs",
        "cargo test -p my-core -- tests::parses tests::parses_empty",
    ]


def test_a_rust_integration_test_helper_is_no_test_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """anyhow 1.0.69 -> 1.0.95: the functions of `tests/*.rs` without a test
    attribute (`main`, a trait impl's `deref`, a test's inner helper) were
    tests to run; `cargo test -- main` filters tests by name and matches
    none of them. The #[test] functions that call them are the tests."""
    files = {
        "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub fn add(a: u8, b: u8) -> u8 {\n    a + b\n}\n",
        "tests/test_add.rs": (
            "use calc::add;\n\n"
            "fn check(a: u8) -> u8 {\n    add(a, 1)\n}\n\n"
            "#[test]\nfn adds_one() {\n    fn inner() -> u8 {\n        add(1, 1)\n    }\n    assert_eq!(check(1) + inner(), 4);\n}\n\n"
            "fn main() {\n    add(2, 2);\n}\n"
        ),
    }
    commands = _commands(tmp_path, capsys, files, {"src/lib.rs": "    a + b =>     b + a"})
    assert commands == ["cargo test -p calc adds_one"]


SHAPES_LIB = (
    "pub mod geo;\n\npub struct Square(pub u32);\n\nimpl Square {\n"
    "    /// The area.\n    ///\n    /// ```\n    /// assert_eq!(shapes::Square(3).area(), 9);\n    /// ```\n"
    "    #[inline]\n    pub fn area(&self) -> u32 {\n        self.0 * self.0\n    }\n}\n\n"
    "/// ```\n/// assert_eq!(shapes::double(2), 4);\n/// ```\npub fn double(n: u32) -> u32 {\n    n * 2\n}\n\n"
    "/// ```text\n/// double(2) == 4\n/// ```\n///\n/// ```ignore\n/// triple(2)\n/// ```\n"
    "pub fn triple(n: u32) -> u32 {\n    n * 3\n}\n"
)
RUST_DOCTESTS = {
    "Cargo.toml": '[workspace]\nmembers = ["shapes", "quiet"]\nresolver = "2"\n',
    "shapes/Cargo.toml": '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n',
    "shapes/src/lib.rs": SHAPES_LIB,
    "shapes/src/geo.rs": "/// ```no_run\n/// shapes::geo::half(4);\n/// ```\npub fn half(n: u32) -> u32 {\n    n / 2\n}\n",
    "shapes/src/main.rs": "/// ```\n/// assert!(true);\n/// ```\nfn helper() -> u32 {\n    1\n}\n\nfn main() {\n    helper();\n}\n",
    "quiet/Cargo.toml": '[package]\nname = "quiet"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\ndoctest = false\n',
    "quiet/src/lib.rs": "/// ```\n/// assert_eq!(quiet::one(), 1);\n/// ```\npub fn one() -> u32 {\n    1\n}\n",
}


def test_cargo_test_runs_the_doctests_of_a_changed_items_doc_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """semver 1.0.14 -> 1.0.23 (Debian librust-semver-dev): the new
    ``Version::cmp_precedence`` has an example in its doc comment, which
    ``cargo test`` runs; the report said no test reaches it and its command
    left the doctest out. cargo 1.95 names this one ``shapes/src/lib.rs -
    Square::area (line 8)``: the filter is ``::area`` (``double`` at the
    library's root file); run from the workspace, the command runs these
    three doctests and no other. No doctest: a block of another language or
    ``ignore``d, a binary's item, a library with ``doctest = false``."""
    body = SHAPES_LIB[SHAPES_LIB.index("self.0 * self.0") : SHAPES_LIB.index("n * 3") + len("n * 3")]
    edited = body.replace("self.0 * self.0", "self.0.pow(2)").replace("n * 2", "n + n").replace("n * 3", "3 * n")
    change = {
        "shapes/src/lib.rs": f"{body} => {edited}",
        "shapes/src/geo.rs": "n / 2 => n >> 1",
        "shapes/src/main.rs": "    1\n} =>     2 - 1\n}",
        "quiet/src/lib.rs": "    1\n} =>     2 - 1\n}",
    }
    data = _report(_repo(tmp_path, RUST_DOCTESTS), capsys, change)
    assert data["test_commands"] == ["cargo test -p shapes -- ::area ::half double"]
    assert _chosen(data) == [
        ("shapes/src/geo.rs:doctest:half", ["doctest"]),
        ("shapes/src/lib.rs:doctest:Square::area", ["doctest"]),
        ("shapes/src/lib.rs:doctest:double", ["doctest"]),
    ]


def test_a_lone_doctest_filter_is_given_after_the_double_dash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """itoa 1.0.1 -> 1.0.14 (Debian librust-itoa-dev): the one test chosen
    was ``Buffer``'s doctest, and the command ``cargo test -p itoa Buffer``
    ran 0 tests: cargo 1.95 runs no doctest for a filter given before
    ``--`` (cargo issue 6981); ``cargo test -p itoa -- Buffer`` runs it. A
    lone test's filter stays before ``--`` (``cargo test -p calc adds_one``
    above)."""
    change = {"shapes/src/lib.rs": "n * 2 => n + n"}
    data = _report(_repo(tmp_path, RUST_DOCTESTS), capsys, change)
    assert data["test_commands"] == ["cargo test -p shapes -- double"]
    assert _chosen(data) == [("shapes/src/lib.rs:doctest:double", ["doctest"])]


def test_each_code_block_of_a_rust_doc_comment_is_a_doctest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """either 1.6.1 -> 1.13.0: `unwrap_left`, `unwrap_right`, `expect_left`
    and `expect_right` have two examples each, which rustdoc runs as two
    doctests: the command ran 27 tests where the report said "the commands
    run 23". Each block the doctest counts (cargo 1.95 ran this fixture's
    command: `shapes/src/lib.rs - double (line 17)`, `(line 21)`)."""
    files = dict(RUST_DOCTESTS)
    files["shapes/src/lib.rs"] = SHAPES_LIB.replace(
        "/// ```\n/// assert_eq!(shapes::double(2), 4);\n/// ```\n",
        "/// ```\n/// assert_eq!(shapes::double(2), 4);\n/// ```\n///\n/// ```rust\n/// assert_eq!(shapes::double(0), 0);\n/// ```\n",
    )
    data = _report(_repo(tmp_path, files), capsys, {"shapes/src/lib.rs": "n * 2 => n + n"})
    assert data["test_commands"] == ["cargo test -p shapes -- double"]
    assert _chosen(data) == [
        ("shapes/src/lib.rs:doctest:double", ["doctest"]),
        ("shapes/src/lib.rs:doctest:double#2", ["doctest"]),
    ]
    assert data["tests_run"] == 2


def test_cargo_enables_the_features_a_chosen_test_is_compiled_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """smallvec 1.9.0 -> 1.13.2 (Debian librust-smallvec-dev): the command
    named `drain_filter`, `drain_keep_rest`, `const_new`, `test_serde` and
    the doctests of `SmallVec::drain_filter` and `DrainFilter::keep_rest`,
    each under `#[cfg(feature = "...")]` of a feature that is not a default:
    cargo compiled none of them and ran 48 tests where the report said 50.
    The command enables the features of the tests it names (a doctest's
    item's); `any`/`not` conditions and another crate's features ask for
    none."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["calc", "other"]\nresolver = "2"\n',
        "calc/Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[features]\nfancy = []\nextra = []\nwide = []\n',
        "calc/src/lib.rs": (
            "pub fn add(a: u8, b: u8) -> u8 {\n    a + b\n}\n\n"
            '/// ```\n/// assert_eq!(calc::twice(2), 4);\n/// ```\n#[cfg(feature = "fancy")]\n'
            "pub fn twice(a: u8) -> u8 {\n    add(a, a)\n}\n\n"
            "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
            "    #[test]\n    fn plain() {\n        assert_eq!(add(1, 1), 2);\n    }\n\n"
            '    #[cfg(all(feature = "extra", test))]\n    #[test]\n    fn extra() {\n        assert_eq!(add(2, 2), 4);\n    }\n\n'
            '    #[cfg(not(feature = "wide"))]\n    #[test]\n    fn narrow() {\n        assert_eq!(add(3, 3), 6);\n    }\n}\n'
        ),
        "other/Cargo.toml": '[package]\nname = "other"\nversion = "0.1.0"\nedition = "2021"\n\n[features]\nslow = []\n',
        "other/src/lib.rs": (
            "pub fn one() -> u8 {\n    1\n}\n\n"
            "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn ones() {\n        assert_eq!(one(), 1);\n    }\n}\n"
        ),
    }
    calc = files["calc/src/lib.rs"]
    body = calc[calc.index("    a + b") : calc.index("add(a, a)") + len("add(a, a)")]
    change = {
        "calc/src/lib.rs": f"{body} => {body.replace('a + b', 'b + a').replace('add(a, a)', 'add(a, 0) + a')}",
        "other/src/lib.rs": "    1\n} =>     2 - 1\n}",
    }
    data = _report(_repo(tmp_path, files), capsys, change)
    assert data["test_commands"] == [
        "cargo test -p calc --features extra,fancy -- tests::extra tests::narrow tests::plain twice",
        "cargo test -p other tests::ones",
    ]


# --- Java -----------------------------------------------------------------

CALC_JAVA = "package com.acme.core;\n\npublic class Calc {\n    public int add(int a, int b) {\n        return a + b;\n    }\n}\n"
MAVEN_MULTI_MODULE = {
    "pom.xml": (
        "<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>parent</artifactId>"
        "<version>1</version><packaging>pom</packaging><modules><module>core</module><module>app</module></modules></project>\n"
    ),
    "core/pom.xml": "<project><artifactId>core</artifactId></project>\n",
    "core/src/main/java/com/acme/core/Calc.java": CALC_JAVA,
    "core/src/test/java/com/acme/core/CalcTest.java": (
        "package com.acme.core;\n\nimport org.junit.jupiter.api.Test;\nimport org.junit.jupiter.api.RepeatedTest;\n\n"
        "class CalcTest {\n"
        "    @Test\n    void addsTwo() {\n        new Calc().add(1, 1);\n    }\n\n"
        "    @RepeatedTest(3)\n    void addsZero() {\n        new Calc().add(0, 0);\n    }\n}\n"
    ),
    "app/pom.xml": "<project><artifactId>app</artifactId></project>\n",
    "app/src/main/java/com/acme/app/App.java": (
        "package com.acme.app;\n\nimport com.acme.core.Calc;\n\n"
        "public class App {\n    public int total() {\n        return new Calc().add(2, 3);\n    }\n}\n"
    ),
    "app/src/test/java/com/acme/app/AppTest.java": (
        "package com.acme.app;\n\nimport org.junit.jupiter.api.Test;\n\n"
        "class AppTest {\n    @Test\n    void totals() {\n        new App().total();\n    }\n}\n"
    ),
}


def test_maven_selects_the_modules_and_methods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(
        tmp_path, capsys, MAVEN_MULTI_MODULE, {"core/src/main/java/com/acme/core/Calc.java": "return a + b; => return b + a;"}
    )
    assert commands == [
        "mvn -pl app,core -am test -Dtest=AppTest#totals,CalcTest#addsTwo+addsZero -Dsurefire.failIfNoSpecifiedTests=false"
    ]


def test_gradle_selects_project_and_qualified_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {
        "settings.gradle": "rootProject.name = 'demo'\ninclude 'lib'\n",
        "gradlew": "#!/bin/sh\nexec gradle \"$@\"\n",
        "lib/build.gradle.kts": "plugins { `java-library` }\n",
        "lib/src/main/java/org/demo/Greeter.java": (
            'package org.demo;\n\npublic class Greeter {\n    public String greet(String name) {\n        return "hi " + name;\n    }\n}\n'
        ),
        "lib/src/test/java/org/demo/GreeterTest.java": (
            "package org.demo;\n\nimport org.junit.jupiter.api.Test;\n\n"
            'class GreeterTest {\n    @Test\n    void greets() {\n        new Greeter().greet("x");\n    }\n}\n'
        ),
    }
    commands = _commands(
        tmp_path, capsys, files, {"lib/src/main/java/org/demo/Greeter.java": 'return "hi " + name; => return "hello " + name;'}
    )
    assert commands == ["./gradlew :lib:test --tests org.demo.GreeterTest.greets"]


def test_a_single_maven_project_runs_from_its_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {
        "pom.xml": "<project><artifactId>core</artifactId></project>\n",
        "mvnw": "#!/bin/sh\n",
        "src/main/java/com/acme/core/Calc.java": CALC_JAVA,
        "src/test/java/com/acme/core/CalcTest.java": MAVEN_MULTI_MODULE["core/src/test/java/com/acme/core/CalcTest.java"],
    }
    commands = _commands(tmp_path, capsys, files, {"src/main/java/com/acme/core/Calc.java": "return a + b; => return b + a;"})
    assert commands == ["./mvnw test -Dtest=CalcTest#addsTwo+addsZero"]


def test_a_java_test_class_helper_is_no_test_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """commons-codec 1.15 -> 1.18: `AbstractStringEncoderTest.checkEncoding`
    and `getStringEncoder` (helpers of the test classes) were among the
    tests to run: surefire matches no test by those names. The tests that
    call them are; a JUnit 3 `test…` method without an annotation is one."""
    files = {
        "pom.xml": "<project><artifactId>core</artifactId></project>\n",
        "src/main/java/com/acme/core/Calc.java": CALC_JAVA,
        "src/test/java/com/acme/core/CalcTest.java": (
            "package com.acme.core;\n\nimport org.junit.Test;\n\n"
            "public class CalcTest {\n"
            "    void checkAdd(int a) {\n        new Calc().add(a, 1);\n    }\n\n"
            "    @Test\n    public void addsOne() {\n        checkAdd(1);\n    }\n}\n"
        ),
        "src/test/java/com/acme/core/LegacyTest.java": (
            "package com.acme.core;\n\nimport junit.framework.TestCase;\n\n"
            "public class LegacyTest extends TestCase {\n"
            "    public void testAdd() {\n        new Calc().add(1, 2);\n    }\n}\n"
        ),
    }
    commands = _commands(tmp_path, capsys, files, {"src/main/java/com/acme/core/Calc.java": "return a + b; => return b + a;"})
    assert commands == ["mvn test -Dtest=CalcTest#addsOne,LegacyTest#testAdd"]


def test_a_changed_junit_set_up_or_go_test_main_chooses_the_tests_it_runs_around(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JUnit `@BeforeEach` runs around each test of its class and of its
    subclasses; Go's `TestMain` runs the package's tests. Each chose none,
    and `TestMain` was itself a "test to run": `go test -run '^(TestMain)$'`
    runs no test."""
    files = {
        "pom.xml": "<project><artifactId>core</artifactId></project>\n",
        "src/main/java/com/acme/core/Calc.java": CALC_JAVA,
        "src/test/java/com/acme/core/BaseTest.java": (
            "package com.acme.core;\n\nimport org.junit.jupiter.api.BeforeEach;\nimport org.junit.jupiter.api.Test;\n\n"
            "public class BaseTest {\n    int seed;\n\n    @BeforeEach\n    void prepare() {\n        seed = 1;\n    }\n\n"
            "    @Test\n    void seeds() {\n        assert seed == 1;\n    }\n}\n"
        ),
        "src/test/java/com/acme/core/MoreTest.java": (
            "package com.acme.core;\n\nimport org.junit.jupiter.api.Test;\n\n"
            "public class MoreTest extends BaseTest {\n    @Test\n    void more() {\n        assert seed > 0;\n    }\n}\n"
        ),
        "src/test/java/com/acme/core/OtherTest.java": (
            "package com.acme.core;\n\nimport org.junit.jupiter.api.Test;\n\n"
            "public class OtherTest {\n    @Test\n    void other() {\n        assert true;\n    }\n}\n"
        ),
        "go/go.mod": "module example.com/m\n\ngo 1.22\n",
        "go/calc/calc.go": "package calc\n\nfunc Double(x int) int {\n\treturn 2 * x\n}\n",
        "go/calc/calc_test.go": (
            'package calc_test\n\nimport (\n\t"testing"\n\n\t"example.com/m/calc"\n)\n\n'
            "func TestDouble(t *testing.T) {\n\tif calc.Double(2) != 4 {\n\t\tt.Fatal(2)\n\t}\n}\n"
        ),
        "go/calc/main_test.go": (
            'package calc_test\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
            "func TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n"
        ),
    }
    change = {
        "src/test/java/com/acme/core/BaseTest.java": "seed = 1; => seed = 2;",
        "go/calc/main_test.go": "\tos.Exit(m.Run()) => \tcode := m.Run()\n\tos.Exit(code)",
    }
    data = _report(_repo(tmp_path, files), capsys, change)
    assert _chosen(data) == [
        ("go/calc/calc_test.go:function:TestDouble", ["fixture"]),
        ("src/test/java/com/acme/core/BaseTest.java:method:BaseTest.seeds", ["fixture"]),
        ("src/test/java/com/acme/core/MoreTest.java:method:MoreTest.more", ["fixture"]),
    ]
    assert data["test_commands"] == [
        "cd go && go test ./calc -run '^(TestDouble)$'",
        "mvn test -Dtest=BaseTest#seeds,MoreTest#more",
    ]


# --- depth and own tests -----------------------------------------------------

CHAIN = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/core.py": (
        "def base(x):\n    return x\n\n\n"
        "def one(x):\n    return base(x)\n\n\n"
        "def two(x):\n    return one(x)\n\n\n"
        "class Dispatcher:\n    def flush(self):\n        return 0\n\n\n"
        "class Other:\n    def flush(self):\n        return 1\n"  # d.flush() stays unresolved
    ),
    "tests/test_core.py": (
        "from app.core import Dispatcher, base, one, two\n\n\n"
        "def test_base():\n    assert base(1) == 1\n\n\n"  # depth 1
        "def test_one():\n    assert one(1) == 1\n\n\n"  # depth 2
        "def test_two():\n    assert two(1) == 1\n"  # depth 3
    ),
    "tests/test_dispatcher.py": (
        "def make():\n    return object()\n\n\n"
        "def test_flush():\n    d = make()\n    d.flush()\n\n\n"
        "class TestDispatcher:\n    def test_flush_twice(self):\n        pass\n"
    ),
}


def test_tests_within_depth_two_and_the_count_at_depth_three(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, CHAIN)
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        tests, more = select_tests(store, ["app/core.py:function:base"])
        assert [t.id for t in tests] == [
            "tests/test_core.py:function:test_base",
            "tests/test_core.py:function:test_one",
        ]
        assert more == 1  # test_two
        # a changed test is its own test to run; a call site of a removed symbol is depth 1
        tests, more = select_tests(store, ["tests/test_core.py:function:test_two"], call_sites=["app/core.py:function:two"])
        assert [t.id for t in tests] == ["tests/test_core.py:function:test_two"]
        assert more == 0


def test_own_tests_named_after_the_symbol_or_calling_its_name(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, CHAIN)
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        flush = store.symbol("app/core.py:method:Dispatcher.flush")
        assert flush is not None
        ran = list(store.symbols_in_file("tests/test_dispatcher.py")) + list(store.symbols_in_file("tests/test_core.py"))
        assert [t.id for t in own_tests(store, flush, ran)] == [
            "tests/test_dispatcher.py:function:test_flush",  # d.flush() unresolved, and its name
            "tests/test_dispatcher.py:method:TestDispatcher.test_flush_twice",  # its class's name
        ]
        base = store.symbol("app/core.py:function:base")
        assert base is not None
        assert [t.id for t in own_tests(store, base, ran)] == ["tests/test_core.py:function:test_base"]


def test_the_tests_a_name_is_found_in_are_those_holding_it(tmp_path: Path) -> None:
    # RanTests.containing searches the names joined: each test holding the
    # name once, in order, as a loop over the tests asking `in` finds them
    repo = init_repo(tmp_path / "repo")
    write(repo, CHAIN)
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        ran = RanTests([*store.symbols_in_file("tests/test_dispatcher.py"), *store.symbols_in_file("tests/test_core.py")])
    names = {n[i:j] for _, n, _ in ran.named for i in range(len(n)) for j in range(i + 1, len(n) + 1)}
    assert len(ran.named) >= 4
    for name in sorted(names) + ["zzz", "testtest"]:
        expected = [(t, place) for t, test_name, place in ran.named if name in test_name]
        assert list(ran.containing(name)) == expected, name


# --- Ruby -----------------------------------------------------------------

RUBY_PROJECT = {
    "Gemfile": 'source "https://rubygems.org"\n\ngem "rspec"\ngem "minitest"\n',
    "lib/shop/order.rb": "module Shop\n  class Order\n    def self.total\n      1\n    end\n  end\nend\n",
    "spec/order_spec.rb": (
        'require "shop/order"\n\nRSpec.describe Shop::Order do\n  it "totals" do\n'
        "    expect(Shop::Order.total).to eq(1)\n  end\nend\n"
    ),
    "test/order_test.rb": (
        'require "minitest/autorun"\nrequire "shop/order"\n\nclass OrderTest < Minitest::Test\n'
        "  def test_total\n    assert_equal 1, Shop::Order.total\n  end\n\n  def test_nothing\n  end\nend\n"
    ),
}


def test_rspec_files_and_minitest_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(tmp_path, capsys, RUBY_PROJECT, {"lib/shop/order.rb": "      1\n =>       2\n"})
    assert commands == [
        "bundle exec rspec spec/order_spec.rb",
        "bundle exec ruby -Ilib -Itest test/order_test.rb -n '/^(test_total)$/'",
    ]


def test_minitest_runs_test_methods_and_a_setup_chooses_its_class_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tzinfo 2.0.5 -> 2.0.6 changed `RubyDataSource#initialize`, which the
    `setup` of test/data_sources/tc_ruby_data_source.rb calls: the report
    printed `ruby -Ilib -Itest tc_ruby_data_source.rb -n '/^(setup)$/'`
    (0 runs: `setup` is no test) and counted it a test, and named the
    helper `get_timezone_filenames` beside the tests of another file.
    minitest runs the `test_…` methods, each after the class's `setup`."""
    files = {
        "Gemfile": 'source "https://rubygems.org"\n\ngem "minitest"\n',
        "lib/zone/source.rb": "module Zone\n  class Source\n    def initialize(dir)\n      @dir = dir\n    end\n  end\nend\n",
        "test/tc_source.rb": (
            'require "minitest/autorun"\nrequire "zone/source"\n\nclass TCSource < Minitest::Test\n'
            "  def setup\n    @source = Zone::Source.new('a')\n  end\n\n"
            "  def test_dir\n    assert @source\n  end\n\n"
            "  def test_other\n    assert true\n  end\nend\n"
        ),
        "test/tc_reader.rb": (
            'require "minitest/autorun"\nrequire "zone/source"\n\nclass TCReader < Minitest::Test\n'
            "  def source_files\n    Zone::Source.new('b')\n  end\n\n"
            "  def test_files\n    assert source_files()\n  end\n\n"
            "  def test_nothing\n    assert true\n  end\nend\n"
        ),
    }
    data = _report(_repo(tmp_path, files), capsys, {"lib/zone/source.rb": "@dir = dir => @dir = dir.to_s"})
    assert data["test_commands"] == [
        "bundle exec ruby -Ilib -Itest test/tc_reader.rb -n '/^(test_files)$/'",
        "bundle exec ruby -Ilib -Itest test/tc_source.rb -n '/^(test_dir|test_other)$/'",
    ]
    assert data["tests_run"] == 3


def test_a_ruby_method_defined_in_two_files_is_called_through_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """addressable 2.8.7 defines `Addressable::IDNA.to_ascii` in
    idna/native.rb and in idna/pure.rb (idna.rb loads one of them, and
    idna_spec.rb loads each in turn): the graph answered the spec's calls
    with native.rb's, and a change of pure.rb's said "no test calls these
    within 2 calls" and ran no spec of it. A Ruby method is its qualified
    name: a call reaches whichever file defined it last."""
    files = {
        "Gemfile": 'source "https://rubygems.org"\n\ngem "rspec"\n',
        "lib/idna.rb": 'begin\n  require "idna/native"\nrescue LoadError\n  require "idna/pure"\nend\n',
        "lib/idna/native.rb": "module IDNA\n  def self.to_ascii(value)\n    value.to_s\n  end\nend\n",
        "lib/idna/pure.rb": "module IDNA\n  def self.to_ascii(value)\n    value.to_s\n  end\nend\n",
        "lib/other.rb": "module Other\n  def self.to_ascii(value)\n    value\n  end\nend\n",
        "spec/idna_spec.rb": (
            'require "idna"\n\nRSpec.describe IDNA do\n  it "converts" do\n'
            '    expect(IDNA.to_ascii("a")).to eq("a")\n  end\nend\n'
        ),
        "spec/other_spec.rb": (
            'require "other"\n\nRSpec.describe Other do\n  it "converts" do\n'
            '    expect(Other.to_ascii("a")).to eq("a")\n  end\nend\n'
        ),
    }
    repo = _repo(tmp_path, files)
    data = _report(repo, capsys, {"lib/idna/pure.rb": "value.to_s => value.to_s.downcase"})
    assert data["test_commands"] == ["bundle exec rspec spec/idna_spec.rb"]
    (item,) = [c for c in data["changed"] if c["symbol"]["qualified_name"] == "IDNA.to_ascii"]
    assert (item["unreached"], item["tests"]) == (False, ["spec/idna_spec.rb:module:spec.idna_spec"])


def test_a_changed_go_init_chooses_its_package_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """go-version 1.3.0 -> 1.6.0 changed `func init()` of constraint.go,
    which Go runs before any test of the package: the report said "no test
    calls these within 2 calls in the graph: init"."""
    files = {
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        "calc/calc.go": (
            "package calc\n\nvar table map[string]int\n\n"
            'func init() {\n\ttable = map[string]int{"a": 1}\n}\n\n'
            "func Double(x int) int {\n\treturn 2 * x\n}\n"
        ),
        "calc/calc_test.go": (
            'package calc\n\nimport "testing"\n\n'
            "func TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(2)\n\t}\n}\n\n"
            'func TestTable(t *testing.T) {\n\tif table["a"] != 1 {\n\t\tt.Fatal(1)\n\t}\n}\n'
        ),
        "other/other.go": "package other\n\nfunc One() int {\n\treturn 1\n}\n",
        "other/other_test.go": 'package other\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\t_ = One()\n}\n',
    }
    data = _report(_repo(tmp_path, files), capsys, {"calc/calc.go": '"a": 1} => "a": 1, "b": 2}'})
    assert _chosen(data) == [
        ("calc/calc_test.go:function:TestDouble", ["fixture"]),
        ("calc/calc_test.go:function:TestTable", ["fixture"]),
    ]
    assert data["test_commands"] == ["go test ./calc -run '^(TestDouble|TestTable)$'"]
    (item,) = [c for c in data["changed"] if c["symbol"]["name"] == "init"]
    assert item["unreached"] is False


def test_a_mixins_test_methods_run_in_the_test_classes_that_inherit_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cachetools 8.0.2's tests: `CacheTestMixin` in tests/__init__.py (no
    test module) and `DecoratorTestMixin` in a test module are neither
    `Test…` classes nor TestCases; pytest runs their `test…` methods in each
    TestCase that inherits them, unless it defines its own. The graph's
    tests were none for the first and the mixin's own node ID for the
    second ("not found": pytest then runs none of the IDs it is given). A
    `Test…` base is collected itself, and in its subclasses too."""
    files = {
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "app/__init__.py": "",
        "app/cache.py": "def put(d, k, v):\n    d[k] = v\n    return d\n",
        "tests/__init__.py": (
            "from app.cache import put\n\n\n"
            "class CacheTestMixin:\n    def test_put(self):\n        self.assertEqual(put({}, 1, 2), {1: 2})\n"
        ),
        "tests/test_lru.py": (
            "import unittest\n\nfrom tests import CacheTestMixin\n\n\n"
            "class LRUCacheTest(unittest.TestCase, CacheTestMixin):\n    pass\n\n\n"
            "class FIFOCacheTest(unittest.TestCase, CacheTestMixin):\n"
            "    def test_put(self):\n        self.assertTrue(True)\n"
        ),
        "tests/test_deco.py": (
            "import unittest\n\nfrom app.cache import put\n\n\n"
            "class DecoratorTestMixin:\n    def test_deco(self):\n        self.assertTrue(put({}, 1, 2))\n\n\n"
            "class WrapperTest(unittest.TestCase, DecoratorTestMixin):\n    pass\n\n\n"
            "class TestBase:\n    def test_base(self):\n        assert put({}, 0, 0)\n\n\n"
            "class TestChild(TestBase):\n    pass\n"
        ),
    }
    data = _report(_repo(tmp_path, files), capsys, {"app/cache.py": "d[k] = v => d[k] = -v"})
    assert _chosen(data) == [
        ("tests/test_deco.py:method:TestBase.test_base", ["graph"]),
        ("tests/test_deco.py:method:TestChild.test_base", ["graph"]),
        ("tests/test_deco.py:method:WrapperTest.test_deco", ["graph"]),
        ("tests/test_lru.py:method:LRUCacheTest.test_put", ["graph"]),
    ]
    # every test of test_deco.py: the file whole
    assert data["test_commands"] == ["pytest tests/test_deco.py tests/test_lru.py::LRUCacheTest::test_put"]
