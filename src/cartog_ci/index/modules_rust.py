"""Rust module path (``crate::a::b``, ``super::x``, ``self::m``, ``dep::y``)
-> the file that holds that module.

The file layout follows rustc (2018 edition paths):

- the crate root is ``lib.rs`` / ``main.rs``, found in the file's directory
  or above; files with none above (``tests/it.rs``, ``examples/x.rs``,
  ``build.rs``) and ``src/bin/*.rs`` are crate roots of their own;
- module ``m`` declared in a crate root or a ``mod.rs`` lives in
  ``<dir>/m.rs`` or ``<dir>/m/mod.rs``; declared in ``x.rs``, it lives in
  ``<dir>/x/m.rs`` or ``<dir>/x/m/mod.rs``;
- a path that does not start with ``crate``/``self``/``super`` names a child
  module of the importer, else a crate: a crate of this repository (the
  ``[package] name`` of the ``Cargo.toml`` next to ``src/lib.rs``, dashes as
  underscores) maps to its ``lib.rs``; any other crate (``std``, a
  dependency) is external.

``#[path = "..."]`` attributes and ``[lib] path`` are not followed.
"""

from __future__ import annotations

import os
import posixpath
import tomllib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cartog_ci.domain import Symbol
    from cartog_ci.index.resolve import SymbolTable

_ROOT_FILES = ("lib.rs", "main.rs")
_CACHE_KEY = "rust.crates"
_ROOTS_KEY = "rust.roots"
_PACKAGES_KEY = "rust.packages"


def find(table: SymbolTable, importer: str, spec: str) -> list[str]:
    segments = [s for s in spec.split("::") if s]
    if not segments:
        return []
    first = segments[0]
    base: str | None
    if spec.startswith("::"):  # `::dep::x`: always a crate
        base, rest = _crates(table).get(first), segments[1:]
    elif first == "crate":
        base, rest = crate_root(table, importer), segments[1:]
    elif first == "self":
        base, rest = importer, segments[1:]
    elif first == "super":
        base, rest = importer, segments
        while rest and rest[0] == "super" and base is not None:
            base, rest = _parent(table, base), rest[1:]
    else:
        base, rest = _child(table, importer, first), segments[1:]
        if base is None and _top_level(table, importer, first):
            return [importer]  # an inline module or an item of this file
        if base is None:
            base = _crates(table).get(first)
    if base is None:
        return []
    return _walk(table, base, rest)


def may_guess(table: SymbolTable, source: Symbol, candidate: Symbol, *, bare: bool) -> bool:
    """Whether a name-only guess from ``source`` may land on ``candidate``.

    An item of another package is reached only through a path or a `use`,
    both followed before any guess, so a guess stays in the package (the
    `c_int` of one vendored crate is not another's). A bare name is never a
    method: those need `self.` or `Type::`.
    """
    if bare and candidate.kind == "method":
        return False
    return package(table, source.file) == package(table, candidate.file)


def package(table: SymbolTable, path: str) -> str:
    """The Cargo package a file belongs to: the nearest directory above it
    with a Cargo.toml, or, without the repository root, the directory that
    holds the crate's `src/`, `tests/`, `examples/`, `benches/`."""
    packages = table.caches.setdefault(_PACKAGES_KEY, {})
    assert isinstance(packages, dict)
    directory = posixpath.dirname(path)
    if directory not in packages:
        packages[directory] = _package(table, path)
    return str(packages[directory])


def _package(table: SymbolTable, path: str) -> str:
    directory = posixpath.dirname(path)
    if table.root:
        current = directory
        while True:
            if os.path.isfile(os.path.join(table.root, current, "Cargo.toml")):
                return current
            if not current:
                break
            current = posixpath.dirname(current)
    directory = posixpath.dirname(crate_root(table, path))
    parts = directory.split("/")
    for marker in ("src", "tests", "examples", "benches"):
        if marker in parts:
            return "/".join(parts[: len(parts) - 1 - parts[::-1].index(marker)])
    return directory


