"""Ruby module lookup for ``require`` / ``require_relative`` specs (see
``parse/imports_ruby.py``): ``./x`` is relative to the requiring file;
``foo/bar`` is looked up on the load path, i.e. ``foo/bar.rb`` directly below
the repository root or a ``lib/``, ``test/`` or ``spec/`` directory. A gem
or standard library name matches nothing and the import is external."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from cartog_ci.index.paths import closest, path_index

if TYPE_CHECKING:
    from cartog_ci.index.resolve import SymbolTable

_LOAD_DIRS = ("lib", "test", "spec")


def find(table: SymbolTable, importer: str, spec: str) -> list[str]:
    rel = spec if spec.endswith(".rb") else f"{spec}.rb"
    if spec.startswith("."):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), rel))
        return [path] if table.language_of_file.get(path) == "ruby" else []
    candidates = [
        c
        for c in path_index(table, "ruby").files.get(rel, [])
        if c == rel or posixpath.basename(c[: -len(rel) - 1]) in _LOAD_DIRS
    ]
    lib = [c for c in candidates if posixpath.basename(c[: -len(rel) - 1]) == "lib"]
    return lib if len(lib) == 1 else closest(importer, candidates)
