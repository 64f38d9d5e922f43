"""How a JavaScript/TypeScript import specifier names a file of the project.

- ``./x``, ``../x``: relative to the importer;
- a path alias of the nearest ``tsconfig.json`` / ``jsconfig.json`` above
  the importer (``compilerOptions.paths``, one ``*`` per pattern, relative to
  ``baseUrl`` or to the config file; ``extends`` followed through relative
  paths), then a specifier under ``baseUrl``;
- ``#internal/x``: the ``imports`` map of the nearest ``package.json``;
- a package of the repository by its name (a monorepo's workspace packages:
  each ``package.json`` above a source file), through its ``exports``
  ``"."`` / subpaths (a ``…/source`` condition first, then ``source``,
  ``types``, ``import`` …), ``module``, ``main``, ``types``, else
  ``src/index.*`` / ``index.*``; a subpath ``pkg/x`` is ``<pkg dir>/x``;
- anything else (``react``, ``node:fs``) is outside the project: external.

A candidate path is probed as written, without a JS extension (``./a.js``
may be ``a.ts``), with each source extension, and as a directory: its
``package.json`` ``main`` (``require('../')``), else its ``index``. The configuration files are read once per symbol table.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from cartog_ci.languages.base import Project, derived_value, node as node_recipe

SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")
_CONFIG_FILES = ("tsconfig.json", "jsconfig.json")
_MAX_EXTENDS = 8
_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True)
class Aliases:
    """What one tsconfig/jsconfig says: (pattern, targets) and the base URL,
    both as repository-relative directories."""

    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base_url: str | None = None


def find(project: Project, importer: str, spec: str) -> list[str]:
    if spec.startswith("."):
        return probe(project, posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec)))
    if spec.startswith(("node:", "data:", "http:", "https:")) or not project.root:
        return []
    found = _aliased(project, importer, spec)
    if found is None and spec.startswith("#"):
        found = _subpath_import(project, importer, spec)
    if found is None:
        found = _workspace_package(project, spec)
    return found or []


def owns(project: Project, importer: str, spec: str) -> bool:
    """A relative path, an alias of the importer's tsconfig, a ``#`` import or
    a workspace package: a file of the project, found or not."""
    if spec.startswith("."):
        return True
    if not project.root or spec.startswith(("node:", "data:", "http:", "https:")):
        return False
    aliases = _nearest_config(project, posixpath.dirname(importer))
    if aliases is not None and any(_match(pattern, spec) is not None for pattern, _ in aliases.paths):
        return True
    if spec.startswith("#"):
        return True
    name = "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]
    return name in _packages(project)


def probe(project: Project, base: str) -> list[str]:
    """The file a module path names: as written, without its JS extension,
    with a source extension, or as a directory's index. Once per path and
    run (``remember``: the paths it probed are read once, not by every
    importer)."""
    if base.startswith("../") or base == "..":
        return []
    return cast(list[str], project.remember("js.probe", base))


@node_recipe("js.probe")
def _probe(project: Project, base: str) -> list[str]:
    stems = [base] + [base[: -len(ext)] for ext in _JS_EXTENSIONS if base.endswith(ext)]
    for stem in stems:
        if stem in project.module_of_file:
            return [stem]
        for suffix in SUFFIXES:
            if stem + suffix in project.module_of_file:
                return [stem + suffix]
        main = _directory_main(project, stem)
        if main:
            return main
        for suffix in SUFFIXES:
            index = f"{stem}/index{suffix}" if stem not in ("", ".") else f"index{suffix}"
            if index in project.module_of_file:
                return [index]
    return []


def _directory_main(project: Project, stem: str) -> list[str]:
    """A directory's package.json ``main`` (Node's `require('../')`: the
    package root), before its ``index``; one below the directory (a
    ``main`` that leaves it could lead back to it)."""
    directory = "" if stem in ("", ".") else stem
    manifest = _manifest(project, directory)
    main = manifest.get("main") if manifest else None
    if not isinstance(main, str):
        return []
    target = posixpath.normpath(posixpath.join(directory, main))
    inside = target.startswith(directory + "/") if directory else target not in (".", "..") and not target.startswith("../")
    return probe(project, target) if inside else []


# -- tsconfig paths --------------------------------------------------------------


def _aliased(project: Project, importer: str, spec: str) -> list[str] | None:
    aliases = _nearest_config(project, posixpath.dirname(importer))
    if aliases is None:
        return None
    for pattern, targets in aliases.paths:
        star = _match(pattern, spec)
        if star is None:
            continue
        for target in targets:
            found = probe(project, posixpath.normpath(target.replace("*", star, 1)))
            if found:
                return found
        return []  # the alias claims the specifier: nothing else would be tried
    if aliases.base_url is not None:
        found = probe(project, posixpath.normpath(posixpath.join(aliases.base_url, spec)))
        if found:
            return found
    return None


def _match(pattern: str, spec: str) -> str | None:
    if "*" not in pattern:
        return "" if pattern == spec else None
    head, _, tail = pattern.partition("*")
    if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
        return spec[len(head) : len(spec) - len(tail)]
    return None


def _nearest_config(project: Project, directory: str) -> Aliases | None:
    """The tsconfig/jsconfig of the directory, else of the nearest one above
    it: once per directory and run (``remember``: what it read, the files
    probed on the disk among them, is what its readers depend on)."""

    return cast("Aliases | None", project.remember("js.config", directory))


@node_recipe("js.config")
def _nearest(project: Project, directory: str) -> Aliases | None:
    config = _read_config(project, directory)
    if config is not None or not directory:
        return config
    return _nearest_config(project, posixpath.dirname(directory))


def _read_config(project: Project, directory: str) -> Aliases | None:
    for name in _CONFIG_FILES:
        path = posixpath.join(directory, name) if directory else name
        options = _compiler_options(project, path, 0)
        if options is not None:
            return _aliases(options)
    return None


def _compiler_options(project: Project, path: str, depth: int) -> dict[str, object] | None:
    """compilerOptions of ``path`` merged over those it extends, with
    ``baseUrl`` and ``paths`` made repository-relative (TypeScript resolves
    them relative to the file that sets them)."""
    data = _read_json(project, path)
    if data is None:
        return None
    here = posixpath.dirname(path)
    merged: dict[str, object] = {}
    parent = data.get("extends")
    for base in ([parent] if isinstance(parent, str) else parent if isinstance(parent, list) else []):
        if isinstance(base, str) and base.startswith(".") and depth < _MAX_EXTENDS:
            target = posixpath.normpath(posixpath.join(here, base))
            target = target if target.endswith(".json") else target + ".json"
            merged.update(_compiler_options(project, target, depth + 1) or {})
    own = data.get("compilerOptions")
    if isinstance(own, dict):
        if isinstance(own.get("baseUrl"), str):
            merged["baseUrl"] = posixpath.normpath(posixpath.join(here, own["baseUrl"]))
        if isinstance(own.get("paths"), dict):
            merged["paths"] = own["paths"]
            merged["pathsBase"] = here
    return merged


def _aliases(options: dict[str, object]) -> Aliases:
    base_url = options.get("baseUrl")
    base = base_url if isinstance(base_url, str) else None
    relative_to = base if base is not None else str(options.get("pathsBase", ""))
    paths: list[tuple[str, tuple[str, ...]]] = []
    raw = options.get("paths")
    for pattern, targets in (raw.items() if isinstance(raw, dict) else []):
        if isinstance(pattern, str) and isinstance(targets, list):
            resolved = tuple(
                _clean(posixpath.normpath(posixpath.join(relative_to, t))) for t in targets if isinstance(t, str)
            )
            paths.append((pattern, resolved))
    # the longest prefix first, as TypeScript picks the most specific pattern
    paths.sort(key=lambda item: -len(item[0].partition("*")[0]))
    return Aliases(tuple(paths), _clean(base) if base is not None else None)


def _clean(path: str) -> str:
    return "" if path == "." else path


# -- package.json ------------------------------------------------------------------


def _subpath_import(project: Project, importer: str, spec: str) -> list[str] | None:
    directory, manifest = _nearest_manifest(project, posixpath.dirname(importer))
    imports = manifest.get("imports") if manifest else None
    if not isinstance(imports, dict):
        return None
    for pattern, target in imports.items():
        star = _match(pattern, spec) if isinstance(pattern, str) else None
        path = _condition(target)
        if star is not None and path is not None:
            return probe(project, posixpath.normpath(posixpath.join(directory, path.replace("*", star, 1))))
    return None


def _workspace_package(project: Project, spec: str) -> list[str] | None:
    packages = _packages(project)
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    directory = packages.get(name)
    if directory is None:
        return None
    rest = spec[len(name) :].lstrip("/")
    manifest = _manifest(project, directory) or {}
    exported = _exported(manifest, "./" + rest if rest else ".")
    if exported is not None:
        found = probe(project, posixpath.normpath(posixpath.join(directory, exported)))
        if found:
            return found
    if rest:
        return probe(project, posixpath.normpath(posixpath.join(directory, rest))) or probe(
            project, posixpath.normpath(posixpath.join(directory, "src", rest))
        )
    for entry in ("module", "main", "types", "typings"):
        value = manifest.get(entry)
        if isinstance(value, str):
            found = probe(project, posixpath.normpath(posixpath.join(directory, value)))
            if found:
                return found
    return probe(project, posixpath.join(directory, "src")) or probe(project, directory)


def _exported(manifest: dict[str, object], subpath: str) -> str | None:
    exports = manifest.get("exports")
    if isinstance(exports, str):
        return exports if subpath == "." else None
    if not isinstance(exports, dict):
        return None
    if subpath == "." and not any(isinstance(k, str) and k.startswith(".") for k in exports):
        return _condition(exports)  # conditions at the top level
    for pattern, target in exports.items():
        star = _match(pattern, subpath) if isinstance(pattern, str) else None
        path = _condition(target)
        if star is not None and path is not None:
            return path.replace("*", star, 1)
    return None


def _condition(target: object) -> str | None:
    """A path of an exports/imports target: a string, or the first of the
    source-like conditions of an object."""
    if isinstance(target, str):
        return target
    if isinstance(target, dict):
        # a project's own condition for its sources first (zod's `"@zod/source":
        # "./src/index.ts"`, which its tsconfig's customConditions selects)
        own = [k for k in target if isinstance(k, str) and k.endswith("/source")]
        for key in (*own, "source", "types", "import", "module", "default", "require", "node"):
            found = _condition(target.get(key))
            if found is not None:
                return found
    if isinstance(target, list):
        for item in target:
            found = _condition(item)
            if found is not None:
                return found
    return None


def _compute_packages(project: Project) -> dict[str, str]:
    """Package name -> directory, of the package.json files above the
    project's files (a workspace's packages)."""
    packages: dict[str, str] = {}
    for directory in sorted(_ancestors(posixpath.dirname(p) for p in project.language_of_file)):
        manifest = _read_json(project, posixpath.join(directory, "package.json") if directory else "package.json")
        name = manifest.get("name") if manifest else None
        if isinstance(name, str) and name not in packages:
            packages[name] = directory
    return packages


_packages = derived_value("js.packages", _compute_packages)


def _nearest_manifest(project: Project, directory: str) -> tuple[str, dict[str, object] | None]:
    current = directory
    while True:
        manifest = _manifest(project, current)
        if manifest is not None or not current:
            return current, manifest
        current = posixpath.dirname(current)


def _manifest(project: Project, directory: str) -> dict[str, object] | None:
    return cast("dict[str, object] | None", project.remember("js.manifest", directory))


@node_recipe("js.manifest")
def _read_manifest(project: Project, directory: str) -> dict[str, object] | None:
    return _read_json(project, posixpath.join(directory, "package.json") if directory else "package.json")


def _ancestors(directories: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for directory in directories:
        while directory not in out:
            out.add(directory)
            if not directory:
                break
            directory = posixpath.dirname(directory)
    return out


def _read_json(project: Project, path: str) -> dict[str, object] | None:
    """A JSON object file of the repository (``path``: relative), comments
    and trailing commas allowed (tsconfig files have both); None when
    missing or unreadable. What reads it depends on it (``reads_file``)."""
    project.reads_file(path)
    if not project.root:
        return None
    try:
        with open(os.path.join(project.root, path), encoding="utf-8") as fh:
            text = fh.read(1_000_000)
    except (OSError, UnicodeDecodeError):
        return None
    text = _COMMENTS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    try:
        data = json.loads(_TRAILING_COMMA.sub(r"\1", text))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
