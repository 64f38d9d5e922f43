"""Recorded coverage as an input (docs/coverage.md).

``import_coverage`` reads coverage.py data files recorded with per-test
contexts (``pytest --cov --cov-context=test``, or ``[run] dynamic_context =
test_function``), and the per-unit formats of JS/TS, Go and Java
(report/coverage_formats.py), and maps each executed line to the function or method
whose body holds it, on the commit the coverage was recorded on (the work
tree must be that commit's for the measured files: the index's line ranges
are the work tree's). ``recorded_use`` and ``apply_coverage`` give the
report the tests whose recorded run executed a changed symbol, and
"untested" only where a recording of the symbol's base body shows no test
executed it.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git
from cartog_ci.domain import Symbol
from cartog_ci.domain.results import ChangedSymbol, CoverageRun, CoverageUse, RecordedSymbol
from cartog_ci.errors import CartogError
from cartog_ci.languages import is_test
from cartog_ci.report.coverage_formats import UNIT_KINDS, Lines, UnitRecording, detect, read_unit
from cartog_ci.report.doctests import doctest_id, doctest_symbol, is_doctest_id
from cartog_ci.report.inherited_tests import CollectedTests
from cartog_ci.report.process_tests import StartingTests
from cartog_ci.store.coverage_rows import KEEP_RUNS, LINE_GROUP

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.report.entries import ScriptEntries
    from cartog_ci.store.base import Store

FUNCTION_KINDS = ("function", "method")
# pytest-cov's test contexts: "tests/test_a.py::TestA::test_b[1]|run" (also |setup, |teardown);
# a child process a test started, recorded with `context = ${PYTEST_CURRENT_TEST-}`
# (docs/coverage.md, "Tests that start the program"): "tests/test_a.py::test_b (call)"
_PHASE = re.compile(r"(?:\|(?:setup|run|teardown)| \((?:setup|call|teardown)\))$")
_PARAMS = re.compile(r"\[.*\]$")
_HEADER = re.compile(r"\s*(?:async\s+)?def\s")
# a folder of installed packages in a measured path
_DEPENDENCY = re.compile(r"(?:^|/)(?:node_modules|site-packages|dist-packages)/")
# coverage.py's context of what ran outside any test (at import, at collection)
AT_IMPORT = ""
# stored beside it, one a line of a function that ran there: "@import:+N", N
# lines after the function's first line (its body may move in its file)
AT_IMPORT_LINE = "@import:+"
# and, for a Python function some test executed, its body's lines in groups
# of the same tests: "@lines:ID|3-5,9" (lines after its first), whose
# tests coverage_tests holds (``line_groups``; a group may name none)
LINES = LINE_GROUP
MISSING_COVERAGE = "reading coverage.py data needs the coverage package: pip install 'cartog-ci[coverage]'"


@dataclass
class Imported:
    """What an import found, for the command to say."""

    commit: str
    files: int = 0  # measured files of the repository
    outside: list[str] = field(default_factory=list)  # measured files not in it
    functions: int = 0  # functions and methods of the measured files
    executed: int = 0  # of those, executed by at least one test
    contexts: int = 0  # test contexts of the recording
    unknown_contexts: list[str] = field(default_factory=list)  # naming no test the index knows


# -- reading -----------------------------------------------------------------


def read_coverage_py(path: Path) -> Lines:
    """Measured file (as recorded) -> line -> the contexts that executed it
    (the empty one: outside any test, as at import or collection). Through
    coverage.py's API where it is installed, else from the data file's
    SQLite tables as coverage.py 5 and later write them (``_read_sqlite``)."""
    import sqlite3  # here: a report imports no coverage (sqlite3 and datetime, ~2.5 ms at start-up)

    try:
        from coverage import CoverageData
        from coverage.exceptions import CoverageException
    except ImportError:
        return _read_sqlite(path)
    if not path.is_file():
        raise CartogError(f"no coverage data file {path}: pass the .coverage file that pytest --cov wrote")
    data = CoverageData(basename=str(path))
    try:
        data.read()
        out: Lines = {}
        for measured in sorted(data.measured_files()):
            lines = {line: set(contexts) for line, contexts in data.contexts_by_lineno(measured).items()}
            out[measured] = {line: contexts for line, contexts in lines.items() if contexts}
        per_test = any(data.measured_contexts() - {""})
    except (CoverageException, sqlite3.Error) as exc:
        raise CartogError(f"{path} is not a coverage.py data file ({exc}): pass the .coverage file that pytest --cov wrote") from exc
    return _per_test(path, out, per_test)


def _per_test(path: Path, out: Lines, per_test: bool) -> Lines:
    if out and not per_test:
        raise CartogError(
            f"{path} records no per-test contexts: record it with pytest --cov --cov-context=test, "
            "or [run] dynamic_context = test_function"
        )
    return out


def _read_sqlite(path: Path) -> Lines:
    """coverage.py's data file read without coverage.py (the GitHub Action
    installs no extra): tables ``file``, ``context``, and ``line_bits``
    (a "numbits" blob: bit ``i`` of byte ``j`` is line ``8 j + i``) or, for
    branch coverage, ``arc`` (positive ends are lines). Schema version 7
    (coverage.py 5.0 to 7.x)."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CartogError(f"cannot open {path} ({exc}): {MISSING_COVERAGE}") from exc
    try:
        version = db.execute("SELECT version FROM coverage_schema").fetchone()
        if version is None or int(version[0]) != 7:
            raise CartogError(f"{path}: coverage.py data of schema {version and version[0]}, not 7: {MISSING_COVERAGE}")
        files = dict(db.execute("SELECT id, path FROM file"))
        contexts = dict(db.execute("SELECT id, context FROM context"))
        out: Lines = {str(p): {} for p in files.values()}

        def add(file_id: int, context_id: int, line: int) -> None:
            out[str(files[file_id])].setdefault(line, set()).add(str(contexts[context_id]))

        for file_id, context_id, numbits in db.execute("SELECT file_id, context_id, numbits FROM line_bits"):
            for j, byte in enumerate(bytes(numbits)):
                for i in range(8):
                    if byte & (1 << i):
                        add(file_id, context_id, 8 * j + i)
        for file_id, context_id, start, end in db.execute("SELECT file_id, context_id, fromno, tono FROM arc"):
            for line in (start, end):
                if line > 0:
                    add(file_id, context_id, line)
    except (sqlite3.Error, KeyError, ValueError) as exc:
        raise CartogError(f"{path} is not a coverage.py data file ({exc}): pass the .coverage file that pytest --cov wrote") from exc
    finally:
        db.close()
    return _per_test(path, out, any(c for c in contexts.values()))


