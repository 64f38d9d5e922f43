"""JavaScript, TypeScript and TSX: ES and CommonJS modules, relative paths;
what a module binds (its imports, exports and globals) is
languages/esimports.py, a signature's parameters languages/esparams.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, Symbol
from cartog_ci.languages import esparams, jsmodules, testrunners
from cartog_ci.languages.esimports import JS_GLOBALS, JS_SELF, TS_GLOBALS, decode
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
from cartog_ci.parse import budget
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import Syntax


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
        counts (a callback type reformatted is no change), nor the quotes of
        a string (``T["_def"]`` is ``T['_def']``: a formatter's choice)."""
        old, new = double_quoted(old), double_quoted(new)
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
        return _overloads_verdict(before.callable, after.callable, types or {})

    def type_parameters(self, signature: str) -> tuple[str, ...]:
        read = self.parameters(signature)
        return read.type_parameters if read is not None else ()

    def binds_by_assignment(self, lines: Sequence[str], name: str, indent: int) -> bool:
        """A member ``name`` declared at the body's level without being a
        definition of its own: a class field (`name = () => …`), or a
        member of the object type a type alias became (redux-toolkit 2.2.7:
        `interface PromiseWithKnownReason … { catch<T>(…) }` turned into
        `type PromiseWithKnownReason = Omit<…> & { catch<T>(…) }`)."""
        member = re.compile(
            rf"[ \t]{{{indent}}}(?:(?:readonly|static|public|private|protected|declare|get|set)\s+)*"
            rf"{re.escape(name)}\??\s*[(<:=]"
        )
        return any(member.match(line) for line in lines)

    def returns_member(self, source: bytes, function: Symbol, name: str) -> bool:
        """A factory that returns an object literal with the member: the
        local `const batch = …` that `return { batch }` exposed became
        `return { batch: … }` (@tanstack/query-core 5.56 `createNotifyManager`),
        and `notifyManager.batch(…)` still calls it."""
        tree = budget.parse(self.syntax.grammar, source)
        node = tree.root_node.descendant_for_byte_range(function.start_byte, max(function.start_byte, function.end_byte - 1))
        functions = [node] if node is not None else []
        while functions and functions[0].type not in esparams.FUNCTION_NODES:
            here = functions.pop(0)
            functions += [c for c in here.named_children if c.start_byte < function.end_byte]
        if not functions:
            return False
        return any(name in _object_members(value) for value in _returned(functions[0]))

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
        if len(read.callable) > 1:
            return _check_overloads(read.callable, call)
        # the one signature callers bind: the function's, or its one overload
        # declaration (the implementation's own is not callable: immer `each`)
        params = read.callable[0].arity
        check = bind(_positional(params), call)
        if check.verdict == WILL_BREAK or old is None:
            return check  # a count that fits no parameter list breaks whatever the types
        before = self.parameters(old.signature)
        if before is None:
            return None
        if len(before.callable) > 1:
            return CallCheck(UNKNOWN, "the function was overloaded: which signature the call bound is not told")
        filled = zip(before.callable[0].filled[: call.positional], params[: call.positional])
        if not all(_widened(was.annotation, now.annotation, {}) for was, now in filled):
            return CallCheck(UNKNOWN, "a parameter's type changed")
        return check


_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"})


def _returned(function: ts.Node) -> list[ts.Node]:
    """The values ``function`` returns: its `return` statements' (not those
    of the functions nested in it) or an arrow function's expression body,
    unwrapped of parentheses and `as const`."""
    body = function.child_by_field_name("body")
    if body is None:
        return []
    found: list[ts.Node] = []
    if body.type != "statement_block":
        found.append(body)
    else:
        stack = list(body.named_children)
        while stack:
            here = stack.pop()
            if here.type == "return_statement":
                found += here.named_children[:1]
            elif here.type not in esparams.FUNCTION_NODES and here.type not in ("class", "class_declaration"):
                stack.extend(here.named_children)
    out = []
    for value in found:
        while value.type in _WRAPPERS and value.named_children:
            value = value.named_children[0]
        out.append(value)
    return out


def _object_members(value: ts.Node) -> set[str]:
    """The member names of an object literal (``key: v``, ``key() {}``,
    ``key``); none of another value."""
    if value.type != "object":
        return set()
    names = set()
    for member in value.named_children:
        key = member if member.type == "shorthand_property_identifier" else member.child_by_field_name(
            "key" if member.type == "pair" else "name"
        )
        if key is not None and key.type in ("property_identifier", "shorthand_property_identifier", "string"):
            names.add(_text(key).strip("'\""))
    return names


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


