"""``merkle.code_tokens``, what a code hash reads (docs/report.md): the
cursor walk that skips the range and hole tests inside a clean node gives,
byte for byte, what the plain walk of every node's ``children`` list it
replaced gives (``_plain``, kept here as the definition), on real sources of
every shape that matters: literals with and without children (f-strings,
template strings), holes (child symbols, comments, docstrings), nested
symbols, decorators and wrappers (``decorated_definition``,
``export_statement``), and ranges and holes that cut a token."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from pathlib import Path

import tree_sitter as ts

from cartog_ci import languages
from cartog_ci.parse import merkle

ROOT = Path(__file__).resolve().parents[2]

TYPESCRIPT = """\
import { z } from "zod";

// a decorator, an exported class, a nested function, template strings
@sealed
export class Greeter<T> {
  @log("greet") greet(name: string, extra = `${name}!`): string {
    const inner = (n: number) => `#${n} of ${`${name}`}` + " " + '';
    return /* why */ `Hello, ${name}${inner(1)}` + `` + "\\u00e9\\n";
  }
  static readonly empty = { a: [1, 2, ...[3]], "b c": null } as const;
}

export default function outer(x: number): () => number {
  function middle(): number {
    class Local { value = x; }
    return new Local().value;
  }
  return () => middle() + x; // the end
}
"""

PYTHON = '''\
"""A module docstring."""
import functools


@functools.lru_cache(maxsize=None)
@staticmethod
def cached(n: int = 1, *args, **kwargs) -> str:
    """Its docstring."""
    x = f"{n!r:>{width}} and {{braces}}" rb'\\x00' "" u" "  # a comment
    def nested(y):
        return lambda z: (y, z, [i for i in range(3) if i])
    return nested(x)


class Outer:
    """Docs."""

    class Inner:
        attr: int = 0  # a comment between

        @property
        def value(self):
            return f"""{self.attr}
   text"""
'''


def _plain(top: ts.Node, source: bytes, start: int, end: int, holes: Sequence[tuple[int, int]]) -> bytes:
    """The walk ``code_tokens`` replaced (main at 093fe3e), verbatim but
    for names: a stack of nodes and marks, every node's ``children``."""
    merged = merkle.merge_ranges(holes)
    hole_starts = [h[0] for h in merged]

    def inside_hole(s: int, e: int) -> bool:
        i = bisect_right(hole_starts, s) - 1
        return i >= 0 and merged[i][1] >= e

    out: list[bytes] = []
    stack: list[ts.Node | bytes] = [top]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            out.append(item)
            continue
        s, e = item.start_byte, item.end_byte
        if e <= start or s >= end or (s < e and inside_hole(s, e)):
            continue
        if item.child_count == 0:
            out += (source[max(s, start) : min(e, end)], b"\0")
            continue
        if s > start or e < end:
            out.append(b"\1")
            stack.append(b"\2")
        children = item.children
        if merkle._LITERAL_WORDS.intersection(item.type.split("_")):
            at = s
            pieces: list[ts.Node | bytes] = []
            for child in children:
                if child.start_byte > at:
                    pieces.append(source[at : child.start_byte])
                pieces.append(child)
                at = child.end_byte
            if e > at:
                pieces.append(source[at:e])
            stack.extend(reversed(pieces))
        else:
            stack.extend(reversed(children))
    return b"".join(out)


def _walks(path: str, source: bytes) -> Iterator[tuple[ts.Node, int, int, list[tuple[int, int]]]]:
    """What ``code_tokens`` is asked of each symbol of a file: its range
    without its children and comments (and its first statement, a docstring's
    place), from its own node, from the node around it and from the root (a
    wrapper that holds it); then the same range and holes one byte in from
    each end (a cut token)."""
    language = languages.for_path(path)
    assert language is not None
    spec = language.syntax
    symbols = language.extract(path, source).symbols
    root = ts.Parser(spec.grammar).parse(source).root_node
    query = spec.comment_query
    found = ts.QueryCursor(query).captures(root).get("comment", []) if query is not None else []
    comments = sorted((n.start_byte, n.end_byte) for n in found)
    starts = [c[0] for c in comments]
    for s in symbols[1:]:
        node = root.descendant_for_byte_range(s.start_byte, s.end_byte)
        assert node is not None
        children = [(c.start_byte, c.end_byte) for c in symbols if c.parent_id == s.id]
        body = node.child_by_field_name("body")
        if body is not None and body.named_child_count:
            first = body.named_child(0)
            children.append((first.start_byte, first.end_byte))
        holes = merkle.holes_in(s.start_byte, s.end_byte, children, comments, starts)
        for top in (node, node.parent or node, root):
            yield top, s.start_byte, s.end_byte, holes
            cut = [(a + 1, b - 1) for a, b in holes if b - a > 2]
            yield top, s.start_byte + 1, s.end_byte - 1, cut


