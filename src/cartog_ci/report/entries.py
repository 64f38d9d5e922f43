"""Script entries: code a test may run in a process of its own (docs/coverage.md,
"What a recording cannot see").

coverage.py's per-test contexts name the test that ran a line in the test's
own process. A test that starts the project as a script (``python
tabulate/__init__.py``, ``python -m slugify``, a console script) runs it in a
child process: measured there at best in no test's context, most often not
at all. So a function a recording shows never executed, but reached from a
script entry, is not said to be untested: the report says it is reached
from that entry and what the recording cannot see.

An entry is a module's code under ``if __name__ == "__main__":``, a
``__main__.py`` module's code, or a function a console or GUI script names
(``[project.scripts]``, ``[project.gui-scripts]``, ``[tool.poetry.scripts]``
in pyproject.toml; ``console_scripts`` / ``gui_scripts`` in setup.cfg).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.domain.results import ChangedSymbol
from cartog_ci.languages import is_test
from cartog_ci.parse.extract import module_name
from cartog_ci.report.process_tests import Program, StartingTests
from cartog_ci.report.sides import worktree_bytes

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

_MAIN_GUARD = re.compile(rb"""^if\s+__name__\s*==\s*(['"])__main__\1\s*:""", re.M)


class ScriptEntries:
    """The script entries of a repository's work tree, read when asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._guarded: dict[str, int] = {}  # path -> the main guard's line, 0 when none
        self._scripts: list[tuple[str, str, str]] | None = None  # (script, module, attribute)

    def reaching(self, item: ChangedSymbol) -> str:
        """How a script entry reaches ``item`` (a Python function or
        method), "" when none does: the symbol is a script's target, or one
        of its callers is a module whose code under the main guard (or a
        ``__main__.py``) calls toward it."""
        symbol = item.symbol
        if symbol.language != "python":
            return ""
        for script, module, attribute in self.scripts():
            if attribute == symbol.qualified_name and _same_module(module_name(symbol.file), module):
                return f"the script {script!r} ({module}:{attribute})"
        for node in item.callers:
            caller = node.symbol
            if caller.kind != "module" or caller.language != "python":
                continue
            if PurePosixPath(caller.file).name == "__main__.py":
                return f"{caller.file} (python -m)"
            if self._guards(caller.file):
                return f'{caller.file} (if __name__ == "__main__")'
        return ""

    def programs(self, item: ChangedSymbol, store: Store) -> list[Program]:
        """The programs ``item`` (a Python function, method or module) is
        the script entry of, as a test would start them
        (report/process_tests.py): code of a ``__main__.py`` (``python -m
        pkg``), a function a module calls below its main guard (``python
        path/to/mod.py``, ``python -m pkg.mod``; a call the module makes at
        import, above the guard, is no entry: tabulate builds its formats
        there), a console or GUI script's target (the script's name)."""
        symbol = item.symbol
        if symbol.language != "python":
            return []
        out: list[Program] = []
        for script, module, attribute in self.scripts():
            if attribute == symbol.qualified_name and _same_module(module_name(symbol.file), module):
                out.append(Program(f"the script {script!r}", script=script))
        files = [symbol.file] if PurePosixPath(symbol.file).name == "__main__.py" else []
        modules = {
            n.symbol.id: n.symbol.file
            for n in item.callers
            if n.depth == 1 and n.symbol.kind == "module" and n.symbol.language == "python"
        }
        files += [path for path in modules.values() if PurePosixPath(path).name == "__main__.py"]
        if any(self._guard_line(path) for path in modules.values()):
            files += [
                e.file
                for e in store.edges_to([symbol.id], ("calls",))
                if e.source_id in modules and e.file == modules[e.source_id] and 0 < self._guard_line(e.file) < e.line
            ]
        for path in dict.fromkeys(files):
            folder = PurePosixPath(path).parent
            if PurePosixPath(path).name == "__main__.py":
                package = module_name(str(folder / "__init__.py")) if str(folder) != "." else ""
                out.append(Program(f"python -m {package}" if package else f"python {path}", module=package, path=path))
            else:
                dotted = module_name(path)
                # ``python -m pkg`` runs pkg/__main__.py, not pkg/__init__.py
                module = "" if PurePosixPath(path).name == "__init__.py" else dotted
                out.append(Program(f"python {path}", module=module, path=path))
        return out

    def _guards(self, path: str) -> bool:
        return self._guard_line(path) > 0

    def _guard_line(self, path: str) -> int:
        if path not in self._guarded:
            text = worktree_bytes(self.root, path)
            found = _MAIN_GUARD.search(text) if text is not None else None
            self._guarded[path] = text.count(b"\n", 0, found.start()) + 1 if text is not None and found else 0
        return self._guarded[path]

    def scripts(self) -> list[tuple[str, str, str]]:
        if self._scripts is None:
            found = set(_pyproject_scripts(self.root / "pyproject.toml")) | set(_setup_cfg_scripts(self.root / "setup.cfg"))
            self._scripts = sorted(found)
        return self._scripts


def started_tests(
    store: Store, changed: Iterable[ChangedSymbol], entries: ScriptEntries, skip: Iterable[str] = ()
) -> list[Symbol]:
    """The tests (``skip`` aside: those the change edits) that start, as a
    process, the program a changed symbol is the script entry of
    (report/process_tests.py); a symbol a test starts that way is not
    "unreached" (a test runs it, through no edge of the graph)."""
    finder = StartingTests(store)
    skipped = set(skip)
    out: dict[str, Symbol] = {}
    for item in changed:
        if item.change.category not in ("modified", "renamed", "added") or is_test(item.symbol):
            continue
        if item.symbol.language != "python":
            continue
        # the programs first: the tests that start a process are read (all
        # of the graph's calls that start one, and the tests' texts: Django
        # 5.1 -> 5.1.4 HEAD~1, 0.08 s of a report) only for a script entry
        programs = entries.programs(item, store)
        if not programs or not finder.found():
            continue
        tests = [t for t, _ in finder.starting(programs) if t.id not in skipped]
        if tests:
            item.unreached = False
        out.update((t.id, t) for t in tests)
    return sorted(out.values(), key=lambda s: (s.file, s.start_line, s.id))


def _same_module(dotted: str, module: str) -> bool:
    """``src.tabulate`` (the file's dotted path) is the module ``tabulate``."""
    return dotted == module or dotted.endswith("." + module)


def _entry(script: str, value: object) -> tuple[str, str, str] | None:
    """``"pkg.cli:main"`` (extras in brackets aside) -> (script, module, attribute)."""
    if not isinstance(value, str):
        return None
    module, colon, attribute = value.split("[", 1)[0].strip().partition(":")
    if not colon or not module.strip() or not attribute.strip():
        return None
    return script, module.strip(), attribute.strip()


def _pyproject_scripts(path: Path) -> Iterable[tuple[str, str, str]]:
    import tomllib  # only when a recording shows an unexecuted function

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    project, tool = data.get("project"), data.get("tool")
    project = project if isinstance(project, dict) else {}
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    poetry = poetry if isinstance(poetry, dict) else {}
    tables = [project.get("scripts"), project.get("gui-scripts"), poetry.get("scripts")]
    for table in tables:
        if isinstance(table, dict):
            for script, value in table.items():
                found = _entry(str(script), value)
                if found is not None:
                    yield found


def _setup_cfg_scripts(path: Path) -> Iterable[tuple[str, str, str]]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return
    if not parser.has_section("options.entry_points"):
        return
    for group in ("console_scripts", "gui_scripts"):
        for line in parser.get("options.entry_points", group, fallback="").splitlines():
            script, equals, value = line.partition("=")
            found = _entry(script.strip(), value) if equals else None
            if found is not None:
                yield found
