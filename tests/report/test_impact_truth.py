"""The mutation benchmark's truth (benchmarks/test_impact.py, issue 30): a
mutant's failing tests are confirmed before it is kept. One run of a suite
keeps a flaky failure (boltons' ``test_socketutils_netstring`` failed once
with a mutant of a file it runs no line of, docs/coverage.md "Measured"),
so the failing tests run again, alone, with the mutant applied, and at the
base: a test is truth only if it fails again and passes at the base.

Real pytest runs on a small package in a git repository under the
benchmark's cache (``CARTOG_CI_BENCH_CACHE``), with the interpreter running
these tests as the project's own."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    """A benchmark script loaded by path: benchmarks/ is no package, and on
    sys.path its scripts (index.py, report.py ...) would shadow names."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    cache = tmp_path_factory.mktemp("bench-cache")
    old = os.environ.get("CARTOG_CI_BENCH_CACHE")
    os.environ["CARTOG_CI_BENCH_CACHE"] = str(cache)  # read when the module is loaded
    try:
        _load("corpora")  # test_impact imports GIT_ENV from it
        return _load("test_impact")
    finally:
        if old is None:
            del os.environ["CARTOG_CI_BENCH_CACHE"]
        else:
            os.environ["CARTOG_CI_BENCH_CACHE"] = old


CALC = "def add(a, b):\n    return a + b\n\n\ndef double(a):\n    return a * 2\n"

TESTS = '''from pathlib import Path

import pytest

from demo.calc import add

STATE = Path({state!r})


def test_add():
    assert add(1, 2) == 3


@pytest.mark.parametrize("a, b, total", [(1, 1, 2), (2, 3, 5)])
def test_add_pairs(a, b, total):
    assert add(a, b) == total


def test_flaky():
    # fails on its first run only: what a suite's run met once
    first = not STATE.exists()
    STATE.touch()
    assert not first


def test_broken():
    assert add(2, 2) == 5  # fails whatever the change: at the base too
'''


def project(bench: ModuleType, tmp_path: Path, name: str) -> tuple[object, Path]:
    """The package ``demo`` and its tests, committed as the base; a venv
    whose ``python`` is this interpreter (it has pytest)."""
    p = bench.Project(name, "1.0", "demo", ".")
    state = tmp_path / f"{name}-flaky-ran"
    (p.repo / "demo").mkdir(parents=True)
    (p.repo / "tests").mkdir()
    (p.repo / "demo" / "__init__.py").write_text("")
    (p.repo / "demo" / "calc.py").write_text(CALC)
    (p.repo / "tests" / "test_calc.py").write_text(TESTS.format(state=str(state)))
    bench.git(p.repo, "init", "-q", "-b", "main")
    bench.git(p.repo, "add", "-A")
    bench.git(p.repo, "commit", "-q", "-m", "base")
    (p.venv / "bin").mkdir(parents=True)
    launcher = p.venv / "bin" / "python"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    launcher.chmod(0o755)
    return p, state


def mutant(bench: ModuleType, line: int, old: str, new: str) -> object:
    return bench.Mutant("demo/calc.py", line, old, new, "operator")


def test_truth_is_what_fails_again_and_passes_at_the_base(bench: ModuleType, tmp_path: Path) -> None:
    p, state = project(bench, tmp_path, "confirmed")
    m = mutant(bench, 2, "    return a + b\n", "    return a - b\n")
    bench.clean(p)
    bench.apply(p, m)
    first = bench.suite(p, bench.test_env(p))  # the suite's run: the flaky test's first
    assert sorted(first.failed) == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_add_pairs[1-1-2]",
        "tests/test_calc.py::test_add_pairs[2-3-5]",
        "tests/test_calc.py::test_broken",
        "tests/test_calc.py::test_flaky",
    ]
    row = {
        "id": m.id,
        "detected": True,
        "failing": sorted(first.failed),
        "testmon": {"hits": ["tests/test_calc.py::test_add", "tests/test_calc.py::test_flaky"]},
    }
    bench.confirm(p, m, row)
    assert row["detected"] is True
    assert row["failing"] == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_add_pairs[1-1-2]",
        "tests/test_calc.py::test_add_pairs[2-3-5]",
    ]
    assert row["failing_first_run"] == sorted(first.failed)
    confirmed = dict(row["confirmed"])
    del confirmed["seconds"]
    assert confirmed == {
        "timeout": False,
        "passed_again": ["tests/test_calc.py::test_flaky"],
        "not_run": [],
        "failed_at_base": ["tests/test_calc.py::test_broken"],
    }
    assert row["testmon"] == {"hits": ["tests/test_calc.py::test_add"]}
    assert "dropped" not in row
    # the mutant is left applied (the report of it comes next)
    assert (p.repo / "demo" / "calc.py").read_text() == CALC.replace("a + b", "a - b")


