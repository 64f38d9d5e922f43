"""Tests that start the program as a process (docs/coverage.md, "Tests that
start the program").

A test that runs ``python -m slugify``, ``python tabulate/__init__.py`` or a
console script runs the project's script entry in a child process: no call
edge leads from the test to the entry, and coverage.py's per-test contexts
do not see the child. When a changed symbol is a script entry
(``ScriptEntries.programs``), the tests chosen are those that start its
program, by two facts the index holds of a test (or of a helper it calls
within the test depth):

- a call edge to a function that starts a process (``subprocess.run``,
  ``subprocess.Popen``, ``os.system``, ``runpy.run_module`` …: ``STARTERS``),
  and
- a string literal in its stored text naming the program: ``-m`` followed by
  the entry's module, a ``.py`` path of the entry's file, or the console
  script's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cartog_ci import graph
from cartog_ci.domain import Edge, Symbol
from cartog_ci.languages import is_test
from cartog_ci.report.testplan import TEST_DEPTH

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# module -> its functions that start a process (runpy runs the module in the
# test's process, but through no edge the graph follows)
STARTERS: dict[str, frozenset[str]] = {
    "subprocess": frozenset(("run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput")),
    "os": frozenset(("system", "popen", "execv", "execvp", "execve", "execl", "execlp", "spawnv", "spawnl", "posix_spawn")),
    "runpy": frozenset(("run_module", "run_path")),
    "asyncio": frozenset(("create_subprocess_exec", "create_subprocess_shell")),
}
_NAMES = sorted({n for names in STARTERS.values() for n in names})

# a string literal: triple-quoted first, then one-line ones; prefixes (r, b, f, u) aside
_LITERAL = re.compile(
    r"""[rRbBuUfF]{0,2}("{3}[\s\S]*?"{3}|'{3}[\s\S]*?'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
)


@dataclass(frozen=True)
class Program:
    """How a test can start a script entry, and how the report names it."""

    label: str  # "python -m slugify", "python tabulate/__init__.py", "the script 'tabulate'"
    module: str = ""  # named by ``-m MODULE`` (or a dotted suffix of it: ``src.pkg`` is ``pkg``)
    path: str = ""  # named by a ``.py`` literal that is this file's path or ends with it
    script: str = ""  # named by a literal that is the console script, or starts with it and a space

    def named_by(self, words: Sequence[str], literals: Sequence[str]) -> bool:
        """Whether a test's literals (and their whitespace-separated words,
        in order) name this program."""
        if self.module:
            for before, after in zip(words, words[1:]):
                if before == "-m" and _same_module(self.module, after):
                    return True
        if self.path:
            for word in words:
                if word.endswith(".py") and _same_path(self.path, word):
                    return True
        if self.script:
            return any(lit == self.script or lit.startswith(self.script + " ") for lit in literals)
        return False


def _same_module(module: str, named: str) -> bool:
    return module == named or module.endswith("." + named)


def _same_path(path: str, named: str) -> bool:
    """``tabulate/__init__.py`` is named by itself, by an absolute path
    ending with it, or by ``./tabulate/__init__.py``; a bare ``__init__.py``
    names no file."""
    named = named.removeprefix("./")
    if named == path or named.endswith("/" + path):
        return True
    return "/" in named and path.endswith("/" + named)


def literals(text: str) -> list[str]:
    """The string literals of a stored text, in order, their quotes removed
    (escapes kept as written)."""
    out = []
    for m in _LITERAL.finditer(text):
        body = m.group(1)
        quote = 3 if body[:3] in ('"""', "'''") else 1
        out.append(body[quote:-quote])
    return out


def starting_calls(store: Store) -> list[Edge]:
    """The call edges that start a process: to one of ``STARTERS`` through
    its module (``subprocess.run``), an alias of it (``sp.run`` after
    ``import subprocess as sp``), or a name imported from it (``from
    subprocess import run``)."""
    edges = [e for e in store.unresolved_edges_named(_NAMES, kinds=("calls",)) if e.qualifier != "self"]
    imports: dict[str, list[Edge]] = {}
    out = []
    for edge in edges:
        qualifier = edge.qualifier or ""
        if qualifier in STARTERS:
            if edge.target_name in STARTERS[qualifier]:
                out.append(edge)
            continue
        if "(" in qualifier or "." in qualifier:
            continue
        if edge.file not in imports:
            imports[edge.file] = store.import_edges_in_file(edge.file)
        for imp in imports[edge.file]:
            module = imp.qualifier or imp.target_name
            if module not in STARTERS:
                continue
            bound = imp.alias or imp.target_name
            if qualifier and bound == qualifier and imp.target_name == module and edge.target_name in STARTERS[module]:
                out.append(edge)  # import subprocess as sp; sp.run(...)
                break
            if not qualifier and bound == edge.target_name and imp.target_name in STARTERS[module]:
                out.append(edge)  # from subprocess import run; run(...)
                break
    return out


class StartingTests:
    """The tests that start a process, with the literals of their texts
    (and of the helpers between them and the call that starts it), read
    once for all the changed symbols of a report."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._found: list[tuple[Symbol, list[str], list[str]]] | None = None

    def found(self) -> list[tuple[Symbol, list[str], list[str]]]:
        """(test, its literals, their words), sorted by file and line."""
        if self._found is None:
            self._found = self._read()
        return self._found

    def _read(self) -> list[tuple[Symbol, list[str], list[str]]]:
        starters = list(dict.fromkeys(e.source_id for e in starting_calls(self.store)))
        if not starters:
            return []
        paths: dict[str, tuple[str, ...]] = {}
        tests: dict[str, Symbol] = {}
        for s in self.store.symbols(starters).values():
            if is_test(s):
                tests[s.id], paths[s.id] = s, (s.id,)
        for node in graph.impact(self.store, starters, depth=TEST_DEPTH, kinds=graph.CALLER_KINDS):
            if is_test(node.symbol) and node.symbol.id not in tests:
                tests[node.symbol.id], paths[node.symbol.id] = node.symbol, node.path
        texts = self.store.contents(sorted({i for p in paths.values() for i in p}))
        out = []
        for test_id, test in tests.items():
            # the test's own literals first, then the helpers' from the test down
            found = [lit for i in reversed(paths[test_id]) for lit in literals(_body(texts.get(i, "")))]
            out.append((test, found, [w for lit in found for w in lit.split()]))
        out.sort(key=lambda t: (t[0].file, t[0].start_line, t[0].id))
        return out

    def starting(self, programs: Iterable[Program]) -> list[tuple[Symbol, Program]]:
        """The tests that start one of ``programs``, each with the first it starts."""
        wanted = list(programs)
        if not wanted:
            return []
        out = []
        for test, lits, words in self.found():
            program = next((p for p in wanted if p.named_by(words, lits)), None)
            if program is not None:
                out.append((test, program))
        return out


def _body(text: str) -> str:
    """A stored text without its ``// File: …`` header line (embed/text.py)."""
    return text.split("\n", 1)[1] if text.startswith("// File:") and "\n" in text else text
