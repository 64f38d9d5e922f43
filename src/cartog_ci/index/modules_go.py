"""Go import path -> the files of the package directory it names.

A Go package is a directory. An import path is in the project when it starts
with the module path of a ``go.mod`` in the repository; the rest of the path
is the directory below that ``go.mod``. Paths under no project module are
the standard library or other modules: external (``vendor/`` copies count as
the project). Without any ``go.mod`` (GOPATH layouts, partial checkouts) the
longest directory that is a suffix of the path is taken, except for standard
library paths (``net/http`` is never the project's ``http/``).

The files come back in a stable order: the file named after the directory
first (``util/util.go``), then the others, tests last; the resolver takes the
first as "the package" for an import edge and searches all of them for
names (``package_is_directory``).
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cartog_ci.index.resolve import SymbolTable

_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_CACHE_KEY = "go.modules"
# First elements of standard library import paths (go/src, Go 1.23).
_STDLIB_ROOTS = frozenset(
    "C archive bufio builtin bytes cmp compress container context crypto database debug "
    "embed encoding errors expvar flag fmt go hash html image index io iter log maps math "
    "mime net os path plugin reflect regexp runtime slices sort strconv strings structs "
    "sync syscall testing text time unicode unique unsafe weak".split()
)


def find(table: SymbolTable, importer: str, spec: str) -> list[str]:
    modules = _modules(table)
    for module_path, module_dir in modules:
        if spec == module_path or spec.startswith(module_path + "/"):
            rest = spec[len(module_path) :].strip("/")
            return _package(table, posixpath.join(module_dir, rest) if rest else module_dir)
    vendored = _vendored(table, importer, spec)
    if vendored or modules:
        return vendored
    if spec.split("/", 1)[0] in _STDLIB_ROOTS:
        return []  # `net/http` is never the project's `http/` directory
    return _by_suffix(table, spec)


def _modules(table: SymbolTable) -> list[tuple[str, str]]:
    """(module path, directory) of every go.mod above a Go file, longest
    module path first (nested modules win)."""
    cached = table.caches.get(_CACHE_KEY)
    if isinstance(cached, list):
        return cached
    found: dict[str, str] = {}
    if table.root:
        seen: set[str] = set()
        for directory in _dirs(table):
            while directory not in seen:
                seen.add(directory)
                module = _read_module(os.path.join(table.root, directory, "go.mod"))
                if module:
                    found.setdefault(module, directory)
                if not directory:
                    break
                directory = posixpath.dirname(directory)
    modules = sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))
    table.caches[_CACHE_KEY] = modules
    return modules


def _read_module(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            match = _MODULE_LINE.search(fh.read(65536))
    except OSError:
        return ""
    return match.group(1).decode("utf-8", "replace") if match else ""


def _dirs(table: SymbolTable) -> set[str]:
    return {
        directory
        for directory, files in table.files_by_dir.items()
        if any(table.language_of_file.get(f) == "go" for f in files)
    }


def _package(table: SymbolTable, directory: str) -> list[str]:
    directory = posixpath.normpath(directory) if directory else ""
    directory = "" if directory == "." else directory
    files = [f for f in table.files_by_dir.get(directory, []) if table.language_of_file.get(f) == "go"]
    stem = posixpath.basename(directory)

    def order(path: str) -> tuple[bool, bool, str]:
        name = posixpath.basename(path)
        return (name.endswith("_test.go"), name != f"{stem}.go", name)

    return sorted(files, key=order)


def _vendored(table: SymbolTable, importer: str, spec: str) -> list[str]:
    directory = posixpath.dirname(importer)
    while True:
        files = _package(table, posixpath.join(directory, "vendor", spec))
        if files:
            return files
        if not directory:
            return []
        directory = posixpath.dirname(directory)


def _by_suffix(table: SymbolTable, spec: str) -> list[str]:
    candidates = [d for d in _dirs(table) if d and (spec == d or spec.endswith("/" + d))]
    if not candidates:
        return []
    longest = max(len(d) for d in candidates)
    best = [d for d in candidates if len(d) == longest]
    return _package(table, best[0]) if len(best) == 1 else []
