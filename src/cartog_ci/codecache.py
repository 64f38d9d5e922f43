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
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(_HEADER + marshal.dumps(self.codes))
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            return
        self.compiled = 0


def _read(path: Path) -> dict[str, CodeType]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(_HEADER):
        return {}
    try:
        codes = marshal.loads(memoryview(data)[len(_HEADER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(codes, dict):
        return {}
    return {k: v for k, v in codes.items() if type(k) is str and type(v) is CodeType}


def install(home: Path) -> CodeCache:
    """Route ``dataclasses``' ``exec`` through the cache in ``home``; the
    caller saves it (``CodeCache.save``) once the run made its classes."""
    import dataclasses

    cache = CodeCache(home / "code" / f"dataclasses.{sys.implementation.cache_tag}.marshal")
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # found before the builtin
    return cache
