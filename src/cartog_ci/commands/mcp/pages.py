"""Bounded answers (docs/mcp.md, "Limits"): every answer is a small head
and lists of items; one page holds at most ``limit`` items and fits the
token budget, and a page that leaves items out says how many and gives the
cursor of the next page.

Tokens are counted with the packaged embedding model's tokenizer (a
WordPiece vocabulary, ``embed/onnx.py``), the same count the benchmark
reports; without it, two characters count as one token (JSON of code
averages about two characters per WordPiece token).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cartog_ci.errors import CartogError

# Arguments that choose a page, not the question: a cursor stays valid
# when they change.
PAGING_ARGUMENTS = frozenset({"cursor", "limit", "max_tokens"})
# A string longer than this is shortened in an item too large for a page alone.
SHORT_STRING = 200
# The furthest item a cursor may point at: a cursor is the caller's to
# send, and search ranks every hit before the page it asks for.
MAX_OFFSET = 100_000


class BadCursor(CartogError):
    pass


@dataclass
class Answer:
    """What a tool found: ``head`` always shown, ``lists`` paged in order
    (their items are counted as one sequence)."""

    head: dict[str, object]
    lists: dict[str, list[object]]
    # said when items are left out (what else was capped, where to ask)
    note: str = ""
    # head fields only the first page repeats (the report's summary)
    first_page_only: tuple[str, ...] = ()


@dataclass(frozen=True)
class Page:
    offset: int
    limit: int
    budget: int  # tokens

    @property
    def end(self) -> int:
        return self.offset + self.limit


class TokenCounter:
    """Tokens of a text as the packaged tokenizer splits it."""

    def __init__(self, tokenizer: object | None) -> None:
        self._tokenizer = tokenizer

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if self._tokenizer is None:
            return [-(-len(t) // 2) for t in texts]
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)  # type: ignore[attr-defined]
        return [len(e.ids) for e in encodings]


def dumps(value: object) -> str:
    """The answer's text: compact JSON, as the tool result carries it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def question_key(tool: str, arguments: dict[str, object]) -> str:
    """What a cursor belongs to: the tool and its arguments, paging aside."""
    asked = {k: v for k, v in arguments.items() if k not in PAGING_ARGUMENTS}
    return hashlib.sha256(dumps([tool, sorted(asked.items())]).encode()).hexdigest()[:12]


def make_cursor(offset: int, key: str) -> str:
    return base64.urlsafe_b64encode(dumps({"offset": offset, "question": key}).encode()).decode().rstrip("=")


def read_cursor(cursor: str | None, key: str) -> int:
    """The offset a cursor points at; 0 without one."""
    if not cursor:
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, question = data["offset"], data["question"]
    except (binascii.Error, ValueError, TypeError, KeyError):
        raise BadCursor("the cursor is not one this server gave: repeat the question without a cursor") from None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise BadCursor("the cursor is not one this server gave: repeat the question without a cursor")
    if offset >= MAX_OFFSET:
        raise BadCursor(f"pages go no further than item {MAX_OFFSET:,}: narrow the question")
    if question != key:
        raise BadCursor(
            "the cursor belongs to another question (another tool or other arguments): "
            "pass it with the same arguments as the call that returned it, or call without a cursor"
        )
    return offset


def bounded(answer: Answer, page: Page, key: str, counter: TokenCounter) -> dict[str, object]:
    """The page of ``answer`` that starts at ``page.offset``: at most
    ``page.limit`` items, within ``page.budget`` tokens of JSON."""
    items = [(name, item) for name, values in answer.lists.items() for item in values]
    window = items[page.offset : page.end]

    def page_of(shown: list[tuple[str, object]], *, shrunk: bool = False) -> tuple[dict[str, object], bool]:
        result = _assemble(answer, items, shown, page, key, shrunk=shrunk)
        return result, counter.count(dumps(result)) <= page.budget

    # the head and the page's own fields, then the items' counts, which add
    # up to about the whole text's: checked, one item fewer until it fits
    empty, _ = page_of([])
    room = page.budget - counter.count(dumps(empty)) - _MARGIN
    taken = _fitting([item for _, item in window], room, counter)
    result, fits = page_of(window[:taken])
    while not fits and taken > 1:
        taken -= 1
        result, fits = page_of(window[:taken])
    if (not fits or taken == 0) and window:
        # one item larger than a page: shown smaller rather than never
        name, item = window[0]
        for smaller in _smaller(item):
            result, fits = page_of([(name, smaller)], shrunk=True)
            if fits:
                break
    if not fits:
        raise CartogError(
            f"this answer does not fit max_tokens={page.budget} even with one item: ask with a larger max_tokens"
        )
    return result


