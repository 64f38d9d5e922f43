"""Mutation benchmark of the tests cartog-ci selects for a change (issue 30).

Each project is a real package as its registry ships it (a PyPI sdist with
its tests), committed as a git repository; its test suite runs offline in a
virtual environment of its own (dependencies from PyPI). Mutants are
one-line changes inside functions (an operator, a constant, a returned
value, a dropped call), drawn with a seed; a mutant is kept only if the
full suite detects it and a failing test is confirmed. Each kept mutant is
committed on top of the base commit, and measured:

- truth: the tests that fail when the whole suite runs (JUnit XML), each
  confirmed (Python, ``confirm``): run again alone with the mutant applied,
  it fails again, and it passes at the base. A mutant left with no
  confirmed failing test is not kept (its row says why), and the next in
  the seeded order is drawn; a row cached from before is confirmed when
  its turn comes (only its failing tests run);
- cartog-ci, with coverage: the tests the commands of ``cartog-ci report``
  run, on an index holding the coverage the suite recorded at the base
  (``pytest --cov --cov-context=test`` imported with ``cartog-ci coverage
  import`` by the cartog-ci measured) ("report commands": whole files past
  MAX_TEST_IDS), and the report's tests by node ID ("cartog-ci test": what
  ``cartog-ci test`` runs, one ID each);
- cartog-ci, static: the report's tests chosen by the graph (or edited by
  the change), by node ID: what a report without a recording lists (its
  commands may run whole files of them past MAX_TEST_IDS, so this column is
  a lower bound there);
- pytest-testmon: its own selection, from a baseline ``pytest --testmon``
  run at the base (copied afresh for every mutant), in the same run.

A doctest the suite runs (humanize's ``addopts = --doctest-modules``) is a
test like any other: its node ID (``src/humanize/number.py::humanize.number.ordinal``)
is in the truth, and the report chooses it by coverage or, statically, as a
changed function's own docstring (report/doctests.py; ``node_id``).

npm packages (``npm:qs``, ``npm:minimist``, ``npm:object-inspect``,
``npm:traverse``, ``npm:resolve``, ``npm:path-browserify``: tape suites;
``npm:semver`` and the other candidates of a spread suite, from Debian's
upstream tarballs: see ``NpmProject``) have the static column in the tables (no testmon:
it is pytest's); their unit is a test file. ``--js-coverage`` measures
the same kept mutants with per-test-file V8 coverage (``js_coverage``):
the report's commands, and the recording's own choice without the
graph's.

Per project: the share of mutants whose selection holds at least one
failing test (``caught``), failing-test recall (failing tests selected /
failing tests), the selected share of the suite's time (the selected tests'
durations in the base run over the whole suite's, runner start-up left
out; "failing tests only" is that share for the failing tests themselves,
the floor of any selection that keeps them all; ``--wall N`` times the
selection's command against the whole suite instead, start-up included),
and, among the changed functions (all executed by the suite: a
detected mutant's line ran), the share the report calls "untested" with
the recording (without one it never says it: only report/coverage.py
``apply_coverage`` sets it, so the static column shows "-"), and the
share no test reaches within the test depth in the graph (what the report
called "untested" before issue 30, and now says as that gap, outside the
verdict).

    PYTHONPATH=src .venv/bin/python benchmarks/test_impact.py                      # all projects, 100 mutants
    PYTHONPATH=src .venv/bin/python benchmarks/test_impact.py --projects toolz --mutants 20
    PYTHONPATH=src .venv/bin/python benchmarks/test_impact.py --tables             # the tables of what is cached
    PYTHONPATH=src .venv/bin/python benchmarks/test_impact.py --widest 10          # where the time share goes
    PYTHONPATH=src .venv/bin/python benchmarks/test_impact.py --js-coverage --projects npm:resolve npm:path-browserify

Everything is cached under ``$CARTOG_CI_BENCH_CACHE/impact`` (default
``~/.cache/cartog-ci-bench``): sdists, repositories, venvs, the base
coverage, the testmon baseline, and one JSON line per mutant tried
(``mutants.jsonl``), so a run stopped anywhere resumes where it stopped. A
mutant's result depends on the cartog-ci that measured it: ``--fresh``
drops the cached cartog-ci columns (truth and testmon are kept) to measure
another checkout. Children run under ``nice`` with one test process at a
time.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tokenize
import xml.etree.ElementTree as ET
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpora import GIT_ENV  # the pinned identity and date of the other benchmarks' repositories

CACHE = Path(os.environ.get("CARTOG_CI_BENCH_CACHE", Path.home() / ".cache" / "cartog-ci-bench")) / "impact"
SUITE_TIMEOUT = 180  # seconds: a mutant that loops forever is dropped
FROM_END = False  # --from-end
TOOLS = ("pytest==9.2.0", "pytest-cov==7.1.0", "coverage==7.18.0", "pytest-testmon==2.2.0")
# coverage.py for cartog-ci's own `coverage import` (its optional extra), kept
# beside the venvs rather than installed into the interpreter measured
TOOL_SITE = CACHE / "tool-site"


@dataclass(frozen=True)
class Home:
    """Where a project's repository and everything measured on it live."""

    name: str
    version: str

    @property
    def slug(self) -> str:
        return f"{self.name}-{self.version}"

    @property
    def home(self) -> Path:
        return CACHE / self.slug

    @property
    def repo(self) -> Path:
        return self.home / "repo"


@dataclass(frozen=True)
class Project(Home):
    source: str  # the folder mutated (the package), relative to the root
    path: str  # what goes on PYTHONPATH ("." or "src")
    deps: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()  # files under source not mutated
    pytest_args: tuple[str, ...] = ()

    @property
    def venv(self) -> Path:
        return self.home / "venv"

    @property
    def package(self) -> str:
        return Path(self.source).name


PROJECTS = {
    p.name: p
    for p in (
        Project("itsdangerous", "2.2.0", "src/itsdangerous", "src", ("freezegun==1.5.5",)),
        Project("markupsafe", "3.0.4", "src/markupsafe", "src"),
        Project("toolz", "1.2.0", "toolz", ".", skip=("toolz/tests", "toolz/sandbox/tests")),
        Project("tabulate", "0.10.0", "tabulate", ".", ("wcwidth",)),
        Project("python-slugify", "9.1.3", "slugify", ".", ("text-unidecode==1.3",)),
        Project("humanize", "4.17.0", "src/humanize", "src", ("freezegun==1.5.5", "pytest-benchmark")),
        Project("more-itertools", "11.2.1", "more_itertools", "."),
        # its tox.ini's command: the modules' doctests and tests/
        Project("boltons", "26.2.0", "boltons", ".", skip=("boltons/tests",), pytest_args=("--doctest-modules", "boltons", "tests")),
        Project("cachetools", "8.0.2", "src/cachetools", "src"),
    )
}
DEFAULT = ("itsdangerous", "toolz", "tabulate", "python-slugify", "humanize", "cachetools", "boltons",
           "npm:qs", "npm:minimist", "npm:object-inspect", "npm:traverse", "npm:resolve", "npm:path-browserify",
           "npm:semver", "npm:buffer")  # fmt: skip
# Every project declared and set up before its mutants are drawn counts, and
# its rows are reported whatever they show (docs/coverage.md, "What admission
# rests on"). ``--spread`` prints, from the base run alone, how spread out a
# suite is: whether it runs offline in about a minute and whether one test
# (an npm package: test file) takes more than SPREAD of the summed per-test
# time (a floor of the time share: the longest failing test's share). It was
# first the rule a project was added by; measured, it predicts the share
# neither way (resolve meets it at 44.1 %, semver and buffer miss it at
# 18.9 % and 19.3 %), so it is read beside the share, not as a gate.
SPREAD = 0.10


# --- running things ---------------------------------------------------------


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return proc.stdout


