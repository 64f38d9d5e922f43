"""TypeScript and JavaScript parameters, read from the syntax tree.

A signature's text (parse/extract.py keeps the declaration up to its body)
is parsed again with the file's grammar and the function's
``formal_parameters`` node is read parameter by parameter, so nothing in a
parameter's type or default value can hide the parameters after it: a
callback type ``(a: string) => void``, a generic bound
``<T extends (x: A) => B>``, a default ``cb = (a, b) => a``, a destructuring
pattern ``{a, b = 2}: Opts = {}`` (docs/report.md: signature verdicts, call-site check).

What a parameter becomes (``Parameter``):

- ``name``: the identifier; a destructuring pattern is its text, white space
  aside (``{a,b=2}``); a parameter property (``private readonly x: X``) is
  ``x``; a rest parameter ``...args`` is ``args``.
- ``kind``: ``positional``, ``variadic`` (rest) or ``this`` (TypeScript's
  ``this:`` parameter, which no argument fills).
- ``default``: a default value or ``?``: a caller may leave it out.
- ``annotation``: the declared type, white space aside ("" in JavaScript).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

import tree_sitter as ts

from cartog_ci.languages.base import Parameter, whole_signature
from cartog_ci.parse import budget
from cartog_ci.parse.nodes import node_text as _text

# Nodes that declare parameters: declarations, expressions, class and
# interface members, overload and ambient signatures.
FUNCTION_NODES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "function_signature",
        "call_signature",
        "construct_signature",
    }
)
_PATTERNS = frozenset({"object_pattern", "array_pattern"})
_SKIPPED = frozenset({"comment", "decorator", "accessibility_modifier", "override_modifier", "readonly"})


@dataclass(frozen=True, slots=True)
class Signature:
    """A function's parameters as declared (``this:`` included) and its
    written return type ("" when inferred), white space aside."""

    parameters: tuple[Parameter, ...]
    return_type: str = ""
    # TypeScript overload signatures written before the implementation: what
    # callers see instead of it (empty: the implementation is callable)
    overloads: tuple[Signature, ...] = ()
    # the function's own type parameters, in order (read by position in the types above)
    type_parameters: tuple[str, ...] = ()

    @property
    def callable(self) -> tuple[Signature, ...]:
        """The signatures a call may bind against."""
        return self.overloads or (self,)

    @property
    def filled(self) -> tuple[Parameter, ...]:
        """The parameters a call's arguments fill (``this:`` left out)."""
        return tuple(p for p in self.parameters if p.kind != "this")

    @property
    def arity(self) -> tuple[Parameter, ...]:
        """``filled`` as a call's argument count reads it: a parameter with
        a default before a required one still takes an argument
        (``f(a = 1, b)`` needs two), so it counts as required."""
        params = list(self.filled)
        last_required = max((i for i, p in enumerate(params) if p.kind == "positional" and not p.default), default=-1)
        return tuple(
            Parameter(p.name, p.kind, False, p.annotation) if i < last_required and p.default else p
            for i, p in enumerate(params)
        )


def read_parameters(node: ts.Node, typevars: Mapping[str, str] | None = None) -> list[Parameter]:
    """The parameters of a function-like node (``FUNCTION_NODES``): its
    ``formal_parameters``, or an arrow function's lone ``x => ...``; its
    type parameters put by position in their types (``typevars``)."""
    params = node.child_by_field_name("parameters")
    if params is None:
        single = node.child_by_field_name("parameter")
        return [Parameter(_text(single), "positional", False)] if single is not None else []
    out: list[Parameter] = []
    for child in params.named_children:
        read = _parameter(child, typevars or {})
        if read is not None:
            out.append(read)
    return out


def read_function(node: ts.Node) -> Signature:
    """A function's parameters and written return type. Its own type
    parameters count by position, not by name: renaming one
    (redux-toolkit 2.2.7: `<Dispatch extends ReduxDispatch>` ->
    `<DispatchType extends Dispatch>`) changes no call."""
    typevars = _type_parameters(node)
    returns = node.child_by_field_name("return_type")
    # `: T`, `: x is T`, `: asserts x is T` (an arrow's may lack the colon)
    written = type_text(returns, typevars) if returns is not None else ""
    return Signature(tuple(read_parameters(node, typevars)), written, type_parameters=tuple(typevars))


def _type_parameters(node: ts.Node) -> dict[str, str]:
    """A function's type parameter names -> a placeholder by position
    (``§0``, ``§1``: no identifier holds a ``§``)."""
    declared = node.child_by_field_name("type_parameters")
    names = [p.child_by_field_name("name") for p in declared.named_children] if declared is not None else []
    return {_text(n): f"§{i}" for i, n in enumerate(names) if n is not None}


def type_text(node: ts.Node, typevars: Mapping[str, str] | None = None) -> str:
    """A type as written, white space aside and without a leading ``:``, the
    parameter names of function types put by position (``(a: string) => void``
    and ``(value: string) => void`` are one type: ``(_0:string)=>void``), and
    so are the enclosing function's type parameters (``typevars``)."""
    renamed: list[tuple[int, int, bytes]] = []
    stack = [node]
    while stack:
        here = stack.pop()
        stack.extend(here.named_children)
        if typevars and here.type == "type_identifier" and here.text is not None:
            held = here.parent
            placeholder = typevars.get(here.text.decode("utf-8", "replace"))
            # `ns.T` names a member of `ns`, not the type parameter `T`
            if placeholder is not None and (held is None or held.type != "nested_type_identifier"):
                renamed.append((here.start_byte, here.end_byte, placeholder.encode()))
            continue
        if here.type not in ("function_type", "constructor_type"):
            continue
        params = here.child_by_field_name("parameters")
        declared = params.named_children if params is not None else []
        for i, param in enumerate(p for p in declared if p.type != "comment"):
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "rest_pattern" and pattern.named_children:
                pattern = pattern.named_children[0]
            if pattern is not None and pattern.type == "identifier":
                renamed.append((pattern.start_byte, pattern.end_byte, f"_{i}".encode()))
    text = node.text or b""
    for start, end, name in sorted(renamed, reverse=True):
        text = text[: start - node.start_byte] + name + text[end - node.start_byte :]
    # a trailing comma is layout too: `(a: A, b: B,) => void` as a formatter writes it over lines
    return _TRAILING_COMMA.sub("", whole_signature(text.decode("utf-8", "replace"))).removeprefix(":")