# -- mapping -----------------------------------------------------------------


class IndexedPaths:
    """The indexed paths, by file name (a measured path is matched against
    those of its own name only)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_name: dict[str, list[str]] = {}
        for p in paths:
            self.by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)

    def ending(self, text: str) -> list[str]:
        """The indexed paths that ``text`` is or ends with."""
        return [k for k in self.by_name.get(text.rsplit("/", 1)[-1], ()) if text == k or text.endswith("/" + k)]

    def under(self, text: str) -> list[str]:
        """The indexed paths that end with ``text`` (JaCoCo's
        ``package/File.java`` under a source root)."""
        return [k for k in self.by_name.get(text.rsplit("/", 1)[-1], ()) if k.endswith("/" + text)]


def repository_path(measured: str, root: Path, known: IndexedPaths) -> str | None:
    """The indexed path of a measured file: under ``root``, else the longest
    indexed path it ends with (coverage recorded in another checkout), else
    the one indexed path that ends with it (a path relative to a source root,
    as JaCoCo's)."""
    text = measured.replace("\\", "/")
    prefix = str(root).rstrip("/") + "/"
    found = known.ending(text)
    if text.startswith(prefix) and text[len(prefix) :] in found:
        return text[len(prefix) :]
    # an installed dependency's file is none of the repository's, whatever
    # it ends with (tape's node_modules/mock-property/index.js is not
    # minimist's index.js)
    found = [k for k in found if not _DEPENDENCY.search(text[: len(text) - len(k)])]
    if found:
        return max(found, key=len)
    below = known.under(text) if not text.startswith("/") else []
    return below[0] if len(below) == 1 else None


def function_lines(symbols: Sequence[Symbol], text: str) -> dict[int, str]:
    """Line -> the function or method whose body holds it, innermost first.
    A function's own ``def`` line and decorators run when it is defined, not
    when it is called: they belong to what encloses it, but for a function
    written on one line (a test that ran the line may not have called it:
    its tests are a superset, and it is never "untested" while its definer
    ran). Other languages: the
    lines after its first (its header), or its one line."""
    lines = text.splitlines()
    owner: dict[int, str] = {}
    functions = [s for s in symbols if s.kind in FUNCTION_KINDS]
    for s in sorted(functions, key=lambda s: s.start_line - s.end_line):  # outermost first
        header = s.start_line
        if s.language == "python":
            while header < s.end_line and header <= len(lines) and not _HEADER.match(lines[header - 1]):
                header += 1
            if header == s.end_line:  # `def key(x): return x[0]`: its body is its def line (boltons' bucketize)
                header -= 1
        elif s.start_line == s.end_line:
            header -= 1
        for line in range(header + 1, s.end_line + 1):
            owner[line] = s.id
    return owner


def statement_spans(text: str) -> dict[int, int]:
    """Python: a statement's first line -> its last (a compound statement's
    header only: its body's statements are their own; an ``except`` clause's
    header too). coverage.py records a statement on one of its lines (its
    first, or the condition's line of a ``while (`` written on several); a
    change to any of its lines changes it."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.ExceptHandler)):
            continue
        last = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(node.lineno, body[0].lineno - 1)
        out[node.lineno] = max(out.get(node.lineno, node.lineno), last)
    return out


def line_groups(
    symbols: Sequence[Symbol],
    text: str,
    owner: Mapping[int, str],
    spans: Mapping[int, int],
    lines: Mapping[int, set[str]],
    names: TestNames,
    executed: set[str],
    *,
    whole: bool = False,
) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Each function some test executed -> its body's lines that a changed
    line can be judged by, grouped by the tests whose recorded run executed
    them: ``("3-5,9", tests)``, lines counted after the function's first.
    Python (``spans``, ``statement_spans``): a statement's lines are one (the
    tests that executed any of them: coverage.py records a statement on one
    of its lines); left out, so that a change there falls back to the whole
    function's tests (``line_tests``), are a line no statement of the
    function starts on (``else:``, ``finally:``, the ``def`` line and
    decorators) and a statement that ran at import or collection (the
    importers' rule reads it). A file V8 measured (``whole``): every line,
    each its own, a line no unit ran in a group of no test (V8 paints the
    whole file), and the module's own lines too (a function the index has
    no symbol for is its module's). Both: a blank or comment line is the
    next line's (an insertion there runs where that line runs); a line of a
    nested function's body is none of this function's (a group without
    tests)."""
    text_lines = text.splitlines()
    out: dict[str, list[tuple[str, tuple[str, ...]]]] = {}

    def tests_in(numbers: Iterable[int]) -> frozenset[str] | None:
        ran = set().union(*(lines.get(n, set()) for n in numbers))
        return None if AT_IMPORT in ran else frozenset(t for c in ran for t in names.resolve(c))

    for s in symbols:
        if s.id not in executed or s.kind not in (*FUNCTION_KINDS, *(("module",) if whole else ())):
            continue
        mine = None if s.kind == "module" else s.id
        body = [n for n in range(s.start_line + 1, s.end_line + 1) if owner.get(n) == mine]
        if s.kind == "module":
            body = [n for n in range(s.start_line, s.end_line + 1) if owner.get(n) is None]
        if not body:
            continue
        first = body[0]
        tests_of: dict[int, frozenset[str] | None] = {}  # None: not judged
        if whole:
            tests_of.update((n, tests_in((n,))) for n in body)
        for start, last in spans.items():
            if owner.get(start) == mine:
                found = tests_in(range(start, last + 1))
                tests_of.update((n, found) for n in range(start, last + 1))
        following: frozenset[str] | None = None
        for n in range(s.end_line, first - 1, -1):
            code = text_lines[n - 1].strip() if n <= len(text_lines) else ""
            if owner.get(n) != mine:
                tests_of[n] = frozenset()  # a nested function's body
            elif (whole or n not in tests_of) and (not code or code.startswith(("#", "//", "/*", "*"))):
                tests_of[n] = following
            following = tests_of.get(n)
        groups: dict[frozenset[str], list[int]] = {}
        for n in range(first, s.end_line + 1):
            found = tests_of.get(n)
            if found is not None:
                groups.setdefault(found, []).append(n - s.start_line)
        out[s.id] = [(_ranges(offsets), tuple(sorted(found))) for found, offsets in groups.items()]
    return out


def _ranges(numbers: list[int]) -> str:
    """Sorted integers as "3-5,9"."""
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}-{prev}" if prev != start else str(start))
        if n is not None:
            start = prev = n
    return ",".join(parts)


