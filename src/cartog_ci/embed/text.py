"""What gets embedded and stored for search, per symbol (docs/search.md).

Not raw code: a header line naming the file and the symbol, then the
significant lines of the symbol's source (its signature and decorators come
first, as written), without blank lines, formal comments (licence banners,
separators) and lone closing brackets. The bi-encoder sees at most 800 bytes,
the full-text index and the re-ranker at most 2048; both cuts are UTF-8 safe.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from cartog_ci.domain import Symbol, SymbolText
from cartog_ci.store.records import maker

# SymbolText(*fields) without its frozen __init__ (store/records.py): one a symbol
_make_text = maker(SymbolText, 4)

EMBED_BYTES = 800
CONTENT_BYTES = 2048
# Kinds that are not worth a vector: imports are edges already, a module is
# its symbols, a constant is a plain variable.
NOT_EMBEDDED = frozenset({"module", "constant"})

_LONE_CLOSER = re.compile(r"^[\s\)\]\}>;,]*(end)?[\s\)\]\}>;,]*$")
_SEPARATOR = re.compile(r"^\s*(#|//|/\*|\*|--|;|%|<!--)?\s*([-=*#~_/+.]\s*){3,}(\*/|-->)?\s*$")
# Banner phrases, not the bare word: a comment that talks about a licence
# key (`# reject an expired licence`) is documentation of the code.
_PHRASES = (
    r"(\bcopyright\b|\(c\)\s*\d{4}|©|\bspdx-license-identifier\b|"
    r"\ball rights reserved\b|\blicen[cs]ed (under|to)\b|\bunder the\b.*\blicen[cs]e\b|"
    r"\blicen[cs]e,? version\b|\bgoverned by\b.*\blicen[cs]e\b|\bapache license\b|"
    r"\bgnu (lesser )?general public\b|\bpermission is hereby granted\b|\bwithout (any )?warranty\b|"
    r"\bwarranty of\b)"
)
_SHEBANG_OR_CODING = re.compile(r"^\s*(#!|#.*-\*-\s*coding)")
# The first characters a noise line can start with (after its indentation):
# most lines of code start otherwise and skip the patterns.
_MAYBE_NOISE = frozenset(")]}>;,e" "#/*-%<=~_+.")
# A line is noise when it is a lone closer, a separator, a shebang or coding
# line (one pattern: one call a line), or a banner: a comment mark, then one
# of ``_PHRASES`` anywhere after the first mark (``\b`` still sees the
# character before). The banner is two steps, not `^\s*(#|//|...)+.*(...)`
# in one pattern, whose `.*` backtracked over a long comment line, each
# phrase tried at each character: ts-loader's webpack bundles' lines took
# 357 ms of its 377 ms of search texts.
_NOT_FORMAL = re.compile("|".join(f"(?:{p.pattern})" for p in (_LONE_CLOSER, _SEPARATOR, _SHEBANG_OR_CODING)))
_COMMENT_MARK = re.compile(r"\s*(?:#|//|/\*|\*|--|;)")
_PHRASE = re.compile(_PHRASES, re.IGNORECASE)


def _banner(line: str, start: int) -> bool:
    """Whether one of ``_PHRASES`` is in ``line`` from ``start`` on (the
    end of its first comment mark). Each phrase but ``©`` holds one of the
    words looked for first, and in an ASCII line the case-blind pattern
    matches ASCII letters alone, as ``str.lower`` folds them: a line
    without any of those words is no banner, told by a few substring
    searches instead of the pattern tried at each character (the 38,321
    comment lines of scrapy's, celery's, zod's and ts-loader's symbols:
    449 -> 22 ms; 6 are banners)."""
    if line.isascii():
        low = line.lower()
        if not (
            "licen" in low or "copyright" in low or "(c)" in low or "rights" in low
            or "warranty" in low or "permission" in low or "general public" in low
        ):  # fmt: skip
            return False
    return _PHRASE.search(line, start) is not None


_WS = re.compile(r"\s+")


def truncate_utf8(text: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, cut back to a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    # The bytes came from a valid str, so the only invalid sequence is the
    # character cut at the end: "ignore" drops exactly that.
    return data[:limit].decode("utf-8", "ignore")


def significant_lines(source: str) -> list[str]:
    return _significant(source)[0]


def _significant(source: str) -> tuple[list[str], list[int]]:
    """The significant lines, right-stripped, and the indentation of each."""
    out: list[str] = []
    indents: list[int] = []
    keep, indent, maybe_noise, noise = out.append, indents.append, _MAYBE_NOISE, _NOT_FORMAL.match
    mark, banner = _COMMENT_MARK.match, _banner
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in maybe_noise and (noise(stripped) or (found := mark(stripped)) and banner(stripped, found.end())):
            continue  # noise (``_NOT_FORMAL``, or a banner)
        kept = line.rstrip()
        keep(kept)
        indent(len(kept) - len(stripped))
    return out, indents


def header(symbol: Symbol) -> str:
    return f"// File: {symbol.file} | {symbol.kind} {symbol.qualified_name}"


def symbol_text(symbol: Symbol, source: bytes, children: Sequence[Symbol] = ()) -> SymbolText:
    """Children (a class's methods) stand in their parent's text by their
    signature line only: a method's body change is not its class's change."""
    pieces: list[bytes] = []
    cursor = symbol.start_byte
    for child in sorted(children, key=lambda c: c.start_byte):
        if child.start_byte < cursor or child.end_byte > symbol.end_byte:
            continue
        pieces.append(source[cursor : child.start_byte])
        pieces.append(_stand_in(child, source) + b"\n")
        cursor = child.end_byte
    pieces.append(source[cursor : symbol.end_byte])
    body = b"".join(pieces).decode("utf-8", "replace")
    lines = _outer_decorators(symbol, source) + _dedent(*_significant(body))
    full = header(symbol) + "\n" + "\n".join(lines)
    data = full.encode("utf-8")  # once, for both cuts (``truncate_utf8``) and the hash
    if len(data) <= EMBED_BYTES:  # most symbols: both texts whole
        return _make_text((symbol.id, full, full, hashlib.sha256(data).hexdigest()))
    content = full if len(data) <= CONTENT_BYTES else data[:CONTENT_BYTES].decode("utf-8", "ignore")
    cut = data[:EMBED_BYTES]
    embed = cut.decode("utf-8", "ignore")
    # the hash of the embedded text's bytes: the cut less a character it split
    return _make_text((symbol.id, embed, content, hashlib.sha256(embed.encode("utf-8")).hexdigest()))


def _stand_in(child: Symbol, source: bytes) -> bytes:
    # The signature, not the first line: a decorated method's first line is
    # its decorator (`@property`), which says nothing about the method.
    if child.signature:
        return child.signature.encode("utf-8")
    return source[child.start_byte : child.end_byte].split(b"\n", 1)[0]


def _outer_decorators(symbol: Symbol, source: bytes) -> list[str]:
    """Decorators the symbol's byte range does not hold (Rust's `#[derive]`
    precedes the item it annotates); docs/search.md wants them in the text."""
    if not symbol.decorators:
        return []
    own = source[symbol.start_byte : symbol.end_byte].decode("utf-8", "replace")
    # a decorator whose only whitespace is single spaces, found as written,
    # is found with the whitespace runs made single spaces too: the run
    # over a body (most are Python's own decorators) only for the others
    if all(d in own and _WS.sub(" ", d) == d for d in symbol.decorators):
        return []
    own = _WS.sub(" ", own)
    return [d for d in symbol.decorators if d not in own]


def _dedent(lines: list[str], indents: list[int]) -> list[str]:
    """Drop the common indentation of the lines after the first, and the
    first's own (a method's body is as good as a function's); ``indents``:
    the indentation of each line, none of them blank."""
    if not lines:
        return lines
    common = min(indents[1:]) if len(indents) > 1 else 0
    return [lines[0][indents[0] :]] + [line[common:] for line in lines[1:]]


def texts_for(symbols: Sequence[Symbol], source: bytes) -> tuple[SymbolText, ...]:
    children: dict[str, list[Symbol]] = {}
    for s in symbols:
        if s.parent_id is not None:
            children.setdefault(s.parent_id, []).append(s)
    return tuple(
        symbol_text(s, source, children.get(s.id, ())) for s in symbols if s.kind not in NOT_EMBEDDED
    )
