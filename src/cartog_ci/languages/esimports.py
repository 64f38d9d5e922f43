"""What a JavaScript / TypeScript module binds: import statements, its own
exports, module-level aliases, and the globals no import binds
(docs/languages.md).

Import statements decode into (module spec, imported name, alias) triples:

- ``module`` is the spec as written (``./y``); ``name`` is the imported name;
  ``"*"`` is a namespace import; ``alias`` is the local name when it differs.
- ``module == JS_SELF`` is the file's own export binding
  (``export default Foo`` -> ``(JS_SELF, "Foo", "default")``), and
  ``require('./y')`` imports ``default`` (CommonJS ``module.exports``).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import FILE_NAMED, ImportTriple

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


def decode(node: ts.Node) -> list[ImportTriple]:
    if node.type == "import_statement":
        return _js_import(node)
    if node.type == "export_statement":
        if node.child_by_field_name("source") is None:
            return _js_own_exports(node)
        return _js_reexport(node)
    if node.type == "call_expression":
        return _js_call(node)
    if node.type == "assignment_expression":  # module.exports = X, exports.p = X
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and _text(left) == "module.exports":
            return _commonjs_default(right)
        return _exported_member(_text(left.child_by_field_name("property")), right) if left is not None else []
    if node.type == "variable_declarator":  # const api = { get, put: save }; const make = Foo.create
        return _member_alias(node) or _object_members(node)
    return []


_MEMBER_PATH = re.compile(r"[\w$]+(?:\.[\w$]+)+")


def _member_alias(declarator: ts.Node) -> list[ImportTriple]:
    """`const stringType = ZodString.create` / `const Form = RouteModalForm`
    at module level: the name is what the path names (the resolver follows
    `ZodString`, then its `create`), as an import of the module's own
    binding; a global's name (`undefined`, `window`) is none."""
    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    if name is None or name.type != "identifier" or value is None:
        return []
    path = _text(value)
    if value.type == "identifier" and path not in JS_GLOBALS and path not in _NO_BINDINGS:
        return [(JS_SELF, path, _text(name))]
    return [(JS_SELF, path, _text(name))] if value.type == "member_expression" and _MEMBER_PATH.fullmatch(path) else []


_NO_BINDINGS = frozenset({"undefined", "NaN", "Infinity", "arguments"})


def _object_members(declarator: ts.Node) -> list[ImportTriple]:
    """The members of a module-level object literal that name another binding
    (`{ get }`, `{ put: save }`, also the last object given to
    `Object.assign(Root, {...})`): `api.get` is that binding, like a
    re-export (the alias is `api.get`, which the resolver reads for members
    of `api`)."""
    owner = _text(declarator.child_by_field_name("name"))
    value = declarator.child_by_field_name("value")
    if value is not None and value.type == "call_expression":  # `Object.assign(Root, { Header })`
        arguments = value.child_by_field_name("arguments")
        objects = [a for a in arguments.named_children if a.type == "object"] if arguments is not None else []
        value = objects[-1] if objects else None
    out: list[ImportTriple] = []
    for member in value.named_children if value is not None and owner else ():
        if member.type == "shorthand_property_identifier":
            out.append((JS_SELF, _text(member), f"{owner}.{_text(member)}"))
        elif member.type == "pair":
            key, bound = member.child_by_field_name("key"), member.child_by_field_name("value")
            if key is not None and key.type == "property_identifier" and bound is not None and bound.type == "identifier":
                out.append((JS_SELF, _text(bound), f"{owner}.{_text(key)}"))
    return out


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
    if value.type == "new_expression":  # `export default new Manager()`: members are Manager's
        built = value.child_by_field_name("constructor")
        return [(JS_SELF, _text(built), "default")] if built is not None and built.type == "identifier" else []
    name = value.child_by_field_name("name")
    if value.type in _JS_NAMED_DECLARATIONS and name is not None:
        return [(JS_SELF, _text(name), "default")]
    return []


_FUNCTION_VALUES = frozenset({"function_expression", "generator_function", "arrow_function", "class"})


