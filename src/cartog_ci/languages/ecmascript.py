"""JavaScript, TypeScript and TSX: ES and CommonJS modules, relative paths.

Import statements decode into (module spec, imported name, alias) triples
(docs/languages.md):

- ``module`` is the spec as written (``./y``); ``name`` is the imported name;
  ``"*"`` is a namespace import; ``alias`` is the local name when it differs.
- ``module == JS_SELF`` is the file's own export binding
  (``export default Foo`` -> ``(JS_SELF, "Foo", "default")``), and
  ``require('./y')`` imports ``default`` (CommonJS ``module.exports``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Callable, Sequence

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, Symbol
from cartog_ci.languages import esparams, jsmodules, testrunners
from cartog_ci.languages.arguments import (
    UNKNOWN,
    Call,
    CallCheck,
    Params,
    argument_nodes,
    bind,
)
from cartog_ci.languages.base import (
    WILL_BREAK,
    Language,
    Parameter,
    top_level_split,
    Project,
    ScopeRules,
    parameters,
    query_text,
    whole_signature,
)
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax

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
    if node.type == "assignment_expression":  # module.exports = X
        return _js_default(node.child_by_field_name("right"))
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


class ECMAScript(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        if spec == JS_SELF:  # the file's own exports (`export default Foo`)
            return [importer]
        return jsmodules.find(project, importer, spec)

    def owns_module(self, project: Project, importer: str, spec: str) -> bool:
        return jsmodules.owns(project, importer, spec)

    def is_test(self, symbol: Symbol) -> bool:
        """A function of a test file, or a test file itself: the calls in
        `it(...)`/`test(...)` callbacks belong to the file's module symbol,
        and a runner runs files (mocha and tape those of a test folder:
        ``test/parse.js``)."""
        if symbol.kind == "module":
            return testrunners.is_js_test_file(symbol.file) or self.in_test_file(symbol.file)
        return super().is_test(symbol)

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.js_commands(tests, ws, self.is_test)

    def signature_verdict(self, old: str, new: str, types: Mapping[str, str] | None = None) -> str:
        """Calls pass arguments by position: renaming a parameter breaks no
        caller. JavaScript checks no arity (a trailing parameter added or
        dropped is compatible); TypeScript checks arity and types, against
        the overload signatures when there are some. White space never
        counts (a callback type reformatted is no change)."""
        if whole_signature(old) == whole_signature(new):
            return ""
        before, after = self.parameters(old), self.parameters(new)
        if before is None or after is None:
            return "breaking"
        if self.name == "javascript":
            was, now = [p.name for p in before.filled], [p.name for p in after.filled]
            if len(was) == len(now):
                return ""
            short, long = (now, was) if len(now) < len(was) else (was, now)
            return "compatible" if long[: len(short)] == short else "breaking"
        return _overloads_verdict(before.callable, after.callable)

    def call_shape(self, signature: str) -> str:
        # JavaScript has no annotations; TypeScript's are part of the contract
        if self.name != "javascript":
            return super().call_shape(signature)
        read = self.parameters(signature)
        if read is None:
            return whole_signature(signature)
        shape = [("..." if p.kind == "variadic" else "") + p.name + ("=" if p.default else "") for p in read.filled]
        return ",".join(shape)

    def parameters(self, signature: str) -> esparams.Signature | None:
        """The parameters of a signature's text, read from its syntax tree
        (languages/esparams.py); None when the text is no function's head."""
        return esparams.read_signature(signature, self.syntax.grammar)

    def read_call(self, node: ts.Node) -> Call | None:
        if node.type == "call_expression":
            callee, constructs = node.child_by_field_name("function"), False
        elif node.type == "new_expression":
            callee, constructs = node.child_by_field_name("constructor"), True
        else:
            return None
        if callee is not None and callee.type == "non_null_expression" and callee.named_children:
            callee = callee.named_children[0]  # f!(...)
        if callee is None or callee.type not in ("identifier", "member_expression"):
            return None
        member = callee.type == "member_expression"
        name = callee.child_by_field_name("property") if member else callee
        qualifier = _text(callee.child_by_field_name("object")) if member else ""
        arguments = node.child_by_field_name("arguments")
        if arguments is not None and arguments.type != "arguments":
            return None  # a tagged template
        values = argument_nodes(arguments)
        spread = any(a.type == "spread_element" for a in values)
        line = callee.start_point[0] + 1
        return Call(_text(name), qualifier, line, len(values), (), spread, receiver=member, constructs=constructs)

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """TypeScript checks arity against the declared parameters (optional
        `x?`, defaults and `...rest`); JavaScript checks nothing, so a call
        never breaks by its arguments. A call of an overloaded function
        breaks when its count fits no overload; which overload it binds, and
        changed parameter types, are beyond what the call's text tells."""
        if self.name == "javascript" or target.kind not in CALLABLE_KINDS:
            return None
        read = self.parameters(target.signature)
        if overloads:  # other declarations of the name (`declare function` sets, interface members)
            sets = [read, *(self.parameters(s.signature) for s in overloads)]
            if any(r is None for r in sets):
                return CallCheck(UNKNOWN, "the function is overloaded")
            return _check_overloads([s for r in sets if r is not None for s in r.callable], call)
        if read is None:
            return None
        if read.overloads:
            return _check_overloads(read.callable, call)
        params = read.arity
        if old is not None:
            before = self.parameters(old.signature)
            if before is None:
                return None
            filled = zip(before.filled[: call.positional], params[: call.positional])
            if not all(_widened(was.annotation, now.annotation) for was, now in filled):
                return CallCheck(UNKNOWN, "a parameter's type changed")
        return bind(_positional(params), call)