_SINGLE_QUOTED = re.compile(r"\\.|\"")  # in a single-quoted literal: an escape, or a double quote


def double_quoted(text: str) -> str:
    """``text`` with each single-quoted string literal written with double
    quotes (its value unchanged); template literals and comments as they
    are. @trpc/server 10.45.0 -> 10.45.2 rebuilt its typings with another
    quote style: ``RouterCaller<TRouter["_def"]>`` became
    ``RouterCaller<TRouter['_def']>``, the same type, reported breaking."""
    if "'" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith(("//", "/*"), i):  # a comment, kept whole
            end = text.find("\n" if text[i + 1] == "/" else "*/", i + 2)
            end = n if end < 0 else end + (1 if text[i + 1] == "/" else 2)
            out.append(text[i:end])
            i = end
        elif c in "\"`'":  # a string or template literal, to its closing quote
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            body = text[i + 1 : min(j, n)]
            if c == "'":  # \' needs no escape between double quotes, " needs one
                out.append('"' + _SINGLE_QUOTED.sub(lambda m: "'" if m[0] == "\\'" else '\\"' if m[0] == '"' else m[0], body) + '"')
            else:
                out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _overloads_verdict(
    before: Sequence[esparams.Signature], after: Sequence[esparams.Signature], types: Mapping[str, str]
) -> str:
    """Every signature callers could bind before still has one in the new
    set that takes the same calls: "" when the sets are equal, else
    compatible; breaking when one has none."""
    verdicts = []
    for was in before:
        fits = [v for v in (_typescript_verdict(was, now, types) for now in after) if v != "breaking"]
        if not fits:
            return "breaking"
        verdicts.append("" if "" in fits else "compatible")
    same = len(before) == len(after) and not any(verdicts)
    return "" if same else "compatible"


def _typescript_verdict(before: esparams.Signature, after: esparams.Signature, types: Mapping[str, str]) -> str:
    was_this = next((p.annotation for p in before.parameters if p.kind == "this"), "")
    now_this = next((p.annotation for p in after.parameters if p.kind == "this"), "")
    if not _widened(was_this, now_this, types) or now_this and not was_this:
        return "breaking"  # what the function may be called on
    old, new = before.filled, after.filled
    for i, was in enumerate(old):
        if i >= len(new):
            return "breaking"  # callers passing it: too many arguments
        now = new[i]
        if (
            now.kind != was.kind
            or not _widened(was.annotation, now.annotation, types)
            or (was.default and not now.default)
        ):
            return "breaking"
    if any(not p.default and p.kind == "positional" for p in new[len(old) :]):
        return "breaking"  # a new required parameter
    if after.return_type and before.return_type != after.return_type:
        return "breaking"  # a return type callers may rely on (one now inferred is not told)
    same = [(p.kind, p.default, p.annotation) for p in old] == [(p.kind, p.default, p.annotation) for p in new]
    return "" if same and was_this == now_this else "compatible"


def _widened(old: str, new: str, types: Mapping[str, str]) -> bool:
    """Whether every value a caller passed for a parameter typed ``old``
    still fits ``new``, as far as the text tells: the same type, `any` or
    `unknown`, a union with more members, an array made `readonly` (a
    mutable array is assignable to it), or the same generic type given type
    arguments (inferred at the call: `$ZodError` -> `$ZodError<T>`). A type
    alias the change's files define (``types``) is read as what it stands
    for: `boolean` -> `StrictMode` where `type StrictMode = boolean |
    "class_only"` (immer 10.1) widens."""
    if old == new or new in ("any", "unknown") or not old:
        return True
    if new == "readonly" + old and old.endswith("[]"):
        return True  # annotations are written without white space
    old_members, new_members = _members(old, types), _members(new, types)
    if old_members <= new_members and (len(new_members) > 1 or old_members == new_members):
        return True
    if "<" not in old and new.startswith(old + "<") and new.endswith(">"):
        return True
    # a generic given `any` for every type argument takes every value its
    # defaults took (@tanstack/query-core 5.56: `Array<QueryObserverOptions>`
    # -> `Array<QueryObserverOptions<any, any, any, any, any>>`)
    return _ALL_ANY.sub(r"\1", new) == old


_ALL_ANY = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)<any(?:,any)*>")


# the aliases of TypeScript's own library (lib.es5.d.ts), read where the
# change's files define no type of that name: zod 4.6.0 widened `key: string`
# to `key: PropertyKey` in util.ts's own/hide/defineBound
_LIB_ALIASES = {"PropertyKey": "string|number|symbol"}


