"""Rust ``use`` declarations and ``mod name;`` -> (path, name, alias) triples.

Paths keep Rust syntax (``crate::a::b``); the module finder maps them to
files. Groups and globs flatten:

- ``use crate::a::{b, c as d, e::f};`` -> (crate::a, b, None),
  (crate::a, c, d), (crate::a::e, f, None);
- ``use super::x::*;``                  -> (super::x, *, None);
- ``use crate::a::{self};`` / ``use a;`` -> (crate::a, crate::a, a): the
  module itself, bound under its last segment;
- ``mod util;``                          -> (self::util, self::util, util):
  a module declaration binds its name to the file that holds it (inside
  ``mod a { mod b; }`` the path is ``self::a::b``: the file is ``a/b.rs``).

Bindings are per file, so paths written inside an inline ``mod m { ... }``
are rewritten to the file's level: each leading ``super`` first leaves one
enclosing inline module (``use super::*`` in ``mod tests`` is the file
itself). ``self::`` inside an inline module is read at the file's level too:
items of inline modules are not reachable through the finder, so such a
path stays unresolved rather than wrong.
"""

from __future__ import annotations

import tree_sitter as ts

from cartog_ci.parse.nodes import ImportTriple
from cartog_ci.parse.nodes import node_text as _text

_PATH_NODES = frozenset({"identifier", "scoped_identifier", "crate", "self", "super", "metavariable"})



def _segments(node: ts.Node | None) -> list[str]:
    """``a::b::c`` -> [a, b, c]; a leading ``::`` (extern crate) is dropped."""
    if node is None:
        return []
    if node.type == "scoped_identifier":
        path = _segments(node.child_by_field_name("path"))
        return path + [_text(node.child_by_field_name("name"))]
    return [_text(node)]


def _enclosing_mods(node: ts.Node) -> list[str]:
    """Names of the inline modules around ``node``, outermost first."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item":
            names.insert(0, _text(parent.child_by_field_name("name")))
        parent = parent.parent
    return names


def _lift(segments: list[str], depth: int) -> list[str]:
    """Rewrite a path written ``depth`` inline modules deep to file level."""
    if depth == 0 or not segments or segments[0] != "super":
        return segments
    supers = 0
    while supers < len(segments) and segments[supers] == "super":
        supers += 1
    if supers <= depth:
        return ["self"] + segments[supers:]
    return ["super"] * (supers - depth) + segments[supers:]


def _triple(segments: list[str], alias: str | None) -> ImportTriple | None:
    segments = [s for s in segments if s]
    if not segments:
        return None
    if segments[-1] == "self":  # `a::{self}`: the module itself
        segments = segments[:-1]
        if not segments:
            return None
        module = "::".join(segments)
        return (module, module, alias or segments[-1])
    if len(segments) == 1:  # `use foo;`: a crate or a module, itself
        return (segments[0], segments[0], alias or segments[0])
    return ("::".join(segments[:-1]), segments[-1], alias)


def _walk(node: ts.Node, base: list[str], depth: int, out: list[ImportTriple]) -> None:
    kind = node.type
    triple: ImportTriple | None = None
    if kind in _PATH_NODES:
        triple = _triple(_lift(base + _segments(node), depth), None)
    elif kind == "use_as_clause":
        alias = _text(node.child_by_field_name("alias")) or None
        triple = _triple(_lift(base + _segments(node.child_by_field_name("path")), depth), alias)
    elif kind == "use_wildcard":
        path = next((c for c in node.named_children if c.type in _PATH_NODES), None)
        segments = _lift(base + _segments(path), depth)
        if segments:
            triple = ("::".join(segments), "*", None)
    elif kind == "scoped_use_list":
        prefix = base + _segments(node.child_by_field_name("path"))
        listing = node.child_by_field_name("list")
        if listing is not None:
            _walk(listing, prefix, depth, out)
    elif kind == "use_list":
        for child in node.named_children:
            _walk(child, base, depth, out)
    if triple is not None:
        out.append(triple)


def decode(node: ts.Node) -> list[ImportTriple]:
    enclosing = _enclosing_mods(node)
    if node.type == "mod_item":
        name = _text(node.child_by_field_name("name"))
        path = "::".join(["self", *enclosing, name])
        return [(path, path, name)] if name else []
    if node.type != "use_declaration":
        return []
    argument = node.child_by_field_name("argument")
    out: list[ImportTriple] = []
    if argument is not None:
        _walk(argument, [], len(enclosing), out)
    return out