def crate_root(table: SymbolTable, path: str) -> str:
    roots = table.caches.setdefault(_ROOTS_KEY, {})
    assert isinstance(roots, dict)
    if path not in roots:
        roots[path] = _crate_root(table, path)
    return str(roots[path])


def _crate_root(table: SymbolTable, path: str) -> str:
    name = posixpath.basename(path)
    directory = posixpath.dirname(path)
    if name in _ROOT_FILES or posixpath.basename(directory) == "bin" and posixpath.basename(
        posixpath.dirname(directory)
    ) == "src":
        return path
    while True:
        for root_name in _ROOT_FILES:
            candidate = posixpath.join(directory, root_name)
            if candidate in table.module_of_file:
                return candidate
        if not directory:
            return path
        directory = posixpath.dirname(directory)


def _is_dir_owner(table: SymbolTable, path: str) -> bool:
    """True when ``path``'s child modules live in its own directory."""
    return posixpath.basename(path) == "mod.rs" or crate_root(table, path) == path


def _child_dir(table: SymbolTable, path: str) -> str:
    directory = posixpath.dirname(path)
    if _is_dir_owner(table, path):
        return directory
    stem = posixpath.basename(path)[: -len(".rs")]
    return posixpath.join(directory, stem)


def _module_file(table: SymbolTable, directory: str, name: str) -> str | None:
    for candidate in (posixpath.join(directory, f"{name}.rs"), posixpath.join(directory, name, "mod.rs")):
        if candidate in table.module_of_file:
            return candidate
    return None


def _child(table: SymbolTable, path: str, name: str) -> str | None:
    return _module_file(table, _child_dir(table, path), name)


def _parent(table: SymbolTable, path: str) -> str | None:
    root = crate_root(table, path)
    if root == path:
        return None
    directory = posixpath.dirname(path)
    if posixpath.basename(path) == "mod.rs":
        directory = posixpath.dirname(directory)
    if directory == posixpath.dirname(root):
        return root
    return _module_file(table, posixpath.dirname(directory), posixpath.basename(directory))


def _top_level(table: SymbolTable, path: str, name: str) -> bool:
    module_id = table.module_of_file.get(path)
    return module_id is not None and bool(table.children.get(module_id, {}).get(name))


def _walk(table: SymbolTable, base: str, rest: list[str]) -> list[str]:
    current: str | None = base
    directory = _child_dir(table, base)
    for segment in rest:
        found = _module_file(table, directory, segment)
        if found is not None:
            current, directory = found, _child_dir(table, found)
            continue
        if current is not None and _top_level(table, current, segment):
            return [current]  # `crate::E::Variant`, an inline module: not a file
        # an inline module holding `mod x;` declarations: a directory, no file
        current, directory = None, posixpath.join(directory, segment)
    return [current] if current is not None else []


def _crates(table: SymbolTable) -> dict[str, str]:
    """Crate name (as written in paths) -> its ``lib.rs``, for this repository's crates."""
    cached = table.caches.get(_CACHE_KEY)
    if isinstance(cached, dict):
        return cached
    crates: dict[str, str] = {}
    for path in sorted(table.module_of_file):
        if posixpath.basename(path) != "lib.rs":
            continue
        directory = posixpath.dirname(path)
        package = posixpath.dirname(directory) if posixpath.basename(directory) == "src" else directory
        name = _package_name(table.root, package) or posixpath.basename(package)
        if name:
            crates.setdefault(name.replace("-", "_"), path)
    table.caches[_CACHE_KEY] = crates
    return crates


def _package_name(root: str, package: str) -> str:
    if not root:
        return ""
    try:
        with open(os.path.join(root, package, "Cargo.toml"), "rb") as fh:
            manifest = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    lib = manifest.get("lib")
    if isinstance(lib, dict) and isinstance(lib.get("name"), str):
        return str(lib["name"])
    package_table = manifest.get("package")
    if isinstance(package_table, dict) and isinstance(package_table.get("name"), str):
        return str(package_table["name"])
    return ""