def _positional(params: Sequence[Parameter]) -> Params:
    return Params(
        positional=tuple(p for p in params if p.kind != "variadic"),
        variadic=any(p.kind == "variadic" for p in params),
        by_keyword=False,
    )


def _check_overloads(signatures: Sequence[esparams.Signature], call: Call) -> CallCheck:
    """A call of an overloaded function breaks when its argument count fits
    none of the overload signatures; which one it binds depends on types."""
    checks = [bind(_positional(s.arity), call) for s in signatures]
    if any(c.verdict != WILL_BREAK for c in checks):
        return CallCheck(UNKNOWN, "the function is overloaded")
    return CallCheck(WILL_BREAK, f"{call.positional} argument(s) fit none of {len(signatures)} overload signature(s)")


def _overloads_verdict(before: Sequence[esparams.Signature], after: Sequence[esparams.Signature]) -> str:
    """Every signature callers could bind before still has one in the new
    set that takes the same calls: "" when the sets are equal, else
    compatible; breaking when one has none."""
    verdicts = []
    for was in before:
        fits = [v for v in (_typescript_verdict(was, now) for now in after) if v != "breaking"]
        if not fits:
            return "breaking"
        verdicts.append("" if "" in fits else "compatible")
    same = len(before) == len(after) and not any(verdicts)
    return "" if same else "compatible"


def _typescript_verdict(before: esparams.Signature, after: esparams.Signature) -> str:
    was_this = next((p.annotation for p in before.parameters if p.kind == "this"), "")
    now_this = next((p.annotation for p in after.parameters if p.kind == "this"), "")
    if not _widened(was_this, now_this) or now_this and not was_this:
        return "breaking"  # what the function may be called on
    old, new = before.filled, after.filled
    for i, was in enumerate(old):
        if i >= len(new):
            return "breaking"  # callers passing it: too many arguments
        now = new[i]
        if now.kind != was.kind or not _widened(was.annotation, now.annotation) or (was.default and not now.default):
            return "breaking"
    if any(not p.default and p.kind == "positional" for p in new[len(old) :]):
        return "breaking"  # a new required parameter
    if after.return_type and before.return_type != after.return_type:
        return "breaking"  # a return type callers may rely on (one now inferred is not told)
    same = [(p.kind, p.default, p.annotation) for p in old] == [(p.kind, p.default, p.annotation) for p in new]
    return "" if same and was_this == now_this else "compatible"


