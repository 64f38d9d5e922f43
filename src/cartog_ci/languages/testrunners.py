"""Which runner a project's tests use, read from its own configuration
(docs/report.md, "Tests to run").

Every rule looks for the configuration nearest to a test file, walking up
its folders to the repository root: ``pyproject.toml``/``pytest.ini``/
``setup.cfg``/``tox.ini``/``conftest.py`` for Python, ``package.json`` and
the lockfile for JavaScript and TypeScript, ``go.mod``, ``Cargo.toml``,
``pom.xml``/``build.gradle``, ``Gemfile``. The files are read from the work
tree, each once per report (``Workspace`` caches them).

A command runs from the folder its runner expects (``cd ui && ...`` when
that is not the repository root) with paths relative to that folder, and
says how many tests it runs: a whole file counts every test the graph knows
in it, so the count the report gives is what the command runs.
"""

from __future__ import annotations

import heapq
import json
import os
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol

if TYPE_CHECKING:
    import configparser

# More tests than this in one command the report prints: whole files
# instead of test IDs (not in the exact commands `cartog-ci test` runs).
MAX_TEST_IDS = 30
# The longest exact command (characters): past it, the IDs go to several
# commands of the same runner. The whole line is one argument of ``sh -c``,
# which Linux caps at 128 KiB (MAX_ARG_STRLEN); Windows caps a command line
# at 32,767 characters.
MAX_COMMAND_CHARS = 30_000
# JUnit XML from a runner ({path} is the file): xunit1 gives each test's file
PYTEST_JUNIT = "--junitxml={path} -o junit_family=xunit1"
JS_JUNIT = {
    "vitest": "--reporter=default --reporter=junit --outputFile.junit={path}",
    "mocha": "--reporter xunit --reporter-option output={path}",
}


@dataclass(frozen=True)
class TestCommand:
    """One ready command and the tests it runs (IDs of graph symbols)."""

    __test__ = False  # not a pytest class

    command: str
    tests: tuple[str, ...]
    # the runner's whole suite, from where this command runs (`cartog-ci
    # test --shadow`), and the arguments that make the command write JUnit
    # XML to {path} ("" when its runner cannot without a plugin)
    suite: str = ""
    junit: str = ""


@dataclass
class Workspace:
    """The repository as the runners' configuration sees it: files read
    once, relative to ``root`` ("" when unknown: no file is read and every
    rule falls back to its default)."""

    root: str = ""
    # the graph's symbols of a file (``Store.symbols_in_file``): what a
    # whole-file command runs besides the selected tests
    symbols_in_file: Callable[[str], Sequence[Symbol]] | None = None
    # exactly the tests given, one ID each, never a whole file or class
    # (the commands `cartog-ci test` runs), split past MAX_COMMAND_CHARS
    exact: bool = False
    _texts: dict[str, str | None] = field(default_factory=dict)
    _tomls: dict[str, dict[str, object] | None] = field(default_factory=dict)
    _inis: dict[str, configparser.ConfigParser | None] = field(default_factory=dict)
    _lists: dict[str, frozenset[str]] = field(default_factory=dict)
    _pytest_imports: dict[str, bool] = field(default_factory=dict)
    _pytest_configs: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    _runners: dict[str, str | None] = field(default_factory=dict)
    # a Python test's runner and folder by (file, class ID): the same for
    # every method of a class (Django 5.1 -> 5.1.4 HEAD~10: 422 tests of 136
    # classes, each of which read its file's symbols and walked its folders)
    _python_runners: dict[tuple[str, str | None], tuple[str, str]] = field(default_factory=dict)

    def text(self, path: str) -> str | None:
        """A file's text, None when it is missing or unreadable."""
        if path not in self._texts:
            self._texts[path] = None
            if self.root:
                try:
                    with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as fh:
                        self._texts[path] = fh.read(1_000_000)
                except OSError:
                    pass
        return self._texts[path]

    def imports_pytest(self, path: str) -> bool:
        """Whether a file has an ``import pytest`` or ``from pytest`` line,
        asked once a file: every selected method of it asks (Django 5.1 ->
        5.1.4 HEAD~10: 338 scans of the same test files, 0.13 s of a report)."""
        if path not in self._pytest_imports:
            # the substring first, in the file's bytes: a file that never says
            # pytest is neither decoded nor scanned line by line (Django 5.1 ->
            # 5.1.4 HEAD~10: 47 test files, 2.5 MB, none of them says it)
            text = self.text(path) if path in self._texts or self._says(path, b"pytest") else None
            found = text is not None and "pytest" in text and _IMPORTS_PYTEST.search(text) is not None
            self._pytest_imports[path] = found
        return self._pytest_imports[path]

    def _says(self, path: str, word: bytes) -> bool:
        """Whether a file's bytes hold ``word`` (False when it is missing or unreadable)."""
        if not self.root:
            return False
        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                return word in fh.read()
        except OSError:
            return False

    def exists(self, path: str) -> bool:
        folder, name = posixpath.split(path)
        return name in self.listing(folder)

    def listing(self, folder: str) -> frozenset[str]:
        if folder not in self._lists:
            names: frozenset[str] = frozenset()
            if self.root:
                try:
                    names = frozenset(os.listdir(os.path.join(self.root, folder or ".")))
                except OSError:
                    pass
            self._lists[folder] = names
        return self._lists[folder]

    def toml(self, path: str) -> dict[str, object] | None:
        if path not in self._tomls:
            import tomllib  # here: an index run never reads a runner's configuration

            text = self.text(path)
            try:
                self._tomls[path] = tomllib.loads(text) if text is not None else None
            except tomllib.TOMLDecodeError:
                self._tomls[path] = None
        return self._tomls[path]

    def ini(self, path: str) -> configparser.ConfigParser | None:
        # read once: every test's folders up to the root ask (Django 5.1 ->
        # 5.1.4 HEAD~10: 676 reads of two files, 1.1 s of a 5 s report)
        if path not in self._inis:
            self._inis[path] = self._read_ini(path)
        return self._inis[path]

    def _read_ini(self, path: str) -> configparser.ConfigParser | None:
        text = self.text(path)
        if text is None:
            return None
        import configparser

        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
        except configparser.Error:
            return None
        return parser

    def package_json(self, folder: str) -> dict[str, object] | None:
        text = self.text(join(folder, "package.json"))
        if text is None:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def upward(self, path: str) -> list[str]:
        """The folders from a file's own up to the root ("")."""
        folder = posixpath.dirname(path)
        out = [folder]
        while folder:
            folder = posixpath.dirname(folder)
            out.append(folder)
        return out

    def nearest(self, path: str, *names: str) -> str | None:
        """The nearest folder above ``path`` holding one of ``names``."""
        for folder in self.upward(path):
            if any(n in self.listing(folder) for n in names):
                return folder
        return None

    def file_tests(self, path: str, is_test: Callable[[Symbol], bool]) -> list[Symbol]:
        """The graph's tests in a file (none known without the graph)."""
        if self.symbols_in_file is None:
            return []
        return [s for s in self.symbols_in_file(path) if is_test(s)]