def parse_ranges(text: str) -> set[int]:
    """"3-5,9" as {3, 4, 5, 9}."""
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


class TestNames:
    """Contexts to test symbols: a pytest node ID
    (``tests/test_a.py::TestA::test_b[1]|run``, its path relative to
    pytest's rootdir) or a coverage.py ``test_function`` context
    (``tests.test_a.TestA.test_b``, by module) names one test; a per-unit
    context (report/coverage_formats.py) names its unit's: ``file PATH``
    (a JS/TS test file), ``package DIR`` (a Go package's Test functions),
    ``class NAME`` (a Java test class's test methods)."""

    def __init__(self, store: Store, files: IndexedPaths) -> None:
        self.store = store
        self.files = files
        self._in_file: dict[str, list[Symbol]] = {}
        self._modules: dict[str, list[str]] | None = None
        self._cache: dict[str, tuple[str, ...]] = {}

    def resolve(self, context: str) -> tuple[str, ...]:
        """The IDs of the tests ``context`` names (none: no test the index knows)."""
        if context not in self._cache:
            self._cache[context] = self._resolve(context)
        return self._cache[context]

    def _resolve(self, context: str) -> tuple[str, ...]:
        kind, _, unit = context.partition(" ")
        if unit and kind == "file":
            return self._file_tests(unit)
        if unit and kind == "package":
            return self._package_tests(unit)
        if unit and kind == "class":
            return self._class_tests(unit)
        text = _PHASE.sub("", context)
        if "::" in text:
            path, _, rest = text.partition("::")
            # a parameter ID may hold "::" itself (boltons' `test_query_params[https://[::1]:80/]`):
            # the names end at the first "[", which no class or function name holds
            parts = rest.partition("[")[0].split("::")
            qualified = ".".join(parts)
            files = self.files.ending(path)
            # a dotted part is no class or function: a doctest (`mod.py::mod.f`, report/doctests.py)
            if len(parts) == 1 and "." in parts[0]:
                return (doctest_id(sorted(files, key=len)[0], parts[0]),) if files else ()
            found = self._first(files, qualified)
            if found is None and not any("." in part for part in parts):
                found = self._collected(files, qualified)
            return (found,) if found else ()
        parts = _PARAMS.sub("", text).split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module, qualified = ".".join(parts[:cut]), ".".join(parts[cut:])
            found = self._first(self._module_files(module), qualified)
            if found is not None:
                return (found,)
        return ()

    def _first(self, files: list[str], qualified: str) -> str | None:
        for f in sorted(files, key=len):
            for s in self._tests_in(f):
                if s.kind in FUNCTION_KINDS and s.qualified_name == qualified:
                    return s.id
        return None

    def _collected(self, files: list[str], qualified: str) -> str | None:
        """A test pytest collected in a file that does not define it: a
        method a test class inherits from a base class of another file, a
        test class or function imported into the file. Its ID is the one
        the file would give it (``collected_tests`` builds its symbol): the
        command runs it as the recording did, in the collecting file and
        class, not as the base class's own test."""
        if not files:
            return None
        f = sorted(files, key=len)[0]
        return f"{f}:{'method' if '.' in qualified else 'function'}:{qualified}"

    def _tests_in(self, path: str) -> list[Symbol]:
        if path not in self._in_file:
            self._in_file[path] = [s for s in self.store.symbols_in_file(path) if is_test(s)]
        return self._in_file[path]

    def _file_tests(self, path: str) -> tuple[str, ...]:
        """A test file's: its module where the runner runs files (JS/TS),
        else its test functions."""
        tests = self._tests_in(path)
        modules = [s.id for s in tests if s.kind == "module"]
        return tuple(modules or sorted(s.id for s in tests if s.kind in FUNCTION_KINDS))

    def _package_tests(self, unit: str) -> tuple[str, ...]:
        """A Go package's Test functions: ``unit`` is its folder (``./pkg``,
        ``.``) or its import path (``example.com/m/pkg``: the longest
        indexed folder it ends with)."""
        folder = unit.strip().removeprefix("./").rstrip("/")
        folder = "" if folder == "." else folder
        test_files = sorted(p for paths in self.files.by_name.values() for p in paths if p.endswith("_test.go"))
        found = [f for f in {p.rpartition("/")[0] for p in test_files} if f == folder or (f and folder.endswith("/" + f))]
        if not found:
            return ()
        best = max(found, key=len)
        in_package = [p for p in test_files if p.rpartition("/")[0] == best]
        return tuple(s.id for p in in_package for s in self._tests_in(p) if s.kind == "function" and s.name.startswith("Test"))

    def _class_tests(self, unit: str) -> tuple[str, ...]:
        """A Java test class's test methods: ``unit`` is its binary name
        (``com.shop.FooTest``, ``com.shop.FooTest$Inner``)."""
        top, _, inner = unit.strip().partition("$")
        dotted = top.replace(".", "/") + ".java"
        simple = top.rpartition(".")[2]
        paths = self.files.ending(dotted) + self.files.under(dotted) + self.files.under(simple + ".java")
        owner = ".".join([simple, *inner.split("$")]) if inner else simple
        for path in dict.fromkeys(sorted(paths, key=lambda p: (not p.endswith("/" + dotted), len(p)))):
            tests = self._tests_in(path)
            found = tuple(s.id for s in tests if s.kind in FUNCTION_KINDS and s.qualified_name.rpartition(".")[0] == owner)
            if found:
                return found
        return ()

    def _module_files(self, module: str) -> list[str]:
        if self._modules is None:
            self._modules = {}
            for path, symbol_id, _ in self.store.modules():
                self._modules.setdefault(symbol_id.rsplit(":", 1)[-1], []).append(path)
        tail = "." + module
        return [p for name, paths in self._modules.items() if name == module or name.endswith(tail) for p in paths]


