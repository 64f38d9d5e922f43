"""The oracle side of ``oracle_python.py``: every call site of a Python file
(enumerated with ``ast``, independently of tree-sitter) and where jedi says
it goes.

A call site is an ``ast.Call`` whose ``func`` is a ``Name`` or an
``Attribute``; jedi is asked at the called name's position: ``f`` in
``f()``, ``m`` in ``a.b.m()`` (line ``end_lineno``, column ``end_col_offset
- len(attr)``, exact because an attribute name is one identifier at the end
of the node). The site also keeps ``func.lineno``, where the called
expression starts: cartog-ci gives a call edge the line of tree-sitter's
``call.function`` node, which differs from the name's in a chain split over
lines (``Text("\\n")`` ⏎ ``.join(lines)``).

jedi is asked ``goto(follow_imports=True)`` first. When that lands on a
local alias of this file (``x = a.b`` or ``x = f``, up to ``ALIAS_HOPS``
times), goto is asked again at ``b`` / ``f``: jedi's ``infer`` sees through
``adjust = cls.adjust`` only as far as the classmethod descriptor in
builtins. When goto still lands on something that is not a definition (a
parameter, an assignment, an import jedi could not follow) or on nothing,
``infer`` is asked as well and its definitions are added: that is what turns
``cls()`` or ``handler = self._handlers[kind]`` … ``handler()`` into a
target. Only function and class definitions are kept as landings.

ast columns are UTF-8 byte offsets, jedi's are characters: positions are
converted per line, and ``Site.col`` is in characters.
"""

from __future__ import annotations

import ast
import signal
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

try:
    import jedi
except ModuleNotFoundError:  # not a dependency of cartog-ci: only this benchmark needs it
    raise SystemExit("jedi is not installed: .venv/bin/pip install jedi==0.20.1") from None

DEFINITION_TYPES = frozenset({"function", "class"})
TEXT_WIDTH = 60
ALIAS_HOPS = 3
Position = tuple[int, int]  # (line from 1, column in characters from 0), as jedi counts


@dataclass(frozen=True)
class Landing:
    """One definition jedi found for a call site."""

    file: str | None  # repository-relative path; None outside the repository
    line: int
    name: str
    type: str  # "function" | "class"
    module: str  # jedi's module name, to tell external landings apart


@dataclass(frozen=True)
class Site:
    file: str
    start_line: int  # where the called expression starts: the line cartog-ci gives its edge
    line: int  # the called name's position, where jedi was asked
    col: int  # in characters
    name: str
    form: str  # shape of the call: "f()", "self.m()", "x.m()", "self.x.m()" ...
    role: str  # what the leftmost name is in the file: param | local | import | from-import | module-level | ""
    text: str  # the called expression, shortened
    landings: tuple[Landing, ...]
    via: str  # goto | alias | infer | none | error | timeout


@dataclass(frozen=True)
class FileResult:
    file: str
    sites: tuple[Site, ...]
    parsed: bool
    seconds: float


@dataclass(frozen=True)
class _Call:
    start_line: int
    line: int
    col: int
    name: str
    form: str
    role: str
    text: str


# --- enumeration -----------------------------------------------------------


def _imports(tree: ast.Module) -> dict[str, str]:
    """Names bound by an import anywhere in the file: ``import`` or ``from-import``."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = "import"
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound[alias.asname or alias.name] = "from-import"
    return bound


def _params(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _assigned(function: ast.AST) -> set[str]:
    """Names stored inside a function (nested scopes included: a rough pattern only)."""
    return {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _receiver_form(receiver: ast.expr) -> tuple[str, ast.expr]:
    """The form of ``receiver.m()`` and the receiver's leftmost expression."""
    if isinstance(receiver, ast.Name):
        special = {"self": "self.m()", "cls": "cls.m()"}
        return special.get(receiver.id, "x.m()"), receiver
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return "super().m()", receiver
    if isinstance(receiver, ast.Attribute):
        depth, root = 1, receiver.value
        while isinstance(root, ast.Attribute):
            depth, root = depth + 1, root.value
        if isinstance(root, ast.Name) and root.id == "self":
            return ("self.x.m()" if depth == 1 else "self.x.y.m()"), root
        return ("x.y.m()" if isinstance(root, ast.Name) else "expr.y.m()"), root
    if isinstance(receiver, ast.Call):
        return "f().m()", receiver
    if isinstance(receiver, ast.Subscript):
        return "x[i].m()", receiver
    if isinstance(receiver, ast.Constant):
        return "'literal'.m()", receiver
    return "expr.m()", receiver