def _members(written: str, types: Mapping[str, str], depth: int = 0) -> set[str]:
    """A union's members, each alias of ``types`` (or of TypeScript's
    library: ``_LIB_ALIASES``) replaced by its own members (a few levels
    deep: an alias of an alias)."""
    out = set()
    for member in _union_members(written):
        definition = types[member] if member in types else _LIB_ALIASES.get(member)
        if definition is None or depth >= 4:
            out.add(member)
        else:
            out |= _members(re.sub(r"\s+", "", definition), types, depth + 1)
    return out


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


_SELF_NAMES = ("this",)
_TEST_FILES = r"(^|/)[^/]*\.(spec|test)\.[jt]sx?$"


# Group 1: the one return type of an overload set (`f(a: A): T; f(b: B): T;
# f(x: any)`, a signature of languages/esparams.py's joined form) whose
# implementation declares none; group 2: the signature's own.
_RETURNS = (
    r"(?:^[^;]*\)\s*:\s*([^();]+?)\s*;(?:[^;]*\)\s*:\s*\1\s*;)*[^;]*\)"
    r"|\)\s*:\s*([^()]+?)\s*(?:=>)?)\s*;?\s*$"
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
        # a method (of a class, or of an object a function returns) is never
        # a bare name: `return { row() {} }` binds no `row` in its function
        methods_bind_names=False,
        # nor is a function nested in another (a local, a member of the object
        # it returns) what a name-only guess of `x.m()` may be
        nested_are_local=True,
    )


# The root-level patterns (``Syntax.top_level_walk``): the values of the
# constants' patterns (TypeScript's list adds three), the functions and
# classes of the CommonJS ones (javascript.scm)
_JS_DATA = frozenset({
    "number", "string", "template_string", "regex", "true", "false", "null", "undefined",
    "object", "array", "identifier", "member_expression", "subscript_expression",
    "call_expression", "new_expression", "binary_expression", "unary_expression",
    "ternary_expression", "parenthesized_expression", "await_expression",
})  # fmt: skip
_TS_DATA = _JS_DATA | {"as_expression", "satisfies_expression", "non_null_expression"}
_MADE = frozenset({"call_expression", "new_expression", "object"})
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "generator_function"})
_NAMED_FUNCTIONS = frozenset({"function_expression", "generator_function"})
_Match = tuple[int, dict[str, list[ts.Node]]]
# the patterns' source the walks are written for (``Syntax.top_level_walk_for``:
# edited, their query runs, and tests/parse/test_top_level_walk.py fails)
_JS_TOP_LEVEL = "ab92f6262527a2da"
_TS_TOP_LEVEL = "ef00670bce7c3332"


def _constants(declaration: ts.Node, exported: bool, data: frozenset[str], value_capture: str) -> list[_Match]:
    """The matches of the constants' patterns in a root-level (or exported)
    declaration, per declarator in order, before their text predicates:
    numbered 0 for `(program (lexical_declaration kind: "const"
    (variable_declarator name: (identifier) @name value: [<data>])))`, 1 the
    exported one, 2 and 3 the two made by a call (ecmascript.scm); the value
    of 0 captured as ``value_capture`` ("": not captured)."""
    found: list[_Match] = []
    const = declaration.child_by_field_name("kind")
    if const is None or const.type != "const":
        return found
    for declarator in declaration.named_children:
        if declarator.type != "variable_declarator":
            continue
        name = declarator.child_by_field_name("name")
        value = declarator.child_by_field_name("value")
        if name is None or value is None or name.type != "identifier":
            continue
        made = value.type
        if made in data:
            captures = {"name": [name], "definition.constant": [declaration]}
            if value_capture and not exported:
                captures[value_capture] = [value]
            found.append((1 if exported else 0, captures))
        if not exported and made in _MADE:
            call = {"_call": [value]} if made == "call_expression" else {}
            found.append((2, {"name": [name], **call, "definition.constant": [declaration]}))
            if call:
                found.append((3, {"name": [name], **call, "definition.constant": [declaration]}))
    return found


def _typescript_top_level(root: ts.Node, source: bytes) -> list[_Match]:
    """The matches of TypeScript's root-level patterns (the constants',
    ``_constants``) as their query gives them, before their text
    predicates: per root child in order."""
    out: list[_Match] = []
    for child in root.children:
        kind = child.type
        if kind == "lexical_declaration":
            out += _constants(child, False, _TS_DATA, "")
        elif kind == "export_statement":
            for declaration in child.named_children:
                if declaration.type == "lexical_declaration":
                    out += _constants(declaration, True, _TS_DATA, "")
    return out


