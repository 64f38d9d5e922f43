"""Ruby ``require`` / ``require_relative`` -> (module spec, ``"*"``, None).

A required file's top-level constants become visible everywhere, which is a
star import of that file. The spec keeps the two lookups apart:
``require_relative 'x/y'`` -> ``./x/y`` (relative to the requiring file),
``require 'foo/bar'`` -> ``foo/bar`` (searched on the load path; the finder
matches it as a path suffix, ``lib/foo/bar.rb`` first).
"""

from __future__ import annotations

import tree_sitter as ts

from cartog_ci.parse.nodes import ImportTriple
from cartog_ci.parse.nodes import node_text as _text


def decode(node: ts.Node) -> list[ImportTriple]:
    method = _text(node.child_by_field_name("method"))
    args = node.child_by_field_name("arguments")
    literal = args.named_children[0] if args is not None and args.named_children else None
    if literal is None or literal.type != "string":
        return []
    # an interpolated string (`require "#{dir}/x"`) names no file we can know
    if any(c.type == "interpolation" for c in literal.named_children):
        return []
    spec = "".join(_text(c) for c in literal.named_children if c.type == "string_content")
    if not spec:
        return []
    if method == "require_relative" and not spec.startswith("."):
        spec = f"./{spec}"
    return [(spec, "*", None)]