# measured file -> (the contexts of one recording, the functions it lists with their calls)
Calls = dict[str, list[tuple[frozenset[str], list[tuple[int, int, int]]]]]


def _read(
    root: Path,
    known: IndexedPaths,
    sources: Sequence[tuple[str | None, Path]],
    names: TestNames,
    whole: set[str] | None = None,
    calls: Calls | None = None,
) -> Lines:
    """Every source's executed lines, by measured file, with the contexts
    that executed them (a measured file with none still listed). ``whole``
    gets the measured files only V8 recordings measured: V8's block
    coverage paints every line of a file, so a line one lacks did not run
    in it (another format lists statements, and leaves other lines out).
    ``calls`` gets each recording's functions with their call counts (V8,
    istanbul: ``uncalled``)."""
    recorded: Lines = {}
    others: set[str] = set()

    def text_of(measured: str) -> str | None:
        mapped = repository_path(measured, root, known)
        return (root / mapped).read_text(encoding="utf-8", errors="replace") if mapped else None

    for unit, data_file in sources:
        kind = detect(data_file)
        if kind == "coverage.py":
            if unit is not None:
                raise CartogError(f"{data_file}: coverage.py data names its tests itself: pass it without {unit}=")
            found = read_coverage_py(data_file)
        else:
            recording = read_unit(kind, data_file, text_of)
            context = _unit_context(kind, recording, unit, data_file, root, known, names)
            found = {m: {line: set(context) for line in lines} for m, lines in recording.lines.items()}
            if calls is not None:
                for measured, functions in recording.functions.items():
                    calls.setdefault(measured, []).append((frozenset(context), functions))
        for measured, lines in found.items():
            into = recorded.setdefault(measured, {})
            for line, line_contexts in lines.items():
                into.setdefault(line, set()).update(line_contexts)
            (whole if whole is not None and kind == "v8" else others).add(measured)
    if whole is not None:
        whole -= others
    return recorded