def _assigned(assignment: ts.Node, right_types: frozenset[str], named: bool | None) -> ts.Node | None:
    """The right side of ``assignment`` when its left is a member and its
    right of ``right_types`` (``named``: with a name field or without one;
    None: either)."""
    left = assignment.child_by_field_name("left")
    right = assignment.child_by_field_name("right")
    if left is None or right is None or left.type != "member_expression" or right.type not in right_types:
        return None
    if named is not None and (right.child_by_field_name("name") is not None) != named:
        return None
    return right


# javascript.scm's CommonJS default exports (`module.exports = …`, patterns
# 2 to 5): the right side's types and whether it has a name (None: either),
# the right side's capture, the definition's capture
_ARROW = frozenset({"arrow_function"})
_DEFAULT_EXPORTS = (
    (2, ((_NAMED_FUNCTIONS, None),), "_right", "definition.function"),
    (3, ((_NAMED_FUNCTIONS, False), (_ARROW, None)), "", "definition.function"),
    (4, ((frozenset({"class"}), None),), "_right", "definition.class"),
    (5, ((frozenset({"class"}), False),), "", "definition.class"),
)


def _default_exports(assignment: ts.Node) -> list[_Match]:
    """The matches of the default-export patterns (2 to 5) whose assignment
    is ``assignment`` (a statement's, the right side of a statement's, or a
    declarator's value), before their text predicates."""
    found: list[_Match] = []
    for number, rights, right_capture, definition in _DEFAULT_EXPORTS:
        right = next((r for types, named in rights if (r := _assigned(assignment, types, named)) is not None), None)
        if right is None:
            continue
        captures: dict[str, list[ts.Node]] = {"_left": [assignment.child_by_field_name("left")]}  # type: ignore[list-item]
        if right_capture:
            captures[right_capture] = [right]
        captures[definition] = [assignment]
        found.append((number, captures))
    return found


def _javascript_top_level(root: ts.Node, source: bytes) -> list[_Match]:
    """The matches of JavaScript's root-level patterns as their query gives
    them, before their text predicates: per root child in order, for an
    expression statement's assignment `x.y = <function>` 0-1 (`exports.f =`,
    `module.exports.f =`), 2-5 the default exports, 6-7 (`Foo.prototype.m =`,
    `Foo.m =`: a function or a generator) and then 2-5 for an assignment on
    its right side (`exports = module.exports = f`), which finish deeper;
    for a declaration, per declarator, 8-11 the constants (``_constants``) and
    2-5 for an assignment it holds (`var proto = module.exports = f`)."""
    out: list[_Match] = []
    for child in root.children:
        kind = child.type
        if kind == "expression_statement":
            for assignment in child.named_children:
                if assignment.type != "assignment_expression":
                    continue
                right = _assigned(assignment, _FUNCTIONS, None)
                left = assignment.child_by_field_name("left")
                if right is not None:
                    out += [(0, {"_left": [left], "definition.function": [child]}), (1, {"_left": [left], "definition.function": [child]})]  # type: ignore[list-item]
                out += _default_exports(assignment)
                if right is not None and right.type in _NAMED_FUNCTIONS:
                    out += [(6, {"_left": [left], "definition.function": [child]}), (7, {"_left": [left], "definition.function": [child]})]  # type: ignore[list-item]
                inner = assignment.child_by_field_name("right")
                if inner is not None and inner.type == "assignment_expression":
                    out += _default_exports(inner)
            continue
        if kind == "export_statement":
            for declaration in child.named_children:
                if declaration.type == "lexical_declaration":
                    out += [(number + 8, captures) for number, captures in _constants(declaration, True, _JS_DATA, "_value")]
            continue
        if not child.is_named:
            continue
        constants = _constants(child, False, _JS_DATA, "_value") if kind == "lexical_declaration" else []
        for declarator in child.named_children:
            if declarator.type != "variable_declarator":
                continue
            while constants and constants[0][1]["name"][0].parent == declarator:
                number, captures = constants.pop(0)
                out.append((number + 8, captures))
            value = declarator.child_by_field_name("value")
            if value is not None and value.type == "assignment_expression":
                out += _default_exports(value)
    return out


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
        top_level_walk=_javascript_top_level if name == "javascript" else _typescript_top_level,
        top_level_walk_for=_JS_TOP_LEVEL if name == "javascript" else _TS_TOP_LEVEL,
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
    minifiable=True,
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