def _widened(old: str, new: str) -> bool:
    """Whether every value a caller passed for a parameter typed ``old``
    still fits ``new``, as far as the text tells: the same type, `any` or
    `unknown`, a union with more members, or the same generic type given
    type arguments (inferred at the call: `$ZodError` -> `$ZodError<T>`)."""
    if old == new or new in ("any", "unknown") or not old:
        return True
    old_members, new_members = _union_members(old), _union_members(new)
    if len(new_members) > 1 and old_members <= new_members:
        return True
    return "<" not in old and new.startswith(old + "<") and new.endswith(">")


def _union_members(written: str) -> set[str]:
    """The members of a union type's text (white space aside), each without
    the parentheses around it: `((a:T)=>void)|null` -> `(a:T)=>void`, `null`."""
    out = set()
    for member in top_level_split(written.replace("=>", "\0"), "|"):  # `=>` opens nothing
        while member.startswith("(") and member.endswith(")") and parameters(member) == member[1:-1]:
            member = member[1:-1]
        if member:
            out.add(member.replace("\0", "=>"))
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

_SELF_NAMES = ("this",)
_TEST_FILES = r"(^|/)[^/]*\.(spec|test)\.[jt]sx?$"


# Group 1: the one return type of an overload set (`f(a: A): T; f(b: B): T;
# f(x: any)`, a signature of languages/esparams.py's joined form) whose
# implementation declares none; group 2: the signature's own.
_RETURNS = (
    r"(?:^[^;]*\)\s*:\s*([^();]+?)\s*;(?:[^;]*\)\s*:\s*\1\s*;)*[^;]*\)"
    r"|\)\s*:\s*([^()]+?)\s*(?:=>)?)\s*$"
)


def _scope(globals_: frozenset[str], *, merged: bool, typed: bool = False) -> ScopeRules:
    return ScopeRules(
        self_names=_SELF_NAMES,
        family="ecmascript",
        # `function make(): Stats` / `make(): Stats` / `create = (): Stats =>`:
        # what a call of it gives; an overload set whose implementation
        # declares none gives what every overload declares, when they agree
        return_pattern=_RETURNS if typed else "",
        builtins=globals_,
        imports_only=True,
        default_is_module=True,
        merged_declarations=merged,
        instance_constants=True,
        prototype_methods=True,
        module_calls=("require",),
        imported_names_may_be_modules=False,
    )


def _syntax(name: str, grammar: Callable[[], ts.Language], queries: tuple[str, ...], wrappers: tuple[str, ...]) -> Syntax:
    return Syntax(
        name=name,
        load_grammar=grammar,
        load_query=query_text(*queries, "ecmascript"),
        decode_import=decode,
        wrappers=wrappers,
        self_names=_SELF_NAMES,
        call_chains=True,
        top_level_pass=True,
    )


def _javascript_grammar() -> ts.Language:
    import tree_sitter_javascript

    return ts.Language(tree_sitter_javascript.language())


def _typescript_grammar() -> ts.Language:
    import tree_sitter_typescript

    return ts.Language(tree_sitter_typescript.language_typescript())


def _tsx_grammar() -> ts.Language:
    import tree_sitter_typescript

    return ts.Language(tree_sitter_typescript.language_tsx())


_TS_WRAPPERS = ("export_statement", "ambient_declaration")
JAVASCRIPT = ECMAScript(
    name="javascript",
    package_files=("index",),
    interfaces=False,
    extensions=(".js", ".jsx", ".mjs", ".cjs"),
    syntax=_syntax("javascript", _javascript_grammar, ("javascript",), ("export_statement",)),
    scope=_scope(JS_GLOBALS, merged=True),
    test_files=_TEST_FILES,
    test_runner="jest",
)
TYPESCRIPT = ECMAScript(
    name="typescript",
    package_files=("index",),
    extensions=(".ts", ".mts", ".cts"),
    syntax=_syntax("typescript", _typescript_grammar, ("typescript",), _TS_WRAPPERS),
    scope=_scope(TS_GLOBALS, merged=True, typed=True),
    test_files=_TEST_FILES,
    test_runner="jest",
)
TSX = ECMAScript(
    name="tsx",
    package_files=("index",),
    extensions=(".tsx",),
    syntax=_syntax("tsx", _tsx_grammar, ("typescript", "tsx"), _TS_WRAPPERS),
    scope=_scope(TS_GLOBALS, merged=True, typed=True),
    test_files=_TEST_FILES,
    test_runner="jest",
)