def _unit_context(
    kind: str, recording: UnitRecording, unit: str | None, data_file: Path, root: Path, known: IndexedPaths, names: TestNames
) -> list[str]:
    """The contexts of a per-unit recording: the unit given (``UNIT=FILE``),
    else the one its content names."""
    prefix = UNIT_KINDS[kind]
    if unit is not None:
        if not unit.strip():
            raise CartogError(f"{data_file}: the unit before = is empty: name the test file, package or class it ran")
        return [f"{prefix} {unit.strip()}"]
    how = {
        "file": "the test file it ran: TESTFILE=FILE (run one test file per recording)",
        "package": "the package whose tests ran: ./pkg=FILE",
        "class": "the test class it ran: com.shop.FooTest=FILE (or jacococli report --name com.shop.FooTest)",
    }[prefix]
    if kind == "jacoco" and recording.name and names.resolve(f"class {recording.name}"):
        return [f"class {recording.name}"]
    mapped = {repository_path(m, root, known) for m, lines in recording.lines.items() if lines or kind == "go"}
    mapped.discard(None)
    paths = sorted(p for p in mapped if p is not None)
    if kind == "go":
        folders = sorted({p.rpartition("/")[0] or "." for p in paths})
        if len(folders) == 1:
            return [f"package {folders[0]}"]
        raise CartogError(f"{data_file} measures {len(folders)} packages of this repository (-coverpkg): name {how}")
    if kind == "jacoco":  # the test classes it measured (an agent that instruments the tests too)
        classes = sorted({_binary_name(s) for p in paths for s in names._tests_in(p) if s.kind in FUNCTION_KINDS})
        if classes:
            return [f"class {c}" for c in classes]
        raise CartogError(f"{data_file} names no test class of this repository (report name {recording.name!r}): name {how}")
    # a test file the runner runs (its module is a test), not a helper beside the tests
    files = [p for p in paths if any(s.kind == "module" for s in names._tests_in(p))]
    if files:
        return [f"file {p}" for p in files]
    raise CartogError(f"{data_file} executed no test file of this repository: name {how}")


def _binary_name(test: Symbol) -> str:
    folder = test.file.rpartition("/")[0].split("/")
    package = ".".join(folder[folder.index("java") + 1 :]) if "java" in folder else ""
    owner = test.qualified_name.rpartition(".")[0].replace(".", "$")
    return f"{package}.{owner}" if package else owner


def import_coverage(
    root: Path, store: Store, sources: Sequence[tuple[str | None, Path]], *, commit: str, keep: int = KEEP_RUNS
) -> Imported:
    """Read ``sources`` (coverage files of one recording, each with the unit
    it ran when the user names it: ``UNIT=FILE``), map them to the functions
    and methods of ``commit`` and store them as its recording (replacing any
    earlier one; the newest ``keep`` are kept). The index must be up to date
    with the work tree, and the measured files must be as ``commit`` has
    them."""
    known = IndexedPaths(store.file_hashes())
    names = TestNames(store, known)
    whole: set[str] = set()
    calls: Calls = {}
    recorded = _read(root, known, sources, names, whole, calls)
    result = Imported(commit)
    by_path: dict[str, dict[int, set[str]]] = {}
    whole_paths: set[str] = set()  # mapped files V8 alone measured
    calls_of: Calls = {}  # by mapped file
    for measured, lines in recorded.items():
        mapped = repository_path(measured, root, known)
        if mapped is None:
            result.outside.append(measured)
        else:
            if measured in whole:
                whole_paths.add(mapped)
            calls_of.setdefault(mapped, []).extend(calls.get(measured, []))
            into = by_path.setdefault(mapped, {})
            for line, line_contexts in lines.items():
                into.setdefault(line, set()).update(line_contexts)
    if not by_path:
        example = f" (e.g. {result.outside[0]})" if result.outside else ""
        raise CartogError(
            f"none of the {len(recorded)} measured file(s) is in this repository's index{example}: "
            "import in the repository the coverage was recorded in"
        )
    _check_commit(root, commit, sorted(by_path))
    symbols: dict[str, str] = {}
    hits: set[tuple[str, str]] = set()
    contexts: set[str] = set()
    grouped: dict[str, tuple[str, ...]] = {}  # a line group's pseudo-context -> its tests
    modules: dict[str, str] = {}  # the modules of other languages' measured files
    for file, lines in sorted(by_path.items()):
        in_file = store.symbols_in_file(file)
        symbols.update((s.id, s.content_hash) for s in in_file if s.kind in FUNCTION_KINDS)
        starts = {s.id: s.start_line for s in in_file}
        text = (root / file).read_text(encoding="utf-8", errors="replace")
        owner = function_lines(in_file, text)
        if calls_of.get(file):
            lines = by_path[file] = uncalled(in_file, owner, lines, calls_of[file], text.encode("utf-8"))
        spans = statement_spans(text) if file.endswith(".py") else {}
        # another language's line that no function of the index holds (a
        # function written in an object literal, a callback the index has
        # no symbol for: qs's `indices: function indices(prefix, key)`)
        # is its module's: a change there is the module's own
        module = None if file.endswith(".py") else next((s for s in in_file if s.kind == "module"), None)
        if module is not None:
            modules[module.id] = module.content_hash
        for line, line_contexts in lines.items():
            contexts |= line_contexts
            symbol_id = owner.get(line, module.id if module is not None else None)
            if symbol_id is not None:
                # the empty context (run at import or collection) is kept: a
                # function it ran is never "untested", though it names no test
                hits.update((symbol_id, c) for c in line_contexts)
                if AT_IMPORT in line_contexts:
                    for n in range(line, spans.get(line, line) + 1):
                        hits.add((symbol_id, f"{AT_IMPORT_LINE}{n - starts[symbol_id]}"))
        if spans or file in whole_paths:
            executed = {s for s, c in hits if c and not c.startswith(AT_IMPORT_LINE)}
            for symbol_id, groups in line_groups(
                in_file, text, owner, spans, lines, names, executed, whole=file in whole_paths
            ).items():
                for offsets, found in groups:
                    pseudo = f"{LINES}{symbol_id}|{offsets}"
                    hits.add((symbol_id, pseudo))
                    grouped[pseudo] = found
    contexts.discard(AT_IMPORT)
    tests = {c: names.resolve(c) for c in sorted(contexts)}
    result.unknown_contexts = [c for c, found in tests.items() if not found]
    tests.update(grouped)
    result.files = len(by_path)
    result.functions = len(symbols)
    result.executed = len({s for s, c in hits if c and s in symbols and not c.startswith((AT_IMPORT_LINE, LINES))})
    symbols.update(modules)
    result.contexts = len(contexts)
    run = CoverageRun(commit, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), len(contexts), len(by_path))
    with store.transaction():
        store.put_coverage(run, symbols, sorted(hits), {c: found for c, found in tests.items() if found}, keep=keep)
    return result