def _sources(tmp_path: Path) -> list[tuple[str, bytes]]:
    (tmp_path / "greeter.ts").write_text(TYPESCRIPT)
    (tmp_path / "cached.py").write_text(PYTHON)
    files = [tmp_path / "greeter.ts", tmp_path / "cached.py"]
    files += sorted((ROOT / "src" / "cartog_ci" / "parse").glob("*.py"))
    files += sorted((ROOT / "src" / "cartog_ci" / "report").glob("*.py"))
    files += sorted((ROOT / "src" / "cartog_ci").rglob("*.mjs")) + [ROOT / "benchmarks" / "oracle_ts.mjs"]
    files += sorted(p for p in (ROOT / "tests" / "resources").rglob("*.*") if p.suffix != ".md")
    return [(str(f), f.read_bytes()) for f in files if languages.for_path(str(f)) is not None]


def _shapes(node: ts.Node, source: bytes, found: set[str]) -> int:
    """Adds the types of the nodes under ``node`` to ``found``; the number
    of texts of a literal between its children (`" "` in `"a" " " "b"`)."""
    found.add(node.type)
    gaps = 0
    at = node.start_byte
    literal = not merkle._LITERAL_WORDS.isdisjoint(node.type.split("_"))
    for child in node.children:
        gaps += literal and child.start_byte > at
        at = child.end_byte
        gaps += _shapes(child, source, found)
    return gaps + (literal and node.child_count > 0 and node.end_byte > at)


def test_the_cursor_walk_reads_every_symbol_of_real_sources_as_the_plain_walk(tmp_path: Path) -> None:
    sources = _sources(tmp_path)
    seen: set[str] = set()
    walks = gaps = 0
    for path, source in sources:
        spec = languages.for_path(path).syntax  # type: ignore[union-attr]
        gaps += _shapes(ts.Parser(spec.grammar).parse(source).root_node, source, seen)
        for top, start, end, holes in _walks(path, source):
            assert merkle.code_tokens(top, source, start, end, holes) == _plain(top, source, start, end, holes), (
                path, start, end,
            )  # fmt: skip
            walks += 1
    # the shapes the sources must hold for the comparison to mean anything
    shapes = {
        "decorated_definition", "decorator", "export_statement", "interpolation", "template_substitution",
        "string_content", "escape_sequence", "comment", "lambda", "arrow_function", "class_body",
    }  # fmt: skip
    assert shapes <= seen
    assert len(sources) > 80 and walks > 5_000 and gaps > 40


def test_code_tokens_keeps_tokens_marks_and_a_literal_s_text() -> None:
    source = b'@dec\ndef f(a):  # c\n    return f"x{a} " + b\n'
    language = languages.for_path("f.py")
    assert language is not None
    root = ts.Parser(language.syntax.grammar).parse(source).root_node
    function = root.children[0].children[1]
    assert function.type == "function_definition"
    comment = source.index(b"#")
    tokens = merkle.code_tokens(root, source, function.start_byte, function.end_byte, [(comment, comment + 3)])
    # a function, its parameters, its block, the return, the sum, the
    # f-string (its interpolation): the decorator and the comment left out
    assert tokens == b'def\0f\0\1(\0a\0)\0\2:\0\1\1return\0\1\1f"\0x\0\1{\0a\0}\0\2 \0"\0\2+\0b\0\2\2\2'
    assert tokens == _plain(root, source, function.start_byte, function.end_byte, [(comment, comment + 3)])