class _Collector(ast.NodeVisitor):
    """Walks one module, keeping the parameters and locals of the enclosing functions."""

    def __init__(self, code: str, imports: dict[str, str]) -> None:
        self.code = code
        self.lines = code.splitlines()
        self.imports = imports
        self.scopes: list[tuple[set[str], set[str]]] = []
        self.calls: list[_Call] = []
        self.aliases: dict[Position, Position] = {}

    def position(self, line: int, byte_col: int) -> Position:
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return line, len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def name_position(self, node: ast.expr) -> Position | None:
        """Where jedi should look for ``node`` when it is a name or ``a.b``."""
        if isinstance(node, ast.Name):
            return self.position(node.lineno, node.col_offset)
        if isinstance(node, ast.Attribute) and node.end_lineno is not None and node.end_col_offset is not None:
            return self.position(node.end_lineno, node.end_col_offset - len(node.attr.encode("utf-8")))
        return None

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.name_position(node.value)
        if value is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0]
            self.aliases[self.position(target.lineno, target.col_offset)] = value
        self.generic_visit(node)

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.scopes.append((_params(node.args), _assigned(node)))
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scoped

    def role(self, name: str) -> str:
        for params, stored in reversed(self.scopes):
            if name in params:
                return "param"
            if name in stored:
                return "local"
        return self.imports.get(name, "module-level")

    def visit_Call(self, node: ast.Call) -> None:
        call = self._call(node.func)
        if call is not None:
            self.calls.append(call)
        self.generic_visit(node)

    def _call(self, func: ast.expr) -> _Call | None:
        at = self.name_position(func)
        if at is None:
            return None
        text = (ast.get_source_segment(self.code, func) or "").replace("\n", " ")[:TEXT_WIDTH]
        if isinstance(func, ast.Name):
            form = "cls()" if func.id == "cls" else "f()"
            return _Call(func.lineno, *at, func.id, form, "" if form == "cls()" else self.role(func.id), text)
        assert isinstance(func, ast.Attribute)
        form, root = _receiver_form(func.value)
        role = self.role(root.id) if isinstance(root, ast.Name) and form in {"x.m()", "x.y.m()"} else ""
        return _Call(func.lineno, *at, func.attr, form, role, text)


def call_sites(code: str) -> tuple[list[_Call], dict[Position, Position]] | None:
    """Every call site of ``code`` in source order and the file's aliases
    (``x = a.b``: position of ``x`` → position of ``b``); None when ast cannot parse it."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    collector = _Collector(code, _imports(tree))
    collector.visit(tree)
    return sorted(collector.calls, key=lambda c: (c.line, c.col)), collector.aliases


# --- jedi ------------------------------------------------------------------


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def _landing(root: Path, name: Any) -> Landing:
    path = name.module_path
    inside = path is not None and Path(path).is_relative_to(root)
    file = Path(path).relative_to(root).as_posix() if inside else None
    return Landing(file, name.line or 0, name.name, name.type, name.module_name or "")


def _definitions(root: Path, names: list[Any]) -> list[Landing]:
    return [_landing(root, n) for n in names if n.type in DEFINITION_TYPES]


def _through_aliases(script: jedi.Script, aliases: dict[Position, Position], gone: list[Any]) -> list[Any]:
    """goto again at the right-hand side while goto lands on one alias of this file."""
    for _ in range(ALIAS_HOPS):
        if len(gone) != 1 or gone[0].type != "statement" or gone[0].module_path != script.path:
            break
        hop = aliases.get((gone[0].line, gone[0].column))
        if hop is None:
            break
        gone = script.goto(*hop, follow_imports=True)
    return gone


def ask(
    script: jedi.Script, root: Path, aliases: dict[Position, Position], at: Position
) -> tuple[tuple[Landing, ...], str]:
    """jedi's definitions for the call at ``at`` and which question found them."""
    first = script.goto(*at, follow_imports=True)
    gone = _through_aliases(script, aliases, first)
    found = _definitions(root, gone)
    if gone and len(found) == len(gone):
        return tuple(dict.fromkeys(found)), "goto" if gone is first else "alias"
    inferred = _definitions(root, script.infer(*at))
    if inferred:
        return tuple(dict.fromkeys(found + inferred)), "infer"
    return tuple(dict.fromkeys(found)), "goto" if found else "none"


# --- one file, in a worker -------------------------------------------------

_WORKER: dict[str, Any] = {}


def init_worker(root: str, site_timeout: int) -> None:
    """Pool initializer: one jedi project per process, in process (no subprocess environment)."""
    _WORKER["root"] = Path(root)
    _WORKER["project"] = jedi.Project(root)
    _WORKER["environment"] = jedi.InterpreterEnvironment()
    _WORKER["timeout"] = site_timeout
    signal.signal(signal.SIGALRM, _alarm)
    # jedi tries to import a module it takes for a compiled one and warns when
    # it cannot (the corpus is not installed): nothing to act on.
    warnings.filterwarnings("ignore", message="Module .* not importable in path")


def _script(code: str, path: Path) -> jedi.Script:
    return jedi.Script(code, path=path, project=_WORKER["project"], environment=_WORKER["environment"])


def _ask_guarded(
    script: jedi.Script, aliases: dict[Position, Position], call: _Call
) -> tuple[tuple[Landing, ...], str]:
    signal.alarm(_WORKER["timeout"])
    try:
        return ask(script, _WORKER["root"], aliases, (call.line, call.col))
    except _Timeout:
        return (), "timeout"
    except Exception:  # jedi has its own bugs; one site must not sink the file
        return (), "error"
    finally:
        signal.alarm(0)


def oracle_file(file: str) -> FileResult:
    """Enumerate ``file``'s call sites and ask jedi about each (one Script per file)."""
    start = time.perf_counter()
    path = _WORKER["root"] / file
    code = path.read_text(encoding="utf-8", errors="replace")
    found = call_sites(code)
    if found is None:
        return FileResult(file, (), False, time.perf_counter() - start)
    (calls, aliases), script, sites = found, _script(code, path), []
    for call in calls:
        landings, via = _ask_guarded(script, aliases, call)
        if via == "timeout":  # the Script's caches may be half-built
            script = _script(code, path)
        fields = (call.start_line, call.line, call.col, call.name, call.form, call.role, call.text)
        sites.append(Site(file, *fields, landings, via))
    return FileResult(file, tuple(sites), True, time.perf_counter() - start)