def uncalled(
    symbols: Sequence[Symbol],
    owner: Mapping[int, str],
    lines: Mapping[int, set[str]],
    recordings: Sequence[tuple[frozenset[str], list[tuple[int, int, int]]]],
    raw: bytes,
) -> dict[int, set[str]]:
    """``lines`` without the contexts that never called the function whose
    body holds a line: a line holds code of what defines the function too
    (``const half = (x) => x / 2;`` runs its ``const half =`` when the
    module loads; a function expression or an object literal's method ends
    on ``};`` or ``},``), so a line that ran does not say the function
    did. A function's own range in a recording is the outermost function
    the recording lists inside its bytes (``start_byte`` to ``end_byte``)
    that starts on its first line and ends on its last (not a callback
    inside it); a context is taken off the function's lines when every
    recording of it that lists such a range counts no call, and kept when
    one counts a call or none lists a range there (code never compiled:
    its lines never ran; a body V8 does not list apart)."""
    out = {n: set(found) for n, found in lines.items()}
    owned: dict[str, list[int]] = {}
    for n, symbol_id in owner.items():
        owned.setdefault(symbol_id, []).append(n)
    ordered = [sorted(functions) for _, functions in recordings]
    for s in symbols:
        if s.kind not in FUNCTION_KINDS or s.id not in owned:
            continue
        verdicts: dict[str, bool] = {}  # context -> called in some recording (or not known)
        for (contexts, _), functions in zip(recordings, ordered, strict=True):
            calls = _own_calls(functions, s.start_byte, s.end_byte, raw)
            for c in contexts:
                verdicts[c] = verdicts.get(c, False) or calls is None or calls > 0
        never = {c for c, called in verdicts.items() if not called}
        if never:
            for n in owned[s.id]:
                if n in out:
                    out[n] -= never
    return {n: found for n, found in out.items() if found or not lines[n]}


def _own_calls(functions: Sequence[tuple[int, int, int]], start: int, end: int, raw: bytes) -> int | None:
    """The calls of the outermost function of ``functions`` (sorted by
    start) inside bytes ``start`` to ``end`` of ``raw`` (the most, where a
    recording lists it twice), None without one or where it starts or ends
    on another line than they do."""
    found: tuple[int, int] | None = None  # (start, end) of the outermost
    most: int | None = None
    for a, b, n in functions[bisect.bisect_left(functions, (start, -1, -1)) :]:
        if a >= end:
            break
        if b > end:
            continue
        if found is None or a == found[0] and b > found[1]:
            found, most = (a, b), n
        elif (a, b) == found:
            most = max(most or 0, n)
        elif a > found[0]:
            break
    if found is None or b"\n" in raw[start : found[0]] or b"\n" in raw[found[1] : end]:
        return None
    return most


def _check_commit(root: Path, commit: str, paths: list[str]) -> None:
    """The measured files must be as ``commit`` has them: the index's line
    ranges are the work tree's."""
    present: set[str] = set()
    for start in range(0, len(paths), 500):
        listed = git.run(root, "--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", commit, "--", *paths[start : start + 500])
        present.update(listed.decode("utf-8", "surrogateescape").split("\0"))
    differ = sorted((set(paths) - present) | git.differing_from(root, commit, paths))
    if differ:
        raise CartogError(
            f"{len(differ)} measured file(s) differ in the work tree from commit {commit[:12]} (e.g. {differ[0]}): "
            "check out the commit the coverage was recorded on, or pass --commit"
        )


# -- the report --------------------------------------------------------------


def recorded_use(store: Store, root: Path, merge_base: str | None) -> CoverageUse | None:
    """The recording the report reads: the merge-base's, else the nearest
    recorded ancestor of it (None without one)."""
    if not merge_base or not store.supports_coverage:
        return None
    runs = store.coverage_runs()
    for run in runs:
        if run.commit == merge_base:
            return CoverageUse(run.commit, True, run.contexts)
    nearest: tuple[int, CoverageRun] | None = None
    for run in runs:
        distance = git.ancestor_distance(root, run.commit, merge_base)
        if distance is not None and (nearest is None or distance < nearest[0]):
            nearest = (distance, run)
    return CoverageUse(nearest[1].commit, False, nearest[1].contexts) if nearest else None