def test_no_failing_test_confirmed_is_no_mutant_kept(bench: ModuleType, tmp_path: Path) -> None:
    p, state = project(bench, tmp_path, "dropped")
    m = mutant(bench, 5, "def double(a):\n", "def double(a):  # no test runs it\n")
    bench.clean(p)
    bench.apply(p, m)
    first = bench.suite(p, bench.test_env(p))
    assert sorted(first.failed) == ["tests/test_calc.py::test_broken", "tests/test_calc.py::test_flaky"]
    row = {"id": m.id, "detected": True, "failing": sorted(first.failed)}
    bench.confirm(p, m, row)
    assert row["detected"] is False
    assert row["failing"] == []
    assert row["dropped"] == "no failing test confirmed (1 passed again, 1 failed at base; 2 failing in the suite's run)"


def test_cached_rows_are_confirmed_before_they_count(bench: ModuleType, tmp_path: Path) -> None:
    """Rows drawn before the confirmation count as kept only once
    confirmed (only their failing tests run), even with ``--truth-only``;
    a dropped one is written with why."""
    p, state = project(bench, tmp_path, "cached")
    state.touch()  # the flaky test has failed once already: it passes now
    base = bench.base_commit(p)
    (p.home / "base.json").write_text(json.dumps({"commit": base, "seconds": 1.0, "durations": {}}))
    flaky_only = mutant(bench, 6, "    return a * 2\n", "    return a // 2\n")
    real = mutant(bench, 2, "    return a + b\n", "    return a - b\n")
    rows = [
        {"id": flaky_only.id, "detected": True, "failing": ["tests/test_calc.py::test_flaky"],
         "testmon": {"selected": 0, "seconds": 0, "hits": []}},
        {"id": real.id, "detected": True, "failing": ["tests/test_calc.py::test_add", "tests/test_calc.py::test_flaky"],
         "testmon": {"selected": 2, "seconds": 0.2, "hits": ["tests/test_calc.py::test_add"]},
         "tool": "a cartog-ci", "static": {"selected": 1, "seconds": 0.1, "hits": ["tests/test_calc.py::test_flaky"]},
         "tests": [["tests/test_calc.py:function:test_flaky", ["graph"]]]},
    ]  # fmt: skip
    (p.home / "mutants.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    measured = []

    def measure_one(m: object, have: dict[str, object] | None) -> dict[str, object]:
        measured.append(m.id)
        return bench.measure(p, m, {"commit": base, "durations": {}}, cartog_only=have is not None, cached=have, truth_only=True)

    for _ in bench.turns(p, [flaky_only, real], 2, 1, False, measure_one, truth_only=True, cached_only=True):
        pass
    assert sorted(measured) == sorted([flaky_only.id, real.id])
    after = bench.cached_rows(p)
    assert after[flaky_only.id]["detected"] is False
    assert after[flaky_only.id]["dropped"] == "no failing test confirmed (1 passed again; 1 failing in the suite's run)"
    assert after[real.id]["detected"] is True
    assert after[real.id]["failing"] == ["tests/test_calc.py::test_add"]
    assert after[real.id]["testmon"] == {"selected": 2, "seconds": 0.2, "hits": ["tests/test_calc.py::test_add"]}
    # --truth-only keeps the columns cartog-ci measured, their hits among the truth
    assert (after[real.id]["tool"], after[real.id]["static"]) == ("a cartog-ci", {"selected": 1, "seconds": 0.1, "hits": []})
    assert after[real.id]["tests"] == [["tests/test_calc.py:function:test_flaky", ["graph"]]]
    # confirmed rows are not confirmed again: a second pass measures nothing
    measured.clear()
    for _ in bench.turns(p, [flaky_only, real], 2, 1, False, measure_one, truth_only=True, cached_only=True):
        pass
    assert measured == []
