"""The functions ``dataclasses`` writes, compiled once and kept between runs.

A dataclass gets its ``__init__``, ``__repr__``, ``__eq__`` (and, frozen,
``__hash__``, ``__setattr__``, ``__delattr__``) as source text that
``dataclasses`` hands to ``exec`` when the class is made, at import: a
report's process makes 291 of them, and parsing and compiling texts was
7 % of the instructions of a warm Django HEAD~10 report and 19 % of a
HEAD~1 one (docs/report.md, "Start-up"). The same text always compiles to
the same code, so the code is kept by its text, in one file of the tool's
home per interpreter version (``marshal`` reads it back in a fraction of
the time), as Python keeps a module's bytecode in ``__pycache__``.

Only ``dataclasses``' own ``exec`` goes through here (a name in its module
that hides the builtin); what the code does when run is what it did. A file
that cannot be read is no cache, one that cannot be written is not written:
never an error.

Regular expressions go the same way (``PatternCache``): a report's process
compiles ~135 patterns (its modules', Jinja2's, tomllib's, configparser's)
at every start, 10.7 ms of CPU of a warm Django 5.1 -> 5.1.4 HEAD~10
report, 8.8 ms of a HEAD~1 one: ``re``'s parser and compiler are Python.
What they make of a pattern and its flags (the code ``_sre`` runs, its
groups and their names) is kept by the pattern and flags, and a pattern is
made from them as ``re`` makes it; the first time, the pattern it makes is
compared with ``re``'s own (``Pattern.__eq__`` compares the code), and a
pattern whose code differs is left to ``re``.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

# A file past this many texts keeps only those of the run that writes it
# (a report runs 291; every version of the tool that changes a dataclass
# adds its new texts).
MAX_CODES = 5_000
# what the file starts with: code of another interpreter, or compiled at
# another optimization level (``-O``), is never read
_HEADER = f"cartog-ci code cache 1 {sys.implementation.cache_tag} {sys.hexversion} {sys.flags.optimize}\n".encode()


class CodeCache:
    """Compiled code by its source text, read from ``path`` and written back
    when a run compiled a text the file did not hold."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes = _read(path)
        self.compiled = 0  # texts compiled by this process, not read
        self.used: set[str] = set()  # the texts this process ran

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /) -> None:  # noqa: A002
        """``exec`` for ``dataclasses``: a text is compiled as ``exec`` would
        compile it there (no ``__future__`` flags: the module has none)."""
        if type(source) is str:
            self.used.add(source)
            code = self.codes.get(source)
            if code is None:
                code = self.codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
                self.compiled += 1
            source = code
        if globals is None:  # as the builtin: the caller's namespaces
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        """Write the file again when this run compiled anything (``MAX_CODES``)."""
        if not self.compiled:
            return
        if len(self.codes) > MAX_CODES:  # texts of many versions met over time: this run's only
            self.codes = {text: code for text, code in self.codes.items() if text in self.used}
        if _write(self.path, _HEADER + marshal.dumps(self.codes)):
            self.compiled = 0


