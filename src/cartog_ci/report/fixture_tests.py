"""The tests that use a changed pytest fixture or set-up (docs/coverage.md,
"Tests that use a changed fixture").

pytest gives a test the fixture its parameter names: no call edge of the
graph goes from the test to the fixture, so a change of a fixture reached
no test (a conftest.py edit: "tests to run" said nothing). A changed
fixture chooses, by ``fixture``:

- the tests within its reach that request it: a parameter of that name, a
  ``@pytest.mark.usefixtures("name")`` on the test or on its class, or every
  test within reach when it is ``autouse=True`` or named by the pytest
  configuration's ``usefixtures``;
- through the fixtures within its reach that request it (a fixture's
  parameter), the tests that use those, and so on.

Its reach is pytest's: a fixture of a ``conftest.py`` serves the test files
of that folder and the folders below it, and so does one of a module that
conftest names in ``pytest_plugins``; one of a test module, that module.
A changed xunit-style set-up or tear-down (``setUp``, ``setUpClass``,
``setup_method`` …; JUnit's ``@BeforeEach``, ``@BeforeAll``, ``@Before``,
``@After…``) chooses the test methods of its class and of its subclasses;
a module's (``setUpModule``, ``setup_module`` …) the module's tests; Go's
``TestMain`` and a package's ``func init()``, every test of its package;
minitest's ``setup`` / ``teardown``, the ``test_…`` methods of its class.
Read from the index: the fixture decorator (``@pytest.fixture``,
``@fixture``, ``@pytest_asyncio.fixture``, its ``name=`` and ``autouse=``)
and the parameters of the signature. Not seen: a fixture of an installed
plugin, ``request.getfixturevalue``, a
closer fixture of the same name that overrides it (its tests are chosen
too: more, never fewer)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci import languages
from cartog_ci.languages import is_test
from cartog_ci.languages.testrunners import Workspace, pytest_usefixtures
from cartog_ci.parse.syntax import python_parameters

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.domain.results import ChangedSymbol
    from cartog_ci.store.base import Store

# `@pytest.fixture`, `@pytest.fixture(scope="module")`, `@fixture`, `@pytest_asyncio.fixture(...)`
_FIXTURE = re.compile(r"^@(?:[\w.]*\.)?fixture\b")
_NAMED = re.compile(r"""\bname\s*=\s*(['"])([^'"]+)\1""")
_AUTOUSE = re.compile(r"\bautouse\s*=\s*True\b")
_USES = re.compile(r"^@(?:[\w.]*\.)?usefixtures\s*\((.*)\)\s*$", re.DOTALL)
_STRING = re.compile(r"""(['"])([^'"]+)\1""")


def fixture_name(symbol: Symbol) -> str | None:
    """The name a fixture is requested by (its function's, or its
    decorator's ``name=``), None when ``symbol`` is no pytest fixture."""
    if symbol.language != "python" or symbol.kind not in ("function", "method"):
        return None
    for decorator in symbol.decorators:
        if _FIXTURE.match(decorator):
            named = _NAMED.search(decorator)
            return named.group(2) if named else symbol.name
    return None


def _uses(symbol: Symbol) -> set[str]:
    """The fixtures a ``usefixtures`` decorator of ``symbol`` names."""
    out: set[str] = set()
    for decorator in symbol.decorators:
        found = _USES.match(decorator)
        if found:
            out.update(m.group(2) for m in _STRING.finditer(found.group(1)))
    return out


def _reach(fixture: Symbol, plugins: dict[str, str]) -> tuple[str, str | None]:
    """(the folder whose test files a fixture serves, the one file it
    serves instead: a test module's own fixture). A module a conftest.py
    names in its ``pytest_plugins`` serves that conftest's folder
    (``plugins``: module file -> that folder)."""
    folder, name = posixpath.split(fixture.file)
    if name == "conftest.py":
        return folder, None
    if fixture.file in plugins:
        return plugins[fixture.file], None
    return folder, fixture.file


# `pytest_plugins = ["tests.fixtures.db", ...]` (or a tuple, or one string)
_PLUGINS = re.compile(r"^pytest_plugins\s*=\s*([\[(]?[^\])]*[\])]?)", re.MULTILINE)


def _plugins(store: Store, ws: Workspace | None) -> dict[str, str]:
    """The modules the conftest.py files name in ``pytest_plugins``, by
    file: the folder of the conftest that names it (the outermost, if
    several)."""
    if ws is None:
        return {}
    # module path without ".py" -> its file
    files = {path[:-3]: path for path, _, language in store.modules() if language == "python" and path.endswith(".py")}
    out: dict[str, str] = {}
    for path in sorted(files.values(), key=len):
        if posixpath.basename(path) != "conftest.py":
            continue
        text = ws.text(path) or ""
        for found in _PLUGINS.finditer(text):
            for dotted in _STRING.finditer(found.group(1)):
                stem = dotted.group(2).replace(".", "/")
                for candidate in (stem, f"{stem}/__init__"):
                    module = files.get(candidate) or next(
                        (f for s, f in files.items() if s.endswith("/" + candidate)), None
                    )  # a src layout: src/pkg/fixtures.py for pkg.fixtures
                    if module is not None:
                        out.setdefault(module, posixpath.dirname(path))
                        break
    return out


def _within(path: str, reach: tuple[str, str | None]) -> bool:
    folder, only = reach
    if only is not None:
        return path == only
    return not folder or path.startswith(folder + "/")


class _Functions:
    """The index's functions and methods, read once, and the classes by ID
    (a ``usefixtures`` on a test class): where a changed fixture's tests
    may be."""

    def __init__(self, store: Store) -> None:
        self.functions: list[Symbol] = []
        self.classes: dict[str, Symbol] = {}
        self.fixtures: dict[str, str] = {}  # ID -> the name it is requested by
        for s in store.all_symbols():
            if s.language not in _SET_UP_LANGUAGES:
                continue
            if s.kind in ("function", "method"):
                self.functions.append(s)
                name = fixture_name(s)
                if name is not None:
                    self.fixtures[s.id] = name
            elif s.kind == "class":
                self.classes[s.id] = s

    def requests(self, s: Symbol, name: str) -> bool:
        if name in python_parameters(s.signature) or name in _uses(s):
            return True
        owner = self.classes.get(s.parent_id or "")
        return owner is not None and name in _uses(owner)


# xunit-style set-up and tear-down (unittest, pytest), by where they are
# defined: a class's run around each of its tests (and its subclasses');
# a module's around each test of the module
_CLASS_SETUP = frozenset({
    "setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown",
    "setup_method", "teardown_method", "setup_class", "teardown_class", "setup", "teardown",
})  # fmt: skip
_MODULE_SETUP = frozenset({
    "setUpModule", "tearDownModule", "setup_module", "teardown_module", "setup_function", "teardown_function",
})  # fmt: skip


# JUnit's (4 and 5): a class's methods run around each test, or all of them
_JUNIT_SETUP = ("@Before", "@After")  # @Before, @BeforeEach, @BeforeAll, @BeforeClass, and @After…
_SET_UP_LANGUAGES = frozenset({"python", "go", "java", "ruby"})
# minitest's and test-unit's: run around each `test_…` method of the class
_RUBY_SETUP = frozenset({"setup", "teardown", "before_setup", "after_setup", "before_teardown", "after_teardown"})


def _set_up_tests(store: Store, setup: Symbol) -> list[Symbol]:
    """The tests a changed set-up or tear-down runs around: its class's and
    its subclasses' test methods (through ``inherits`` edges), or its
    module's tests; Go's ``TestMain`` and ``init``, every test of its
    package (the test files of its folder). Read from the files that can
    hold them, not from every symbol of the index: a member's parent is
    defined in its own file (parse/extract.py), and a set-up the walk of a
    report meets is common (Django 5.1 -> 5.1.4 HEAD~10: the two reads of
    the whole index were 1.75 s of the report's 4.3 s of CPU under cProfile;
    2.3 -> 1.2 s of CPU unprofiled)."""
    if setup.language == "go":
        folder = posixpath.dirname(setup.file)
        package = [path for path, _, language in store.modules() if language == "go" and posixpath.dirname(path) == folder]
        return [s for s in _functions_in(store, package) if s.language == "go" and s.id != setup.id and is_test(s)]
    owner = store.symbol(setup.parent_id) if setup.parent_id else None
    if owner is not None and (owner.kind != "class" or owner.language not in _SET_UP_LANGUAGES):
        owner = None
    if setup.kind == "method" and owner is not None and (setup.name in _CLASS_SETUP | _RUBY_SETUP or setup.language == "java"):
        classes, frontier = {owner.id}, [owner.id]
        while frontier:
            below = {e.source_id for e in store.edges_to(frontier, ("inherits",))} - classes
            classes |= below
            frontier = sorted(below)
        files = {s.file for s in store.symbols(sorted(classes)).values()}
        return [s for s in _functions_in(store, files) if s.parent_id in classes and is_test(s)]
    if setup.kind == "function" and setup.name in _MODULE_SETUP and setup.parent_id and ":module:" in setup.parent_id:
        return [s for s in _functions_in(store, [setup.file]) if is_test(s)]
    return []


def _functions_in(store: Store, paths: Iterable[str]) -> list[Symbol]:
    """The functions and methods of ``paths`` in a language with set-ups,
    in the order of ``Store.all_symbols`` (by file, then as
    ``symbols_in_file`` orders them)."""
    return [
        s
        for path in sorted(set(paths))
        for s in store.symbols_in_file(path)
        if s.language in _SET_UP_LANGUAGES and s.kind in ("function", "method")
    ]


def is_set_up(symbol: Symbol) -> bool:
    """Whether ``symbol`` is a set-up or tear-down its test framework runs
    around tests (``_set_up_tests`` tells which)."""
    if symbol.language == "ruby":
        return symbol.kind == "method" and symbol.name in _RUBY_SETUP and is_test_file(symbol)
    if symbol.language == "go":
        # TestMain runs the package's tests; a package's `func init()` runs before any of them
        return symbol.kind == "function" and (
            symbol.name == "TestMain" and symbol.file.endswith("_test.go") or symbol.name == "init"
        )
    if symbol.language == "java":
        return symbol.kind == "method" and any(d.startswith(_JUNIT_SETUP) for d in symbol.decorators)
    return symbol.language == "python" and symbol.name in (_CLASS_SETUP | _MODULE_SETUP)


def is_test_file(symbol: Symbol) -> bool:
    language = languages.get(symbol.language)
    return language is not None and language.in_test_file(symbol.file)


def set_up_tests(store: Store, setups: Sequence[Symbol]) -> dict[str, list[Symbol]]:
    """The tests each set-up (``is_set_up``) runs around, by its ID."""
    return {s.id: _set_up_tests(store, s) for s in setups}


def fixture_tests(store: Store, changed: Sequence[ChangedSymbol], ws: Workspace | None = None) -> list[tuple[Symbol, str]]:
    """(test, the changed fixture that chose it) for each test that uses a
    changed (modified, renamed, added) fixture, directly or through other
    fixtures, in file and line order."""
    roots = [
        c.symbol
        for c in changed
        if c.change.category in ("modified", "renamed", "added") and fixture_name(c.symbol) is not None
    ]
    setups = [c.symbol for c in changed if c.change.category in ("modified", "renamed", "added") and is_set_up(c.symbol)]
    if not roots and not setups:
        return []
    found: dict[str, tuple[Symbol, str]] = {}
    for setup in setups:
        for test in _set_up_tests(store, setup):
            found.setdefault(test.id, (test, setup.qualified_name))
    if not roots:
        return sorted(found.values(), key=lambda t: (t[0].file, t[0].start_line, t[0].id))
    index = _Functions(store)  # a fixture may be requested anywhere within its reach
    plugins = _plugins(store, ws)
    for root in roots:
        frontier: list[Symbol] = [root]
        seen = {root.id}
        while frontier:
            fixture = frontier.pop()
            name = fixture_name(fixture)
            assert name is not None
            reach = _reach(fixture, plugins)
            # `autouse=True`, or named by the configuration's `usefixtures`: every test within reach
            autouse = any(_AUTOUSE.search(d) for d in fixture.decorators if _FIXTURE.match(d)) or (
                ws is not None and name in pytest_usefixtures(ws, fixture.file)
            )
            for s in index.functions:
                if s.id == fixture.id or s.language != "python" or not _within(s.file, reach):
                    continue
                if is_test(s):
                    if (autouse or index.requests(s, name)) and s.id not in found:
                        found[s.id] = (s, root.qualified_name)
                elif s.id not in seen and s.id in index.fixtures and index.requests(s, name):
                    seen.add(s.id)
                    frontier.append(s)
    return sorted(found.values(), key=lambda t: (t[0].file, t[0].start_line, t[0].id))