def _fitting(items: list[object], room: int, counter: TokenCounter) -> int:
    """How many of ``items``, from the first, fit in ``room`` tokens; counted
    a batch at a time, so a long list is not counted past the budget."""
    taken, used = 0, 0
    for start in range(0, len(items), _BATCH):
        for size in counter.count_many([dumps(item) for item in items[start : start + _BATCH]]):
            if used + size + 1 > room:
                return taken
            used += size + 1
            taken += 1
    return taken


_BATCH = 16
# tokens the page's numbers and cursor may grow by once items are in it
_MARGIN = 24


def _assemble(
    answer: Answer,
    items: list[tuple[str, object]],
    shown: list[tuple[str, object]],
    page: Page,
    key: str,
    *,
    shrunk: bool,
) -> dict[str, object]:
    skipped = answer.first_page_only if page.offset else ()
    result: dict[str, object] = {k: v for k, v in answer.head.items() if k not in skipped}
    for name in answer.lists:
        result[name] = [item for list_name, item in shown if list_name == name]
    end = page.offset + len(shown)
    left = len(items) - end
    cut_by = f"the limit ({page.limit})" if len(shown) == page.limit else f"the token budget ({page.budget:,} tokens)"
    names = ", ".join(answer.lists)
    info: dict[str, object] = {
        "offset": page.offset,
        "returned": len(shown),
        "total": len(items),
        "totals": {name: len(values) for name, values in answer.lists.items()},
        "truncated": left > 0,
        "next_cursor": None,
        "left_out": None,
    }
    if left > 0 and end >= MAX_OFFSET:
        info["left_out"] = f"{left} item(s) left out: pages go no further than item {MAX_OFFSET:,}: narrow the question"
    elif left > 0:
        info["next_cursor"] = make_cursor(end, key)
        info["left_out"] = (
            f"items {page.offset + 1}-{end} of {len(items)} ({names}) shown, {left} left out by {cut_by}: "
            f"call again with the same arguments and cursor=next_cursor for the next ones"
            + (f"; {answer.note}" if answer.note else "")
        )
    elif answer.note:
        info["left_out"] = answer.note
    if shrunk:
        cut = (
            f"item {page.offset + 1} alone exceeds the budget: shown with its inner lists and long strings cut "
            f"(ask with a larger max_tokens for it whole)"
        )
        info["left_out"] = f"{cut}; {info['left_out']}" if info["left_out"] else cut
    result["page"] = info
    return result


def _smaller(item: object) -> Iterator[object]:
    """Ever smaller versions of an item too large for a page on its own:
    the lists inside it cut to 5, 2, then no entries, then its long strings
    cut too; the last one is yielded whatever its size."""
    for most in (5, 2, 0):
        yield _cut(item, most=most, chars=None, top=True)
    yield _cut(item, most=0, chars=SHORT_STRING, top=True)


def _cut(value: object, *, most: int, chars: int | None, top: bool = False) -> object:
    if isinstance(value, str) and chars is not None and len(value) > chars:
        return value[:chars] + "…"
    if isinstance(value, dict):
        return {k: _cut(v, most=most, chars=chars) for k, v in value.items()}
    if isinstance(value, list):
        kept = value if top else value[:most]
        return [_cut(v, most=most, chars=chars) for v in kept]
    return value