def apply_coverage(
    store: Store,
    use: CoverageUse,
    changed: list[ChangedSymbol],
    *,
    in_test_code: set[str],
    changed_lines: Mapping[str, set[int] | None] | None = None,
    entries: ScriptEntries | None = None,
) -> None:
    """Each changed symbol with a base version gets the tests whose recorded
    run executed that version (those the index still has), and is
    "untested" when the recording holds its base body (same content hash)
    and no test executed it. ``in_test_code``: IDs of changed symbols in
    test code (never "untested"). ``changed_lines``: file -> the lines of
    its base version the change replaced or deleted, or inserted between
    (None, or a file not there: all of them); a function whose changed
    line ran at import also gets ``imported_by``. ``entries``: a function
    a script entry reaches is never "untested" (report/entries.py)."""
    olds = {c.change.old.id: c for c in changed if c.change.old is not None}
    bases = {c.change.old.id: c.change.old for c in changed if c.change.old is not None}
    recorded = store.recorded_coverage(use.commit, list(olds))
    # a changed line run at import or collection: what imports its file depends on it
    lines = changed_lines or {}
    at_import = {
        i for i, found in recorded.items()
        if i in bases and found.content_hash == bases[i].content_hash
        and ran_at_import(found.unknown_contexts, bases[i], lines.get(bases[i].file))
    }  # fmt: skip
    importing = importing_tests(store, {bases[i].file for i in at_import}, use.commit)
    wanted = {t for r in recorded.values() for t in r.tests}
    tests = store.symbols(wanted)
    tests.update(collected_tests(store, wanted - set(tests)))
    starting: set[str] | None = None  # the tests that start a process (report/process_tests.py), read once
    for old_id, item in olds.items():
        found = recorded.get(old_id)
        old = item.change.old
        if found is None or old is None:
            continue
        if old.kind not in FUNCTION_KINDS and item.change.category not in ("modified", "renamed"):
            continue  # a module whose functions alone changed: theirs are the tests
        item.recorded_older = found.content_hash != old.content_hash
        chosen = set(found.tests)
        by_lines = None if item.recorded_older or old_id in at_import else line_tests(found, old, lines.get(old.file))
        if by_lines is not None:
            if starting is None:
                starting = {t.id for t, _, _ in StartingTests(store).found()}
            # a test that starts a process may run the changed line in the
            # child, where no context is recorded: the whole function's
            chosen = (by_lines & chosen) | (chosen & starting)
        item.covered_by = sorted((tests[t] for t in chosen if t in tests), key=lambda s: (s.file, s.start_line, s.id))
        if old_id in at_import:
            item.imported_by = importing.get(old.file, [])
        item.untested = (
            not found.executed
            and not item.recorded_older
            and item.change.category in ("modified", "renamed")
            and old.kind in FUNCTION_KINDS
            and item.symbol.id not in in_test_code
        )
        if item.untested and entries is not None:
            item.script_entry = entries.reaching(item)
            item.untested = not item.script_entry



def line_tests(found: RecordedSymbol, old: Symbol, changed: set[int] | None) -> set[str] | None:
    """The tests whose recorded run executed a line of ``old``'s base body
    that the change replaced or deleted, or inserted beside (``changed``:
    its file's base lines, ``changed_base_lines``), by the recording's line
    groups (``line_groups``). None where they cannot tell, and the whole
    function's tests are run: no groups, a change on a line no group holds
    (``else:``, the ``def`` line, a statement run at import, an insertion
    after its last line) or none on its lines. A test whose run did not
    reach the changed line at the base does not reach it at the head: the
    code it ran before that line is unchanged."""
    if changed is None or not found.line_groups:
        return None
    offsets = {n - old.start_line for n in changed if old.start_line <= n <= old.end_line + 1}
    if not offsets:
        return None
    out: set[str] = set()
    judged: set[int] = set()
    for ranges, group_tests in found.line_groups:
        lines = parse_ranges(ranges)
        judged |= lines
        if lines & offsets:
            out.update(group_tests)
    return out if offsets <= judged else None


def changed_base_lines(base: Mapping[str, bytes], head: Mapping[str, bytes]) -> dict[str, set[int] | None]:
    """File -> the lines of its base version a change replaced or deleted,
    and for an insertion the two lines around it (None: a side is
    missing, all of them)."""
    import difflib

    out: dict[str, set[int] | None] = {}
    for path, old in base.items():
        new = head.get(path)
        if old is None or new is None:
            out[path] = None
            continue
        a = old.decode("utf-8", "replace").splitlines()
        b = new.decode("utf-8", "replace").splitlines()
        lines: set[int] = set()
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                lines.update(range(i1 + 1, i2 + 1))
            elif tag == "insert":
                lines.update((i1, i1 + 1))
        out[path] = lines
    return out


def ran_at_import(contexts: Iterable[str], old: Symbol, changed: set[int] | None) -> bool:
    """Whether the recording shows a line of ``old`` that the change
    touches (``changed``, its file's base lines; None: any) running at
    import or collection: the lines it stored for ``old``
    (``AT_IMPORT_LINE``), or, from a recording without them, any line of
    it that ran there."""
    contexts = set(contexts)
    if AT_IMPORT not in contexts:
        return False
    lines = {old.start_line + int(c[len(AT_IMPORT_LINE) :]) for c in contexts if c.startswith(AT_IMPORT_LINE)}
    return not lines or changed is None or bool(lines & changed)


