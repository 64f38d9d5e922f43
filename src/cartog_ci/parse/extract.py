"""Generic tags-query extractor: one query file per language, no per-language
code here: the language hands in its ``Syntax`` (facts, query, import decoder).

Definitions nest by byte range, which gives each symbol its parent, its
qualified name (``Outer.Inner.method``) and its kind refinement (a function
whose parent is a type is a method). A reference's source is the innermost
definition around it, or the module symbol for module-level code.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import PurePosixPath

import tree_sitter as ts

from cartog_ci.domain import TYPE_KINDS, VALUE, Edge, FileExtraction, Symbol
from cartog_ci.parse import budget, merkle
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.nodes import reading
from cartog_ci.parse.predicates import Predicate, Predicates, keep
from cartog_ci.parse.syntax import FILE_NAMED, ImportTriple, Syntax, file_symbol_name, plain_type
from cartog_ci.store.records import maker

_make_edge = maker(Edge, 9)  # Edge(*row), without its __init__ (store/records.py)
_make_symbol = maker(Symbol, 18)  # Symbol(*fields), every one

_DOTTED = re.compile(r"[\w$]+(?:\.[\w$]+)*")
# what a called name may hold from another: `helpers.run`, `useDate().format`
_ALIASED = re.compile(r"[\w$]+(?:\.[\w$]+)*(?:\(\)\.[\w$]+)?")
_LAST_IDENT = re.compile(r"([\w$]+)\W*$")
# White space is removed as `"".join(text.split())` and squeezed as `" ".join(text.split())`,
# which read the same characters as white space as `\s` (``str.isspace``), 6x
# faster than a substitution of `\s+` (2 % of zod's extraction)
_NEW = re.compile(r"^new\s+(?=[\w$])")
_STRUCT_LITERAL = re.compile(r"&?([\w$]+(?:\.[\w$]+)*)\{[^{}]*\}\.[\w$]+")
_JAVA_CAST = re.compile(r"\(\(([\w$]+(?:\.[\w$]+)*)\)[\w$.]+\)\.[\w$]+")
_AS_CAST = re.compile(r"\([\w$.]+as([A-Z][\w$]*(?:\.[\w$]+)*)\)\.[\w$]+")
_PLAIN_NAME = re.compile(r"[\w$]+[?!=]?")
_DECORATOR_TYPES = frozenset(
    {"decorator", "attribute_item", "annotation", "marker_annotation", "attribute"}
)
_REFERENCE_KINDS = {
    "call": "calls",
    "calls": "calls",
    "import": "imports",
    "inherits": "inherits",
    "implementation": "inherits",
    "type": "references",
    "references": "references",
    "raises": "raises",
    "value": "value",
}
# A `@reference.value` (a function named as a value, not called there: passed,
# assigned, stored; a property read) is stored as a ``calls`` edge whose
# alias is ``VALUE``: the resolver answers it only with a function or method
# the name surely means (index/resolve.py ``Resolver._value``).
_CALLS = "calls"
_BIND = "_bind"  # a constructor assigned to a receiver, not an edge
_BIND_TYPE = "_bind_type"  # a type written for a receiver, not an edge
# Values the specific @bind patterns read (a call, another name, Python's
# `a.b`): the catch-all @bind.other pattern ignores them.
_SPECIFIC_VALUES = frozenset({"call", "identifier", "attribute", "call_expression", "new_expression", "as_expression"})
# A container's capture (``Syntax.value_items``): a value reference of each
# item it names, the container alone captured (one node a match, not two)
_VALUES = "values"
# Long enough for real parameter lists (scrapy's Request.__init__ is 700
# characters): the report judges signature changes on the whole text.
MAX_SIGNATURE = 4000
MAX_REFERENCE = 1000  # characters of a reference's text worth reading
MAX_DOCSTRING = 1000
# A reference or a binding as ``_collect`` reads it: (kind, its match's
# node, its name's node, (qualifier, name), the owner type or the bound value)
_Ref = tuple[str, ts.Node, ts.Node | None, tuple[str | None, str], str]


@dataclass(slots=True)  # read per reference (`_enclosing`): attributes without a dict
class _Def:
    kind: str
    name: str
    node: ts.Node  # the definition node proper
    start: int  # widened to a wrapper (decorators, export)
    end: int
    start_row: int
    owner: str = ""  # Go receiver / Rust impl type: the method's type, by name
    parent: int = -1
    outer: ts.Node | None = None  # the node widened to its wrappers (``_widen``)
    qualified_name: str = ""
    children: list[int] = field(default_factory=list)


def module_name(path: str) -> str:
    """Dotted name of the file (``src/pkg/__init__.py`` -> ``src.pkg``)."""
    if not _PLAIN_PATH.fullmatch(path):
        p = PurePosixPath(path)
        parts = list(p.parent.parts) if str(p.parent) != "." else []
        stem = p.stem
    else:  # a path as git lists it: what PurePosixPath reads of it, without building one
        # (ts-loader, under cProfile: 0.18 s of _symbols' 0.90 s)
        *parts, name = path.split("/")
        dot = name.rfind(".")
        stem = name[:dot] if 0 < dot < len(name) - 1 else name
    if stem not in ("__init__", "index", "mod") or not parts:
        parts.append(stem)
    return ".".join(parts) or stem


# Relative, no empty or `.` segment, no trailing slash: PurePosixPath keeps each segment as written
_PLAIN_PATH = re.compile(r"(?!/)(?:(?!\.?/)[^/]+/)*(?!\.?$)[^/]+")



# most reference texts recur (`self.assertEqual`, `os.path.join`: 3,285
# distinct of 17,563 on scrapy), and the answer depends on the text alone
@lru_cache(maxsize=1 << 16)
def split_reference(text: str, chains: bool = False) -> tuple[str | None, str]:
    """``a.b.c`` -> (``a.b``, ``c``); ``f().g`` -> (``<expr>``, ``g``);
    with ``chains`` (``Syntax.call_chains``), ``f(x).g().h`` -> (``f().g()``,
    ``h``), which the resolver types a call at a time."""
    if len(text) > MAX_REFERENCE:
        # a long chain or nesting (`a.b().b()…` 10,000 times): every link's
        # text holds the whole chain before it, so reading all of it for each
        # link is quadratic. Its end names the callee; its receiver is an
        # expression.
        match = _LAST_IDENT.search(text[-MAX_REFERENCE:])
        return "<expr>", match.group(1) if match else ""
    # `new Foo().run` (JS/TS): the receiver is built by a call of Foo
    text = "".join(_NEW.sub("", text).split()).replace("::", ".").replace("?.", ".").replace("->", ".")
    if text.startswith("super()."):
        return "super", text[len("super().") :]
    if _DOTTED.fullmatch(text):
        head, _, tail = text.rpartition(".")
        return (head or None), tail
    return _constructed(text) or _literal_or_cast(text) or (chains and _call_chain(text)) or "<expr>", _last_ident(text)


_TRAILING = re.compile(r"\W*")  # of the text reversed: its trailing non-word characters
_RUN = re.compile(r"[\w$]+")


def _last_ident(text: str) -> str:
    r"""``_LAST_IDENT.search(text).group(1)`` (else ``text``) read from the
    end: the run of ``[\w$]`` that holds the last word character, with the
    ``$`` right after it. The search tries every start from the left, and
    each start inside a word reads the word again (7 % of zod's
    ``split_reference``)."""
    backwards = text[::-1]
    tail = _TRAILING.match(backwards).end()  # type: ignore[union-attr]
    if tail == len(text):  # no word character: a run of `$` alone, if any
        match = _LAST_IDENT.search(text)
        return match.group(1) if match else text
    end = len(text) - tail  # text[end - 1] is a word character
    start = end - _RUN.match(backwards, tail).end() + tail  # type: ignore[union-attr]
    return text[start : end + len(text[end:]) - len(text[end:].lstrip("$"))]


_CHAIN_LINK = re.compile(r"\.([\w$]+)")


def _call_chain(text: str) -> str | None:
    """``z.string(a).trim().min(2).parse`` -> ``z.string().trim().min()``: a
    dotted callee, then calls each followed by a member; None for any other
    shape (a property of a call's value, an index, a non-null assertion)."""
    head = _DOTTED.match(text)
    if head is None:
        return None
    links, i = [head.group(0)], head.end()
    while i < len(text):
        link = _CHAIN_LINK.match(text, _closing(text, i) + 1) if text[i] == "(" else None
        if link is None or link.start() == 0:
            return None
        links.append(link.group(1))
        i = link.end()
    return "().".join(links[:-1]) + "()" if len(links) > 2 else None


_PARENTHESIS = re.compile(r"[()]")


def _closing(text: str, start: int) -> int:
    """Where the parenthesis opening at ``start`` closes; -1 if it does not.
    (Read a parenthesis at a time, not a character at a time: zod's call
    chains hold object literals.)"""
    if start >= len(text):
        return -1
    if text[start] not in "()":
        return start
    depth = 0
    for found in _PARENTHESIS.finditer(text, start):
        depth += 1 if found.group() == "(" else -1
        if depth == 0:
            return found.start()
    return -1


def _literal_or_cast(text: str) -> str | None:
    """``C{}.Foo`` (a Go or Rust struct literal), ``((Repo)x).save`` (a Java
    cast), ``(x as Foo).m`` (a TypeScript cast) -> ``C()`` / ``Repo()`` /
    ``Foo()``: the receiver is a value of that type."""
    for pattern in (_STRUCT_LITERAL, _JAVA_CAST, _AS_CAST):
        found = pattern.fullmatch(text)
        if found:
            return f"{found.group(1)}()"
    return None


def _constructed(text: str) -> str | None:
    """``Service(a, b).compute`` -> ``Service()``: the receiver is built by a call."""
    head, paren, _ = text.partition("(")
    if not paren or not _DOTTED.fullmatch(head):
        return None
    end = _closing(text, len(head))
    rest = text[end + 1 :] if end >= 0 else ""
    return f"{head}()" if rest.count(".") == 1 and rest.startswith(".") else None


def _widen(node: ts.Node, spec: Syntax) -> ts.Node:
    """The node with the wrappers around it (each parent is found by a walk
    from the root: asked once a level, and not at all without wrappers)."""
    wrappers = spec.wrappers
    if not wrappers:
        return node
    outer, parent = node, node.parent
    while parent is not None and parent.type in wrappers:
        outer, parent = parent, parent.parent
    return outer


def _signature(
    d: _Def, spec: Syntax, source: bytes, comments: list[tuple[int, int]], comment_starts: list[int]
) -> str:
    node = d.node
    body = None
    for name in spec.body_fields:
        body = node.child_by_field_name(name)
        if body is not None:
            break
    end = body.start_byte if body is not None else node.end_byte
    value = _function_value(node, d.name) if body is None and d.kind != "constant" else None
    if value is not None:  # `const f = (a, b) =>`: up to the function value's body
        body = value.child_by_field_name("body")
        end = body.start_byte if body is not None else end
    elif d.kind == "constant" or body is None and node.child_by_field_name("parameters") is None:
        # a signature without a body (`m(a: A,\n b: B): T;`) is whole; other
        # bodiless definitions keep their first line
        newline = source.find(b"\n", node.start_byte, end)
        end = newline if newline >= 0 else end
    raw = merkle.own_source(source, node.start_byte, end, (), comments, comment_starts)
    text = " ".join(raw.decode("utf-8", "replace").split()).rstrip(":{=").strip()[:MAX_SIGNATURE]
    overloads = _overloads(d, spec)
    if overloads and node.type in _OVERLOAD_SIGNATURES and not text.endswith(";"):
        # a set of signatures alone (a .d.ts): the closing `;` tells every one
        # is callable (languages/esparams.py `read_signature`)
        text += ";"
    for overload in overloads:  # nearest first
        written = merkle.own_source(source, overload.start_byte, overload.end_byte, (), comments, comment_starts)
        head = " ".join(written.decode("utf-8", "replace").split()).rstrip(";")
        if len(head) + len(text) + 2 > MAX_SIGNATURE:
            break
        text = f"{head}; {text}"
    return text


# TypeScript overload signatures: written right before the implementation,
# they are what callers see (the implementation's own is not callable). A set
# of signatures with no implementation (a .d.ts, an interface, `declare`) is
# one symbol too: its last signature, every one callable.
_OVERLOAD_SIGNATURES = frozenset({"function_signature", "method_signature"})
_IMPLEMENTATIONS = frozenset({"function_declaration", "method_definition"})
_OVERLOADED = _OVERLOAD_SIGNATURES | _IMPLEMENTATIONS


def _overloads(d: _Def, spec: Syntax) -> list[ts.Node]:
    """The overload signatures of the same name right before a TypeScript
    function or method, or before the last signature of a set without an
    implementation (comments and decorators between them aside), nearest
    first: the signature set the symbol's signature text starts with."""
    if d.node.type not in _OVERLOADED:
        return []
    found: list[ts.Node] = []
    sibling = (d.outer if d.outer is not None else _widen(d.node, spec)).prev_named_sibling
    while sibling is not None:
        node = _declared(sibling)
        sibling = sibling.prev_named_sibling
        if node.type in ("comment", "decorator"):
            continue
        if node.type not in _OVERLOAD_SIGNATURES or _text(node.child_by_field_name("name")) != d.name:
            break
        found.append(node)
    return found


def _overloaded_later(node: ts.Node, name: str, spec: Syntax) -> bool:
    """Whether a TypeScript signature is followed by another declaration of
    its name that folds it (``_overloads``): then it is no symbol of its own."""
    sibling = _widen(node, spec).next_named_sibling
    while sibling is not None and sibling.type in ("comment", "decorator"):
        sibling = sibling.next_named_sibling
    if sibling is None:
        return False
    following = _declared(sibling)
    return following.type in _OVERLOADED and _text(following.child_by_field_name("name")) == name


def _declared(node: ts.Node) -> ts.Node:
    """What an ``export`` / ``declare`` statement declares (the node itself otherwise)."""
    while node.type in ("export_statement", "ambient_declaration"):
        inner = node.child_by_field_name("declaration") or (node.named_children[0] if node.named_children else None)
        if inner is None or inner.type == "comment":
            return node
        node = inner
    return node


# JavaScript/TypeScript function values a definition binds (`const f =
# () => {}`, `exports.f = function () {}`, a class field or object member).
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


def _function_value(node: ts.Node, name: str) -> ts.Node | None:
    """The function value a bodiless definition binds ``name`` to, if one."""
    if node.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        node = next((c for c in declarators if _text(c.child_by_field_name("name")) == name), node)
    elif node.type == "expression_statement" and node.named_child_count:
        node = node.named_children[0]
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    return value if value is not None and value.type in _FUNCTION_VALUES else None


_DECORATED = _DECORATOR_TYPES | {"modifiers"}
_ATTRIBUTE_ITEM = frozenset({"attribute_item"})


@lru_cache(maxsize=None)
def _has_kind(spec: Syntax, kinds: frozenset[str]) -> bool:
    """Whether the language's grammar has a node (named or not) of one of ``kinds``."""
    grammar = spec.grammar
    return any(grammar.id_for_node_kind(kind, named) is not None for kind in kinds for named in (True, False))


def _decorators(d: _Def, spec: Syntax) -> tuple[str, ...]:
    """The decorators among the children of the definition's wrapper, of
    the definition and of its ``modifiers``, in that order, each once; the
    definition's children are listed once (most definitions have no wrapper)."""
    if not _has_kind(spec, _DECORATED):  # Go: no node of these in the grammar
        return ()
    found: list[str] = []
    node = d.node
    outer = d.outer if d.outer is not None else _widen(node, spec)
    if outer != node:
        found += [" ".join(_text(c).split()) for c in outer.children if c.type in _DECORATOR_TYPES]
    modifiers: list[ts.Node] = []
    for child in node.children:
        kind = child.type
        if kind in _DECORATOR_TYPES:
            found.append(" ".join(_text(child).split()))
        elif kind == "modifiers":
            modifiers.append(child)
    for holder in modifiers:
        found += [" ".join(_text(c).split()) for c in holder.children if c.type in _DECORATOR_TYPES]
    # a sibling found by walking the parent's children from the first: only
    # in a grammar with attribute items (Rust)
    sibling = outer.prev_named_sibling if _has_kind(spec, _ATTRIBUTE_ITEM) else None
    while sibling is not None and sibling.type == "attribute_item":
        found.insert(0, " ".join(_text(sibling).split()))
        sibling = sibling.prev_named_sibling
    return tuple(dict.fromkeys(found))


def _code_hash(
    d: _Def,
    spec: Syntax,
    source: bytes,
    signature: str,
    child_ranges: list[tuple[int, int]],
    comments: list[tuple[int, int]],
    comment_starts: list[int],
) -> str:
    """The content hash of the code alone: its tokens and the tree's
    nesting (``merkle.code_tokens``), no docstring, no comments, no layout
    (a reformatted or re-documented symbol keeps it; an indented call or a
    space in a string does not)."""
    holes = list(child_ranges)
    doc = _docstring_node(d, spec)
    if doc is not None:
        holes.append((doc.start_byte, doc.end_byte))
    holes = merkle.holes_in(d.start, d.end, holes, comments, comment_starts)
    top = d.outer if d.outer is not None else _widen(d.node, spec)
    tokens = merkle.code_tokens(top, source, d.start, d.end, holes)
    return merkle.content_hash(d.kind, d.name, "".join(signature.split()), tokens)


def _first_named(node: ts.Node | None) -> ts.Node | None:
    """The first named child (``named_children[0]`` without building the
    list of all of them: a class body's every statement)."""
    return node.named_child(0) if node is not None and node.named_child_count else None


def _docstring_node(d: _Def, spec: Syntax) -> ts.Node | None:
    if not spec.docstring_in_body:
        return None
    first = _first_named(d.node.child_by_field_name("body"))
    if first is not None and first.type == "expression_statement":
        inner = _first_named(first)
        if inner is not None and inner.type == "string":
            return first
    return None


def _docstring(d: _Def, spec: Syntax) -> str:
    if spec.docstring_in_body:
        first = _first_named(d.node.child_by_field_name("body"))
        if first is not None and first.type == "expression_statement":
            inner = _first_named(first)
            if inner is not None and inner.type == "string":
                return _clean_doc(_text(inner))
        return ""
    comments: list[str] = []
    outer = d.outer if d.outer is not None else _widen(d.node, spec)
    # Go: `// doc` precedes `type X struct`, outside the type_spec that is the
    # definition (not a wrapper: a grouped `type (...)` holds several).
    while (
        spec.doc_parents  # the parent is found by a walk from the root: asked only then
        and outer.parent is not None
        and outer.parent.type in spec.doc_parents
        and outer.prev_named_sibling is None
        and outer.parent.start_point[0] == outer.start_point[0]
    ):
        outer = outer.parent
    sibling = outer.prev_named_sibling
    row = outer.start_point[0]
    # Rust: `#[derive(..)]` stands between the `///` doc and the item.
    while sibling is not None and sibling.type == "attribute_item":
        row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    while sibling is not None and sibling.type in spec.comment_types:
        if sibling.end_point[0] < row - 1:
            break
        comments.insert(0, _text(sibling))
        row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    return _clean_doc("\n".join(comments))


def _clean_doc(text: str) -> str:
    lines = []
    for line in text.splitlines():
        line = line.strip().lstrip("/*#!").rstrip("*/").strip()
        lines.append(line)
    doc = "\n".join(lines).strip().strip("\"'").strip()
    return doc[:MAX_DOCSTRING]


def _first_read(read: dict[bytes, tuple[str | None, str]], written: bytes, chains: bool) -> tuple[str | None, str]:
    """(qualifier, name) of a reference's text as written, new to the file
    ``read`` remembers them for (``_collect``: most texts recur)."""
    name = written.decode("utf-8", "replace")
    parts = read[written] = (None, name) if _PLAIN_NAME.fullmatch(name) else split_reference(name, chains)
    return parts


def _reference_parts(
    spec: Syntax, name_node: ts.Node | None, receiver: ts.Node | None, fixed: str | None
) -> tuple[str | None, str]:
    """(qualifier, name) of a reference. A ``@receiver`` capture is the
    object a call is made on, when the grammar has no node for the callee as
    written (Java ``a.b(x).c()``, Ruby ``Foo::Bar.baz 1``)."""
    name = fixed or _text(name_node)
    if receiver is None:
        # `valid?`, `save!` (Ruby) are whole names, not `valid` + punctuation
        return (None, name) if fixed or _PLAIN_NAME.fullmatch(name) else split_reference(name)
    written = _text(receiver)
    for pattern, replacement in spec.receiver_rewrites:
        written = re.sub(pattern, replacement, written)
    qualifier, _ = split_reference(f"{written}.x")
    return qualifier, name


_NO_NODE: tuple[None] = (None,)
_UNKNOWN = "\0"  # not yet asked (a receiver's answer may be None)
_DEFINITION = "definition"
_REFERENCE = "reference"


@lru_cache(maxsize=None)
def _role(key: str) -> tuple[str, str]:
    """What a capture name says: (``_DEFINITION``, kind) for
    ``definition.<kind>``, (``_REFERENCE``, edge kind or "" when no edge)
    for ``reference.<kind>``, else (the name, "")."""
    if key == _VALUES:  # a container whose items are values (``Syntax.value_items``)
        return _REFERENCE, VALUE
    head, dot, tail = key.partition(".")
    if dot and head == _DEFINITION:
        return _DEFINITION, tail
    if dot and head == _REFERENCE:
        return _REFERENCE, _REFERENCE_KINDS.get(tail, "")
    return key, ""


@lru_cache(maxsize=None)
def _roles(spec: Syntax) -> dict[str, tuple[str, str]]:
    """``_role`` of every capture name of the language's tags queries (and
    those a ``#child?`` adds: parse/predicates.py)."""
    top = spec.top_level_query if spec.walked is None else None  # walked: its captures' names below
    names = (
        *spec.capture_names,
        *(map(top.capture_name, range(top.capture_count)) if top is not None else ()),
        *(name for captures in (*spec.pattern_captures, *spec.top_level_captures) for name in sorted(captures)),
    )
    return {name: _role(name) for name in names}


@lru_cache(maxsize=None)
def _passive(spec: Syntax) -> frozenset[str]:
    """The capture names read along with the one that gives a match its
    role (`name`, `bind.name` …)."""
    keep = ("bind", "local.definition", _DEFINITION, _REFERENCE)
    return frozenset(k for k, (role, _) in _roles(spec).items() if role == k and k not in keep)


@lru_cache(maxsize=None)
def _plans(spec: Syntax) -> tuple[tuple[str | None, ...], tuple[tuple[str, ...], ...]]:
    """Per pattern number of ``_matches``: the one capture of the pattern
    that is not read along (``_passive``), which is the only one of a
    match ``_collect`` reads the role of (None when a pattern has several:
    all are read); and the binding values it may capture, in
    ``_bound_value``'s order."""
    passive = _passive(spec)

    def one(captures: frozenset[str]) -> str | None:
        active = [k for k in captures if k not in passive]
        return active[0] if len(active) == 1 else None

    patterns = (*spec.pattern_captures, frozenset(), *spec.top_level_captures)
    return tuple(map(one, patterns)), tuple(tuple(k for k in _BOUND_VALUES if k in c) for c in patterns)


@lru_cache(maxsize=None)
def _named_references(spec: Syntax, edge_kinds: frozenset[str] | None) -> tuple[str, ...]:
    """Per pattern number of ``_matches``, the edge kind of a reference
    ``_collect`` reads by its ``@name`` alone ("" for the others): the
    pattern's one capture not read along (``_plans``) is a reference of a
    kind wanted, and it captures no receiver, owner or container of values
    and sets no name. Most matches are such (zod: 36,503 of 58,200, calls
    and types), and ``_collect`` reads them without the general loop."""
    roles = _roles(spec)
    plans, _ = _plans(spec)
    patterns = (*spec.pattern_captures, frozenset(), *spec.top_level_captures)
    names = (*spec.fixed_names, "", *spec.top_level_names) if spec.has_top_level else spec.fixed_names
    out = []
    for pattern, (key, captures) in enumerate(zip(plans, patterns)):
        role, sort = roles[key] if key is not None else ("", "")
        wanted = sort and (edge_kinds is None or (_CALLS if sort == VALUE else sort) in edge_kinds)
        plain = not captures & {"receiver", "owner", _VALUES} and not (names[pattern] if pattern < len(names) else "")
        out.append(sort if role == _REFERENCE and key != _VALUES and wanted and plain else "")
    return tuple(out)


def _feeds(captures: frozenset[str], edge_kinds: frozenset[str]) -> bool:
    """Whether a pattern writing ``captures`` gives ``_collect`` anything
    it keeps when only edges of ``edge_kinds`` are wanted: a definition, a
    comment, a reference of one of those kinds, a binding (which types
    calls) or a local name (which only hides references)."""
    for key in captures:
        role, sort = _role(key)
        if role == _DEFINITION or key == "comment":
            return True
        if role == _REFERENCE and sort and (_CALLS if sort == VALUE else sort) in edge_kinds:
            return True
        if key == "bind" and _CALLS in edge_kinds or key == "local.definition" and edge_kinds:
            return True
    return False


@lru_cache(maxsize=None)
def _narrowed(
    spec: Syntax, edge_kinds: frozenset[str]
) -> tuple[ts.Query, tuple[int, ...] | None, Predicates]:
    """The tags query without the patterns that only feed what ``_collect``
    drops for ``edge_kinds`` (the report's sides want few edges or none:
    report/diff.py): the same matches kept, fewer made (a query of its own,
    compiled once per process). With it, the number in ``query`` of each
    of its patterns (None: the same) and the text predicates by its own
    numbers."""
    unused = frozenset(i for i, captures in enumerate(spec.pattern_captures) if not _feeds(captures, edge_kinds))
    if not unused:
        return spec.query, None, spec.predicates
    query, numbers = spec.query_without(unused)
    if numbers is None:
        return query, None, spec.predicates
    checks = {mine: spec.predicates[theirs] for mine, theirs in enumerate(numbers) if theirs in spec.predicates}
    return query, numbers, checks


# Text predicates a node's text alone decides, node by node (the others
# compare two captures, or pass when any one node does)
_BY_TEXT = frozenset({"eq", "match", "any-of"})


@lru_cache(maxsize=None)
def _name_checks(spec: Syntax, edge_kinds: frozenset[str] | None) -> tuple[tuple[Predicate, ...] | None, ...]:
    """Per pattern number of ``_matches``, the text predicates of a
    reference ``_collect`` reads by its name alone (``_named_references``)
    when each is on ``@name`` and decided by a node's text alone: ``_collect``
    checks them on the name it reads, once per text of a file, instead of
    ``budget.matches`` on every match (zod: 36,956 of its 42,181 checks, the
    calls' `#not-eq? @name "require"` and the types' `#not-match?`); None
    for the others."""
    named = _named_references(spec, edge_kinds)
    out: list[tuple[Predicate, ...] | None] = []
    for pattern, sort in enumerate(named):
        found = spec.predicates.get(pattern) if sort and pattern < spec.pattern_count else None
        by_text = found and all(kind in _BY_TEXT and not any_ and capture == "name" for kind, _, any_, capture, _ in found)
        out.append(found if by_text else None)
    return tuple(out)


# How ``_collect`` reads a match (``_steps``): by the general loop over its
# captures, as a comment, as a reference by its name alone, as a binding alone
_BY_CAPTURES, _A_COMMENT, _BY_NAME, _A_BINDING = 0, 1, 2, 3
# (way, key, edge kind, name checks, match checks, binding keys, fixed name, within)
_Step = tuple[
    int, str | None, str, tuple[Predicate, ...] | None, tuple[Predicate, ...] | None, tuple[str, ...], str, tuple[str, ...]
]


@lru_cache(maxsize=None)
def _steps(spec: Syntax, edge_kinds: frozenset[str] | None) -> tuple[_Step, ...]:
    """Per pattern number of ``_matches``, what ``_collect`` reads of a
    match, in one tuple (one look-up a match, not one a fact): how it reads
    it (``_A_COMMENT``, ``_BY_NAME``: a reference by its name alone,
    ``_A_BINDING``: the pattern's one capture not read along is a binding,
    else ``_BY_CAPTURES``), that capture (``_plans``), the reference's edge kind
    (``_named_references``), its ``_name_checks``, the text predicates
    checked on the whole match (all others: ``budget.matches`` checked them
    in a pass of its own over the matches), the binding values it may
    capture (``_plans``), its fixed name and its ``Syntax.within``."""
    plans, bound_keys = _plans(spec)
    named = _named_references(spec, edge_kinds)
    later = _name_checks(spec, edge_kinds)
    fixed = (*spec.fixed_names, "", *spec.top_level_names) if spec.has_top_level else spec.fixed_names
    within, count, comment = spec.within, spec.pattern_count, spec.comment_pattern
    out: list[_Step] = []
    for p, key in enumerate(plans):
        way = _A_COMMENT if p == comment else _BY_NAME if named[p] else _A_BINDING if key == "bind" else _BY_CAPTURES
        checks = spec.predicates.get(p) if p < count and later[p] is None else None
        name = fixed[p] if p < len(fixed) else ""
        out.append((way, key, named[p], later[p], checks, bound_keys[p], name, within[p] if p < len(within) else ()))
    return tuple(out)


def compile_queries(spec: Syntax, edge_kinds: frozenset[str] | None = None) -> None:
    """Compile the queries ``extract`` runs for ``edge_kinds`` now (before
    a process pool forks: ``Syntax.compile``)."""
    spec.compile()
    if edge_kinds is not None:
        _narrowed(spec, edge_kinds)


def _last_start(match: tuple[int, dict[str, list[ts.Node]]]) -> int:
    return max(n.start_byte for nodes in match[1].values() for n in nodes)


def _matches(
    spec: Syntax, root: ts.Node, source: bytes, edge_kinds: frozenset[str] | None = None
) -> tuple[list[tuple[int, dict[str, list[ts.Node]]]], tuple[str, ...], int]:
    """The matches of the tags query, per pattern its fixed name, and how
    many matches at the head of the list are ``Syntax.top_level_pass``'s:
    the root-level definition patterns' matches (numbered after the tags
    query's) come first. They are definitions alone, whose order ``_nest``
    sorts out; only where one of them and a match of the tags query define
    the same node does their order say which is the definition, and
    ``_collect`` asks then where the one query would have found each: by
    the last node it captures. Merging the two lists by that key cost a
    Python call per match (7 % of zod's extraction). The tags query's text
    predicates are not checked here: ``_collect`` checks them (``_steps``)."""
    if edge_kinds is None:
        found = budget.matches(spec.query, root)
    else:
        query, numbers, _ = _narrowed(spec, edge_kinds)
        found = budget.matches(query, root)
        if numbers is not None:  # a query of the kept patterns alone: numbered as in ``spec.query``
            found = [(numbers[p], c) for p, c in found]
    if not spec.has_top_level:
        return found, spec.fixed_names, 0
    # past ``comment_pattern``, which is the pattern count when there is none
    shift = spec.pattern_count + 1
    names = (*spec.fixed_names, "", *spec.top_level_names)
    walk = spec.walked
    if walk is not None:  # the query's matches without the query (``Syntax.top_level_walk``), checked as budget.matches does
        checks = spec.top_level_predicates
        top_level = [m for m in walk(root, source) if (wanted := checks.get(m[0])) is None or keep(wanted, m[1], source)]
    else:
        top_level = budget.matches(spec.top_level_query, root, max_start_depth=0, source=source, checks=spec.top_level_predicates)  # type: ignore[arg-type]
    mine = [(shift + p, c) for p, c in top_level]
    return (mine + found if mine else found), names, len(mine)


def _collect(
    spec: Syntax,
    root: ts.Node,
    source: bytes,
    until: float | None = None,
    timeout_ms: int | None = None,
    edge_kinds: frozenset[str] | None = None,
) -> tuple[list[_Def], list[_Ref], list[_Ref], list[tuple[str, int, int]], list[tuple[int, int]]]:
    """The definitions, the references, the bindings, the local names (name,
    the byte range of their scope) and the comments' byte ranges, sorted,
    of one tree (each kept apart: every later pass reads one of them)."""
    defs: list[_Def] = []
    refs: list[_Ref] = []
    binds: list[_Ref] = []
    scoped: list[tuple[str, int, int]] = []
    comments: list[tuple[int, int]] = []
    # a definition's node -> (its index in defs, its match's) while a match
    # of the tags query may still come first (see ``_matches``), else None
    seen_defs: dict[tuple[int, int], tuple[int, int] | None] = {}
    seen_refs: set[tuple[str, tuple[int, int]]] = set()
    # a reference's text as written -> its (qualifier, name): most recur in a file
    read: dict[bytes, tuple[str | None, str]] = {}
    roles = _roles(spec)
    # most queries capture no receiver and no owner: not looked up per match then
    has_receiver, has_owner = "receiver" in roles, "owner" in roles
    value_items = spec.value_items if _VALUES in roles else None
    # the capture of a container whose items are the names, when its edges are
    # wanted and no receiver or owner is read along: read first, as most name
    # nothing (27,716 of celery 5.4.0's 37,733 containers); else "", no key.
    # (calls wanted: bindings, which type calls, are read too)
    wanted = edge_kinds is None or _CALLS in edge_kinds
    values_key = _VALUES if value_items is not None and not has_receiver and not has_owner and wanted else ""
    # a local name only hides references: none wanted, none read (``_feeds``)
    definition_locals = spec.definition_locals if edge_kinds is None or edge_kinds else None
    # captures read along with the one that gives their match its role (`name`, `bind.name` …)
    passive = _passive(spec)
    steps = _steps(spec, edge_kinds)
    verdicts: dict[tuple[int, bytes], bool] = {}  # (pattern, a name's text) -> it passes the pattern's name checks
    receiver: ts.Node | None = None
    owner_type = ""
    name_nodes: Sequence[ts.Node | None] = _NO_NODE
    fixed = ""
    found, _, tops = _matches(spec, root, source, edge_kinds)
    pairs: Iterable[tuple[str, list[ts.Node]]]
    for i, (pattern, captures) in enumerate(found):
        if i % 256 == 0:
            budget.check(until, timeout_ms)
        way, key, sort, checks, match_checks, bound, fixed_name, within = steps[pattern]
        if match_checks is not None and not keep(match_checks, captures, source):
            continue
        if way == _A_COMMENT:
            node = captures["comment"][0]
            comments.append((node.start_byte, node.end_byte))
            continue
        if way == _A_BINDING:  # a binding alone (scrapy: 17,024 of 88,455 matches)
            nodes = captures.get("bind")
            if nodes is not None and wanted and captures.get("bind.name"):
                bound_to = _binding(spec, captures, nodes[0], bound)
                if bound_to is not None:
                    binds.append(bound_to)
            continue
        names = captures.get("name") if way == _BY_NAME else None
        if names:  # a reference read by its name alone (``_named_references``)
            nodes = captures.get(key)  # type: ignore[arg-type]
            if nodes is None:
                continue
            if checks is not None and len(names) > 1 and not all(
                keep(checks, {"name": [n]}, source) for n in names
            ):  # its text predicates (``_name_checks``): each name passes, or no match
                continue
            for read_node in names:
                span = read_node.byte_range
                written = source[span[0] : span[1]]
                if checks is not None:  # its text predicates, once per text: the one name passes, or no match
                    passed = verdicts.get((pattern, written))
                    if passed is None:
                        passed = verdicts[(pattern, written)] = keep(checks, {"name": [read_node]}, source)
                    if not passed:
                        break
                known = len(seen_refs)
                seen_refs.add((sort, span))
                if len(seen_refs) == known:
                    continue
                parts = read.get(written)
                if parts is None:
                    parts = _first_read(read, written, spec.call_chains)
                refs.append((sort, nodes[0], read_node, parts, ""))
            continue
        names_read = True
        if key == values_key:  # a container: its items are the names (``_role``: a value reference)
            nodes = captures.get(key)
            if nodes is None:
                continue
            name_nodes = value_items(nodes[0], source)  # type: ignore[misc]
            if not name_nodes:
                continue
            if not fixed_name:  # each item a value reference as written (the loop below, for these alone)
                for read_node in name_nodes:
                    span = read_node.byte_range
                    known = len(seen_refs)
                    seen_refs.add((VALUE, span))
                    if len(seen_refs) == known:
                        continue
                    written = source[span[0] : span[1]]
                    parts = read.get(written)
                    if parts is None:
                        parts = _first_read(read, written, spec.call_chains)
                    refs.append((VALUE, nodes[0], read_node, parts, ""))
                continue
            pairs = ((key, nodes),)
            fixed = fixed_name
            names_read = False  # read: the items
        elif key is not None:  # the pattern's one capture not read along (every bundled query's patterns)
            nodes = captures.get(key)
            if nodes is None:
                continue
            role, sort = roles[key]
            if role == _REFERENCE and (not sort or edge_kinds is not None and (_CALLS if sort == VALUE else sort) not in edge_kinds):
                continue  # an edge not wanted: its names unread
            pairs = ((key, nodes),)
            names_read = role == _DEFINITION or role == _REFERENCE  # not by a binding or local names
        else:
            pairs = captures.items()
        if names_read:
            name_nodes = captures.get("name") or _NO_NODE
            if value_items is not None and _VALUES in captures:  # a container: its items are the names
                name_nodes = value_items(captures[_VALUES][0], source)
                if not name_nodes:  # most: no name among them (26,000 of scrapy's 88,000 matches)
                    continue
            # `(#set! name "<init>")`: a fixed name (Java constructors)
            fixed = fixed_name
            if has_receiver:
                receivers = captures.get("receiver")
                receiver = receivers[0] if receivers else None
            # `@owner` on a reference: its source is that type (Rust `impl T for X`);
            # on a definition, the type of a method declared away from it
            if has_owner:
                owners = captures.get("owner")
                owner_type = _text(owners[0]) if owners else ""
        for key, nodes in pairs:
            if key in passive:
                continue
            role, sort = roles[key]
            if role == _DEFINITION:
                node = nodes[0]
                if definition_locals is not None:
                    own = definition_locals(node)
                    if own:
                        start, end = node.start_byte, node.end_byte
                        scoped += [(_text(n), start, end) for n in own]
                name = fixed or (_text(name_nodes[0]) if name_nodes[0] is not None else "")
                ident = (node.start_byte, node.end_byte)
                if not name:
                    continue
                replaced = -1  # the index in defs of a root-level definition this match comes before
                if ident in seen_defs:
                    first = seen_defs[ident]
                    if i < tops:
                        continue  # two root-level matches: in their order
                    seen_defs[ident] = None
                    if first is None or _last_start(found[first[1]]) <= _last_start((pattern, captures)):
                        continue  # the first match of the node is the definition
                    replaced = first[0]
                elif node.type in _OVERLOAD_SIGNATURES and _overloaded_later(node, name, spec):
                    seen_defs[ident] = None  # no root-level pattern defines a signature
                    continue
                outer = _widen(node, spec)
                found_def = _Def(sort, name, node, outer.start_byte, outer.end_byte, outer.start_point[0], owner_type, outer=outer)
                if replaced >= 0:
                    defs[replaced] = found_def
                    continue
                seen_defs[ident] = (len(defs), i) if i < tops else None
                defs.append(found_def)
            elif role == _REFERENCE:
                if not sort or edge_kinds is not None and (_CALLS if sort == VALUE else sort) not in edge_kinds:
                    continue
                for name_node in name_nodes:
                    anchor = name_node if name_node is not None else receiver if receiver is not None else nodes[0]
                    span = anchor.byte_range
                    known = len(seen_refs)
                    seen_refs.add((sort, span))  # one hash of the pair, not two (`in`, then `add`)
                    if len(seen_refs) == known:
                        continue
                    if receiver is None and not fixed and name_node is not None:  # most: a name as written
                        written = source[span[0] : span[1]]  # the anchor is name_node
                        parts = read.get(written)
                        if parts is None:  # a text new to this file (zod: 12,343 of 36,503; scrapy 15,371 of 43,593)
                            parts = _first_read(read, written, spec.call_chains)
                    else:
                        parts = _reference_parts(spec, name_node, receiver, fixed)
                    refs.append((sort, nodes[0], name_node if name_node is not None else receiver, parts, owner_type))
            elif key == "bind" and wanted and captures.get("bind.name"):
                bound_to = _binding(spec, captures, nodes[0], bound)
                if bound_to is not None:
                    binds.append(bound_to)
            elif key == "local.definition":
                scope = _local_scope(captures, within)
                if scope is not None:
                    start, end = scope.start_byte, scope.end_byte
                    scoped += [(_text(n), start, end) for n in nodes]
    if spec.module_definitions is not None:
        for sort, node, name_node in spec.module_definitions(root):
            ident = (node.start_byte, node.end_byte)
            if ident in seen_defs:
                continue
            seen_defs[ident] = None
            outer = _widen(node, spec)
            defs.append(_Def(sort, _text(name_node), node, outer.start_byte, outer.end_byte, outer.start_point[0], outer=outer))
    comments.sort()
    return defs, refs, binds, scoped, comments


def _binding(spec: Syntax, captures: dict[str, list[ts.Node]], node: ts.Node, keys: Sequence[str]) -> _Ref | None:
    """The binding a match of ``@bind`` (``node``) makes, if it binds a
    value ``_bound_value`` reads (``keys``: those the pattern may capture)."""
    held = _bound_value(captures, keys)
    if held is None:
        return None
    bind_kind = _BIND_TYPE if captures.get("bind.type") else _BIND
    # `x = Foo(...)` / `self.x = Foo(...)` / `x: Foo`: what a receiver holds
    obj = captures.get("bind.self")
    # a class field (`repo = new Repo()` in a class body) is `this.repo`;
    # a member (a Go struct field) is reached only through its owner
    this = _text(obj[0]) if obj else (spec.self_names[0] if "bind.field" in captures else None)
    name = _text(captures["bind.name"][0])
    # a method's own receiver (Go `func (s *Server)`) only types `s.field`
    # chains: `s.m()` stays a call on the receiver (parent scope)
    mark = "." if "bind.member" in captures else "^" if "bind.receiver" in captures else ""
    return (bind_kind, node, None, (this, mark + name), held)


def _local_scope(captures: dict[str, list[ts.Node]], within: tuple[str, ...]) -> ts.Node | None:
    """The scope of a match's ``@local.definition`` names: its
    ``@local.scope``, or an ancestor of its ``@local.within``: with the
    pattern's ``(#set! within "a b")``, the parent must be an ``a`` and
    its parent a ``b``, which is the scope (else none); without, the parent
    (none under an ERROR node). It spares the query the parent steps that
    tree-sitter analyses one by one when it compiles a query (~1 ms each):
    Python's ``for_in_clause`` is a child of the four comprehensions only,
    and one pattern on it compiles at a fifth of the cost of four."""
    scopes = captures.get("local.scope")
    if scopes:
        return scopes[0]
    inner = captures.get("local.within")
    node = inner[0].parent if inner else None
    if not within:
        return None if node is None or node.is_error else node
    for i, kind in enumerate(within):
        if node is None or node.type != kind:
            return None
        if i + 1 < len(within):
            node = node.parent
    return node


# A binding's value captures, in the order ``_bound_value`` reads them
_BOUND_VALUES = (
    "bind.ctor", "bind.type", "bind.from", "bind.typed", "bind.items", "bind.call", "bind.other", "bind.value",
    "bind.result",
)  # fmt: skip
# A value read by its kind, one pattern for what took two to four (each
# match of a value that binds nothing is a match less): as ``bind.ctor``
# when it calls a name (the call's kind, the callee's kinds), as
# ``bind.from`` when it is a name (those kinds), else as ``bind.other``.
# `@bind.value`: a Python assignment's (queries/python.scm); `@bind.result`:
# a TypeScript declaration's (queries/typescript.scm), whose names are no
# ``bind.from``.
_READ_BY_KIND = {
    "bind.value": ("call", frozenset({"identifier", "attribute"}), frozenset({"identifier", "attribute"})),
    "bind.result": ("call_expression", frozenset({"identifier", "member_expression"}), frozenset()),
}


def _bound_value(captures: dict[str, list[ts.Node]], keys: Sequence[str] = _BOUND_VALUES) -> str | None:
    """What a binding gives its name, as the receiver the resolver reads:
    ``Foo()`` for a call of ``Foo`` (an instance, or what ``Foo`` returns),
    ``Foo()`` for a declared type ``Foo``, ``=x`` for another name ``x``.
    ``keys``: those of ``_BOUND_VALUES`` the pattern may capture (``_plans``)."""
    for key in keys:
        found = captures.get(key)
        if found:
            break
    else:
        return None
    if key == "bind.ctor":  # a Rust path `Type::new` as the resolver reads it: `Type.new`
        return "".join(_text(found[0]).split()).replace("::", ".") + "()"
    if key == "bind.type":
        named = plain_type(_text(found[0]).replace("::", "."))
        return f"{named}()" if named else None
    if key == "bind.from":
        return "=" + "".join(_text(found[0]).split()).replace("::", ".")
    if key == "bind.typed":  # `({ a }: Props)`: the member `a` of the type `Props`
        named = plain_type(_text(found[0]))
        return f"={named}.{_text(captures['bind.name'][0])}" if named else None
    if key == "bind.items":  # `for m in re.finditer(...)`: an item of what the call gives
        return "".join(_text(found[0]).split()) + "()[]"
    if key == "bind.call":  # `const { a } = f()`: the member `a` of what `f()` gives
        return f"={''.join(_text(found[0]).split())}().{_text(captures['bind.name'][0])}"
    value = found[0]
    kind = value.type
    by_kind = _READ_BY_KIND.get(key)
    if by_kind is not None:
        call, callees, names = by_kind
        if kind == call:
            function = value.child_by_field_name("function")
            if function is None or function.type not in callees:
                return None  # a call: what the other patterns read (none of them reads this one)
            return "".join(_text(function).split()).replace("::", ".") + "()"
        if kind in names:
            return "=" + "".join(_text(value).split()).replace("::", ".")
    if kind not in _SPECIFIC_VALUES:  # bind.other
        return "<?>"  # rebound to something this query does not follow
    return None


def _receivers(
    spec: Syntax,
    defs: list[_Def],
    starts: list[int],
    binds: list[_Ref],
    types: dict[tuple[int, str], int],
) -> dict[tuple[int, str], set[str]]:
    """(scope, receiver) -> the constructors assigned to it: a local variable
    in its function (``x = Foo()``), an attribute of self in its class
    (``self.repo = Repo()``). A receiver given two constructors is ambiguous;
    ``y = x`` gives ``y`` what ``x`` holds."""
    held: dict[tuple[int, str], set[str]] = {}
    aliases: list[tuple[int, str, str, int]] = []
    # a declaration's written type wins over its value (`const l: Stats = make()`)
    typed = {(node.start_byte, name) for kind, node, _, (_, name), ctor in binds if kind == _BIND_TYPE}
    for kind, node, _, (obj, name), ctor in binds:
        if kind == _BIND and (node.start_byte, name) in typed:
            continue
        scope = origin = _enclosing(defs, starts, node.start_byte)
        if obj is None and scope >= 0 and defs[scope].name == name and defs[scope].kind == "constant":
            # a module-level `const g = new Foo()` is a symbol of its own: `g`
            # is bound in the scope around it, where `g.test()` is read
            scope = defs[scope].parent
        if obj is not None:
            if obj not in spec.self_names:
                continue
            while scope >= 0 and defs[scope].kind not in spec.method_parents:
                scope = defs[scope].parent
            if scope < 0:
                continue
            name = f"{obj}.{name}"
        if ctor.startswith("="):
            aliases.append((scope, name, ctor[1:], origin))
        else:
            held.setdefault((scope, name), set()).add(ctor)
    for scope, name, source, origin in aliases:
        # `self.stats = stats` in a method: what `stats` holds there (its parameter's type)
        value = _held_by(held, defs, origin, source) or _member_of_type(held, types, source)
        held.setdefault((scope, name), set()).add(value or f"<{source}>")
    return held


def _member_of_type(held: dict[tuple[int, str], set[str]], types: dict[tuple[int, str], int], path: str) -> str | None:
    """``Figure.Sq`` (a Rust pattern `Figure::Sq(q)`): what the member
    ``Sq`` of the type ``Figure`` holds, when this file defines the type at
    its top level and binds the member (an enum variant's one field)."""
    head, _, member = path.rpartition(".")
    index = types.get((-1, head.rpartition(".")[2])) if head else None
    ctors = held.get((index, "." + member)) if index is not None else None
    if ctors is None or len(ctors) != 1:
        return None
    found = next(iter(ctors))
    return None if found.startswith("<") else found


def _assigned(held: dict[tuple[int, str], set[str]], defs: list[_Def], owner: int, name: str) -> bool:
    """Whether ``name`` is a variable assigned in the scope or one around it."""
    scope = owner
    while True:
        if (scope, name) in held:
            return True
        if scope < 0:
            return False
        scope = defs[scope].parent


def _variable(
    held: dict[tuple[int, str], set[str]],
    defs: list[_Def],
    types: dict[tuple[int, str], int],
    owner: int,
    qualifier: str | None,
    name: str,
    self_names: tuple[str, ...],
) -> bool:
    """Whether a value named ``qualifier.name`` is a variable this file
    assigns: a local (``x = …``), an attribute of the class around
    (``self.x = …``) or of a class of the file (``Foo().x``)."""
    if qualifier is None:
        return _assigned(held, defs, owner, name)
    if qualifier in self_names:
        scope = owner
        while scope >= 0 and not any((scope, f"{s}.{name}") in held for s in self_names):
            scope = defs[scope].parent
        return scope >= 0
    if qualifier.endswith("()") and _PLAIN_NAME.fullmatch(qualifier[:-2]):
        index = _owner_index(types, -1, qualifier[:-2])
        return index is not None and any((index, key) in held for key in ("." + name, *(f"{s}.{name}" for s in self_names)))
    return False


def _aliased(
    held: dict[tuple[int, str], set[str]], defs: list[_Def], owner: int, name: str, chains: bool
) -> str | None:
    """``f()`` where the nearest scope binding ``f`` assigned it once, from
    another name (``f = self.handler``, ``f = helpers.run``): that name;
    with ``chains`` (JS/TS), also a member of a call's value
    (``const { format } = useDate()``: ``useDate().format``)."""
    shape = _ALIASED if chains else _DOTTED
    scope = owner
    while True:
        values = held.get((scope, name))
        if values is not None:
            value = next(iter(values))
            if len(values) == 1 and value.startswith("<") and shape.fullmatch(value[1:-1]):
                return value[1:-1]
            return None
        if scope < 0:
            return None
        scope = defs[scope].parent


def _shadowed(
    held: dict[tuple[int, str], set[str]],
    defs: list[_Def],
    owner: int,
    name: str,
    bound: set[tuple[int, str]],
) -> bool:
    """Whether ``name`` called in scope ``owner`` is a variable assigned in
    that function, one around it or at the module's top level (not a name
    another value was aliased from: ``_aliased``), which no definition or
    import of the same name in this file also binds (``bound``, from
    ``_bound_names``: `def f` then `f = wrap(f)`; `try: import x` /
    `except: x = None`). A class body's names are not seen from its methods.
    (``cls: Type[T]`` is held too, as a typed parameter: the caller leaves
    out the receiver names.)"""
    scope = owner
    while (scope, name) not in held:
        if scope < 0:
            return False
        scope = defs[scope].parent
    if scope >= 0 and scope != owner and defs[scope].kind not in ("function", "method"):
        return False
    return (scope, name) not in bound and (-2, name) not in bound


def _bound_names(
    defs: list[_Def], refs: list[_Ref], spec: Syntax, decoded: dict[int, list[ImportTriple]]
) -> set[tuple[int, str]]:
    """(scope, name) of each definition, and (-2, name) of each name an
    import anywhere in the file binds; each import's triples kept in
    ``decoded`` by ``id`` of its node, for the edges."""
    bound = {(d.parent, d.name) for d in defs}
    for kind, node, _, _, _ in refs:
        if kind == "imports":
            triples = decoded[id(node)] = spec.decode_import(node)
            bound |= {(-2, alias or imported.split(".")[0]) for _, imported, alias in triples}
    return bound


def _held_by(held: dict[tuple[int, str], set[str]], defs: list[_Def], owner: int, qualifier: str) -> str | None:
    """``x.run()`` where the nearest scope assigned ``x = Foo(...)``: the
    receiver is a ``Foo()``, which the resolver follows to ``Foo.run``."""
    scope = owner
    while True:
        ctors = held.get((scope, qualifier))
        if ctors is not None:
            value = next(iter(ctors))
            return value if len(ctors) == 1 and not value.startswith("<") else None
        if scope < 0:
            return None
        scope = defs[scope].parent


def _held_through(
    held: dict[tuple[int, str], set[str]],
    defs: list[_Def],
    types: dict[tuple[int, str], int],
    owner: int,
    qualifier: str,
    self_names: tuple[str, ...],
) -> str | None:
    """``x.db.query()``: what field ``db`` of the type ``x`` holds, when that
    type is defined in this file and declares the field (Go struct fields,
    class fields bound as ``self.db``)."""
    value = _held_by(held, defs, owner, qualifier)
    if value is not None or "." not in qualifier:
        return value
    head, _, field = qualifier.rpartition(".")
    outer = _held_through(held, defs, types, owner, head, self_names) or _held_by(held, defs, owner, "^" + head)
    if outer is None or not outer.endswith("()") or not _PLAIN_NAME.fullmatch(outer[:-2]):
        return None
    type_index = _owner_index(types, -1, outer[:-2])
    if type_index is None:
        return None
    for key in ("." + field, *(f"{s}.{field}" for s in self_names)):
        ctors = held.get((type_index, key))
        if ctors is not None:
            found = next(iter(ctors))
            return found if len(ctors) == 1 and not found.startswith("<") else None
    return None


def _locals(scoped: list[tuple[str, int, int]]) -> dict[str, tuple[list[int], list[int]]]:
    """Names bound only inside a definition (``@local.definition`` within
    ``@local.scope``: TypeScript type parameters, Python parameters and loop
    names). A reference to one is not an edge, like a reference to a local
    variable. Per name, the byte spans of its scopes merged into disjoint
    sorted runs (starts, ends): a module of 33,000 functions with one
    parameter name each was a linear scan per reference (quadratic)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for name, start, end in scoped:
        spans.setdefault(name, []).append((start, end))
    out: dict[str, tuple[list[int], list[int]]] = {}
    for name, found in spans.items():
        found.sort()
        starts: list[int] = []
        ends: list[int] = []
        for start, end in found:
            if ends and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)
        out[name] = (starts, ends)
    return out


def _in_scope(scopes: tuple[list[int], list[int]] | None, pos: int) -> bool:
    if scopes is None:
        return False
    starts, ends = scopes
    i = bisect_right(starts, pos) - 1
    return i >= 0 and pos < ends[i]


def _nest(defs: list[_Def], spec: Syntax) -> list[int]:
    """Sort ``defs`` by place and give each its parent, qualified name and
    kind refinement; the indices parents first (``_depth_order``), which
    ``_symbols`` reads too."""
    defs.sort(key=lambda d: (d.start, -d.end))
    stack: list[int] = []
    for i, d in enumerate(defs):
        while stack and defs[stack[-1]].end <= d.start:
            stack.pop()
        if stack:
            d.parent = stack[-1]
            defs[stack[-1]].children.append(i)
        stack.append(i)
    _adopt_owned(defs)
    order = _depth_order(defs)
    for d in map(defs.__getitem__, order):
        parent = defs[d.parent] if d.parent >= 0 else None
        if d.kind == "function" and parent is not None and parent.kind in spec.method_parents:
            d.kind = "method"
        if d.owner and (parent is None or parent.kind not in spec.method_parents):
            prefix = f"{parent.qualified_name}." if parent else ""
            d.qualified_name = f"{prefix}{d.owner}.{d.name}"
            d.kind = "method"
        else:
            d.qualified_name = f"{parent.qualified_name}.{d.name}" if parent else d.name
    return order


def _types_by_scope(defs: list[_Def]) -> dict[tuple[int, str], int]:
    """(parent index, name) -> index of the first type of that name there."""
    types: dict[tuple[int, str], int] = {}
    for i, d in enumerate(defs):
        if d.kind in TYPE_KINDS:
            types.setdefault((d.parent, d.name), i)
    return types


def _owner_index(types: dict[tuple[int, str], int], scope: int, name: str) -> int | None:
    """The type ``name`` declared in ``scope`` (a Rust inline module), else at top level."""
    found = types.get((scope, name))
    return found if found is not None else types.get((-1, name))


def _adopt_owned(defs: list[_Def]) -> None:
    """Methods declared outside their type (Go receivers, Rust impl blocks)
    become children of the type of that name in the same file, if any."""
    types = _types_by_scope(defs)
    for i, d in enumerate(defs):
        if not d.owner:
            continue
        owner = _owner_index(types, d.parent, d.owner)
        if owner is None or owner == i:
            continue
        if d.parent >= 0:
            defs[d.parent].children.remove(i)
        d.parent = owner
        defs[owner].children.append(i)


def _depth_order(defs: list[_Def]) -> list[int]:
    """Indices ordered so that every parent comes before its children."""
    depth = [-1] * len(defs)
    for i in range(len(defs)):
        chain: list[int] = []
        j = i
        while j >= 0 and depth[j] < 0:
            chain.append(j)
            j = defs[j].parent
        level = depth[j] if j >= 0 else -1
        for k in reversed(chain):
            level += 1
            depth[k] = level
    return sorted(range(len(defs)), key=lambda i: (depth[i], i))


def _enclosing(defs: list[_Def], starts: list[int], pos: int) -> int:
    i = bisect_right(starts, pos) - 1
    while i >= 0 and defs[i].end <= pos:
        i = defs[i].parent
    return i


def extract(
    path: str,
    source: bytes,
    spec: Syntax,
    *,
    timeout_ms: int | None = None,
    edge_kinds: frozenset[str] | None = None,
    code_hashes: CodeHashes = True,
) -> FileExtraction:
    """Parse one file and return its symbols (module first) and edges
    (only those of ``edge_kinds`` when given: the report's diff needs no
    calls, and skipping them skips most of the work). ``code_hashes``: the
    symbols' ``code_hash``, which only the report's diff reads (the index
    stores none): every symbol's, none, or those of the symbols whose
    content hash differs from a mapping's (``CodeHashes``).

    ParseTimeout when parsing and reading the matches takes over
    ``timeout_ms``, or the nesting is too deep for the tags query."""
    found, rows = extract_rows(path, source, spec, timeout_ms=timeout_ms, edge_kinds=edge_kinds, code_hashes=code_hashes)
    return replace(found, edges=tuple(map(_make_edge, rows)))


# The code hashes an extraction computes: every symbol's (True), none
# (False), or, given the content hashes of the other side of a report's diff
# by symbol ID, those of the symbols whose content differs from it (the
# others' are never compared: report/diff.py).
CodeHashes = bool | Mapping[str, str]
# An edge as the fields of ``Edge``, in order: what a parse worker sends
# (index/files.py) without building the object the indexer builds again.
EdgeRow = tuple[str, str, str, str, int, str | None, str | None, str | None, str | None]


def extract_rows(
    path: str,
    source: bytes,
    spec: Syntax,
    *,
    timeout_ms: int | None = None,
    edge_kinds: frozenset[str] | None = None,
    code_hashes: CodeHashes = True,
) -> tuple[FileExtraction, list[EdgeRow]]:
    """``extract``, its edges as rows (``Edge(*row)`` is the edge) beside an
    extraction without edges."""
    until = budget.deadline(timeout_ms)
    if not source.isascii():  # ASCII is UTF-8: not decoded to tell (a copy of the file)
        try:
            source.decode("utf-8")
        except UnicodeDecodeError:
            # the indexer skips such a file before (index/files.py); another
            # caller's bytes (an old revision) are read with U+FFFD in place, as
            # a query's text predicates read node text as UTF-8
            source = source.decode("utf-8", "replace").encode("utf-8")
    tree = budget.parse(spec.grammar, source, timeout_ms)
    with reading(source):  # no Node.text of this tree (parse/budget.py)
        return _extracted_rows(path, source, spec, tree.root_node, until, timeout_ms, edge_kinds, code_hashes)


def _extracted_rows(
    path: str,
    source: bytes,
    spec: Syntax,
    root: ts.Node,
    until: float | None,
    timeout_ms: int | None,
    edge_kinds: frozenset[str] | None,
    code_hashes: CodeHashes,
) -> tuple[FileExtraction, list[EdgeRow]]:
    language = spec.name
    defs, raw_refs, binds, scoped, comments = _collect(spec, root, source, until, timeout_ms, edge_kinds)
    own = ""  # `module.exports = function () {}`: named by the file
    if any(d.name == FILE_NAMED for d in defs):
        own = file_symbol_name(path, {d.name for d in defs})
        for d in defs:
            d.name = own if d.name == FILE_NAMED else d.name
    order = _nest(defs, spec)
    symbols = _symbols(path, source, spec, defs, order, comments, root, code_hashes)
    ids = [s.id for s in symbols]  # ids[0] is the module; defs[i] -> ids[i + 1]
    starts = [d.start for d in defs]
    types = _types_by_scope(defs)
    local = _locals(scoped)
    held = _receivers(spec, defs, starts, binds, types)
    decoded: dict[int, list[ImportTriple]] = {}  # an import node's id -> its triples, read once
    bound = _bound_names(defs, raw_refs, spec, decoded) if spec.assignments_shadow and held else set()
    edges: list[EdgeRow] = []
    # a value named once per scope is one edge, at its first place (the
    # matches of a container's items come before those inside its items)
    values: dict[tuple[int, str | None, str], int] = {}
    receivers: dict[tuple[int, str], str | None] = {}  # (scope, receiver) -> _held_through's answer
    proper = [d.node.start_byte for d in defs]  # where each definition proper starts
    ends = [d.end for d in defs]
    parents = [d.parent for d in defs]
    for kind, node, name_node, (qualifier, name), owner_type in raw_refs:
        anchor = name_node if name_node is not None else node
        at = anchor.start_byte
        if qualifier is None and name in local and _in_scope(local[name], at):
            continue
        owner = bisect_right(starts, at) - 1  # ``_enclosing``, inline: once a reference
        while owner >= 0 and ends[owner] <= at:
            owner = parents[owner]
        while owner >= 0 and at < proper[owner]:
            # in a wrapper before the definition proper (a decorator): the
            # enclosing scope runs it when it defines the function, not the function
            owner = parents[owner]
        if held and qualifier is not None and (kind == _CALLS or kind == VALUE):
            # what a receiver holds depends on its scope and its text alone: one
            # answer per pair (zod's `z.string()`, `z.object()` … in one scope)
            through = receivers.get((owner, qualifier), _UNKNOWN)
            if through is _UNKNOWN:
                through = receivers[(owner, qualifier)] = _held_through(held, defs, types, owner, qualifier, spec.self_names)
            qualifier = through or qualifier
        elif held and kind == _CALLS:
            aliased = _aliased(held, defs, owner, name, spec.call_chains)
            if aliased is not None:  # `f = helpers.run` … `f()`: a call of helpers.run
                qualifier, name = split_reference(aliased)
            elif spec.assignments_shadow and name not in spec.self_names and _shadowed(held, defs, owner, name, bound):
                continue  # `Pool = (a if t else b)` … `Pool()`: the local, no project name
        if owner_type:  # the type it belongs to, when this file defines it
            owned = _owner_index(types, owner, owner_type)
            owner = owned if owned is not None else owner
        source_id = ids[owner + 1]
        line = anchor.start_point[0] + 1
        if kind == "imports":
            triples = decoded.get(id(node)) if decoded else None
            for module, name, alias in spec.decode_import(node) if triples is None else triples:
                name = (own or file_symbol_name(path)) if name == FILE_NAMED else name
                edges.append((ids[0], name, "imports", path, line, module, alias, None, None))
            continue
        if kind == VALUE:
            if _variable(held, defs, types, owner, qualifier, name, spec.self_names):
                continue
            head = qualifier.partition(".")[0] if qualifier is not None else ""
            if head == "<expr>" or head and (_in_scope(local.get(head), at) or _assigned(held, defs, owner, head)):
                continue  # `request.url`: of a parameter or a variable of no known type, no value says what it is
            named = values.get((owner, qualifier, name))
            if named is not None:  # named before in this scope: the edge is at the first line
                if line < edges[named][4]:
                    edges[named] = (source_id, name, _CALLS, path, line, qualifier, VALUE, None, None)
                continue
            values[(owner, qualifier, name)] = len(edges)
            edges.append((source_id, name, _CALLS, path, line, qualifier, VALUE, None, None))
        elif name:
            edges.append((source_id, name, kind, path, line, qualifier, None, None, None))
    found = FileExtraction(
        path=path,
        language=language,
        symbols=tuple(symbols),
        edges=(),
        merkle_hash=symbols[0].subtree_hash,
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        error="syntax errors" if root.has_error else "",
    )
    return found, edges


def _symbols(
    path: str,
    source: bytes,
    spec: Syntax,
    defs: list[_Def],
    order: list[int],
    comments: list[tuple[int, int]],
    root: ts.Node,
    code_hashes: CodeHashes = True,
) -> list[Symbol]:
    """The module's symbol, then one a definition (``order``: theirs parents
    first, ``_nest``'s)."""
    comment_starts = [c[0] for c in comments]
    count = len(defs)
    contents: list[str] = [""] * count
    subtrees: list[str] = [""] * count
    signatures = [_signature(d, spec, source, comments, comment_starts) for d in defs]
    codes: list[str] = [""] * count
    for i in reversed(order):  # children before parents
        d = defs[i]
        child_ranges = [(defs[c].start, defs[c].end) for c in d.children]
        own = merkle.own_source(source, d.start, d.end, child_ranges, comments, comment_starts)
        contents[i] = merkle.content_hash(d.kind, d.name, signatures[i], own)
        if code_hashes is True:
            codes[i] = _code_hash(d, spec, source, signatures[i], child_ranges, comments, comment_starts)
        subtrees[i] = merkle.subtree_hash(contents[i], (subtrees[c] for c in d.children))
    top = [i for i, d in enumerate(defs) if d.parent < 0]
    mod_qn = module_name(path)
    mod_name = mod_qn.rsplit(".", 1)[-1]
    mod_own = merkle.own_source(
        source, 0, len(source), [(defs[i].start, defs[i].end) for i in top], comments, comment_starts
    )
    mod_content = merkle.content_hash("module", mod_name, "", mod_own)
    module_id = f"{path}:module:{mod_qn}"
    module = Symbol(
        id=module_id,
        name=mod_name,
        qualified_name=mod_qn,
        kind="module",
        file=path,
        start_line=1,
        end_line=max(1, root.end_point[0] + 1),
        start_byte=0,
        end_byte=len(source),
        parent_id=None,
        signature="",
        language=spec.name,
        content_hash=mod_content,
        subtree_hash=merkle.subtree_hash(mod_content, (subtrees[i] for i in top)),
        docstring=_module_docstring(spec, root),
    )
    out = [module]
    decorators = [_decorators(d, spec) for d in defs]
    seen: dict[tuple[str, str], int] = {}
    ids = [""] * len(defs)
    for i in _id_order(defs, decorators, spec.overload_decorator):
        d = defs[i]
        key = (d.kind, d.qualified_name)
        seen[key] = seen.get(key, 0) + 1
        suffix = f"#{seen[key]}" if seen[key] > 1 else ""
        ids[i] = f"{path}:{d.kind}:{d.qualified_name}{suffix}"
    if isinstance(code_hashes, Mapping):  # those whose content differs from the other side's
        for i, d in enumerate(defs):
            other = code_hashes.get(ids[i])
            if other is not None and other != contents[i]:
                child_ranges = [(defs[c].start, defs[c].end) for c in d.children]
                codes[i] = _code_hash(d, spec, source, signatures[i], child_ranges, comments, comment_starts)
    language = spec.name
    for i, d in enumerate(defs):
        # Symbol's fields in order, built without its __init__ (store/records.py)
        out.append(_make_symbol((
            ids[i], d.name, d.qualified_name, d.kind, path, d.start_row + 1, d.node.end_point[0] + 1, d.start, d.end,
            ids[d.parent] if d.parent >= 0 else module_id, signatures[i], language, contents[i], subtrees[i],
            decorators[i], _docstring(d, spec), 0, codes[i],
        )))  # fmt: skip
    return out


def _id_order(defs: list[_Def], decorators: list[tuple[str, ...]], overload: str) -> list[int]:
    """The order in which definitions of one name take their IDs (the first
    the plain one, then ``#2``, ``#3``): source order, except that the
    implementation after ``overload``-decorated declarations of its name
    comes first. Without it, a function that gains ``@overload`` stubs would
    be compared with its first stub (flask 3.0.3 ``ConfigAttribute.__get__``:
    a false "breaking signature")."""
    order = list(range(len(defs)))
    if not overload:
        return order
    stubs = [any(_decorator_name(t) == overload for t in found) for found in decorators]
    if not any(stubs):
        return order
    groups: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(defs):
        groups.setdefault((d.kind, d.qualified_name), []).append(i)
    first: set[int] = set()
    for members in groups.values():
        implementations = [i for i in members if not stubs[i]]
        if len(members) > 1 and len(implementations) < len(members) and implementations:
            first.add(implementations[-1])
    return sorted(order, key=lambda i: (i not in first, i)) if first else order


def _decorator_name(text: str) -> str:
    """``@typing.overload`` -> ``overload``; ``@app.route("/")`` -> ``route``."""
    return text.lstrip("@").split("(", 1)[0].strip().rpartition(".")[2]


def _module_docstring(spec: Syntax, root: ts.Node) -> str:
    first = _first_named(root) if spec.docstring_in_body else None
    if first is not None and first.type == "expression_statement":
        inner = _first_named(first)
        if inner is not None and inner.type == "string":
            return _clean_doc(_text(inner))
    return ""


def code_hashes(
    source: bytes,
    spec: Syntax,
    symbols: Sequence[Symbol],
    wanted: Collection[str],
    *,
    timeout_ms: int | None = None,
    within: tuple[int, int] | None = None,
) -> dict[str, str] | None:
    """The ``code_hash`` of each symbol of ``wanted`` (IDs) among ``symbols``,
    a file's symbols as ``extract`` gives them (or as the index stores them,
    without code hashes), read from a parse without the tags query: the
    comments' pattern alone and the symbols' own ranges (the report's head
    side, whose symbols the index holds: docs/report.md). None when a
    symbol's definition is not where its range says (the caller extracts
    the file instead); ParseTimeout as ``extract``. Module symbols have no
    code hash. ``within``: the byte range of one top-level statement that
    holds the wanted symbols, starting a line, parsed alone (the caller
    knows the language parses it alike: report/diff.py); None too when
    that parse has an error."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:  # as extract_rows reads such bytes
        source = source.decode("utf-8", "replace").encode("utf-8")
    ranges = None
    if within is not None:
        start, end = within
        row, end_row = source.count(b"\n", 0, start), source.count(b"\n", start, end)
        end_column = end - (source.rfind(b"\n", 0, end) + 1)
        ranges = [ts.Range((row, 0), (row + end_row, end_column), start, end)]
    root = budget.parse(spec.grammar, source, timeout_ms, included_ranges=ranges).root_node
    if ranges is not None and root.has_error:
        return None
    with reading(source):  # no Node.text of this tree (parse/budget.py)
        return _code_hashes(source, spec, symbols, wanted, root)


def _code_hashes(
    source: bytes, spec: Syntax, symbols: Sequence[Symbol], wanted: Collection[str], root: ts.Node
) -> dict[str, str] | None:
    query = spec.comment_query
    found = ts.QueryCursor(query).captures(root).get("comment", []) if query is not None else []
    comments = sorted((n.start_byte, n.end_byte) for n in found)
    comment_starts = [c[0] for c in comments]
    children: dict[str | None, list[tuple[int, int]]] = {}
    for s in symbols:
        children.setdefault(s.parent_id, []).append((s.start_byte, s.end_byte))
    out: dict[str, str] = {}
    for s in symbols:
        if s.id not in wanted or s.kind == "module":
            continue
        node = _definition_at(root, s, spec)
        if node is None:
            return None
        d = _Def(s.kind, s.name, node, s.start_byte, s.end_byte, s.start_line - 1)
        child_ranges = children.get(s.id, [])
        out[s.id] = _code_hash(d, spec, source, s.signature, child_ranges, comments, comment_starts)
    return out


def _definition_at(root: ts.Node, symbol: Symbol, spec: Syntax) -> ts.Node | None:
    """The definition node of a symbol, whose range is widened to its
    wrappers: what ``_code_hash`` reads of it is the docstring in its body
    (``Syntax.docstring_in_body``); other languages read none of it."""
    node = root.descendant_for_byte_range(symbol.start_byte, symbol.end_byte)
    if node is None or not spec.docstring_in_body:
        return node
    while node is not None and node.type in spec.wrappers:
        node = node.child_by_field_name("definition")
    if node is None or _widen(node, spec).byte_range != (symbol.start_byte, symbol.end_byte):
        return None
    return node
