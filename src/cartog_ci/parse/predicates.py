"""The text predicates of a query (``#eq?``, ``#match?``, ``#any-of?`` and
their negations), read from its source and checked here on the bytes of
the file, instead of by py-tree-sitter on ``Node.text``.

A tree parsed through a read callback (parse/budget.py, so that a parse can
be stopped) answers ``Node.text`` by calling that callback again, and
py-tree-sitter 0.26.1 crashes when the callback raises there (a
``KeyboardInterrupt`` arriving in it: the binding reads the result without
checking it; #435, fixed after 0.26.1). The queries are compiled with their
text predicates blanked out (same byte offsets, same patterns, same
numbering: tree-sitter's C core never evaluates them, the binding does after
each match), and ``keep`` evaluates them the way the binding does
(``query_predicates.c`` of py-tree-sitter 0.26.1), byte for byte:

* ``#eq?``/``#not-eq?`` (and ``any-``): the capture's text equals a string or
  another capture's text, per node; ``any-`` stops at the first node that
  passes, the others at the first that fails;
* ``#match?``/``#not-match?`` (and ``any-``): ``re.search`` of the pattern
  (a ``str``) in the text decoded as UTF-8, up to a NUL byte; text that is
  no UTF-8 fails a positive predicate and passes a negative one;
* ``#any-of?``: each node's text is one of the strings; ``#not-any-of?``:
  each node's text differs from one of them (the binding's reading, which a
  list of two strings always satisfies).

One predicate is ours alone (the binding ignores it): ``#top-level? @c
["type" …]``, each node of ``@c`` a child of the root, or of a node of one
of the listed types that is a child of the root. A pattern rooted at the
tree's root (``(program (lexical_declaration …))``) keeps a match open at
the root that every node of the file is tried against (four such reference
patterns were a fifth of the tags query's instructions on zod's 256
TypeScript files: 2.90 G -> 2.28 G under callgrind); rooted at the child,
with this predicate, it finds the same nodes and finishes each match at the
same node as before, so in the same order among the others
(tests/parse/test_top_level_pass.py compares the two).

And ``#within? @c "type" …``: each node of ``@c`` has ancestors of these
types, nearest first (its parent the first; ``"a|b"``: either). It stands for the outer steps
of a pattern that only say where a node is (``(class_definition body:
(block (expression_statement (assignment …))))``): tree-sitter analyses each
step that has children when it compiles a query, ~1 ms each on Python's
grammar, which a one-file run pays in full; the node the
pattern is rooted at finishes each match where it did.

And ``#child? @from "to" "field:type|type" …``: from each node of ``@from``,
steps down to a child (of that field, or with no field named any named
child, the first of those types; ``*:type`` as the last step: every named
child of those types, at least one; ``^:type``: up to the parent, of
those types; ``.:type``: the first named child, of those types; ``_`` as
the types: any), and adds the nodes reached to the
capture ``to``; the match is dropped when a step finds none (no node of
``@from``: the capture is in another branch of an alternation, nothing to
check). It
stands for inner steps that only pick a node out (``(call function:
[(identifier) (attribute)] @x)`` is ``(call) @c`` and ``(#child? @c "x"
"function:identifier|attribute")``): the step of an expression (``call``,
``attribute``, ``as_pattern``, ``pattern_list``) costs 5-15 M instructions
of ``ts_query_new`` on Python's grammar, in patterns that match rarely. The
match finishes at the outer node instead of its child (in another order
among the others): only for patterns whose matches ``_collect`` reads in
any order (bindings that alias nothing, local names). The captures it adds
are the pattern's (``Syntax.pattern_captures``).

Other predicates (``#set!``, ``#is?``, ``#strip!`` …) stay in the query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import tree_sitter as ts

# (kind, positive, any, capture, argument): kind "eq" (argument: bytes),
# "eq@" (another capture's name), "match" (a compiled pattern), "any-of"
# (a tuple of bytes)
Predicate = tuple[str, bool, bool, str, object]
Predicates = dict[int, tuple[Predicate, ...]]

_TEXT = {
    b"eq?": ("eq", True, False),
    b"not-eq?": ("eq", False, False),
    b"any-eq?": ("eq", True, True),
    b"any-not-eq?": ("eq", False, True),
    b"match?": ("match", True, False),
    b"not-match?": ("match", False, False),
    b"any-match?": ("match", True, True),
    b"any-not-match?": ("match", False, True),
    b"any-of?": ("any-of", True, False),
    b"not-any-of?": ("any-of", False, False),
    b"top-level?": ("top", True, False),
    b"within?": ("within", True, False),
    b"child?": ("child", True, False),
}
_TOKEN = re.compile(rb'\s*(?:(@[\w.\-]+)|"((?:[^"\\]|\\.)*)"|([^\s()"@]+))', re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"0": b"\0"}
_ESCAPE = re.compile(rb"\\(.)", re.S)


def _unescape(text: bytes) -> bytes:
    """A query string's value, as tree-sitter reads its escapes."""
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def split(source: str) -> tuple[str, list[tuple[int, Predicate]]]:
    """``source`` with its text predicates blanked out (spaces, byte for
    byte), and each of them with its byte offset."""
    data = bytearray(source.encode())
    found: list[tuple[int, Predicate]] = []
    i, n = 0, len(data)
    while i < n:
        ch = data[i]
        if ch == 0x3B:  # `;` a comment, to the end of its line
            end = data.find(b"\n", i)
            i = n if end < 0 else end
        elif ch == 0x22:  # a string
            i += 1
            while i < n and data[i] != 0x22:
                i += 2 if data[i] == 0x5C else 1
        elif ch == 0x28:  # `(`: a predicate when `#` follows
            j = i + 1
            while j < n and data[j] in b" \t\r\n":
                j += 1
            if j < n and data[j] == 0x23:
                end, predicate = _predicate(bytes(data), j + 1)
                if predicate is not None:
                    found.append((i, predicate))
                    data[i:end] = b" " * (end - i)
                i = end - 1
        i += 1
    return data.decode(), found