def importing_tests(store: Store, files: Iterable[str], commit: str | None = None) -> dict[str, list[Symbol]]:
    """File -> the tests of the files whose import imports it (Python).

    A function the recording shows running at import or collection
    (coverage.py's empty context: no test named) runs when its module, or a
    module that calls it at its top level, is imported; each of those is
    imported by the modules that import it, so whatever reads what that
    import made (a module that no longer imports, a value computed at
    import) is in a file of ``import_closure``: a test file there, or one
    under a ``conftest.py`` there (pytest imports it before the tests of its
    folder), and the doctests of those files that the recording of
    ``commit`` ran (``doctests_running``: a docstring's example reads
    what the import made, boltons' ``GCToggler`` doctest the module's
    ``toggle_gc = GCToggler()``). The recording cannot say which test
    needed the import (it ran once, before any test): these are every test
    that can have."""
    out: dict[str, list[Symbol]] = {}
    wanted = sorted(f for f in set(files) if f.endswith(".py"))
    every = sorted(store.file_hashes()) if wanted else []
    collected = CollectedTests(store)
    doctests: dict[str, set[str]] = {}  # path -> the recorded doctests that ran its code, read once
    functions: dict[str, list[Symbol]] = {}  # path -> its functions and methods, read once (closures overlap)
    for file in wanted:
        closure = import_closure(store, file, every)
        folders = [f.rpartition("/")[0] for f in closure if f.rpartition("/")[2] == "conftest.py"]
        paths = closure | {p for p in every if any(_under(p, folder) for folder in folders)}
        found: dict[str, Symbol] = {}
        for path in sorted(paths - functions.keys()):
            functions[path] = [s for s in store.symbols_in_file(path) if s.kind in FUNCTION_KINDS]
        for path in sorted(paths):
            for s in functions[path]:
                # a mixin's test method: as its collected test classes run it (report/inherited_tests.py)
                found.update((t.id, t) for t in collected.of(s))
        if commit is not None:
            doctests.update(doctests_running(store, commit, {p: functions[p] for p in sorted(paths - doctests.keys())}))
            for test_id in sorted({t for path in paths for t in doctests[path] if t.partition(":")[0] in paths}):
                doctest = doctest_symbol(store, test_id)
                if doctest is not None:
                    found[test_id] = doctest
        out[file] = sorted(found.values(), key=lambda s: (s.file, s.start_line, s.id))
    return out


def doctests_running(store: Store, commit: str, functions: Mapping[str, Sequence[Symbol]]) -> dict[str, set[str]]:
    """Path -> the doctests (of any file) whose run, in the recording of
    ``commit``, executed one of that file's ``functions``: a doctest is
    no symbol, it is found through what it ran. A project that does not
    run its doctests records none. Not found: a doctest that ran no
    function (a module constant's example)."""
    ids = [s.id for found in functions.values() for s in found]
    out: dict[str, set[str]] = {p: set() for p in functions}
    for symbol_id, found in store.recorded_coverage(commit, ids).items():
        path = symbol_id.partition(":")[0]
        if path in out:
            out[path].update(t for t in found.tests if is_doctest_id(t))
    return out


def import_closure(store: Store, file: str, every: Sequence[str]) -> set[str]:
    """``file`` and the files whose import imports it: those with an
    ``imports`` edge to its module or to a symbol of it, and, for a
    package's ``__init__.py``, every Python file of its folder (Python
    imports a package before any module in it), to a fixpoint. ``every``:
    the indexed paths."""
    seen = {file}
    todo = [file]
    while todo:
        path = todo.pop()
        ids = [s.id for s in store.symbols_in_file(path)]
        found = {e.file for e in store.edges_to(ids, ("imports",))} if ids else set()
        folder, _, name = path.rpartition("/")
        if name == "__init__.py":
            found |= {p for p in every if p.endswith(".py") and _under(p, folder)}
        for other in sorted(found - seen):
            seen.add(other)
            todo.append(other)
    return seen


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def collected_tests(store: Store, ids: set[str]) -> dict[str, Symbol]:
    """Symbols for the tests a recording names in a file that does not
    define them (``TestNames._collected``): an inherited method, in its
    collecting class (``path:method:Class.test``), or an imported test
    function (``path:function:test``), placed at that class when the file
    defines it, else at line 1 of the module. An ID whose file the index
    no longer has gives none. A doctest (``path:doctest:mod.f``) is placed
    at the object it documents (report/doctests.py)."""
    out: dict[str, Symbol] = {}
    for test_id in sorted(ids):
        if is_doctest_id(test_id):
            doctest = doctest_symbol(store, test_id)
            if doctest is not None:
                out[test_id] = doctest
            continue
        for kind in FUNCTION_KINDS:
            file, sep, qualified = test_id.partition(f":{kind}:")
            if sep:
                break
        else:
            continue
        owner, _, name = qualified.rpartition(".")
        in_file = {s.qualified_name: s for s in store.symbols_in_file(file) if s.kind in ("class", "module")}
        module = next((s for s in in_file.values() if s.kind == "module"), None)
        cls = in_file.get(owner) if owner else None
        parent = cls if cls is not None and cls.kind == "class" else module
        if parent is None or (kind == "method") != bool(owner):
            continue
        line = parent.start_line if parent is cls else 1
        out[test_id] = Symbol(
            test_id, name, qualified, kind, file, line, line, 0, 0, parent.id, "", parent.language, "", ""
        )
    return out