def run(cmd: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["nice", "-n", "10", *cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_env(project: Project) -> dict[str, str]:
    """The project's tests as its developers run them: its venv first on
    PATH, the package importable from the work tree, no bytecode written (a
    mutant of the same size in the same second would reuse a stale .pyc)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE", "COVERAGE_", "PYTHON"))}
    env["PATH"] = f"{project.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(project.repo / project.path)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["VIRTUAL_ENV"] = str(project.venv)
    return env


def cartog(*args: str, repo: Path) -> subprocess.CompletedProcess[str]:
    """cartog-ci from the PYTHONPATH this benchmark runs with."""
    code = "import sys; from cartog_ci.cli import main; sys.exit(main())"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(TOOL_SITE)) if p)
    return run([sys.executable, "-c", code, *args], cwd=repo, env=env)


# --- setting a project up ---------------------------------------------------


def ensure(project: Project) -> None:
    """The repository, the venv, the base coverage and the testmon baseline
    (each built once)."""
    project.home.mkdir(parents=True, exist_ok=True)
    if not (TOOL_SITE / "coverage").is_dir():
        log("coverage.py for cartog-ci's coverage import")
        pin = next(t for t in TOOLS if t.startswith("coverage=="))
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(TOOL_SITE)]
        subprocess.run([*pip, pin], check=True)
    if not (project.repo / ".git" / "bench-ready").exists():
        downloads = CACHE / "downloads" / project.slug
        downloads.mkdir(parents=True, exist_ok=True)
        archives = sorted(downloads.glob("*.tar.gz"))
        if not archives:
            log(f"{project.slug}: pip download (sdist)")
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                 f"{project.name}=={project.version}", "-d", str(downloads)],
                check=True,
            )  # fmt: skip
            archives = sorted(downloads.glob("*.tar.gz"))
        unpacked(project, archives[0], ".testmondata*\n__pycache__/\n.pytest_cache/", f"{project.slug} sdist")
    if not (project.venv / "bench-ready").exists():
        log(f"{project.slug}: venv")
        shutil.rmtree(project.venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(project.venv)], check=True)
        pip = [str(project.venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, *TOOLS, *project.deps], check=True)
        (project.venv / "bench-ready").touch()
    base = base_commit(project)
    env = test_env(project)
    if not (project.home / "base.json").exists():
        git(project.repo, "checkout", "-q", "--detach", base)
        log(f"{project.slug}: the suite at the base")
        started = time.monotonic()
        try:
            truth = suite(project, env)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"{project.slug}: the suite takes more than {SUITE_TIMEOUT} s at the base here") from None
        seconds = time.monotonic() - started
        if truth.failed or not truth.durations:
            raise SystemExit(f"{project.slug}: the suite does not pass at the base: {sorted(truth.failed)[:5]}")
        log(f"{project.slug}: {len(truth.durations)} tests, {seconds:.1f} s")
        cov = project.home / "base.coverage"
        cov.unlink(missing_ok=True)
        proc = run(
            ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--cov={project.package}",
             "--cov-context=test", "--cov-report=", *project.pytest_args],
            cwd=project.repo, env={**env, "COVERAGE_FILE": str(cov)},
        )  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"{project.slug}: the suite with coverage failed:\n{proc.stdout[-2000:]}")
        for index in ("index-cov.db",):
            (project.home / index).unlink(missing_ok=True)
            proc = cartog("index", "--repo", str(project.repo), "--index", str(project.home / index), "--no-embed", repo=project.repo)
            if proc.returncode != 0:
                raise SystemExit(f"{project.slug}: cartog-ci index failed: {proc.stderr}")
        testmon = project.home / "base.testmondata"
        testmon.unlink(missing_ok=True)
        proc = run(
            ["python", "-m", "pytest", "-q", "-o", f"cache_dir={project.home}/pytest-cache", "--testmon", *project.pytest_args],
            cwd=project.repo, env={**env, "TESTMON_DATAFILE": str(testmon)},
        )  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"{project.slug}: the testmon baseline failed:\n{proc.stdout[-2000:]}")
        clean(project)
        (project.home / "base.json").write_text(
            json.dumps({"commit": base, "seconds": seconds, "durations": truth.durations}, indent=1)
        )


def tool_hash() -> str:
    """The cartog-ci measured: a hash of its source files."""
    import importlib.util

    spec = importlib.util.find_spec("cartog_ci")
    if spec is None or not spec.submodule_search_locations:
        return ""
    digest = hashlib.sha1()
    for path in sorted(Path(list(spec.submodule_search_locations)[0]).rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


TOOL_HASH = tool_hash()


def unpacked(project: Home, archive: Path, ignored: str, message: str) -> None:
    """The archive's one top folder as the project's repository, committed
    whole: -f, what it ships and its .gitignore ignores (humanize's
    generated _version.py and compiled catalogues) is part of it."""
    shutil.rmtree(project.repo, ignore_errors=True)
    with tempfile.TemporaryDirectory(dir=project.home) as tmp:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        (top,) = Path(tmp).iterdir()
        shutil.move(str(top), str(project.repo))
    git(project.repo, "init", "-q", "-b", "main")
    (project.repo / ".git" / "info").mkdir(exist_ok=True)
    (project.repo / ".git" / "info" / "exclude").write_text(f".cartog-ci/\n{ignored}\n")
    git(project.repo, "add", "-A", "-f", ".")
    git(project.repo, "commit", "-q", "--no-verify", "-m", message)
    (project.repo / ".git" / "bench-ready").touch()


def import_coverage(project: Project) -> None:
    """The base's recording, imported by the cartog-ci measured (what it
    maps a context to is stored at import); once per cartog-ci, into an
    index built afresh at the base (the reports of the mutants have moved
    the old one through their commits: a new cartog-ci starts cold)."""
    clean(project)
    mark = project.home / "imported-by"
    if mark.exists() and mark.read_text() == TOOL_HASH:
        return
    (project.home / "index-cov.db").unlink(missing_ok=True)
    proc = cartog("index", "--repo", str(project.repo), "--index", str(project.home / "index-cov.db"), "--no-embed", repo=project.repo)
    if proc.returncode != 0:
        raise SystemExit(f"{project.slug}: cartog-ci index failed: {proc.stderr}")
    proc = cartog(
        "coverage", "import", str(project.home / "base.coverage"), "--repo", str(project.repo),
        "--index", str(project.home / "index-cov.db"), repo=project.repo,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"{project.slug}: coverage import failed: {proc.stderr}")
    log(f"{project.slug}: coverage import: {(proc.stdout + proc.stderr).strip()}")
    mark.write_text(TOOL_HASH)


def base_commit(project: Home) -> str:
    return git(project.repo, "rev-list", "--max-parents=0", "main").split()[0]


def clean(project: Home) -> None:
    """Back to the base commit, nothing else in the work tree but the
    ignored index folders."""
    git(project.repo, "checkout", "-q", "-f", "--detach", base_commit(project))
    git(project.repo, "clean", "-q", "-fdx", "-e", ".cartog-ci", "-e", "node_modules")


# --- a suite's results ------------------------------------------------------


@dataclass
class Results:
    durations: dict[str, float] = field(default_factory=dict)  # node ID -> seconds
    failed: set[str] = field(default_factory=set)


def junit(path: Path, root: Path) -> Results:
    """Node IDs (``file::Class::name[params]``) of a JUnit XML. A test's
    ``classname`` is its node ID's dotted path (``tests.test_a.TestA``):
    the file is its longest prefix that is a file of ``root`` (the ``file``
    attribute names where the function is defined, another file for an
    inherited test method)."""
    out = Results()
    if not path.exists():
        return out
    for case in ET.parse(path).iter("testcase"):
        if case.find("skipped") is not None:
            continue
        parts = (case.get("classname") or "").split(".")
        file, owner = "", parts
        for cut in range(len(parts), 0, -1):
            candidate = "/".join(parts[:cut]) + ".py"
            if (root / candidate).is_file():
                file, owner = candidate, parts[cut:]
                break
        name = case.get("name") or ""
        if not case.get("classname") and (root / (name.replace(".", "/") + ".py")).is_file():
            node = name.replace(".", "/") + ".py"  # a module that failed to import: all its tests
        else:
            node = "::".join([file or ".".join(parts), *owner, name])
        out.durations[node] = out.durations.get(node, 0.0) + float(case.get("time") or 0)
        if case.find("failure") is not None or case.find("error") is not None:
            out.failed.add(node)
    return out


def suite(project: Project, env: dict[str, str], *extra: str, datafile: Path | None = None,
          only: Sequence[str] = ()) -> Results:  # fmt: skip
    """The whole suite's results, or with ``only`` those of the tests or
    files it names (the project's pytest options kept, its paths left out:
    boltons' ``boltons tests`` would run everything again)."""
    args = [a for a in project.pytest_args if a.startswith("-")] + list(only) if only else list(project.pytest_args)
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        # pytest's cache in a folder of its own (testmon reads its options)
        cmd = ["python", "-m", "pytest", "-q", "-o", f"cache_dir={tmp}/cache", "-o", "junit_family=xunit1", "--tb=no",
               f"--junitxml={xml}", *args, *extra]  # fmt: skip
        run_env = {**env, "TESTMON_DATAFILE": str(datafile)} if datafile else env
        run(cmd, cwd=project.repo, env=run_env, timeout=SUITE_TIMEOUT)
        return junit(xml, project.repo)


def rerun(project: Project, env: dict[str, str], tests: Sequence[str]) -> tuple[set[str], set[str]]:
    """(those of ``tests`` that fail, those that ran) when only they run: by
    their node IDs, then the files of any the first run did not report (pytest
    runs none of its arguments when one names no test, and a module that
    failed to import is its file)."""
    results = suite(project, env, only=sorted(tests))
    ran = {t for t in tests if t in results.durations}
    failed = {t for t in tests if t in results.failed}
    missing = set(tests) - ran
    if missing:
        again = suite(project, env, only=sorted({unit(t, project.repo).split("::", 1)[0] for t in missing}))
        ran |= {t for t in missing if t in again.durations}
        failed |= {t for t in missing if t in again.failed}
    return failed, ran


def confirm(project: Project, mutant: Mutant, row: dict[str, object]) -> dict[str, object]:
    """A detected mutant's truth, confirmed: its failing tests run again,
    alone, with the mutant applied, and at the base; a test is truth only
    if it fails again with the mutant and passes at the base (one run of a
    suite keeps a flaky failure: boltons' ``test_socketutils_netstring``, a
    socket server in a thread, failed once with a mutant of fileutils.py,
    which it runs no line of). A mutant left with no failing test is not
    kept (``detected`` false, ``dropped`` says why). The row's other
    columns keep only the confirmed tests among their hits. Leaves the
    mutant applied."""
    env = test_env(project)
    first = sorted(row["failing"])  # type: ignore[arg-type]
    started = time.monotonic()
    clean(project)
    apply(project, mutant)
    timeout = False
    try:
        again, ran = rerun(project, env, first)
        clean(project)
        at_base = rerun(project, env, sorted(again))[0] if again else set()
    except subprocess.TimeoutExpired:  # kept on no truth
        again, ran, at_base, timeout = set(), set(first), set(), True
    finally:
        clean(project)
        apply(project, mutant)
    truth = sorted(again - at_base)
    row["confirmed"] = {
        "seconds": round(time.monotonic() - started, 2),
        "timeout": timeout,
        "passed_again": sorted(ran - again),  # failed in the suite's run, passed alone with the mutant
        "not_run": sorted(set(first) - ran),  # not found when run alone
        "failed_at_base": sorted(at_base),
    }
    if truth == first:
        return row
    row["failing_first_run"] = first
    row["failing"] = truth
    for column in ("static", "coverage", "testmon"):
        if isinstance(row.get(column), dict):
            row[column]["hits"] = [h for h in row[column]["hits"] if h in truth]  # type: ignore[index,union-attr,operator]
    if not truth:
        row["detected"] = False
        reasons = [f"{len(row['confirmed'][k])} {k.replace('_', ' ')}" for k in ("passed_again", "not_run", "failed_at_base") if row["confirmed"][k]]  # type: ignore[index,arg-type]  # fmt: skip
        why = f"timed out after {SUITE_TIMEOUT} s when re-run" if timeout else ", ".join(reasons)
        row["dropped"] = f"no failing test confirmed ({why}; {len(first)} failing in the suite's run)"
    return row


# what a report without a recording chooses too: the graph's tests, those the
# change edits, those that start a changed script, a changed function's own
# doctest where the project's configuration runs doctests (report/doctests.py)
STATIC = {"graph", "edited", "process", "doctest"}


def node_id(test_id: str) -> str:
    """A test symbol's pytest node ID: ``path:kind:Class.test`` is
    ``path::Class::test``; a doctest's (``path:doctest:pkg.mod.f``) keeps
    its dotted name whole (``path::pkg.mod.f``)."""
    path, kind, qualified = test_id.split(":", 2)
    return f"{path}::{qualified}" if kind == "doctest" else f"{path}::{qualified.replace('.', '::')}"


def strip_params(node: str) -> str:
    return node.split("[", 1)[0]


def unit(failing: str, repo: Path) -> str:
    """A failing test's ID; a module that failed to import (its file, or
    ``::::pkg.tests.test_a`` as the first runs wrote it) is its file."""
    if failing.startswith("::::"):
        return failing[4:].replace(".", "/") + ".py" if (repo / (failing[4:].replace(".", "/") + ".py")).is_file() else failing
    return failing


def held(failing: Sequence[str], chosen: set[str], repo: Path) -> list[str]:
    """The failing tests a selection holds: a failing module is held by any
    of its tests."""
    bases = {strip_params(c) for c in chosen}
    files = {b.split("::", 1)[0] for b in bases}
    out = []
    for f in failing:
        u = unit(f, repo)
        if strip_params(u) in bases or ("::" not in u and u in files):
            out.append(f)
    return sorted(out)


# --- mutants ------------------------------------------------------------------

SWAPS = {
    "+": "-", "-": "+", "*": "//", "==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">",
    "+=": "-=", "-=": "+=", "and": "or", "or": "and", "True": "False", "False": "True", "is": "is not",
    "in": "not in",
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int  # 1-based
    old: str  # the whole line
    new: str
    kind: str  # operator, constant, return, call, string, statement

    @property
    def id(self) -> str:
        return hashlib.sha1(f"{self.file}:{self.line}:{self.new}".encode()).hexdigest()[:12]


def function_lines(tree: ast.AST) -> tuple[set[int], dict[int, ast.stmt]]:
    """(the lines of function bodies, docstrings left out; the one-line
    statements among them). A line of a statement written on several lines
    is a line inside the function too: its operators and constants are
    mutated, the statement is not replaced."""
    lines: set[int] = set()
    single: dict[int, ast.stmt] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in ast.walk(fn):
            if not isinstance(stmt, ast.stmt) or stmt is fn or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            if stmt.lineno == stmt.end_lineno:
                single[stmt.lineno] = stmt
            if not isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
                lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
            else:  # a compound statement's own header (its body's statements are walked)
                lines.update(range(stmt.lineno, stmt.body[0].lineno))
    return lines, single


def string_swap(token: str) -> str | None:
    """A one-line string literal's mutant: emptied, or "XX" when empty
    (f-strings, bytes and triple-quoted strings left alone)."""
    prefix = token[: len(token) - len(token.lstrip("rRbBuUfF"))]
    body = token[len(prefix) :]
    if any(c in prefix for c in "fFbB") or body[:3] in ('"""', "'''"):
        return None
    quote = body[0]
    return prefix + quote * 2 if len(body) > 2 else f"{prefix}{quote}XX{quote}"


def dropped_statement(stmt: ast.stmt) -> bool:
    """A statement whose dropping is a one-line bug: an augmented
    assignment, a raise, a store into an attribute or an item (state
    another function reads)."""
    if isinstance(stmt, (ast.AugAssign, ast.Raise)):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets) and getattr(stmt, "value", None) is not None
    return False


def candidates(project: Project) -> list[Mutant]:
    out: list[Mutant] = []
    root = project.repo
    for path in sorted((root / project.source).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(s + "/") for s in project.skip) or path.name.startswith("test_") or "/tests/" in rel:
            continue
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (SyntaxError, tokenize.TokenError):
            continue
        lines = text.splitlines(keepends=True)
        inside, stmts = function_lines(tree)
        by_line: dict[int, list[tokenize.TokenInfo]] = {}
        for tok in tokens:
            if tok.start[0] == tok.end[0]:
                by_line.setdefault(tok.start[0], []).append(tok)
        for lineno in sorted(inside):
            stmt = stmts.get(lineno)
            line = lines[lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            news: list[tuple[str, str]] = []
            for tok in by_line.get(lineno, ()):
                a, b = tok.start[1], tok.end[1]
                if tok.type in (tokenize.OP, tokenize.NAME) and tok.string in SWAPS:
                    kind = "constant" if tok.string in ("True", "False") else "operator"
                    news.append((kind, line[:a] + SWAPS[tok.string] + line[b:]))
                elif tok.type == tokenize.NAME and tok.string == "not":
                    news.append(("operator", line[:a] + line[b:].lstrip()))
                elif tok.type == tokenize.NUMBER and tok.string.isdigit():
                    news.append(("constant", line[:a] + str(int(tok.string) + 1) + line[b:]))
                    if int(tok.string) > 0:  # off by one either way
                        news.append(("constant", line[:a] + str(int(tok.string) - 1) + line[b:]))
                elif tok.type == tokenize.STRING and (literal := string_swap(tok.string)) is not None:
                    news.append(("string", line[:a] + literal + line[b:]))
                elif tok.type == tokenize.NAME and tok.string in ("break", "continue"):
                    news.append(("statement", line[:a] + ("continue" if tok.string == "break" else "break") + line[b:]))
            if stmt is not None and isinstance(stmt, ast.Return) and stmt.value is not None and not (
                isinstance(stmt.value, ast.Constant) and stmt.value.value is None
            ):
                news.append(("return", f"{indent}return None\n"))
            if stmt is not None and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                news.append(("call", f"{indent}pass\n"))
            if stmt is not None and dropped_statement(stmt):
                news.append(("statement", f"{indent}pass\n"))
            for kind, new in news:
                if new == line:
                    continue
                mutated = "".join(lines[: lineno - 1]) + new + "".join(lines[lineno:])
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                out.append(Mutant(rel, lineno, line, new, kind))
    return out


def apply(project: Home, mutant: Mutant) -> None:
    path = project.repo / mutant.file
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[mutant.line - 1] == mutant.old, (mutant.file, mutant.line)
    lines[mutant.line - 1] = mutant.new
    path.write_text("".join(lines), encoding="utf-8")


# --- selections ---------------------------------------------------------------


def command_args(command: str) -> list[str]:
    """The test IDs and paths a pytest command names (``cd X && pytest a b``)."""
    import shlex

    words = shlex.split(command.split("&&")[-1])
    while words and words[0] in ("python", "python3", "-m", "pytest", "uv", "run", "poetry"):
        words = words[1:]
    return [w for w in words if not w.startswith("-")]


def selected(commands: Sequence[str], tests: Sequence[str], folder: str = "") -> set[str]:
    """The suite's tests the commands run."""
    args = [a for c in commands for a in command_args(c)]
    out = set()
    for test in tests:
        base = strip_params(test)
        file = base.split("::", 1)[0]
        for a in args:
            a = a.rstrip("/")
            if base == a or base.startswith(a + "::") or file == a or file.startswith(a + "/"):
                out.add(test)
                break
    return out


def report(project: Home, index: str, base: str) -> dict[str, object]:
    proc = cartog(
        "report", "--repo", str(project.repo), "--index", str(project.home / index), "--base", base,
        "--format", "json", "--no-related", repo=project.repo,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"cartog-ci report failed ({proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def changed_functions(data: dict[str, object], mutant: Mutant) -> list[dict[str, object]]:
    """The report's changed functions or methods holding the mutated line."""
    out = []
    for entry in data["changed"]:  # type: ignore[union-attr]
        sym = entry["symbol"]  # type: ignore[index]
        if sym is None:  # a symbol the change removed
            continue
        if sym["kind"] in ("function", "method") and sym["file"] == mutant.file and sym["start_line"] <= mutant.line <= sym["end_line"]:  # type: ignore[index,operator]
            out.append(entry)
    # the innermost only
    out.sort(key=lambda e: e["symbol"]["end_line"] - e["symbol"]["start_line"])  # type: ignore[index,operator]
    return out[:1]


def measure(project: Project, mutant: Mutant, base: dict[str, object], *, cartog_only: bool = False,
            cached: dict[str, object] | None = None, truth_only: bool = False) -> dict[str, object]:  # fmt: skip
    """One mutant: truth, testmon's selection, cartog-ci's two selections
    (not with ``truth_only``: what does not depend on the cartog-ci
    measured, measured first, its columns added by a later run)."""
    env = test_env(project)
    durations: dict[str, float] = base["durations"]  # type: ignore[assignment]
    clean(project)
    apply(project, mutant)
    row: dict[str, object] = {"id": mutant.id, "file": mutant.file, "line": mutant.line, "kind": mutant.kind,
                              "old": mutant.old.strip(), "new": mutant.new.strip()}  # fmt: skip
    if cached is not None and cartog_only and truth_only:
        # the truth confirmed alone: cartog-ci's columns stay as the row has them
        row.update({k: v for k, v in cached.items() if k not in row})
    elif cached is not None and cartog_only:
        row.update({k: cached[k] for k in ("detected", "failing", "testmon", "seconds", "confirmed", "failing_first_run") if k in cached})  # fmt: skip
    else:
        started = time.monotonic()
        try:
            truth = suite(project, env)
        except subprocess.TimeoutExpired:
            row["detected"] = False
            row["timeout"] = True
            return row
        row["seconds"] = round(time.monotonic() - started, 2)
        row["failing"] = sorted(truth.failed)
        row["detected"] = bool(truth.failed)
    if row["detected"] and "confirmed" not in row:  # drawn now, or cached from before the confirmation
        confirm(project, mutant, row)
    if not row["detected"]:
        return row
    if "testmon" not in row:
        row["testmon"] = testmon(project, env, row["failing"], durations)  # type: ignore[arg-type]
    if truth_only:
        return row
    git(project.repo, "commit", "-q", "--no-verify", "-am", f"mutant {mutant.id}")
    started = time.monotonic()
    data = report(project, "index-cov.db", str(base["commit"]))
    row["report_seconds"] = round(time.monotonic() - started, 2)
    row["tool"] = TOOL_HASH
    fns = changed_functions(data, mutant)
    failing = {strip_params(t) for t in row["failing"]}  # type: ignore[union-attr]
    # with coverage: what the commands run; static: the graph's tests (and
    # those the change edits) among them, by node ID, as a report without a
    # recording lists them (its commands run the same tests, or whole files
    # of them past MAX_TEST_IDS: the static column is a lower bound there)
    static_ids = {
        node_id(t["id"])  # type: ignore[index,arg-type]
        for t in data["tests"]  # type: ignore[union-attr]
        if set(t["chosen_by"]) & STATIC  # type: ignore[index,arg-type]
    }
    for name, chosen in (
        ("static", {t for t in durations if strip_params(t) in static_ids}),
        ("coverage", selected(data["test_commands"], list(durations))),  # type: ignore[arg-type]
    ):
        row[name] = {
            "selected": len(chosen),
            "seconds": round(sum(durations[t] for t in chosen), 3),
            "hits": held(row["failing"], chosen, project.repo),  # type: ignore[arg-type]
            "function": fns[0]["symbol"]["id"] if fns else None,  # type: ignore[index]
            # without a recording the report never says "untested" (report/coverage.py apply_coverage)
            "untested": bool(fns and fns[0]["untested"]) if name == "coverage" else False,
            "unreached": bool(fns and fns[0]["unreached"]),
        }
    row["commands"] = data["test_commands"]
    row["tests"] = [[t["id"], t["chosen_by"]] for t in data["tests"]]  # type: ignore[index,union-attr]
    del failing
    return row


def testmon(project: Project, env: dict[str, str], failing: Sequence[str], durations: dict[str, float]) -> dict[str, object]:
    """pytest-testmon's selection for the work tree, from a copy of the
    baseline recorded at the base: the tests it collects (it deselects at
    collection, so ``--collect-only`` lists what it would run without
    running it; a module that fails to import is run, as an error), and the
    failing tests among them (the truth run's: the tests are deterministic,
    the same tests fail when testmon runs them)."""
    import re

    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        datafile = Path(tmp) / ".testmondata"
        shutil.copy(project.home / "base.testmondata", datafile)
        cmd = ["python", "-m", "pytest", "-q", "-o", f"cache_dir={tmp}/cache", "--testmon", "--collect-only",
               *project.pytest_args]  # fmt: skip
        proc = run(cmd, cwd=project.repo, env={**env, "TESTMON_DATAFILE": str(datafile)}, timeout=SUITE_TIMEOUT)
    chosen = {line.strip() for line in proc.stdout.splitlines() if "::" in line and not line.startswith(" ")}
    chosen |= {m.group(1) for m in re.finditer(r"^ERROR (?:collecting )?(\S+\.py)", proc.stdout, re.M)}
    if proc.returncode not in (0, 1, 2, 5):
        raise RuntimeError(f"{project.slug}: pytest --testmon --collect-only exited {proc.returncode}: {proc.stdout[-1500:]}")
    return {
        "selected": len(chosen),
        "seconds": round(sum(durations.get(t, 0.0) for t in chosen), 3),
        "hits": held(failing, chosen, project.repo),
        "unknown": len({t for t in chosen if "::" in t} - set(durations)),
        "run_seconds": round(time.monotonic() - started, 2),
        "collected": True,
    }


# --- npm packages ------------------------------------------------------------


@dataclass(frozen=True)
class NpmProject(Home):
    """A package as ``npm pack`` ships it, with its tests; its test
    dependencies installed beside the repository (``node_modules`` is a link
    to them). The suite is each file of ``test/`` run with node (tape files
    run alone): the unit of truth and of selection is a test file, as the
    runner's commands run whole files. The tables have the static column
    only (no testmon: Python only); ``--js-coverage`` measures the
    selection with per-test-file V8 coverage apart (``js_coverage``)."""

    sources: tuple[str, ...] = ()  # the files mutated (a folder: its *.js)
    deps: tuple[str, ...] = ()  # what the tests require, as npm specs
    # test files left out of the suite: one whose fixtures the tarball lacks
    # (npm never packs a node_modules folder), or one that only requires the
    # others (its tests are theirs, run again)
    left_out: tuple[str, ...] = ()
    tests: str = "**/*.js"  # the test files under test/, as a glob (each printing no TAP plan is a helper)
    # the Debian source package whose upstream tarball is the repository
    # instead of the npm tarball, pinned (``node-semver=7.6.1+~7.5.8-2``):
    # for a package whose npm tarball leaves its tests out (``files``)
    debian: str = ""
    # what runs one test file, before its path: plain node (a tape, tap or
    # node:test file runs as a script), or the package's runner where its
    # test script runs files that are not (tape's CLI, for node's own test
    # scripts that assert and print nothing: each prints tape's plan)
    runner: tuple[str, ...] = ("node",)

    @property
    def slug(self) -> str:
        return f"npm-{self.name}-{self.version}"


NPM_PROJECTS = {
    p.name: p
    for p in (
        NpmProject(
            "qs", "6.17.1", ("lib/parse.js", "lib/stringify.js", "lib/utils.js"),
            ("tape@^5.10.3", "es-value-fixtures@^1.7.1", "for-each@^0.3.5", "has-bigints@^1.1.0",
             "has-override-mistake@^1.0.1", "has-property-descriptors@^1.0.2", "has-proto@^1.2.0",
             "has-symbols@^1.1.0", "iconv-lite@^0.5.2", "mock-property@^1.1.2", "object-inspect@^1.13.4",
             "safer-buffer@^2.1.2", "side-channel@^1.1.1", "es-define-property@^1.0.1"),
        ),
        NpmProject("minimist", "1.2.8", ("index.js",), ("tape@^5.6.3",)),
        # 1.13.4: the last version whose tarball ships its test/ folder
        NpmProject(
            "object-inspect", "1.13.4", ("index.js",),
            ("tape@^5.9.0", "error-cause@^1.0.8", "es-value-fixtures@^1.7.1", "for-each@^0.3.4",
             "functions-have-names@^1.2.3", "globalthis@^1.0.4", "has-symbols@^1.1.0", "has-tostringtag@^1.0.2",
             "make-arrow-function@^1.2.0", "mock-property@^1.1.0", "semver@^6.3.1", "string.prototype.repeat@^1.0.0"),
        ),
        # its own dependencies too (index.js requires them)
        NpmProject(
            "traverse", "0.6.11", ("index.js",),
            ("tape@^5.9.0", "es-value-fixtures@^1.7.0", "gopd@^1.2.0", "typedarray.prototype.slice@^1.0.5",
             "which-typed-array@^1.1.18"),
        ),
        # resolve and path-browserify: code in several modules or functions,
        # a test file for each part. --spread: resolve is spread (its
        # longest test file 8.3 %), path-browserify not (15.0 %: node's
        # start-up is most of a file's time, and ten files cannot all stay
        # under 10 %). resolve: its lib/ modules, its own dependencies and
        # its tests' (test/node_path.js resolves tap's)
        NpmProject(
            "resolve", "1.22.14",
            ("lib/async.js", "lib/sync.js", "lib/core.js", "lib/node-modules-paths.js", "lib/normalize-options.js",
             "lib/caller.js", "lib/homedir.js", "lib/is-core.js"),
            ("tape@^5.10.3", "es-errors@^1.3.0", "is-core-module@^2.18.0", "path-parse@^1.0.7",
             "supports-preserve-symlinks-flag@^1.0.0", "array.prototype.map@^1.0.8", "copy-dir@^1.3.0",
             "mkdirp@^0.5.6", "mock-property@^1.1.0", "mv@^2.1.1", "object-keys@^1.1.1", "rimraf@^2.7.1",
             "semver@^6.3.1", "tap@^0.4.13", "tmp@^0.0.31"),
            # each needs a folder under node_modules of its fixtures (test/resolver/...)
            ("test/pathfilter.js", "test/pathfilter_sync.js", "test/resolver.js", "test/resolver_sync.js",
             "test/subdirs.js", "test/symlinks.js"),
            "*.js",  # its tests-only script, `tape test/*.js`: the folders below are fixtures
        ),
        # node's path.posix, one function a method, its tests a file a method
        NpmProject("path-browserify", "1.0.1", ("index.js",), ("tape@^4.9.0",), ("test/index.js",)),
        # The packages below come from Debian's upstream tarballs: their npm
        # tarballs ship no tests (``files``). Each has a module a part and a
        # test file for each part; --spread (6 December 2026, load 4-7):
        # semver 50 files, 19.6 s, longest test/integration/whitespace.js
        # 20.3 % (a ReDoS test of 500,000-character strings; test/bin/semver.js,
        # which runs the CLI in children, 14.3 %): not spread. buffer 43
        # files, 31.7 s, test/node/test-buffer-indexof.js 10.5 %: not spread.
        # sshpk 13 files, 19.8 s, test/dhe.js 27.3 %; log4js 41 files, 44.0 s,
        # test/tap/pm2-support-test.js 18.8 %; cacache 13 files, 10.3 s,
        # test/verify.js 12.9 %: none spread (docs/coverage.md).
        # semver: a module a function (functions/, ranges/), its classes and
        # internals; tap 16 files run with plain node. The CLI (bin/, run in
        # a child by test/bin/semver.js) is not mutated: the library as
        # require('semver') loads it.
        NpmProject(
            "semver", "7.6.1", ("classes", "functions", "ranges", "internal", "index.js"), ("tap@^16.0.0",),
            debian="node-semver=7.6.1+~7.5.8-2",
        ),
        # buffer: Buffer's methods in one module, node's own tests of them a
        # file each (test/node/, from node's tree: scripts that assert) and
        # the package's (test/), run as its `test-node` script runs them,
        # `tape test/*.js test/node/*.js`
        NpmProject(
            "buffer", "6.0.3", ("index.js",), ("tape@^5.0.1", "base64-js@^1.3.1", "ieee754@^1.2.1"),
            ("test/node/common.js",), debian="node-buffer=6.0.3-3", runner=("node", "node_modules/tape/bin/tape"),
        ),
        # sshpk: a module a key format (lib/formats/), keys, certificates,
        # signatures (tape, `tape test/*.js`)
        NpmProject(
            "sshpk", "1.17.0", ("lib", "lib/formats"),
            ("tape@^3.5.0", "sinon@^1.17.2", "temp@^0.8.2", "asn1@~0.2.3", "assert-plus@^1.0.0", "dashdash@^1.12.0",
             "getpass@^0.1.1", "safer-buffer@^2.0.2", "jsbn@~0.1.0", "tweetnacl@~0.14.0", "ecc-jsbn@~0.1.1",
             "bcrypt-pbkdf@^1.0.0"),
            debian="node-sshpk=1.17.0+dfsg-2",
        ),
        # log4js: a module an appender (lib/appenders/), layouts, levels,
        # configuration (tap 16, plain node; its script: `tap "test/tap/**/*.js"`)
        NpmProject(
            "log4js", "6.9.1", ("lib", "lib/appenders"),
            ("tap@^16.3.4", "@log4js-node/sandboxed-module@^2.2.1", "callsites@^3.1.0", "deep-freeze@0.0.1",
             "fs-extra@^11.1.0", "proxyquire@^2.1.3", "date-format@^4.0.14", "debug@^4.3.4", "flatted@^3.2.7",
             "rfdc@^1.3.0", "streamroller@^3.1.5"),
            tests="tap/**/*.js", debian="node-log4js=6.9.1+~cs8.4.19-1",
        ),
        # cacache: a module a part of the cache (content/, the index, get,
        # put, rm, verify) (tap 16, plain node)
        NpmProject(
            "cacache", "17.0.3", ("lib", "lib/content", "lib/util"),
            ("tap@^16.0.0", "@npmcli/fs@^3.1.0", "fs-minipass@^2.1.0", "glob@^8.0.1", "lru-cache@^7.7.1",
             "minipass@^4.0.0", "minipass-collect@^1.0.2", "minipass-flush@^1.0.5", "minipass-pipeline@^1.2.4",
             "p-map@^4.0.0", "promise-inflight@^1.0.1", "ssri@^10.0.0", "tar@^6.1.11", "unique-filename@^3.0.0"),
            # expects EACCES from a folder made read-only: root is refused nothing
            ("test/util/move-file.js",),
            debian="node-cacache=17.0.3+~cs10.3.7-1",
        ),
    )
}  # fmt: skip


def node_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("NODE_", "npm_"))}


def run_test_file(project: NpmProject, test: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One test file run with node, in a home of its own (``HOME``, empty,
    removed after): resolve's ``test/home_paths*.js`` create and remove
    folders in the user's home, and a mutant's failing run leaves them
    there, where the next file (or the next mutant's run) met them and
    failed instead: the truth named a test file that had not run the
    changed line (18 of resolve's 100 misses, docs/coverage.md)."""
    with tempfile.TemporaryDirectory(prefix="home-", dir=project.home) as home:
        return run([*project.runner, test], cwd=project.repo, env={**env, "HOME": home}, timeout=SUITE_TIMEOUT)


def debian_tarball(project: NpmProject) -> Path:
    """The upstream tarball (``<package>_<version>.orig.tar.*``) of the
    pinned Debian source package, as ``apt-get source --download-only
    --tar-only`` fetches it (the machine's deb-src entries). Not checked:
    a component tarball Debian bundles beside it (``orig-types-semver.tar.*``,
    typings) may be gone from the archive; the package's own is the one
    read."""
    package, version = project.debian.split("=", 1)
    downloads = CACHE / "downloads" / "debian" / package
    upstream = version.rsplit("-", 1)[0]
    pattern = f"{package}_{upstream}.orig.tar.*"
    found = sorted(downloads.glob(pattern)) if downloads.is_dir() else []
    if not found:
        downloads.mkdir(parents=True, exist_ok=True)
        log(f"{project.slug}: apt-get source {project.debian}")
        subprocess.run(["apt-get", "source", "--download-only", "--tar-only", "-q", project.debian], cwd=downloads,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        found = sorted(downloads.glob(pattern))
    if not found:
        raise SystemExit(f"{project.slug}: apt-get source {project.debian} gave no {pattern} (run apt-get update; is a deb-src entry set?)")
    return found[0]


def source_files(project: NpmProject) -> list[str]:
    """The files mutated: ``sources``, a folder standing for its ``*.js``."""
    out: list[str] = []
    for source in project.sources:
        folder = project.repo / source
        out += sorted(p.relative_to(project.repo).as_posix() for p in folder.glob("*.js")) if folder.is_dir() else [source]
    return out


def ensure_npm(project: NpmProject) -> None:
    project.home.mkdir(parents=True, exist_ok=True)
    if not (project.repo / ".git" / "bench-ready").exists():
        if project.debian:
            tarball = debian_tarball(project)
            message = f"{project.name} {project.version}: {project.debian} upstream tarball"
        else:
            downloads = CACHE / "downloads" / "npm"
            downloads.mkdir(parents=True, exist_ok=True)
            tarball = downloads / f"{project.name}-{project.version}.tgz"
            if not tarball.exists():
                log(f"{project.slug}: npm pack")
                subprocess.run(["npm", "pack", "--silent", f"{project.name}@{project.version}"], cwd=downloads, check=True,
                               stdout=subprocess.DEVNULL)  # fmt: skip
            message = f"{project.name}@{project.version} npm tarball"
        unpacked(project, tarball, "node_modules", message)
    node = project.home / "node"
    if not (node / "bench-ready").exists():
        log(f"{project.slug}: npm install of the test dependencies")
        node.mkdir(exist_ok=True)
        # the package's own ranges, widened to their major: the registry
        # may not hold the newest of a range (tape 5.10.3 for ^5.10.3)
        specs = {name: spec.split(".")[0] for name, spec in (d.rsplit("@", 1) for d in project.deps)}
        (node / "package.json").write_text(json.dumps({"private": True, "dependencies": specs}, indent=1))
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"], cwd=node,
                       env=node_env(), check=True)  # fmt: skip
        (node / "bench-ready").touch()
    link = project.repo / "node_modules"
    if not link.exists():
        link.symlink_to(node / "node_modules")
    if not (project.home / "base.json").exists():
        clean(project)
        log(f"{project.slug}: the suite at the base")
        started = time.monotonic()
        truth = js_suite(project)
        seconds = time.monotonic() - started
        if truth.failed or not truth.durations:
            raise SystemExit(f"{project.slug}: the suite does not pass at the base: {sorted(truth.failed)[:5]}")
        log(f"{project.slug}: {len(truth.durations)} test files, {seconds:.1f} s")
        index = project.home / "index-cov.db"
        index.unlink(missing_ok=True)
        proc = cartog("index", "--repo", str(project.repo), "--index", str(index), "--no-embed", repo=project.repo)
        if proc.returncode != 0:
            raise SystemExit(f"{project.slug}: cartog-ci index failed: {proc.stderr}")
        (project.home / "base.json").write_text(
            json.dumps({"commit": base_commit(project), "seconds": seconds, "durations": truth.durations}, indent=1)
        )


def js_suite(project: NpmProject, known: Collection[str] = ()) -> Results:
    """Each test file run with node: failing when its exit code is not 0.
    Which files are tests is read at the base (a file that prints no TAP
    plan is a helper); with ``known``, the base's test files, each of them
    counts, plan or not: a failing run may print none, and was dropped
    from the truth as a helper before (a tape test whose callback throws
    ends the process before tape prints its plan, and so does a file whose
    require throws; buffer's node-core scripts under tape's CLI throw at
    their first failed assert: docs/coverage.md)."""
    out = Results()
    for path in sorted((project.repo / "test").glob(project.tests)):
        rel = path.relative_to(project.repo).as_posix()
        if rel in project.left_out or (known and rel not in known):
            continue
        started = time.monotonic()
        proc = run_test_file(project, rel, node_env())
        if not known and "\n1.." not in proc.stdout and "# tests" not in proc.stdout:
            continue  # a helper, no test file: tape prints a plan
        out.durations[rel] = round(time.monotonic() - started, 3)
        if proc.returncode != 0:
            out.failed.add(rel)
    return out


_JS_SWAPS = [("===", "!=="), ("!==", "==="), ("<=", "<"), (">=", ">"), ("&&", "||"), ("||", "&&"),
             (" < ", " <= "), (" > ", " >= "), (" + ", " - "), (" - ", " + "), ("true", "false"), ("false", "true")]  # fmt: skip


def _outside_strings(line: str, at: int) -> bool:
    quote = ""
    for i, ch in enumerate(line[:at]):
        if quote:
            if ch == quote and line[i - 1] != "\\":
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif line[i : i + 2] == "//":
            return False
    return not quote


def _function_literals(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(first line, last line) of each ``function (...) {`` written in the
    file, by its braces outside strings and comments: the functions the
    index holds no symbol for (minimist's whole parser is the anonymous
    function it exports)."""
    import re

    out: list[tuple[int, int]] = []
    for n, line in enumerate(lines, 1):
        found = re.search(r"\bfunction\b[^{]*\{", line)
        if not found or not _outside_strings(line, found.start()):
            continue
        depth = 0
        for m, text in enumerate(lines[n - 1 :], n):
            start = found.end() - 1 if m == n else 0
            for at in range(start, len(text)):
                if text[at] in "{}" and _outside_strings(text, at):
                    depth += 1 if text[at] == "{" else -1
                    if depth == 0:
                        break
            if depth == 0:
                out.append((n, m))
                break
    return out


def js_candidates(project: NpmProject) -> list[Mutant]:
    """One-line changes on the lines inside a function's body (its lines in
    the index at the base, first and last excluded)."""
    import re
    import sqlite3

    db = sqlite3.connect(project.home / "index-cov.db")
    spans: dict[str, list[tuple[int, int]]] = {}
    files = source_files(project)
    marks = ", ".join("?" * len(files))
    for file, start, end in db.execute(
        f"SELECT file, start_line, end_line FROM symbols WHERE kind IN ('function', 'method') AND file IN ({marks})",
        files,
    ):
        spans.setdefault(file, []).append((start, end))
    db.close()
    out: list[Mutant] = []
    for file in files:
        lines = (project.repo / file).read_text(encoding="utf-8").splitlines(keepends=True)
        spans.setdefault(file, []).extend(_function_literals(lines))
        inside = {n for start, end in spans.get(file, []) for n in range(start + 1, end)}
        for n in sorted(inside):
            line = lines[n - 1]
            code = line.strip()
            if not code or code.startswith(("//", "*", "/*")):
                continue
            indent = line[: len(line) - len(line.lstrip())]
            news: list[tuple[str, str]] = []
            for old, new in _JS_SWAPS:  # each place of each operator
                kind = "constant" if old in ("true", "false") else "operator"
                pattern = rf"\b{old}\b" if kind == "constant" else re.escape(old)
                for found in re.finditer(pattern, line):
                    at = found.start()
                    if _outside_strings(line, at) and not (old in ("<=", ">=") and line[at - 1 : at] in "=!<>"):
                        news.append((kind, line[:at] + new + line[at + len(old) :]))
            for number in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", line):
                if _outside_strings(line, number.start()):
                    news.append(("constant", line[: number.start()] + str(int(number.group(1)) + 1) + line[number.end() :]))
            ret = re.match(r"\s*return\s+(?!undefined;)(.+);\s*$", line)
            if ret:
                news.append(("return", f"{indent}return undefined;\n"))
            if re.match(r"\s*[\w.$\[\]]+\(.*\);\s*$", line) and not code.startswith(("return", "var", "let", "const")):
                news.append(("call", f"{indent};\n"))
            out += [Mutant(file, n, line, new, kind) for kind, new in news if new != line]
    return out


def measure_js(project: NpmProject, mutant: Mutant, base: dict[str, object], cached: dict[str, object] | None = None,
               truth_only: bool = False) -> dict[str, object]:  # fmt: skip
    """One mutant: truth, then cartog-ci's selection (only that with a
    ``cached`` truth)."""
    durations: dict[str, float] = base["durations"]  # type: ignore[assignment]
    clean(project)
    apply(project, mutant)
    row: dict[str, object] = {"id": mutant.id, "file": mutant.file, "line": mutant.line, "kind": mutant.kind,
                              "old": mutant.old.strip(), "new": mutant.new.strip()}  # fmt: skip
    if cached is not None:
        row.update({k: cached[k] for k in ("detected", "failing", "seconds")})
    elif run(["node", "--check", mutant.file], cwd=project.repo, env=node_env()).returncode != 0:
        row.update(detected=False, invalid=True)
        return row
    else:
        started = time.monotonic()
        try:
            truth = js_suite(project, durations)
        except subprocess.TimeoutExpired:
            row.update(detected=False, timeout=True)
            return row
        row["seconds"] = round(time.monotonic() - started, 2)
        row["failing"] = sorted(truth.failed)
        row["detected"] = bool(truth.failed)
    failed = set(row["failing"])  # type: ignore[arg-type]
    if not failed or truth_only:
        return row
    git(project.repo, "commit", "-q", "--no-verify", "-am", f"mutant {mutant.id}")
    data = report(project, "index-cov.db", str(base["commit"]))  # type: ignore[arg-type]
    row["tool"] = TOOL_HASH
    chosen = selected(data["test_commands"], list(durations))  # type: ignore[arg-type]
    fns = changed_functions(data, mutant)
    row["static"] = {
        "selected": len(chosen),
        "seconds": round(sum(durations[t] for t in chosen), 3),
        "hits": sorted(t for t in failed if t in chosen),
        "function": fns[0]["symbol"]["id"] if fns else None,  # type: ignore[index]
        "untested": bool(fns and fns[0]["untested"]),
        "unreached": bool(fns and fns[0]["unreached"]),
    }
    row["commands"] = data["test_commands"]
    return row


def js_coverage(project: NpmProject, limit: int) -> str:
    """Per-test-file coverage for an npm package (issue 30 step 3): each
    test file run alone with node's own V8 coverage (``NODE_V8_COVERAGE``,
    one directory each: no package to install), imported with ``cartog-ci
    coverage import`` into a fresh index at the base (``index-v8.db``), then
    the cached kept mutants' report commands on it, against their cached
    truth (a test file is the unit). Rows go to ``v8-rows.json``; the truth
    is not run again. Run it when no other run measures the project."""
    base = json.loads((project.home / "base.json").read_text())
    durations: dict[str, float] = base["durations"]
    clean(project)
    runs = []
    for test in sorted(durations):
        folder = project.home / "v8" / test.replace("/", "_")
        shutil.rmtree(folder, ignore_errors=True)
        run_test_file(project, test, {**node_env(), "NODE_V8_COVERAGE": str(folder)})
        # named: a run that requires other test files executed them too,
        # and by its content would name them all
        runs.append(f"{test}={folder}")
    index = "index-v8.db"
    (project.home / index).unlink(missing_ok=True)
    for args in (("index", "--no-embed"), ("coverage", "import", *runs)):
        proc = cartog(*args, "--repo", str(project.repo), "--index", str(project.home / index), repo=project.repo)
        if proc.returncode != 0:
            raise SystemExit(f"{project.slug}: cartog-ci {args[0]} failed: {proc.stderr[-2000:]}")
    imported = (proc.stdout + proc.stderr).strip().splitlines()[0]
    pool = {m.id: m for m in js_candidates(project)}
    # the kept mutants in the order they were drawn, with or without the
    # static column (``--truth-only`` measures the truth alone: the report of
    # this recording is measured here)
    rows = [r for r in cached_rows(project).values() if r.get("detected") and r["id"] in pool][:limit]
    out = []
    try:
        for r in rows:
            clean(project)
            apply(project, pool[str(r["id"])])
            git(project.repo, "commit", "-q", "--no-verify", "-am", f"mutant {r['id']}")
            data = report(project, index, str(base["commit"]))
            chosen = selected(data["test_commands"], list(durations))  # type: ignore[arg-type]
            failing = set(r["failing"])  # type: ignore[arg-type]
            # the test files the recording chose (not the graph): where the share goes
            recorded = {t["file"] for t in data["tests"] if "coverage" in t["chosen_by"] and t["file"] in durations}  # type: ignore[union-attr,index]
            out.append({"id": r["id"], "failing": sorted(failing), "chosen": sorted(chosen), "hits": sorted(failing & chosen),
                        "seconds": round(sum(durations[t] for t in chosen), 3), "recorded": sorted(recorded),
                        "recorded_hits": sorted(failing & recorded),
                        "recorded_seconds": round(sum(durations[t] for t in recorded), 3)})  # fmt: skip
    finally:
        clean(project)
    (project.home / "v8-rows.json").write_text(json.dumps(out, indent=1) + "\n")
    n, total = len(out), sum(durations.values())
    failing_units = sum(len(o["failing"]) for o in out)
    missed = [f"{pool[str(o['id'])].file}:{pool[str(o['id'])].line}" for o in out if not o["hits"]]
    floor = sum(durations[t] for o in out for t in o["failing"]) / (total * n)
    return (
        f"{project.slug}: {imported}; {n} mutants: caught {sum(1 for o in out if o['hits'])}, "
        f"recall {sum(len(o['hits']) for o in out) / failing_units:.1%}, time share "
        f"{sum(o['seconds'] for o in out) / (total * n):.1%} (failing test files only {floor:.1%}; the "
        f"recording's own choice, without the graph's: caught {sum(1 for o in out if o['recorded_hits'])}, recall "
        f"{sum(len(o['recorded_hits']) for o in out) / failing_units:.1%}, time share "
        f"{sum(o['recorded_seconds'] for o in out) / (total * n):.1%}); "
        f"missed {', '.join(missed) or 'none'} (load {os.getloadavg()[0]:.1f} at the end)"
    )


def bench_npm(project: NpmProject, mutants: int, seed: int, fresh: bool, truth_only: bool = False, cached_only: bool = False) -> Iterator[None]:
    ensure_npm(project)
    clean(project)  # a run stopped mid-mutant left it applied
    base = json.loads((project.home / "base.json").read_text())
    yield from turns(
        project, js_candidates(project), mutants, seed, fresh, lambda m, have: measure_js(project, m, base, have, truth_only),
        truth_only, cached_only,
    )  # fmt: skip


# --- the loop and the tables ----------------------------------------------------


def cached_rows(project: Home) -> dict[str, dict[str, object]]:
    path = project.home / "mutants.jsonl"
    rows: dict[str, dict[str, object]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["id"]] = row
    return rows


def bench(project: Project, mutants: int, seed: int, fresh: bool, truth_only: bool = False, cached_only: bool = False) -> Iterator[None]:
    ensure(project)
    clean(project)  # a run stopped mid-mutant left it applied: the candidates are the base's
    if not truth_only:
        import_coverage(project)
    base = json.loads((project.home / "base.json").read_text())
    yield from turns(
        project, candidates(project), mutants, seed, fresh,
        lambda m, have: measure(project, m, base, cartog_only=have is not None, cached=have, truth_only=truth_only),
        truth_only, cached_only,
    )  # fmt: skip


def turns(
    project: Home,
    pool: list[Mutant],
    mutants: int,
    seed: int,
    fresh: bool,
    measure_one: Callable[[Mutant, dict[str, object] | None], dict[str, object]],
    truth_only: bool = False,
    cached_only: bool = False,
) -> Iterator[None]:
    """Measure the project's mutants, drawn in a seeded order, until
    ``mutants`` are kept, yielding after each (the projects take turns);
    a cached row measured by another cartog-ci (``TOOL_HASH``), or any
    with ``fresh``, is measured again (its truth kept). With
    ``truth_only`` a mutant is kept once the full suite detected it
    (cartog-ci's columns come in a later run, from the cached truth)."""
    rows = cached_rows(project)
    random.Random(f"{seed}:{project.name}").shuffle(pool)
    # the mutants whose truth is cached first (cartog-ci's columns alone are
    # cheap to measure again), each group in the seeded order
    pool.sort(key=lambda m: m.id not in rows)
    if FROM_END:  # a second worker, on a copy of the cache: the mutants not tried yet from the other end
        cut = sum(1 for m in pool if m.id in rows)
        pool[cut:] = pool[cut:][::-1]

    def confirmed(row: dict[str, object]) -> bool:
        """A truth the benchmark keeps: a Python mutant's failing tests are
        confirmed by a second run (``confirm``); a row cached from before
        is confirmed when its turn comes (only its failing tests run), and
        a mutant left with none is replaced by the next in the order."""
        return "confirmed" in row or not isinstance(project, Project)

    def current(row: dict[str, object]) -> bool:
        return "static" in row and row.get("tool") == TOOL_HASH and not fresh and confirmed(row)

    if truth_only:
        kept = sum(1 for r in rows.values() if r.get("detected") and confirmed(r))
    else:
        kept = sum(1 for r in rows.values() if r.get("detected") and current(r))
    base = json.loads((project.home / "base.json").read_text())
    log(f"{project.slug}: {len(pool)} candidate mutants, {kept} kept in the cache; suite {base['seconds']:.1f} s")
    try:
        for mutant in pool:
            if kept >= mutants:
                break
            have = rows.get(mutant.id)
            if have is not None and (not have.get("detected") or (truth_only and confirmed(have)) or current(have)):
                continue
            if have is None and cached_only:
                continue
            row = measure_one(mutant, have)
            rows[mutant.id] = row
            with (project.home / "mutants.jsonl").open("a") as out:
                out.write(json.dumps(row) + "\n")
            if row.get("detected"):
                kept += 1
                found = ", ".join(
                    f"{c} {len(row[c]['hits'])}/{row[c]['selected']}"  # type: ignore[index,arg-type]
                    for c in ("static", "coverage", "testmon") if c in row
                )  # fmt: skip
                log(f"{project.slug} {kept}/{mutants} {mutant.file}:{mutant.line} {mutant.kind}: {len(row['failing'])} failing; {found}")  # type: ignore[arg-type]  # fmt: skip
            elif row.get("dropped"):  # detected by the suite's run, no failing test confirmed
                log(f"{project.slug} dropped {mutant.file}:{mutant.line} {mutant.kind}: {row['dropped']}")
            elif row.get("timeout"):  # tried, not kept: a loop the mutant made, or a load that slowed the suite
                log(f"{project.slug} timed out after {SUITE_TIMEOUT} s {mutant.file}:{mutant.line} {mutant.kind}")
            elif not row.get("invalid"):
                log(f"{project.slug} survived {mutant.file}:{mutant.line} {mutant.kind}")
            yield
    finally:
        clean(project)


class LineContexts:
    """The base recording's contexts by line (coverage.py's API, from
    TOOL_SITE): the question of issue 30's step 3, whether the changed
    *line*'s tests select as well as the changed function's. A line of a
    statement written on several lines is recorded on the statement's
    first line (of a compound statement, its header's)."""

    def __init__(self, project: Project) -> None:
        if str(TOOL_SITE) not in sys.path:
            sys.path.append(str(TOOL_SITE))
        from coverage import CoverageData

        self.project = project
        self.data = CoverageData(basename=str(project.home / "base.coverage"))
        self.data.read()
        self.by_file: dict[str, dict[int, list[str]]] = {}
        self.firsts: dict[str, dict[int, int]] = {}

    def tests(self, file: str, line: int) -> tuple[set[str], bool]:
        """(the node IDs of the tests whose run executed ``line`` of
        ``file`` at the base, whether it ran outside any test: at import)."""
        if file not in self.by_file:
            measured = [m for m in self.data.measured_files() if m == file or m.endswith("/" + file)]
            self.by_file[file] = self.data.contexts_by_lineno(measured[0]) if measured else {}
            self.firsts[file] = statement_firsts(git(self.project.repo, "show", f"{base_commit(self.project)}:{file}"))
        contexts = self.by_file[file].get(self.firsts[file].get(line, line), [])
        nodes = {c.rsplit("|", 1)[0] for c in contexts if c}
        return nodes, "" in contexts


def statement_firsts(text: str) -> dict[int, int]:
    """Line -> the line coverage.py records it on: its innermost
    statement's first line (a compound statement's header lines: its
    first)."""
    out: dict[int, int] = {}
    spans = []
    for stmt in ast.walk(ast.parse(text)):
        if not isinstance(stmt, ast.stmt):
            continue
        last = stmt.end_lineno or stmt.lineno
        body = getattr(stmt, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = body[0].lineno - 1
        spans.append((stmt.lineno, max(last, stmt.lineno)))
    for first, last in sorted(spans, key=lambda s: s[1] - s[0], reverse=True):  # outermost first
        for n in range(first, last + 1):
            out[n] = first
    return out


def at_import(project: Project) -> str:
    """Of the lines the mutants change (the candidates, at the base): how
    many are in a function the recording shows running at import or
    collection, and how many ran there themselves (what the import rule of
    report/coverage.py reads: the line's, not the function's). Read from
    the work tree: run it when no run is measuring the project."""
    import sqlite3

    recorded = LineContexts(project)
    db = sqlite3.connect(project.home / "index-cov.db")
    spans: dict[str, list[tuple[int, int]]] = {}
    for file, start, end in db.execute("SELECT file, start_line, end_line FROM symbols WHERE kind IN ('function', 'method')"):
        spans.setdefault(file, []).append((start, end))
    db.close()
    lines = sorted({(m.file, m.line) for m in candidates(project)})
    in_function = ran = 0
    for file, line in lines:
        inner = sorted((s for s in spans.get(file, []) if s[0] <= line <= s[1]), key=lambda s: s[1] - s[0])
        ran += recorded.tests(file, line)[1]
        in_function += bool(inner) and any(recorded.tests(file, n)[1] for n in range(inner[0][0] + 1, inner[0][1] + 1))
    return f"{project.slug}: {len(lines)} mutated lines, {in_function} in a function run at import, {ran} run at import"


def summary(project: Home, limit: int) -> dict[str, object] | None:
    if not (project.home / "base.json").exists():
        return None
    base = json.loads((project.home / "base.json").read_text())
    total = sum(base["durations"].values())
    tried = list(cached_rows(project).values())
    rows = [r for r in tried if r.get("detected") and "static" in r]
    # the rows of the cartog-ci that measured last (a row keeps its TOOL_HASH)
    tools = [r["tool"] for r in rows if r.get("tool")]
    rows = [r for r in rows if r.get("tool") == tools[-1]][:limit] if tools else rows[:limit]
    if not rows:
        return None
    columns = [c for c in ("static", "coverage", "testmon") if c in rows[0]]
    if isinstance(project, Project):
        # the selections again from what the row keeps, against the failing
        # tests as ``held`` reads them now (a module that failed to import)
        for r in rows:
            static_ids = {
                node_id(t)
                for t, by in r["tests"] if set(by) & STATIC  # type: ignore[attr-defined]
            }
            static = {t for t in base["durations"] if strip_params(t) in static_ids}
            r["static"]["hits"] = held(r["failing"], static, project.repo)  # type: ignore[index,arg-type]
            covered = selected(r["commands"], list(base["durations"]))  # type: ignore[arg-type]
            r["coverage"]["hits"] = held(r["failing"], covered, project.repo)  # type: ignore[index,arg-type]
            # the report's tests themselves, by node ID: what its commands
            # would run without running whole files past MAX_TEST_IDS
            ids = {node_id(t) for t, _ in r["tests"]}  # type: ignore[attr-defined]
            listed = {t for t in base["durations"] if strip_params(t) in ids}
            r["listed"] = {
                "selected": len(listed),
                "seconds": round(sum(base["durations"][t] for t in listed), 3),
                "hits": held(r["failing"], listed, project.repo),  # type: ignore[arg-type]
            }
        columns.insert(columns.index("coverage") + 1, "listed")
        if (project.home / "base.coverage").exists():
            recorded = LineContexts(project)
            for r in rows:
                at_import = {
                    node_id(t)
                    for t, by in r["tests"] if "import" in by  # type: ignore[attr-defined]
                }  # fmt: skip
                nodes, ran_at_import = recorded.tests(r["file"], r["line"])  # type: ignore[arg-type]
                # the report's other sources kept: the graph's tests (and those the change edits)
                graph = {
                    node_id(t)
                    for t, by in r["tests"] if set(by) & STATIC  # type: ignore[attr-defined]
                }  # fmt: skip
                chosen = {t for t in base["durations"] if t in nodes or strip_params(t) in graph}
                if ran_at_import:
                    chosen |= {t for t in base["durations"] if strip_params(t) in at_import}
                r["lines"] = {
                    "selected": len(chosen),
                    "seconds": round(sum(base["durations"][t] for t in chosen), 3),
                    "hits": held(r["failing"], chosen, project.repo),  # type: ignore[arg-type]
                }
            columns.insert(columns.index("listed") + 1, "lines")
        # the failing tests alone: what a selector that knew the outcome
        # would run, the floor of the time share at full recall
        for r in rows:
            failing = {t for t in base["durations"] if t in set(r["failing"])}  # type: ignore[arg-type]
            r["failing only"] = {
                "selected": len(failing),
                "seconds": round(sum(base["durations"][t] for t in failing), 3),
                "hits": list(r["failing"]),  # type: ignore[call-overload]
            }
        columns.append("failing only")
    out: dict[str, object] = {
        "project": project.slug, "tests": len(base["durations"]), "suite_seconds": round(base["seconds"], 1),
        "mutants": len(rows), "tried": sum(1 for r in tried if not r.get("invalid")), "columns": columns,
    }  # fmt: skip
    failing = sum(len(r["failing"]) for r in rows)  # type: ignore[arg-type]
    for col in columns:
        caught = sum(1 for r in rows if r[col]["hits"])  # type: ignore[index]
        hits = sum(len(r[col]["hits"]) for r in rows)  # type: ignore[index,arg-type]
        share = sum(r[col]["seconds"] for r in rows) / (total * len(rows))  # type: ignore[index,misc]
        out[col] = {"caught": caught, "recall": hits / failing, "time_share": share,
                    "missed": [f"{r['file']}:{r['line']} {r['kind']}: {r['old']} -> {r['new']}" for r in rows if not r[col]["hits"]]}  # type: ignore[index]  # fmt: skip
        if col in ("static", "coverage"):
            out[col]["untested"] = sum(1 for r in rows if r[col]["untested"])  # type: ignore[index]
            out[col]["unreached"] = sum(1 for r in rows if r[col]["unreached"])  # type: ignore[index]
    return out


# what each column is, as the table names it (docs/coverage.md, "Measured")
LABELS = {
    "static": "static (graph)",
    "coverage": "report commands",
    "listed": "cartog-ci test",
    "lines": "changed line",
    "testmon": "testmon",
    "failing only": "failing tests only",
}


def tables(projects: Sequence[Home], limit: int) -> str:
    lines = [
        "| project | tests | suite s | mutants (tried) | selection | caught | recall | time share | said untested | no test in graph |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    misses = []
    for project in projects:
        s = summary(project, limit)
        if s is None:
            continue
        n = s["mutants"]
        for col in s["columns"]:  # type: ignore[attr-defined]
            c = s[col]  # type: ignore[index]
            extra = (f"{c['untested']} ({c['untested'] / n:.1%})", f"{c['unreached']} ({c['unreached'] / n:.1%})") if "untested" in c else ("", "")  # type: ignore[operator]  # fmt: skip
            if col == "static":
                extra = ("-", extra[1])
            lines.append(
                f"| {s['project']} | {s['tests']} | {s['suite_seconds']} | {n} ({s['tried']}) | {LABELS.get(col, col)} | "
                f"{c['caught']} ({c['caught'] / n:.1%}) | {c['recall']:.1%} | {c['time_share']:.1%} | {extra[0]} | {extra[1]} |"  # type: ignore[operator]
            )
            misses += [f"- {s['project']} {LABELS.get(col, col)}: {m}" for m in c["missed"]]  # type: ignore[index]
    return "\n".join([*lines, "", *phases(projects)]) + (
        "\n\nMutants whose selection holds no failing test:\n" + "\n".join(misses) if misses else ""
    )


def widest(project: Project, limit: int, shown: int) -> list[str]:
    """Where `cartog-ci test`'s time share goes (issue 30 step 2): per
    mutated file, the points of the project's mean share that the selection,
    the failing tests alone and testmon take; then the ``shown`` mutants
    whose selection exceeds their failing tests the most, with what chose
    its tests (``chosen_by``: how many tests each source chose). Shares are
    of the sum of the base run's per-test durations (JUnit ``time``: setup,
    call and teardown), as in the tables."""
    import collections

    base = json.loads((project.home / "base.json").read_text())
    durations: dict[str, float] = base["durations"]
    total = sum(durations.values())
    rows = [r for r in cached_rows(project).values() if r.get("detected") and "tests" in r]
    tools = [r["tool"] for r in rows if r.get("tool")]
    rows = [r for r in rows if r.get("tool") == tools[-1]][:limit] if tools else rows[:limit]
    if not rows:
        return []
    per_file: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    cases = []
    for r in rows:
        ids = {node_id(t) for t, _ in r["tests"]}  # type: ignore[attr-defined]
        chosen = sum(d for t, d in durations.items() if strip_params(t) in ids) / total
        failing = sum(durations.get(t, 0.0) for t in set(r["failing"])) / total  # type: ignore[arg-type]
        testmon = float(r["testmon"]["seconds"]) / total if isinstance(r.get("testmon"), dict) else 0.0  # type: ignore[index,arg-type]
        group = per_file[str(r["file"])]
        group[0] += 1
        group[1] += chosen
        group[2] += failing
        group[3] += testmon
        by = collections.Counter(b for _, bys in r["tests"] for b in bys)  # type: ignore[attr-defined]
        cases.append((chosen - failing, chosen, failing, testmon, len(r["failing"]), r, dict(by)))  # type: ignore[arg-type]
    n = len(rows)
    out = [f"{project.slug}: {n} mutants; sum of per-test durations {total:.1f} s of a {base['seconds']:.1f} s suite run "
           "(start-up and collection are in neither side of the share)",
           "  points of the mean time share by mutated file: cartog-ci test / failing tests only / testmon"]  # fmt: skip
    for file, (count, chosen, failing, testmon) in sorted(per_file.items(), key=lambda kv: -kv[1][1]):
        out.append(f"  {file}: {count:.0f} mutants, {100 * chosen / n:.1f} / {100 * failing / n:.1f} / {100 * testmon / n:.1f}")
    cases.sort(key=lambda c: -c[0])
    out.append(f"  widest: {sum(1 for c in cases if c[0] > 0.2)} mutants select over 20 points more than their failing tests")
    for excess, chosen, failing, testmon, count, r, by in cases[:shown]:
        out.append(
            f"  {r['file']}:{r['line']} {r['kind']} ({str(r['old'])[:48]!r}): {chosen:.1%} selected, "
            f"{failing:.1%} failing ({count} tests), testmon {testmon:.1%}; chosen by {by}"
        )
    return out


def wall(project: Project, samples: int, seed: int) -> str:
    """The other reading of "the selected share of the suite's time": the
    wall-clock time of the command that runs a mutant's selection (what
    `cartog-ci test` runs: the report's tests by node ID, start-up and
    collection included) over the whole suite's, both run at the base in a
    copy of the repository (the mutants' run may hold the work tree),
    alternately, for ``samples`` kept mutants drawn with the seed."""
    import statistics

    base = json.loads((project.home / "base.json").read_text())
    rows = [r for r in cached_rows(project).values() if r.get("detected") and "tests" in r]
    random.Random(f"{seed}:{project.name}:wall").shuffle(rows)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        copy.mkdir()
        archive = subprocess.run(["git", "-C", str(project.repo), "archive", str(base["commit"])], capture_output=True, check=True)
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(copy, filter="data")
        env = {**test_env(project), "PYTHONPATH": str(copy / project.path)}
        pytest = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *project.pytest_args]

        def timed(args: list[str]) -> float:
            started = time.monotonic()
            run([*pytest, *args], cwd=copy, env=env, timeout=SUITE_TIMEOUT)
            return time.monotonic() - started

        selected_s, whole_s, shares = [], [], []
        for r in rows[:samples]:
            ids = sorted({node_id(t) for t, _ in r["tests"]})  # type: ignore[attr-defined]
            whole_s.append(timed([]))
            selected_s.append(timed(ids) if ids else 0.0)
            shares.append(selected_s[-1] / whole_s[-1])
    return (
        f"{project.slug}: {len(shares)} mutants, selection {statistics.median(selected_s):.1f} s, "
        f"whole suite {statistics.median(whole_s):.1f} s (medians); wall share {statistics.mean(shares):.1%} "
        f"(mean of the ratios; load {os.getloadavg()[0]:.1f} at the end)"
    )


def spread(project: Home) -> str:
    """How spread out the suite is, from its base run alone (no selection
    read): its run time, its units (tests; an npm package's test files),
    the longest unit's and the largest test file's share of the summed
    per-unit time, against SPREAD: a figure read beside the measured time
    share (it was once the rule a project was added by; see DEFAULT)."""
    base = json.loads((project.home / "base.json").read_text())
    durations: dict[str, float] = base["durations"]
    total = sum(durations.values()) or 1.0
    files: dict[str, float] = {}
    for test, seconds in durations.items():
        files[test.split("::", 1)[0]] = files.get(test.split("::", 1)[0], 0.0) + seconds
    longest = max(durations, key=lambda t: durations[t])
    share = durations[longest] / total
    return (
        f"{project.slug}: suite {base['seconds']:.1f} s, {len(durations)} units in {len(files)} files; longest "
        f"{longest} {share:.1%}, largest file {max(files.values()) / total:.1%} of {total:.1f} s; "
        f"{'spread' if share <= SPREAD and base['seconds'] <= 90 else 'not spread'} (rule: longest <= {SPREAD:.0%}, suite <= 90 s)"
    )


def phases(projects: Sequence[Home]) -> list[str]:
    """Where a mutant's time goes: the median seconds of its full-suite
    truth run, of the cartog-ci report, of testmon's selection, over the
    rows that timed them (all measured at the load the run had)."""
    import statistics

    out = ["| project | rows timed | truth s | report s | testmon s |", "|---|---:|---:|---:|---:|"]
    for project in projects:
        rows = [r for r in cached_rows(project).values() if r.get("report_seconds") is not None]
        if not rows:
            continue

        def median(values: list[float]) -> str:
            return f"{statistics.median(values):.1f}" if values else "-"

        truth = [float(r["seconds"]) for r in rows if r.get("seconds") is not None]  # type: ignore[arg-type]
        cartog = [float(r["report_seconds"]) for r in rows]  # type: ignore[arg-type]
        testmon = [float(r["testmon"]["run_seconds"]) for r in rows if isinstance(r.get("testmon"), dict) and "run_seconds" in r["testmon"]]  # type: ignore[index,arg-type]
        out.append(f"| {project.slug} | {len(rows)} | {median(truth)} | {median(cartog)} | {median(testmon)} |")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="*", default=list(DEFAULT), help="of " + ", ".join([*PROJECTS, *(f"npm:{n}" for n in NPM_PROJECTS)]))
    parser.add_argument("--mutants", type=int, default=100, help="kept (detected) mutants per project")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="measure cartog-ci's columns again (truth and testmon kept)")
    parser.add_argument("--tables", action="store_true", help="print the tables of the cached results only")
    parser.add_argument("--truth-only", action="store_true",
                        help="the full suite's truth and testmon only (cartog-ci's columns in a later run, from the cache)")
    parser.add_argument("--cached-only", action="store_true", help="measure only the mutants whose truth is cached (cartog-ci's columns)")
    parser.add_argument("--timeout", type=float, default=SUITE_TIMEOUT, metavar="SECONDS",
                        help=f"a suite run longer than this is a mutant dropped (default {SUITE_TIMEOUT}; longer on a loaded machine)")
    parser.add_argument("--from-end", action="store_true",
                        help="draw the mutants not tried yet from the end of the seeded order: a second worker on a copy "
                             "of a project's cache (CARTOG_CI_BENCH_CACHE) that the first does not meet; append the rows "
                             "it adds to the first's mutants.jsonl when both are done")
    parser.add_argument("--json", help="write the per-project summaries here")
    parser.add_argument("--at-import", action="store_true", help="print how many mutated lines ran at import (cached projects)")
    parser.add_argument("--js-coverage", action="store_true",
                        help="npm packages: the cached mutants selected with per-test-file V8 coverage (node's own)")
    parser.add_argument("--widest", type=int, metavar="N",
                        help="where the time share goes: per mutated file, and the N mutants whose selection exceeds "
                             "their failing tests most (cached projects)")
    parser.add_argument("--wall", type=int, metavar="N",
                        help="time, for N cached mutants, the command of their selection against the whole suite (wall clock)")
    parser.add_argument("--spread", action="store_true",
                        help="how spread out each set-up project's suite is (base run only; a figure read beside the time share, not a gate)")
    args = parser.parse_args(argv)
    globals()["SUITE_TIMEOUT"] = args.timeout  # read by every suite run
    globals()["FROM_END"] = args.from_end
    known: dict[str, Home] = {**PROJECTS, **{f"npm:{k}": v for k, v in NPM_PROJECTS.items()}}
    unknown = [p for p in args.projects if p not in known]
    if unknown:
        parser.error(f"unknown project(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    projects = [known[p] for p in args.projects]
    if args.spread:
        for p in projects:
            if (p.home / "base.json").exists():
                print(spread(p), flush=True)
        return 0
    if args.wall:
        for p in projects:
            if isinstance(p, Project) and (p.home / "base.json").exists():
                print(wall(p, args.wall, args.seed), flush=True)
        return 0
    if args.js_coverage:
        for p in projects:
            if isinstance(p, NpmProject) and (p.home / "base.json").exists():
                print(js_coverage(p, args.mutants), flush=True)
        return 0
    if args.widest:
        for p in projects:
            if isinstance(p, Project) and (p.home / "base.json").exists():
                print("\n".join(widest(p, args.mutants, args.widest)), flush=True)
        return 0
    if args.at_import:
        for p in projects:
            if isinstance(p, Project) and (p.home / "base.coverage").exists():
                print(at_import(p))
        return 0
    if not args.tables:
        # the projects take turns, one mutant each: a run stopped early has
        # measured every project
        turns = [
            bench(p, args.mutants, args.seed, args.fresh, args.truth_only, args.cached_only) if isinstance(p, Project)
            else bench_npm(p, args.mutants, args.seed, args.fresh, args.truth_only, args.cached_only)
            for p in projects
        ]
        while turns:
            for turn in list(turns):
                try:
                    next(turn)
                except StopIteration:
                    turns.remove(turn)
                except SystemExit as exc:  # a project whose suite cannot run here: the others go on
                    log(f"skipped: {exc}")
                    turns.remove(turn)
    print(tables(projects, args.mutants))
    if args.json:
        Path(args.json).write_text(json.dumps([summary(p, args.mutants) for p in projects], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
