"""Go import declarations -> (import path, name, alias) triples.

A Go import binds a package, never a member, so every triple imports "the
module itself" (``name == module``) except dot imports:

- ``import "example.com/p/util"``  -> (path, path, "util")  the local name is
  the package name, guessed from the path (see ``package_name``);
- ``import u "example.com/p/util"`` -> (path, path, "u");
- ``import . "example.com/p/util"`` -> (path, "*", None)   names used bare;
- ``import _ "embed"``             -> (path, path, "_")   side effects only.

The alias is always set: the resolver's default for a module import without
alias splits a dotted Python name, which would be wrong for a Go path.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from cartog_ci.parse.nodes import ImportTriple
from cartog_ci.parse.nodes import node_text as _text

_MAJOR_VERSION = re.compile(r"v\d+")


def package_name(path: str) -> str:
    """The package name a path conventionally declares: its last element,
    skipping a major-version element (``.../v2``) and version or ``go-``
    decorations (``gopkg.in/yaml.v3`` -> ``yaml``, ``go-sqlite3`` ->
    ``sqlite3``). A guess: the package clause is authoritative, but Go code
    that departs from the convention imports such packages with an alias."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and _MAJOR_VERSION.fullmatch(parts[-1]):
        parts.pop()
    name = parts[-1] if parts else path
    name = re.sub(r"\.v\d+$", "", name)
    name = re.sub(r"^go-|[-.]go$", "", name)
    return name



def _spec(node: ts.Node) -> ImportTriple | None:
    path = _text(node.child_by_field_name("path")).strip('"`')
    if not path:
        return None
    name = node.child_by_field_name("name")
    if name is None:
        return (path, path, package_name(path))
    if name.type == "dot":
        return (path, "*", None)
    return (path, path, _text(name))


def decode(node: ts.Node) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "import_spec":
            triple = _spec(current)
            if triple is not None:
                out.append(triple)
            continue
        stack.extend(reversed(current.named_children))
    return out
