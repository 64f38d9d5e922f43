"""Decode import statements into (module spec, imported name, alias) triples.

Import syntax is too irregular for tags captures alone, so each language that
has imports gets a small decoder here. Conventions, shared with the resolver:

- ``module`` is the spec as written: ``a.b``, ``..pkg`` (Python relative),
  ``./y`` (JS), ``net/http`` (Go), ``crate::x`` (Rust).
- ``name`` is the imported name; ``name == module`` means "the module
  itself" (``import a.b``); ``"*"`` is a wildcard / namespace import.
- ``alias`` is the local name bound, when it differs from ``name``.
- JS/TS: ``module == JS_SELF`` is the file's own export binding
  (``export default Foo`` -> ``(JS_SELF, "Foo", "default")``), and
  ``require('./y')`` imports ``default`` (CommonJS ``module.exports``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import tree_sitter as ts

from cartog_ci.parse.nodes import node_text as _text

ImportTriple = tuple[str, str, str | None]
Decoder = Callable[[ts.Node], list[ImportTriple]]



def _python(node: ts.Node) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    if node.type == "future_import_statement":
        return out
    if node.type == "import_statement":
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = _text(child.child_by_field_name("name"))
                out.append((module, module, _text(child.child_by_field_name("alias")) or None))
            else:
                module = _text(child)
                out.append((module, module, None))
        return out
    module = _text(node.child_by_field_name("module_name")).replace(" ", "")
    if any(c.type == "wildcard_import" for c in node.children):
        return [(module, "*", None)]
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name = _text(child.child_by_field_name("name"))
            out.append((module, name, _text(child.child_by_field_name("alias")) or None))
        else:
            out.append((module, _text(child), None))
    return out


# The module spec of "this very file": a module's own exports are bindings
# too (`export default Foo` binds `default` to the local `Foo`, exactly like
# `export {Foo as default}`), and the resolver looks them up like imports.
JS_SELF = "<self>"
_JS_NAMED_DECLARATIONS = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "function_declaration",
        "generator_function_declaration",
        "interface_declaration",
        "enum_declaration",
        "type_alias_declaration",
    }
)


def _js_source(node: ts.Node) -> str:
    source = node.child_by_field_name("source")
    return _text(source).strip("'\"`")


def _js_clause(clause: ts.Node, module: str) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    for part in clause.named_children:
        if part.type == "identifier":
            out.append((module, "default", _text(part)))
        elif part.type == "namespace_import":
            ident = next((c for c in part.named_children if c.type == "identifier"), None)
            out.append((module, "*", _text(ident) or None))
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type == "import_specifier":
                    name = _text(spec.child_by_field_name("name"))
                    alias = _text(spec.child_by_field_name("alias")) or None
                    out.append((module, name, alias))
    return out


def _javascript(node: ts.Node) -> list[ImportTriple]:
    if node.type == "import_statement":
        return _js_import(node)
    if node.type == "export_statement":
        if node.child_by_field_name("source") is None:
            return _js_own_exports(node)
        return _js_reexport(node)
    if node.type == "call_expression":
        return _js_call(node)
    if node.type == "assignment_expression":  # module.exports = X
        return _js_default(node.child_by_field_name("right"))
    return []


def _js_import(node: ts.Node) -> list[ImportTriple]:
    module = _js_source(node)
    for child in node.named_children:
        if child.type == "import_clause":
            return _js_clause(child, module)
        if child.type == "import_require_clause":  # TS `import x = require('./y')`
            ident = next((c for c in child.named_children if c.type == "identifier"), None)
            return [(_js_source(child), "default", _text(ident) or None)]
    return [(module, module, None)] if module else []


def _js_reexport(node: ts.Node) -> list[ImportTriple]:
    module = _js_source(node)
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    if clause is None:
        ns = next((c for c in node.named_children if c.type == "namespace_export"), None)
        alias = _text(ns.named_children[0]) if ns is not None and ns.named_children else None
        return [(module, "*", alias)]
    out: list[ImportTriple] = []
    for spec in clause.named_children:
        if spec.type == "export_specifier":
            name = _text(spec.child_by_field_name("name"))
            out.append((module, name, _text(spec.child_by_field_name("alias")) or None))
    return out


def _js_own_exports(node: ts.Node) -> list[ImportTriple]:
    """`export default X` and `export {a as b}`: only what renames matters;
    a plain `export {a}` or `export function a` is found as a top-level name."""
    if any(c.type == "default" for c in node.children):
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            return _js_default(declaration)
        return _js_default(node.child_by_field_name("value"))
    if any(c.type == "=" for c in node.children):  # TS `export = X`
        return _js_default(node.named_children[0] if node.named_children else None)
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    out: list[ImportTriple] = []
    for spec in clause.named_children if clause is not None else ():
        alias = _text(spec.child_by_field_name("alias"))
        name = _text(spec.child_by_field_name("name"))
        if spec.type == "export_specifier" and alias and alias != name:
            out.append((JS_SELF, name, alias))
    return out


def _js_default(value: ts.Node | None) -> list[ImportTriple]:
    """What `export default <value>` / `module.exports = <value>` binds.

    A name binds `default` to it. Anything else (an object literal, an
    anonymous function, a call) binds nothing, and the resolver takes the
    module itself as the default: `x.a` with `module.exports = {a}` is the
    module's `a`, and an anonymous default function's body is module code.
    """
    if value is None:
        return []
    if value.type == "identifier":
        return [(JS_SELF, _text(value), "default")]
    name = value.child_by_field_name("name")
    if value.type in _JS_NAMED_DECLARATIONS and name is not None:
        return [(JS_SELF, _text(name), "default")]
    return []


def _js_call(node: ts.Node) -> list[ImportTriple]:
    """`require('./y')` (CommonJS: the module's default, i.e. `module.exports`)
    and dynamic `import('./y')`."""
    args = node.child_by_field_name("arguments")
    literal = args.named_children[0] if args is not None and args.named_children else None
    if literal is None or literal.type != "string":
        return []
    module = _text(literal).strip("'\"`")
    function = node.child_by_field_name("function")
    binding = node.parent
    if function is None or function.type != "identifier" or binding is None:
        return [(module, module, None)]
    if binding.type == "variable_declarator":
        target = binding.child_by_field_name("name")
        if target is not None and target.type == "identifier":
            return [(module, "default", _text(target))]
        if target is not None and target.type == "object_pattern":
            return _require_destructuring(target, module)
    return [(module, module, None)]


def _require_destructuring(pattern: ts.Node, module: str) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    for prop in pattern.named_children:
        if prop.type == "shorthand_property_identifier_pattern":
            out.append((module, _text(prop), None))
        elif prop.type == "pair_pattern":
            key = _text(prop.child_by_field_name("key"))
            value = _text(prop.child_by_field_name("value"))
            out.append((module, key, value if value != key else None))
    return out


DECODERS: dict[str, Decoder] = {
    "python": _python,
    "javascript": _javascript,
    "typescript": _javascript,
    "tsx": _javascript,
}
# Languages whose decoder lives in its own module (``decode(node)`` there),
# imported on first use so worker processes load only what they parse.
DECODER_MODULES: dict[str, str] = {
    "go": "cartog_ci.parse.imports_go",
    "rust": "cartog_ci.parse.imports_rust",
    "java": "cartog_ci.parse.imports_java",
    "ruby": "cartog_ci.parse.imports_ruby",
}


def decode(language: str, node: ts.Node) -> list[ImportTriple]:
    decoder = DECODERS.get(language)
    if decoder is None and language in DECODER_MODULES:
        module = importlib.import_module(DECODER_MODULES[language])
        decoder = DECODERS[language] = module.decode
    return decoder(node) if decoder is not None else []