def _unmarshalled(path: Path, header: bytes) -> object:
    """What ``path`` holds after ``header`` (None: no such file, another
    header, or damaged)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(header):
        return None
    try:
        return marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None


def _read(path: Path) -> dict[str, CodeType]:
    codes = _unmarshalled(path, _HEADER)
    if not isinstance(codes, dict):
        return {}
    return {k: v for k, v in codes.items() if type(k) is str and type(v) is CodeType}


# what ``re``'s compiler hands ``_sre.compile`` for a pattern and its flags:
# the flags, the code, the group count, names -> numbers and numbers -> names
_Compiled = tuple[int, list[int], int, dict[str, int], tuple["str | None", ...]]
_PATTERN_HEADER = f"cartog-ci pattern cache 1 {sys.implementation.cache_tag} {sys.hexversion}\n".encode()


class PatternCache:
    """``re``'s compiled code by pattern and flags, read from ``path`` and
    written back when a run compiled a pattern the file did not hold."""

    def __init__(self, path: Path) -> None:
        import re
        import re._compiler  # type: ignore[import-not-found]  # no stubs: re's own modules
        import re._parser  # type: ignore[import-not-found]

        self.path = path
        self.patterns = _read_patterns(path)
        self.compiled = 0  # patterns compiled by this process, not read
        self.used: set[tuple[str | bytes, int]] = set()
        current = re._compiler.compile
        owner = getattr(current, "__self__", None)  # installed before (tests): re's own below it
        self._original: Any = owner._original if isinstance(owner, PatternCache) else current
        self._parse = re._parser.parse
        self._code = re._compiler._code
        self._make = re._compiler._sre.compile
        # what ``re`` leaves to itself: a debugging listing, locale-dependent bytes
        self._own = re.DEBUG | re.LOCALE

    def compile(self, p: Any, flags: int = 0) -> Any:
        """``re._compiler.compile``, as ``re._compile`` calls it (its own
        cache of 512 patterns missed)."""
        if type(p) not in (str, bytes) or type(flags) is not int or flags & self._own:
            return self._original(p, flags)
        key = (p, flags)
        self.used.add(key)
        found = self.patterns.get(key)
        if found is not None:
            return self._pattern(p, found)
        made = self._original(p, flags)
        try:
            computed = self._compiled(p, flags)
            same = self._pattern(p, computed) == made
        except Exception:  # noqa: BLE001 - another interpreter's internals: re's own way
            same = False
        if same:
            self.patterns[key] = computed
            self.compiled += 1
        return made

    def _compiled(self, p: str | bytes, flags: int) -> _Compiled:
        """What ``re._compiler.compile`` computes before ``_sre.compile``."""
        parsed = self._parse(p, flags)
        code = self._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, number in groupindex.items():
            indexgroup[number] = name
        # plain ints, as marshal writes them (the compiler's opcodes are named ints)
        final = int(flags | parsed.state.flags)
        return final, list(map(int, code)), parsed.state.groups - 1, groupindex, tuple(indexgroup)

    def _pattern(self, p: str | bytes, found: _Compiled) -> Any:
        final, code, groups, groupindex, indexgroup = found
        return self._make(p, final, code, groups, dict(groupindex), indexgroup)

    def save(self) -> None:
        """Write the file again when this run compiled any (``MAX_CODES``)."""
        if not self.compiled:
            return
        if len(self.patterns) > MAX_CODES:
            self.patterns = {key: value for key, value in self.patterns.items() if key in self.used}
        entries = [(p, flags, *value) for (p, flags), value in self.patterns.items()]
        if _write(self.path, _PATTERN_HEADER + marshal.dumps(entries)):
            self.compiled = 0


def _read_patterns(path: Path) -> dict[tuple[str | bytes, int], _Compiled]:
    entries = _unmarshalled(path, _PATTERN_HEADER)
    if not isinstance(entries, list):
        return {}
    try:
        return {(e[0], e[1]): (e[2], e[3], e[4], e[5], e[6]) for e in entries}
    except (TypeError, IndexError, KeyError):
        return {}


def _write(path: Path, data: bytes) -> bool:
    """``data`` as the file at ``path``, whole or not at all."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        return False
    return True


def install_patterns(home: Path) -> PatternCache:
    """Route ``re``'s compiler through the cache in ``home``; the caller
    saves it (``PatternCache.save``) once the run made its patterns."""
    import re._compiler

    cache = PatternCache(home / "code" / f"patterns.{sys.implementation.cache_tag}.marshal")
    re._compiler.compile = cache.compile  # what re._compile calls
    return cache


def install(home: Path) -> CodeCache:
    """Route ``dataclasses``' ``exec`` through the cache in ``home``; the
    caller saves it (``CodeCache.save``) once the run made its classes."""
    import dataclasses

    cache = CodeCache(home / "code" / f"dataclasses.{sys.implementation.cache_tag}.marshal")
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # found before the builtin
    return cache