def _predicate(data: bytes, start: int) -> tuple[int, Predicate | None]:
    """The predicate whose name starts at ``start`` (after its `#`): where
    it ends (past its `)`), and it, or None when it is no text predicate."""
    name_end = start
    while name_end < len(data) and data[name_end] not in b" \t\r\n()":
        name_end += 1
    args: list[tuple[str, bytes]] = []
    i = name_end
    while True:
        token = _TOKEN.match(data, i)
        if token is None:
            break
        capture, string, bare = token.groups()
        args.append(("@", capture[1:]) if capture else ("", _unescape(string) if string is not None else bare))
        i = token.end()
    while i < len(data) and data[i] in b" \t\r\n":
        i += 1
    end = i + 1 if i < len(data) and data[i] == 0x29 else i
    known = _TEXT.get(data[start:name_end])
    if known is None or end == i or len(args) < (1 if known[0] == "top" else 2) or args[0][0] != "@":
        return end, None
    kind, positive, any_ = known
    capture = args[0][1].decode()
    if kind == "top":
        if any(marker for marker, _ in args[1:]):
            return end, None
        return end, (kind, positive, any_, capture, frozenset(value.decode() for _, value in args[1:]))
    if kind == "child":
        steps = _steps(args[2:])
        if args[1][0] or steps is None:  # the capture to add: a string (the binding checks a @name is the pattern's)
            return end, None
        return end, (kind, positive, any_, capture, (args[1][1].decode(), steps))
    if kind == "within":
        if any(marker for marker, _ in args[1:]):
            return end, None
        return end, (kind, positive, any_, capture, tuple(frozenset(value.decode().split("|")) for _, value in args[1:]))
    if kind == "any-of":
        if any(marker for marker, _ in args[1:]):
            return end, None
        return end, (kind, positive, any_, capture, tuple(value for _, value in args[1:]))
    if len(args) != 2:
        return end, None
    marker, value = args[1]
    if kind == "eq":
        return end, ("eq@" if marker else "eq", positive, any_, capture, value.decode() if marker else value)
    if marker:
        return end, None
    return end, (kind, positive, any_, capture, re.compile(value.decode()))


def _steps(args: list[tuple[str, bytes]]) -> tuple[tuple[str, frozenset[str]], ...] | None:
    """The steps of a ``#child?``: (field, "" for any named child, "*" for
    every one, "." for the first named child, "^" for the parent; the types,
    "_" any), or None when malformed."""
    out = []
    for marker, value in args:
        field, colon, types = value.decode().partition(":")
        if marker or not colon or not types:
            return None
        out.append((field, frozenset(types.split("|"))))
    if not out or any(field == "*" for field, _ in out[:-1]):
        return None
    return tuple(out)


