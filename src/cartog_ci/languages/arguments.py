"""Call sites against a new signature: do the call's arguments still bind?

A call site is read from the syntax tree (``Call``: how many positional
arguments, which keywords, whether a spread hides the count, whether the
callee's first parameter is bound by the receiver); the language turns the
changed function's new signature into ``Params`` and ``bind`` says whether
the call *will break* (a required argument missing, an unknown keyword, too
many positional arguments), is *fine*, or cannot be told ("": a spread, a
decorator that may change the signature, a changed type the call's values
are not checked against). docs/report.md, "Call-site check".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import tree_sitter as ts

from cartog_ci.domain.visible import named
from cartog_ci.languages.base import FINE, UNKNOWN, WILL_BREAK, Call, CallCheck, Parameter, parameters


@dataclass(frozen=True, slots=True)
class Params:
    """What a call binds against: positional parameters in order, keyword-only
    ones, and whether extra positional or keyword arguments are taken."""

    positional: tuple[Parameter, ...]
    keyword_only: tuple[Parameter, ...] = ()
    variadic: bool = False
    any_keywords: bool = False
    by_keyword: bool = True  # whether arguments may be passed by name (Python)


def types_changed(old: list[str], new: list[str], positions: int) -> bool:
    """Whether a parameter a call fills changed its declared type (white space aside)."""
    squash = [(re.sub(r"\s+", "", a), re.sub(r"\s+", "", b)) for a, b in zip(old[:positions], new[:positions])]
    return any(a != b for a, b in squash)


def bind(params: Params, call: Call) -> CallCheck:
    """Python's binding rules (the others are a subset: no keywords)."""
    if call.spread:
        return CallCheck(UNKNOWN, "arguments spread from a sequence or mapping")
    if call.positional > len(params.positional) and not params.variadic:
        what = "positional argument(s)" if params.by_keyword else "argument(s)"
        return CallCheck(WILL_BREAK, f"{call.positional} {what} for at most {len(params.positional)}")
    if not params.by_keyword:  # arguments by position only: a count
        required = sum(1 for p in params.positional if not p.default)
        if call.positional < required:
            return CallCheck(WILL_BREAK, f"{call.positional} argument(s) where {required} are required")
        return CallCheck(FINE)
    bound = {p.name for p in params.positional[: call.positional]}
    names = {p.name for p in params.positional if not p.positional_only} | {p.name for p in params.keyword_only}
    for keyword in call.keywords:
        if keyword in names:
            if keyword in bound:
                return CallCheck(WILL_BREAK, f"two values for parameter {named(keyword)}")
            bound.add(keyword)
        elif not params.any_keywords:  # a positional-only name too: **kwargs would have taken it
            if any(p.name == keyword for p in params.positional):
                return CallCheck(WILL_BREAK, f"positional-only parameter {named(keyword)} passed by name")
            return CallCheck(WILL_BREAK, f"no parameter named {named(keyword)}")
    missing = [p.name for p in params.positional + params.keyword_only if not p.default and p.name not in bound]
    if missing:
        return CallCheck(WILL_BREAK, "missing required argument " + ", ".join(named(m) for m in missing))
    return CallCheck(FINE)


def calls_on_line(
    root: ts.Node, line: int, read: Callable[[ts.Node], Call | None], *, limit: int = 10_000
) -> list[Call]:
    """Every call the language reads whose callee starts on ``line`` (1-based)."""
    out: list[Call] = []
    for node in _nodes_on(root, line - 1, limit):
        call = read(node)
        if call is not None and call.line == line:
            out.append(call)
    return out


def _nodes_on(root: ts.Node, row: int, limit: int) -> Iterator[ts.Node]:
    """Nodes whose range covers ``row``, depth first (a bounded walk)."""
    stack = [root]
    seen = 0
    while stack and seen < limit:
        node = stack.pop()
        seen += 1
        if node.start_point[0] > row or node.end_point[0] < row:
            continue
        yield node
        stack.extend(reversed(node.children))


def parameters_after(signature: str, name: str) -> str | None:
    """The text inside the parentheses that follow ``name`` in a signature
    (skipping a Go receiver, generic parameters `<T: Fn(u8)>` / `[T any]`
    and annotations before it); None when there are none."""
    for match in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", signature):
        i = _skip_generics(signature, match.end())
        if i < len(signature) and signature[i] == "(":
            return parameters(signature, i)
    return None


def _skip_generics(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] not in "<[":
        return i
    opening, closing = text[i], ">" if text[i] == "<" else "]"
    depth = 0
    for j in range(i, len(text)):
        ch = text[j]
        if ch == opening:
            depth += 1
        elif ch == closing and not (ch == ">" and j > 0 and text[j - 1] == "-"):
            depth -= 1
            if depth == 0:
                return j + 1 + len(text[j + 1 :]) - len(text[j + 1 :].lstrip())
    return len(text)


def argument_nodes(arguments: ts.Node | None) -> list[ts.Node]:
    """The argument expressions of an argument list (punctuation and comments left out)."""
    if arguments is None:
        return []
    return [c for c in arguments.named_children if c.type != "comment"]