def join(folder: str, name: str) -> str:
    return posixpath.join(folder, name) if folder else name


def relative(path: str, folder: str) -> str:
    return posixpath.relpath(path, folder) if folder else path


def in_folder(folder: str, command: str) -> str:
    """``command`` as run from ``folder`` of the repository."""
    return f"cd {quote(folder)} && {command}" if folder else command


_SAFE = re.compile(r"[\w./:@%=,#+-]+")


def quote(text: str) -> str:
    """A shell word: as is when it holds only safe characters."""
    if _SAFE.fullmatch(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _names(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


# --- Python ---------------------------------------------------------------

_REQUIREMENT_FILES = (
    "requirements-dev.txt",
    "requirements_dev.txt",
    "requirements-test.txt",
    "requirements_test.txt",
    "test-requirements.txt",
    "dev-requirements.txt",
    "requirements-tests.txt",
)


_PYTEST_REQUIREMENT = re.compile(r"\s*pytest([-_][\w.-]+)?\s*($|[<>=~!;\[ ])")


def _mentions_pytest(value: object) -> bool:
    """Whether a dependency list (strings, tables, nested) names pytest or
    a pytest plugin (``pytest-django``)."""
    if isinstance(value, str):
        return bool(_PYTEST_REQUIREMENT.match(value))
    if isinstance(value, dict):
        return any(_PYTEST_REQUIREMENT.fullmatch(str(k)) or _mentions_pytest(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions_pytest(v) for v in value)
    return False


def pytest_config(ws: Workspace, folder: str) -> tuple[bool, bool]:
    """(pytest is set up here, a file here fixes pytest's rootdir): a
    pytest section, a conftest.py, or pytest among the dev dependencies;
    asked once a folder (every selected test asks of each folder above it)."""
    if folder not in ws._pytest_configs:
        ws._pytest_configs[folder] = _pytest_config(ws, folder)
    return ws._pytest_configs[folder]


def _pytest_config(ws: Workspace, folder: str) -> tuple[bool, bool]:
    names = ws.listing(folder)
    if "pytest.ini" in names:
        return True, True
    if "pyproject.toml" in names:
        data = ws.toml(join(folder, "pyproject.toml")) or {}
        if isinstance(_names(data, "tool", "pytest"), dict):
            return True, True
        groups = [
            _names(data, "project", "optional-dependencies"),
            data.get("dependency-groups"),
            _names(data, "tool", "poetry", "dev-dependencies"),
            _names(data, "tool", "poetry", "group"),
            _names(data, "tool", "pdm", "dev-dependencies"),
            _names(data, "tool", "hatch", "envs"),
        ]
        if any(_mentions_pytest(g) for g in groups):
            return True, False
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if name in names:
            parser = ws.ini(join(folder, name))
            if parser is not None and parser.has_section(section):
                return True, True
    if "conftest.py" in names:
        return True, False
    for name in _REQUIREMENT_FILES:
        if name in names and _mentions_pytest((ws.text(join(folder, name)) or "").splitlines()):
            return True, False
    if "tox.ini" in names and re.search(r"^\s*(deps\s*=.*|\s+)pytest\b", ws.text(join(folder, "tox.ini")) or "", re.M):
        return True, False
    return False, False


_PY_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


# a doctest as a test (report/doctests.py): ``path:doctest:module.qualname``,
# run by pytest alone, by its node ID (``path::module.qualname``)
DOCTEST = "doctest"


def _pytest_setting(ws: Workspace, path: str, key: str) -> tuple[str, object]:
    """The folder of the pytest configuration nearest above ``path`` (the
    file that fixes pytest's rootdir: the first of pytest.ini, a
    pyproject.toml with a ``[tool.pytest…]`` table, a tox.ini or setup.cfg
    with a pytest section) and its ``key``: ``[tool.pytest.ini_options]``
    or pytest 9's ``[tool.pytest]`` of pyproject.toml, ``[pytest]`` of
    pytest.ini or tox.ini, ``[tool:pytest]`` of setup.cfg ("" when the
    file does not set it); ("", None) without a configuration."""
    for folder in ws.upward(path):
        names = ws.listing(folder)
        found: object = None
        if "pytest.ini" in names:
            parser = ws.ini(join(folder, "pytest.ini"))
            found = parser.get("pytest", key, fallback="") if parser is not None else ""
        elif "pyproject.toml" in names and isinstance(_names(ws.toml(join(folder, "pyproject.toml")), "tool", "pytest"), dict):
            table = _names(ws.toml(join(folder, "pyproject.toml")), "tool", "pytest")
            found = _names(table, "ini_options", key) or _names(table, key) or ""
        else:
            for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
                parser = ws.ini(join(folder, name)) if name in names else None
                if parser is not None and parser.has_section(section):
                    found = parser.get(section, key, fallback="")
                    break
        if found is not None:
            return folder, found
    return "", None


def _words(found: object) -> list[str]:
    import shlex

    if found is None:
        return []
    if isinstance(found, list):
        return [str(w) for w in found]
    try:
        return shlex.split(str(found))
    except ValueError:
        return str(found).split()


def pytest_addopts(ws: Workspace, path: str) -> list[str]:
    """The ``addopts`` of the pytest configuration nearest above ``path``."""
    return _words(_pytest_setting(ws, path, "addopts")[1])


def pytest_usefixtures(ws: Workspace, path: str) -> list[str]:
    """The ``usefixtures`` of the pytest configuration nearest above
    ``path``: fixtures every test it collects uses (scrapy's pytest.ini:
    ``usefixtures = chdir``)."""
    return _words(_pytest_setting(ws, path, "usefixtures")[1])


def collected_by_default(ws: Workspace, path: str) -> bool:
    """Whether a plain ``pytest`` run of the project reaches ``path``: its
    configuration's ``testpaths`` (relative to that configuration's folder,
    globs allowed, as pytest reads them) hold it, or there are none (pytest
    then collects from the rootdir down). requests 2.32 sets ``addopts =
    "--doctest-modules"`` with ``testpaths = ["tests"]``: the doctests of
    ``src/requests/`` are never run by its suite."""
    import fnmatch

    folder, found = _pytest_setting(ws, path, "testpaths")
    roots = [w.strip("/").removeprefix("./") for w in _words(found)]
    if not roots or any(r in ("", ".") for r in roots):
        return True
    rel = path[len(folder) + 1 :] if folder and path.startswith(folder + "/") else path
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(p, r) for r in roots for p in prefixes)


def python_commands(tests: Sequence[Symbol], ws: Workspace, is_test: Callable[[Symbol], bool]) -> list[TestCommand]:
    """pytest node IDs, or ``python -m unittest`` dotted IDs when the
    project has no pytest setup and every test is a method (unittest runs
    no plain function), one command per folder they run from. A doctest
    runs in a pytest command, by its node ID, with ``--doctest-modules``
    (``--doctest-glob=NAME`` for a text file's)."""
    groups: dict[tuple[str, str], list[Symbol]] = {}
    for t in tests:
        runner, folder = _python_runner(ws, t)
        if t.kind == DOCTEST:
            runner = "pytest"
        groups.setdefault((runner, folder), []).append(t)
    commands: list[TestCommand] = []
    for (runner, folder), group in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if runner == "pytest":
            commands += _pytest(group, folder, ws, is_test)
        else:
            run = "python manage.py test" if runner == "django" else "python -m unittest"
            commands += _unittest(run, group, folder, ws, is_test)
    return commands


def _python_runner(ws: Workspace, test: Symbol) -> tuple[str, str]:
    """(pytest | django | unittest, the folder it runs from): a Django
    project (a ``manage.py`` above the test) runs its TestCase classes with
    ``python manage.py test``, which sets Django up. What decides it is the
    test's file and class alone (``_may_be_test_case``): asked once each."""
    key = (test.file, test.parent_id)
    found = ws._python_runners.get(key)
    if found is None:
        found = ws._python_runners[key] = _python_runner_of(ws, test)
    return found


def _python_runner_of(ws: Workspace, test: Symbol) -> tuple[str, str]:
    pytest_found = False
    rootdir = None
    for folder in ws.upward(test.file):
        found, fixes_root = pytest_config(ws, folder)
        pytest_found = pytest_found or found
        if fixes_root and rootdir is None:
            rootdir = folder
    plain_function = ":class:" not in (test.parent_id or "")
    if pytest_found or plain_function or not ws.root or not _may_be_test_case(ws, test):
        return "pytest", rootdir or ""
    django = ws.nearest(test.file, "manage.py")
    if django is not None:
        return "django", django
    return "unittest", ws.nearest(test.file, *_PY_PROJECT_FILES) or ""


_IMPORTS_PYTEST = re.compile(r"^[ \t]*(?:import[ \t]+pytest\b|from[ \t]+pytest\b)", re.M)


def _may_be_test_case(ws: Workspace, test: Symbol) -> bool:
    """Whether unittest could run this method: not when its file imports
    pytest (its fixtures and marks need pytest), nor when its class has no
    base (``class TestX:`` is collected by pytest only; unittest runs
    ``TestCase`` subclasses and would run nothing)."""
    if ws.imports_pytest(test.file):
        return False
    if ws.symbols_in_file is not None:
        for s in ws.symbols_in_file(test.file):
            if s.id == test.parent_id:
                bases = s.signature.partition("(")[2].rpartition(")")[0].strip()
                return bases not in ("", "object")
    return True


def _owner(test: Symbol) -> str:
    return test.qualified_name.rpartition(".")[0]


def _collapsed(
    group: Sequence[Symbol], ws: Workspace, is_test: Callable[[Symbol], bool]
) -> list[tuple[str, str, tuple[str, ...]]]:
    """(file, the part after the file: "" for the whole file, "Class" or
    "Class.test"; the test IDs it runs), so that the command stays short: a
    file or class whole when most of its tests are selected; past
    MAX_TEST_IDS parts, the files or classes whose merging adds the fewest
    tests per part saved are run whole until the parts fit."""
    by_file: dict[str, dict[str, Symbol]] = {}
    for t in group:
        by_file.setdefault(t.file, {})[t.id] = t
    if ws.exact:
        return [
            (path, t.qualified_name, (t.id,))
            for path in sorted(by_file)
            for t in sorted(by_file[path].values(), key=lambda s: (s.start_line, s.id))
        ]
    graph = ws.symbols_in_file is not None  # without the graph, a file's other tests are unknown
    known: dict[str, dict[str, Symbol]] = {
        p: {s.id: s for s in ws.file_tests(p, is_test)} | selected for p, selected in by_file.items()
    }
    # tests per (file, class): counted once, asked at every step of the merging below
    sizes = Counter((p, _owner(s)) for p, tests in known.items() for s in tests.values())

    def class_size(path: str, owner: str) -> int:
        return sizes[(path, owner)]

    # per file: None (whole) or, per class ("" for none), None (whole) or its selected tests
    state: dict[str, dict[str, list[Symbol] | None] | None] = {}
    for path, selected in by_file.items():
        if graph and len(known[path]) > 1 and 2 * len(selected) > len(known[path]):
            state[path] = None
            continue
        classes: dict[str, list[Symbol] | None] = {}
        for t in selected.values():
            members = classes.setdefault(_owner(t), [])
            assert members is not None
            members.append(t)
        for owner, members in classes.items():
            size = class_size(path, owner)
            if owner and graph and members is not None and size > 1 and 2 * len(members) > size:
                classes[owner] = None
        state[path] = classes

    def parts(path: str) -> int:
        classes = state[path]
        return 1 if classes is None else sum(1 if m is None else len(m) for m in classes.values())

    def runs(path: str) -> int:
        classes = state[path]
        if classes is None:
            return len(known[path])
        return sum(class_size(path, o) if m is None else len(m) for o, m in classes.items())

    def options(path: str) -> list[tuple[float, int, str, str]]:
        """(extra tests per part saved, -parts saved, file, class or "" for
        the file): the merges of one file, which depend on its state alone."""
        in_file = state[path]
        if in_file is None:
            return []
        found = []
        if parts(path) > 1:
            saved = parts(path) - 1
            found.append(((len(known[path]) - runs(path)) / saved, -saved, path, ""))
        for owner, members in in_file.items():
            if owner and members is not None and len(members) > 1:
                saved = len(members) - 1
                found.append(((class_size(path, owner) - len(members)) / saved, -saved, path, owner))
        return found

    # the cheapest merge first, until the parts fit: a heap of every file's
    # merges, a file's entries replaced when a merge changes it
    total = sum(parts(p) for p in state)
    version = dict.fromkeys(state, 0)
    heap = [(*o, 0) for p in state for o in options(p)] if graph and total > MAX_TEST_IDS else []
    heapq.heapify(heap)
    while graph and total > MAX_TEST_IDS and heap:
        _, _, chosen, chosen_class, seen = heapq.heappop(heap)
        if seen != version[chosen]:
            continue
        before = parts(chosen)
        in_chosen = state[chosen]
        if not chosen_class or in_chosen is None:
            state[chosen] = None
        else:
            in_chosen[chosen_class] = None
        total += parts(chosen) - before
        version[chosen] += 1
        for o in options(chosen):
            heapq.heappush(heap, (*o, version[chosen]))
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for path in sorted(state):
        final = state[path]
        if final is None:
            out.append((path, "", tuple(sorted(known[path]))))
            continue
        for owner, members in sorted(final.items()):
            if members is None:
                ids = tuple(sorted(s.id for s in known[path].values() if _owner(s) == owner))
                out.append((path, owner, ids))
            else:
                out += [(path, t.qualified_name, (t.id,)) for t in sorted(members, key=lambda s: s.start_line)]
    if not graph and len(out) > MAX_TEST_IDS:  # a file's other tests unknown: whole files
        return [(p, "", tuple(sorted(known[p]))) for p in sorted(by_file)]
    return out


def _pytest(
    group: Sequence[Symbol], folder: str, ws: Workspace, is_test: Callable[[Symbol], bool]
) -> list[TestCommand]:
    doctests = sorted((t for t in group if t.kind == DOCTEST), key=lambda t: (t.file, t.start_line, t.id))
    words = [
        (relative(path, folder) + ("::" + inner.replace(".", "::") if inner else ""), ids)
        for path, inner, ids in _collapsed([t for t in group if t.kind != DOCTEST], ws, is_test)
    ]
    # a doctest's node ID: its file, then its dotted name whole (never a whole
    # file: that would run every doctest of the module)
    words += [(f"{relative(t.file, folder)}::{t.qualified_name}", (t.id,)) for t in doctests]
    options = ["--doctest-modules"] if any(t.file.endswith(".py") for t in doctests) else []
    options += sorted({f"--doctest-glob={posixpath.basename(t.file)}" for t in doctests if not t.file.endswith(".py")})
    run = " ".join(["pytest", *(quote(o) for o in options)])
    suite = in_folder(folder, "pytest")
    return [TestCommand(line, ran, suite, PYTEST_JUNIT) for line, ran in _lines(folder, run, words, ws.exact)]


def _unittest(
    run: str, group: Sequence[Symbol], folder: str, ws: Workspace, is_test: Callable[[Symbol], bool]
) -> list[TestCommand]:
    parts = _collapsed(group, ws, is_test)
    words = []
    for path, inner, ids in parts:
        module = relative(path, folder).removesuffix(".py").replace("/", ".")
        words.append((module + ("." + inner if inner else ""), ids))
    return [TestCommand(line, ran, in_folder(folder, run)) for line, ran in _lines(folder, run, words, ws.exact)]


def _lines(
    folder: str, run: str, words: Sequence[tuple[str, tuple[str, ...]]], exact: bool
) -> list[tuple[str, tuple[str, ...]]]:
    """(command line, the test IDs it runs): one line with every word, or,
    for the exact commands, as many as keep each within MAX_COMMAND_CHARS
    (each runs its part of the tests; a runner's own arguments go to each)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    line = in_folder(folder, run)
    ran: tuple[str, ...] = ()
    for word, ids in words:
        added = f"{line} {quote(word)}"
        if exact and ran and len(added) > MAX_COMMAND_CHARS:
            out.append((line, ran))
            line, ran = in_folder(folder, run), ()
            added = f"{line} {quote(word)}"
        line, ran = added, ran + ids
    return [*out, (line, ran)]


# --- JavaScript and TypeScript ----------------------------------------------

JS_RUNNERS = ("vitest", "jest", "mocha", "tape", "tap")
# runners that run the files of a test folder (``test/parse.js``), not
# only ``*.test.js`` files; "node" is Node's own runner (``node --test``),
# which a test script names and no dependency does
_DIR_RUNNERS = ("mocha", "tape", "tap", "node")
# `node --test`, options before the flag included (`node --import tsx --test`)
_NODE_TEST = r"node(?:\s+-[-\w]+(?:[= ](?!--test\b)[^\s&|;-]\S*)?)*?\s+--test(?![-\w])"
_JS_TEST_FILE = re.compile(r"(^|/)[^/]*\.(spec|test)\.[cm]?[jt]sx?$|(^|/)__tests__/")
_JS_TEST_DIR = re.compile(r"(^|/)(tests?|spec)/")


def is_js_test_file(path: str) -> bool:
    """A file jest and vitest run by default (``*.test.ts``, ``*.spec.js``, ``__tests__/``)."""
    return bool(_JS_TEST_FILE.search(path))
_LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm exec"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bunx"),
    ("bun.lock", "bunx"),
    ("package-lock.json", "npx"),
    ("npm-shrinkwrap.json", "npx"),
)
_RUNNER_CONFIG = re.compile(r"^(vitest|jest|\.mocharc)(\.[\w.]+)?$")


def _test_scripts(package: dict[str, object]) -> Iterator[str]:
    """A package's ``test`` script, then the script it runs when it names
    another (`"test": "npm run test:unit"`), three at most."""
    scripts = package.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    for _ in range(3):
        if not isinstance(script, str) or not isinstance(scripts, dict):
            return
        yield script
        other = re.search(r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?([\w:.-]+)", script)
        script = scripts.get(other.group(1)) if other else None


def _js_runner(package: dict[str, object], files: frozenset[str]) -> str | None:
    """The runner a package's ``test`` script names, else its dev
    dependencies or a runner's configuration file."""
    for script in _test_scripts(package):
        # the first runner the script names (`vitest run`, `jest --ci`, `react-scripts test` is jest)
        found = re.search(rf"\b(vitest|jest|mocha|tape|(?<![-=])tap(?![-\w])|react-scripts test|{_NODE_TEST})\b", script)
        if found:
            name = found.group(1)
            return "jest" if name == "react-scripts test" else "node" if name.startswith("node") else name
    for key in ("devDependencies", "dependencies"):
        deps = package.get(key)
        if isinstance(deps, dict):
            for runner in JS_RUNNERS:
                if runner in deps:
                    return runner
    for name in sorted(files):
        found = _RUNNER_CONFIG.match(name)
        if found:
            return "mocha" if found.group(1) == ".mocharc" else found.group(1)
    return None


# a test file that loads a runner's module is that runner's, whatever the
# package's script names first (pino 9: `tap --ts && jest test/jest`, its
# browser tests `require('tape')`)
_RUNNER_MODULES = {"tap": "tap", "tape": "tape", "vitest": "vitest", "@jest/globals": "jest", "node:test": "node"}
_LOADS_RUNNER = re.compile(
    r"""(?:\brequire\s*\(\s*|\bfrom\s+|^\s*import\s+)['"](tap|tape|vitest|@jest/globals|node:test)['"]""", re.M
)


def js_runner(ws: Workspace, path: str) -> tuple[str, str]:
    """(runner, the package folder it runs from): the runner whose module the
    file loads, else the one the nearest ``package.json`` upwards names;
    jest from the root when none does."""
    loaded = _loaded_runner(ws, path)
    for folder in ws.upward(path):
        if "package.json" not in ws.listing(folder):
            continue
        package = ws.package_json(folder) or {}
        runner = loaded or _js_runner(package, ws.listing(folder))
        if runner is not None:
            return runner, folder
    return loaded or "jest", ""


def _loaded_runner(ws: Workspace, path: str) -> str | None:
    """The runner whose module a file loads, read once a file (each of its
    selected tests asks, twice)."""
    if path not in ws._runners:
        text = ws.text(path)
        found = _LOADS_RUNNER.search(text) if text is not None else None
        ws._runners[path] = _RUNNER_MODULES[found.group(1)] if found is not None else None
    return ws._runners[path]


_LOADS_ASSERT = re.compile(r"""(?:\brequire\s*\(\s*|\bfrom\s+|^\s*import\s+)['"](?:node:)?assert(?:/strict)?['"]""", re.M)


def _asserts(ws: Workspace, path: str) -> bool:
    """Whether a file loads Node's ``assert`` (a test script that fails by
    throwing; a data file under ``test/`` does not)."""
    text = ws.text(path)
    return text is not None and _LOADS_ASSERT.search(text) is not None


def _tape_globs(package: dict[str, object]) -> list[re.Pattern[str]]:
    """The files the ``tape`` of a package's test script names (``tape
    'test/*.js'``), as patterns of paths from the package's folder; none
    when the script names no tape or no file. tape runs only those:
    object-inspect's test/browser/dom.js, outside its ``test/*.js``, needs a
    browser (``document is not defined`` under node)."""
    for script in _test_scripts(package):  # `"test": "npm run tests-only"` names another script
        found = re.search(r"\btape((?:\s+(?:'[^']*'|\"[^\"]*\"|[^\s&|;'\"]+))*)", script)
        if found:
            words = re.findall(r"'([^']*)'|\"([^\"]*)\"|([^\s'\"]+)", found.group(1))
            paths = [a or b or c for a, b, c in words if not (a or b or c).startswith("-")]
            return [_glob(p.removeprefix("./")) for p in paths if "/" in p or p.endswith(("js", "ts"))]
    return []


def _glob(pattern: str) -> re.Pattern[str]:
    """A shell glob as tape expands it (``**/`` any folders, ``*`` within a
    name, ``{a,b}`` either)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out, i = out + "(?:" + "|".join(re.escape(x) for x in pattern[i + 1 : end].split(",")) + ")", end + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def js_commands(tests: Sequence[Symbol], ws: Workspace, is_test: Callable[[Symbol], bool]) -> list[TestCommand]:
    """One command per package and runner, with the package's test files
    (a file runs all its tests)."""
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for t in tests:
        runner, folder = js_runner(ws, t.file)
        # a helper under test/ is no test file (jest and vitest would find no test
        # in it); mocha, tap and tape run what is in test/, and a tap, tape or
        # node test loads its runner (test/fixtures/*.js do not)
        in_dir = runner in _DIR_RUNNERS and _JS_TEST_DIR.search(t.file) is not None
        if in_dir and runner in ("tap", "tape", "node") and ws.text(t.file) is not None:
            loaded = _loaded_runner(ws, t.file)
            # tape's CLI requires each file it is given: a script that loads
            # no runner but asserts with Node's `assert` fails the run by
            # throwing (buffer 6.0.3's test/node/*.js, Node's own tests of
            # Buffer, run by `tape test/*.js test/node/*.js`)
            in_dir = loaded == runner or (runner == "tape" and loaded is None and _asserts(ws, t.file))
        if runner == "tape":
            named = _tape_globs(ws.package_json(folder) or {})
            if named and not any(p.match(relative(t.file, folder)) for p in named):
                continue
        if is_js_test_file(t.file) or in_dir:
            groups.setdefault((folder, runner), {}).setdefault(t.file, []).append(t.id)
    commands = []
    for (folder, runner), files in sorted(groups.items()):
        ran: list[str] = []
        for path, ids in sorted(files.items()):
            # the file is the test: the calls of its `test(...)`/`it(...)`
            # callbacks are its module's, and its functions are helpers
            # (qs 6.13.0: "the commands run 11" for 2 files, 9 of them
            # helpers like test/parse.js's `decoder`)
            files_ran = [s.id for s in ws.file_tests(path, is_test) if s.kind == "module"]
            ran += sorted(files_ran or set(ids))
        run = {"vitest": "vitest run", "jest": "jest", "mocha": "mocha", "tape": "tape", "tap": "tap"}.get(runner)
        # Node's runner is the node binary, not a package's
        run = f"{_js_exec(ws, folder)} {run}" if run else "node --test"
        words = " ".join(quote(relative(p, folder)) for p in sorted(files))
        # tape runs the files it is given, none by default: its suite is the test folder's
        suite = in_folder(folder, run + (" 'test/**/*.js'" if runner == "tape" else ""))
        command = in_folder(folder, f"{run} {words}")
        commands.append(TestCommand(command, tuple(ran), suite, JS_JUNIT.get(runner, "")))
    return commands


def _js_exec(ws: Workspace, folder: str) -> str:
    """How a package's binaries run: the package manager of the nearest lockfile."""
    for up in [folder, *ws.upward(join(folder, "package.json"))[1:]]:
        names = ws.listing(up)
        for lockfile, runner in _LOCKFILES:
            if lockfile in names:
                return runner
    return "npx"


# --- Go -------------------------------------------------------------------

_GO_TEST = re.compile(r"^(Test|Fuzz|Example)([^a-z]|$)")
# an example's output comment: `go test` runs an example that has one, and
# only compiles the others
_GO_OUTPUT = re.compile(r"^\s*//\s*(Unordered output|Output):", re.MULTILINE)


def is_go_test_name(name: str) -> bool:
    """``go test -run`` selects tests, fuzz tests (their seed corpus runs
    as tests) and examples: TestXxx, FuzzXxx, ExampleXxx (Xxx not starting
    lowercase); never benchmarks."""
    return bool(_GO_TEST.match(name))


def _go_runs(test: Symbol, ws: Workspace) -> bool:
    """Whether ``go test -run`` runs this function: a test or a fuzz test
    (``go help testflag``), or an example with an output comment (an
    example without one is compiled, not run). A file that cannot be read
    counts its examples as run: selecting one more costs nothing."""
    if test.kind != "function" or not is_go_test_name(test.name) or test.name == "TestMain":
        return False
    if not test.name.startswith("Example"):
        return True
    text = ws.text(test.file)
    if text is None:
        return True
    body = "\n".join(text.splitlines()[test.start_line - 1 : test.end_line])
    return _GO_OUTPUT.search(body) is not None


def go_commands(tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
    """``go test ./pkg -run '^(TestA|FuzzB|ExampleC)$'`` per package, from
    its module's root (the nearest go.mod): the functions ``-run`` runs
    (``_go_runs``); benchmarks only run with ``-bench``."""
    packages: dict[tuple[str, str], dict[str, str]] = {}
    for t in tests:
        if not _go_runs(t, ws):
            continue
        module = ws.nearest(t.file, "go.mod") or ""
        package = "./" + relative(posixpath.dirname(t.file), module) if posixpath.dirname(t.file) != module else "."
        packages.setdefault((module, package.removesuffix("/.")), {})[t.name] = t.id
    commands = []
    for (module, package), names in sorted(packages.items()):
        pattern = "^(" + "|".join(sorted(names)) + ")$"
        command = in_folder(module, f"go test {quote(package)} -run {quote(pattern)}")
        commands.append(TestCommand(command, tuple(sorted(names.values())), in_folder(module, "go test ./...")))
    return commands


# --- Rust -----------------------------------------------------------------


def _cargo_package(ws: Workspace, path: str) -> tuple[str, str]:
    """(package name, the folder cargo runs from: the workspace's root)."""
    name, workspace = "", ""
    for folder in ws.upward(path):
        if "Cargo.toml" not in ws.listing(folder):
            continue
        manifest = ws.toml(join(folder, "Cargo.toml")) or {}
        package = _names(manifest, "package", "name")
        if not name and isinstance(package, str):
            name, workspace = package, folder
        if "workspace" in manifest:
            workspace = folder
            break
    return name, workspace


def _library(ws: Workspace, path: str) -> tuple[str, str] | None:
    """(the package's folder, its library's root file) of the package
    whose sources hold ``path``; None when it has no library, or one whose
    doctests are off (``[lib] doctest = false``)."""
    for folder in ws.upward(path):
        if "Cargo.toml" not in ws.listing(folder):
            continue
        manifest = ws.toml(join(folder, "Cargo.toml")) or {}
        if not isinstance(manifest.get("package"), dict):
            return None  # a workspace's manifest: the file is no package's
        lib = manifest.get("lib")
        lib = lib if isinstance(lib, dict) else {}
        given = lib.get("path")
        root = join(folder, posixpath.normpath(given if isinstance(given, str) else "src/lib.rs"))
        if lib.get("doctest") is False or not ws.exists(root):
            return None
        return folder, root
    return None


def rust_library_file(ws: Workspace, path: str) -> bool:
    """Whether ``path`` is a source of a library whose doctests ``cargo
    test`` runs: below its root file's folder, not a binary's (``main.rs``,
    ``bin/``). A file no ``mod`` reaches counts as the library's."""
    found = _library(ws, path)
    if found is None:
        return False
    src = posixpath.dirname(found[1])
    inside = relative(path, src) if src else path
    return (not src or path.startswith(src + "/")) and inside != "main.rs" and not inside.startswith("bin/")


def _cargo_filter(test: Symbol, ws: Workspace) -> str:
    """What ``cargo test`` selects a test by: its path in its file
    (``tests::it_works``); for a doctest, named ``src/x.rs - x::Type<T>::item
    (line N)``, ``::item`` (``item`` alone at the library's root file). A
    filter has no space (rustdoc splits its filters at spaces) and matches
    a name's part: a doctest's selects those of same-named items too."""
    if test.kind != DOCTEST:
        return test.qualified_name.replace(".", "::")
    found = _library(ws, test.file)
    at_root = found is not None and found[1] == test.file and "::" not in test.qualified_name
    return test.name if at_root else "::" + test.name


_CFG = re.compile(r"#\[cfg\((.*)\)\]", re.S)
_FEATURE = re.compile(r'feature\s*=\s*"([^"]+)"')


def _cargo_features(test: Symbol) -> list[str]:
    """The features a test is compiled with only: those its own
    ``#[cfg(feature = "x")]`` or ``#[cfg(all(feature = "x", test, ...))]``
    names (a doctest carries its item's); another condition (``any``,
    ``not``, a target) is not read, and asks for none."""
    features: list[str] = []
    for attribute in test.decorators:
        found = _CFG.fullmatch(attribute.strip())
        if found is None:
            continue
        condition = found.group(1).strip()
        if condition.startswith("all(") and condition.endswith(")"):
            parts = [p.strip() for p in condition[4:-1].split(",") if p.strip()]
        else:
            parts = [condition]
        if all(p == "test" or _FEATURE.fullmatch(p) for p in parts):
            features += [m.group(1) for p in parts for m in [_FEATURE.fullmatch(p)] if m is not None]
    return features


def cargo_commands(tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
    """``cargo test -p <package> <filter>`` per package of the nearest
    Cargo.toml (``_cargo_filter``), with the features its tests are compiled
    with only (``_cargo_features``); several filters, or a doctest's, after
    ``--``: cargo runs no doctest for a filter given before it (cargo
    issue 6981: ``cargo test -p itoa Buffer`` ran 0 tests, ``cargo test -p
    itoa -- Buffer`` its doctest)."""
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    doctests: set[tuple[str, str]] = set()
    features: dict[tuple[str, str], set[str]] = {}
    for t in tests:
        name, workspace = _cargo_package(ws, t.file)
        groups.setdefault((workspace, name), {}).setdefault(_cargo_filter(t, ws), []).append(t.id)
        features.setdefault((workspace, name), set()).update(_cargo_features(t))
        if t.kind == DOCTEST:
            doctests.add((workspace, name))
    commands = []
    for (workspace, name), filters in sorted(groups.items()):
        package = f" -p {quote(name)}" if name else ""
        if features[(workspace, name)]:
            package += " --features " + quote(",".join(sorted(features[(workspace, name)])))
        words = " ".join(quote(f) for f in sorted(filters))
        bare = len(filters) == 1 and (workspace, name) not in doctests
        command = f"cargo test{package} {words}" if bare else f"cargo test{package} -- {words}"
        suite = in_folder(workspace, "cargo test --workspace")
        ran = tuple(sorted(i for ids in filters.values() for i in ids))
        commands.append(TestCommand(in_folder(workspace, command), ran, suite))
    return commands


# --- Java -----------------------------------------------------------------

_GRADLE_FILES = ("build.gradle", "build.gradle.kts")
_SETTINGS_FILES = ("settings.gradle", "settings.gradle.kts")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def _java_build(ws: Workspace, path: str) -> tuple[str, str, str]:
    """(maven | gradle, the build's root folder, the module's folder) by the
    build file nearest to the test."""
    for folder in ws.upward(path):
        names = ws.listing(folder)
        if "pom.xml" in names:
            top = folder
            for up in ws.upward(join(folder, "pom.xml"))[1:]:
                if "pom.xml" in ws.listing(up):
                    top = up
            return "maven", top, folder
        if any(n in names for n in _GRADLE_FILES):
            settings = ws.nearest(join(folder, "build.gradle"), *_SETTINGS_FILES)
            if settings is not None:
                return "gradle", settings, folder
            top = folder
            for up in ws.upward(join(folder, "build.gradle"))[1:]:
                if any(n in ws.listing(up) for n in _GRADLE_FILES):
                    top = up
            return "gradle", top, folder
    return "maven", "", ""


def _java_class(ws: Workspace, test: Symbol) -> tuple[str, str]:
    """(the package, the class as a runner names it: ``Outer$Inner``)."""
    owner = test.qualified_name.rpartition(".")[0] or posixpath.splitext(posixpath.basename(test.file))[0]
    found = _PACKAGE.search(ws.text(test.file) or "")
    if found:
        package = found.group(1)
    else:  # src/test/java/com/shop/FooTest.java
        parts = posixpath.dirname(test.file).split("/")
        package = ".".join(parts[parts.index("java") + 1 :]) if "java" in parts else ""
    return package, owner.replace(".", "$")


def java_commands(tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
    """Maven ``-pl <modules> -am test -Dtest=Class#a+b,...`` for the modules
    of the nearest pom.xml, or Gradle ``:module:test --tests pkg.Class.method``
    for the nearest build.gradle: one command per build, from its root (its
    wrapper when it has one)."""
    groups: dict[tuple[str, str], dict[str, dict[str, dict[str, str]]]] = {}
    for t in tests:
        tool, top, module = _java_build(ws, t.file)
        package, owner = _java_class(ws, t)
        cls = f"{package}.{owner}" if tool == "gradle" and package else owner
        modules = groups.setdefault((top, tool), {})
        modules.setdefault(relative(module, top) if module != top else "", {}).setdefault(cls, {})[t.name] = t.id
    commands = []
    for (top, tool), modules in sorted(groups.items()):
        ran = tuple(sorted(i for classes in modules.values() for m in classes.values() for i in m.values()))
        if tool == "maven":
            mvn = "./mvnw" if "mvnw" in ws.listing(top) else "mvn"
            classes: dict[str, set[str]] = {}
            for found in modules.values():
                for cls, methods in found.items():
                    classes.setdefault(cls, set()).update(methods)
            selection = ",".join(f"{cls}#{'+'.join(sorted(methods))}" for cls, methods in sorted(classes.items()))
            # -am builds the modules they depend on; there no test matches
            where = f" -pl {quote(','.join(sorted(modules)))} -am" if "" not in modules else ""
            extra = " -Dsurefire.failIfNoSpecifiedTests=false" if where else ""
            command = f"{mvn}{where} test -Dtest={quote(selection)}{extra}"
            suite = f"{mvn} test"
        else:
            gradle = "./gradlew" if "gradlew" in ws.listing(top) else "gradle"
            words = []
            for module, found in sorted(modules.items()):
                words.append(":" + module.replace("/", ":") + ":test" if module else "test")
                words += [f"--tests {quote(cls + '.' + m)}" for cls, methods in sorted(found.items()) for m in sorted(methods)]
            command = f"{gradle} " + " ".join(words)
            suite = f"{gradle} test"
        commands.append(TestCommand(in_folder(top, command), ran, in_folder(top, suite)))
    return commands


# --- Ruby -----------------------------------------------------------------


def ruby_commands(tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
    """RSpec ``file:line`` for specs; minitest for the rest (``bin/rails
    test file:line`` in a Rails app, else ``ruby -Ilib -Itest file -n``),
    through ``bundle exec`` where a Gemfile is."""
    specs: dict[str, str] = {}
    minitest: dict[str, dict[str, Symbol]] = {}
    for t in tests:
        if t.file.endswith("_spec.rb") or re.search(r"(^|/)spec/", t.file):
            specs[t.file if t.kind == "module" else f"{t.file}:{t.start_line}"] = t.id
        else:
            minitest.setdefault(t.file, {})[t.name] = t
    bundle = "bundle exec " if not ws.root or "Gemfile" in ws.listing("") else ""
    commands = []
    if specs:
        whole = {p for p in specs if ":" not in p}  # a spec file runs whole
        places = sorted(
            (p for p in specs if p in whole or p.rsplit(":", 1)[0] not in whole),
            key=lambda p: (p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1]) if ":" in p else 0),
        )
        commands.append(
            TestCommand(
                f"{bundle}rspec " + " ".join(quote(p) for p in places), tuple(specs[p] for p in places), f"{bundle}rspec"
            )
        )
    if minitest and ws.exists("bin/rails"):
        places = sorted(f"{path}:{t.start_line}" for path, named in minitest.items() for t in named.values())
        ran = tuple(sorted(t.id for named in minitest.values() for t in named.values()))
        return [*commands, TestCommand("bin/rails test " + " ".join(quote(p) for p in places), ran, "bin/rails test")]
    for path, named in sorted(minitest.items()):
        pattern = "/^(" + "|".join(sorted(named)) + ")$/"
        commands.append(
            TestCommand(
                f"{bundle}ruby -Ilib -Itest {quote(path)} -n {quote(pattern)}",
                tuple(sorted(t.id for t in named.values())),
                f"{bundle}rake test",
            )
        )
    return commands