def _reached(node: ts.Node, steps: tuple[tuple[str, frozenset[str]], ...]) -> list[ts.Node]:
    """The nodes a ``#child?``'s steps reach from ``node`` (none: no match)."""
    here: ts.Node | None = node
    for field, types in steps:
        assert here is not None
        every = "_" in types
        if field == "*":
            return [c for c in here.named_children if every or c.type in types]
        if field == "^":
            here = here.parent
            if here is None or here.type not in types:
                return []
        elif field == ".":
            here = here.named_child(0)
            if here is None or not every and here.type not in types:
                return []
        elif every:
            here = here.child_by_field_name(field) if field else here.named_child(0)
            if here is None:
                return []
        elif field:
            here = here.child_by_field_name(field)
            if here is None or here.type not in types:
                return []
        else:
            here = next((c for c in here.named_children if c.type in types), None)
            if here is None:
                return []
    return [here] if here is not None else []


def assign(query: ts.Query, located: Sequence[tuple[int, Predicate]]) -> Predicates:
    """Per pattern of ``query`` (compiled from a source ``split`` gave, which
    may go on past the predicates' source), its predicates, in the order
    written."""
    out: dict[int, list[Predicate]] = {}
    if not located:
        return {}
    for i in range(query.pattern_count):
        start, end = query.start_byte_for_pattern(i), query.end_byte_for_pattern(i)
        mine = [p for at, p in located if start <= at < end]
        if mine:
            out[i] = mine
    placed = sum(len(v) for v in out.values())
    if placed != len(located):
        raise ValueError(f"{len(located) - placed} predicate(s) outside any pattern of the query")
    return {i: tuple(v) for i, v in out.items()}


def keep(predicates: tuple[Predicate, ...], captures: dict[str, list[ts.Node]], source: bytes) -> bool:
    """Whether a match satisfies all its pattern's ``predicates``."""
    for kind, positive, any_, capture, argument in predicates:
        nodes = captures.get(capture, ())
        result = True
        if kind == "eq@":
            others = captures.get(str(argument), [])  # "eq@": another capture's name
            for node, other in zip(nodes, others):
                result = (source[node.start_byte : node.end_byte] == source[other.start_byte : other.end_byte]) == positive
                if result == any_:
                    break
        elif kind == "eq":
            for node in nodes:
                result = (source[node.start_byte : node.end_byte] == argument) == positive
                if result == any_:
                    break
        elif kind == "match":
            for node in nodes:
                text = source[node.start_byte : node.end_byte]
                if b"\0" in text:  # up to a NUL byte (most texts hold none: not split then)
                    text = text[: text.index(b"\0")]
                try:
                    found = argument.search(text.decode()) is not None  # type: ignore[attr-defined]
                except UnicodeDecodeError:
                    found = False
                result = found == positive
                if result == any_:
                    break
        elif kind == "top":  # a child of the root, or of a listed type's node there
            for node in nodes:
                parent = node.parent
                if parent is not None and parent.type in argument:  # type: ignore[operator]
                    parent = parent.parent
                if parent is None or parent.parent is not None:
                    result = False
                    break
        elif kind == "child":  # the node a path of children reaches, captured
            target, steps = cast(tuple[str, tuple[tuple[str, frozenset[str]], ...]], argument)
            reached: list[ts.Node] = []
            for node in nodes:  # none: the capture is in another branch of an alternation
                below = _reached(node, steps)
                if not below:
                    return False
                reached += below
            if reached:
                captures.setdefault(target, []).extend(reached)
        elif kind == "within":  # the ancestors' types, nearest first
            for node in nodes:
                above: ts.Node | None = node
                for wanted in argument:  # type: ignore[attr-defined]
                    above = above.parent if above is not None else None
                    if above is None or above.type not in wanted:
                        result = False
                        break
                if not result:
                    break
        elif positive:  # any-of: one of the strings
            for node in nodes:
                if source[node.start_byte : node.end_byte] not in argument:  # type: ignore[operator]
                    result = False
                    break
        else:  # not-any-of: differs from one of them
            for node in nodes:
                text = source[node.start_byte : node.end_byte]
                if not any(text != value for value in argument):  # type: ignore[attr-defined]
                    result = False
                    break
        if not result:
            return False
    return True