_TRAILING_COMMA = re.compile(r",(?=[)\]}>])")


def _parameter(node: ts.Node, typevars: Mapping[str, str]) -> Parameter | None:
    kind = node.type
    if kind in ("required_parameter", "optional_parameter"):  # TypeScript
        pattern = node.child_by_field_name("pattern")
        if pattern is None:
            return None
        annotation = node.child_by_field_name("type")
        written = type_text(annotation, typevars) if annotation is not None else ""
        optional = kind == "optional_parameter" or node.child_by_field_name("value") is not None
        if pattern.type == "this":
            return Parameter("this", "this", False, written)
        return _named(pattern, optional, written)
    if kind in _SKIPPED:
        return None
    if kind == "assignment_pattern":  # JavaScript `b = 1`
        left = node.child_by_field_name("left")
        return _named(left, True, "") if left is not None else None
    return _named(node, False, "")


def _named(pattern: ts.Node, optional: bool, annotation: str) -> Parameter:
    if pattern.type == "rest_pattern":
        inner = pattern.named_children[0] if pattern.named_children else pattern
        name = _text(inner) if inner.type == "identifier" else whole_signature(_text(inner))
        return Parameter(name, "variadic", True, annotation)
    name = whole_signature(_text(pattern)) if pattern.type in _PATTERNS else _text(pattern)
    return Parameter(name, "positional", optional, annotation)


# How a signature's text is completed into a program the grammar reads
# without error: a declaration or a function value (`const f = (a) =>`),
# then a class member, then an abstract member or overload (`m(a): T;`),
# then an interface member, then an object literal's member (`key: function (a)`).
_COMPLETIONS = (
    ("", " {}"),
    ("class _ {\n", " {}\n}"),
    ("abstract class _ {\n", ";\n}"),
    ("interface _ {\n", ";\n}"),
    ("({\n", " {}\n})"),
)


@lru_cache(maxsize=1 << 12)
def read_signature(signature: str, grammar: ts.Language) -> Signature | None:
    """The parameters of a symbol's signature text (a function, method,
    constructor, arrow function, or an overload set and its implementation
    as parse/extract.py keeps them), or None when the text is no function's
    head the grammar reads."""
    text = signature.strip()
    # a set of signatures without an implementation ends with its `;`
    # (parse/extract.py `_signature`): every one of them is callable
    bodiless = text.endswith(";")
    text = text.removesuffix(";").rstrip()
    if not text:
        return None
    trees: list[ts.Tree] = []
    # a clean parse first; else one whose errors sit inside types or default
    # values: the signature's white space was collapsed (parse/extract.py),
    # and a newline that separated members of an object type is gone
    for tolerant in (False, True):
        for i, (before, after) in enumerate(_COMPLETIONS):
            if i == len(trees):
                trees.append(budget.parse(grammar, f"{before}{text}{after}".encode()))
            if trees[i].root_node.has_error and not tolerant:
                continue
            found = _outermost_functions(trees[i].root_node)
            if found and (not tolerant or all(_parameters_whole(f) for f in found)):
                return _signature_set(found, bodiless)
    return None


def _signature_set(found: list[ts.Node], bodiless: bool = False) -> Signature:
    """The implementation (the last function) with what callers see of it:
    the overloads before it, or the type a `const f: T = (...) =>` declares.
    A set of ``bodiless`` signatures has no implementation: the last is one
    of the signatures callers see."""
    *overloads, implementation = found
    read = read_function(implementation)
    declared = _declared_type(implementation)
    if declared:
        return replace(read, overloads=declared)
    if bodiless and overloads:
        return replace(read, overloads=(*(read_function(f) for f in overloads), read))
    return replace(read, overloads=tuple(read_function(f) for f in overloads))


def _declared_type(function: ts.Node) -> tuple[Signature, ...]:
    """The call signatures of the type a variable holding ``function``
    declares: a function type, or an object type's call signatures."""
    holder = function.parent
    if holder is None or holder.type != "variable_declarator":
        return ()
    annotation = holder.child_by_field_name("type")
    written = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if written is None:
        return ()
    if written.type == "function_type":
        return (read_function(written),)
    if written.type == "object_type":
        return tuple(read_function(c) for c in written.named_children if c.type == "call_signature")
    return ()


def _parameters_whole(function: ts.Node) -> bool:
    """Whether a function's own parts and each parameter's name parsed
    without error (an error inside a parameter's type is allowed)."""
    params = function.child_by_field_name("parameters")
    parts = [*function.children, *(params.children if params is not None else ())]
    if any(p.type == "ERROR" or p.is_missing for p in parts):
        return False
    for param in params.named_children if params is not None else ():
        pattern = param.child_by_field_name("pattern") or param
        if pattern.has_error:
            return False
    return True


def _outermost_functions(root: ts.Node) -> list[ts.Node]:
    """The function-like nodes not inside another, in source order: the
    signature's own and the overloads before it (a callback type or a
    default's arrow function sits inside one)."""
    out: list[ts.Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in FUNCTION_NODES:
            out.append(node)
        else:
            stack.extend(reversed(node.named_children))
    return out