def _commonjs_default(value: ts.Node | None) -> list[ImportTriple]:
    """What `module.exports = <value>` binds: a name as `export default`
    does; a function or class, named or not, is a symbol of the module
    (languages/queries/javascript.scm: its own name, else the file's), and
    an object literal's members are the module's names (`{ parse: parse,
    stringify, utils: require('./utils') }`: `qs.parse` is the module's
    `parse`)."""
    if value is not None and value.type in _FUNCTION_VALUES:
        name = value.child_by_field_name("name")
        return [(JS_SELF, _text(name) if name is not None else FILE_NAMED, "default")]
    if value is not None and value.type == "object":
        return _exported_members(value)
    if value is not None and value.type == "call_expression" and _required(value):
        return [(_required(value), "default", None)]  # `module.exports = require('./lib/async')`
    return _js_default(value)


def _exported_members(value: ts.Node) -> list[ImportTriple]:
    """`module.exports = { a: b, c, d: require('./d') }`: `a` is the module's
    `b` (like `export { b as a }`), `d` is `./d`'s default; a shorthand `c`
    and `a: a` are the module's own names already."""
    out: list[ImportTriple] = []
    for member in value.named_children:
        key = member.child_by_field_name("key") if member.type == "pair" else None
        if key is not None and key.type == "property_identifier":
            out += _exported_member(_text(key), member.child_by_field_name("value"))
    return out


def _exported_member(name: str, bound: ts.Node | None) -> list[ImportTriple]:
    """The module's `name` is `bound`: another of its names, or what a
    `require('./x')` gives."""
    if bound is not None and bound.type == "identifier" and _text(bound) != name:
        return [(JS_SELF, _text(bound), name)]
    if bound is not None and bound.type == "call_expression" and _required(bound):
        return [(_required(bound), "default", name)]
    return []


def _required(call: ts.Node) -> str:
    """The module a `require('./x')` call names, else ""."""
    function, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    literal = args.named_children[0] if args is not None and len(args.named_children) == 1 else None
    if function is None or _text(function) != "require" or literal is None or literal.type != "string":
        return ""
    return _text(literal).strip("'\"`")


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
    if binding.type == "member_expression" and binding.parent is not None:  # `var f = require('./x').f`
        member, declarator = binding.child_by_field_name("property"), binding.parent
        target = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
        if member is not None and target is not None and target.type == "identifier":
            return [(module, _text(member), _text(target) if _text(target) != _text(member) else None)]
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


JS_GLOBALS = frozenset(
    "console require Promise Object Array String Number Boolean JSON Math Date Error "
    "TypeError RangeError SyntaxError Map Set WeakMap WeakSet Symbol BigInt parseInt "
    "parseFloat setTimeout clearTimeout setInterval clearInterval queueMicrotask fetch "
    "document window globalThis process Buffer RegExp isNaN isFinite encodeURIComponent "
    "decodeURIComponent encodeURI decodeURI structuredClone Reflect Proxy Intl "
    "Uint8Array Int32Array Float64Array ArrayBuffer DataView URL URLSearchParams "
    "AbortController TextEncoder TextDecoder alert describe it test expect beforeEach "
    "afterEach beforeAll afterAll jest module exports setImmediate clearImmediate "
    "global __dirname __filename Function AggregateError EvalError ReferenceError "
    "URIError WeakRef FinalizationRegistry Int8Array Int16Array Uint16Array Uint32Array "
    "Uint8ClampedArray Float32Array BigInt64Array BigUint64Array SharedArrayBuffer "
    "Atomics atob btoa requestAnimationFrame cancelAnimationFrame performance crypto "
    "navigator location localStorage sessionStorage XMLHttpRequest WebSocket Worker "
    "CustomEvent MessageChannel".split()
)
# Types from TypeScript's lib.*.d.ts: a reference to one is external unless
# the file declares or imports the name itself.
TS_GLOBALS = JS_GLOBALS | frozenset(
    "Partial Required Readonly Record Pick Omit Exclude Extract NonNullable "
    "Parameters ConstructorParameters ReturnType InstanceType Awaited ThisType "
    "Uppercase Lowercase Capitalize Uncapitalize NoInfer PropertyKey Function "
    "PromiseLike ArrayLike ReadonlyArray ReadonlyMap ReadonlySet Iterable Iterator "
    "IterableIterator AsyncIterable AsyncIterator AsyncIterableIterator Generator "
    "AsyncGenerator TemplateStringsArray PropertyDescriptor TypedPropertyDescriptor "
    "ClassDecorator MethodDecorator PropertyDecorator ParameterDecorator "
    "HTMLElement Element Node Event EventTarget KeyboardEvent MouseEvent Response "
    "Request Headers Blob File FormData Window Document NodeJS".split()
)
