"""Java import declarations -> (module spec, imported name, alias) triples.

- ``import a.b.Foo;``            -> ``("a.b.Foo", "Foo", None)``: the class
  (the finder maps ``a.b.Foo`` to ``…/a/b/Foo.java``);
- ``import a.b.*;``              -> ``("a.b", "*", None)``: every class of the
  package (a star import of its directory);
- ``import static a.b.Util.max;`` -> ``("a.b.Util", "Util.max", "max")``:
  the member ``max`` of class ``Util``, bound locally as ``max``;
- ``import static a.b.Util.*;``  -> ``("a.b.Util", "*", None)``.
"""

from __future__ import annotations

import tree_sitter as ts

from cartog_ci.parse.nodes import ImportTriple
from cartog_ci.parse.nodes import node_text as _text


def decode(node: ts.Node) -> list[ImportTriple]:
    if node.type != "import_declaration":
        return []
    path = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    dotted = "".join(_text(path).split())
    if not dotted:
        return []
    is_static = any(c.type == "static" for c in node.children)
    if any(c.type == "asterisk" for c in node.children):
        return [(dotted, "*", None)]
    owner, _, member = dotted.rpartition(".")
    if is_static and owner:
        cls = owner.rpartition(".")[2]
        return [(owner, f"{cls}.{member}", member)]
    return [(dotted, member, None)]
