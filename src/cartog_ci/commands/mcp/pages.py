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
from collections.abc import Sequence
from dataclasses import dataclass

from cartog_ci.errors import CartogError

# Arguments that choose a page, not the question: a cursor stays valid
# when they change.
PAGING_ARGUMENTS = frozenset({"cursor", "limit", "max_tokens"})
# A string longer than this is shortened in an item too large for a page alone.
SHORT_STRING = 200


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
    if question != key or not isinstance(offset, int) or offset < 0:
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
    room = page.budget - counter.count(dumps(answer.head)) - _PAGE_OVERHEAD
    taken = _fitting([item for _, item in window], room, counter)
    if taken == 0 and window:
        # one item larger than a page: shortened rather than never shown
        window = [(window[0][0], _shortened(window[0][1]))] + window[1:]
        taken = 1
    # the items' counts add up to about the whole text's: checked, and one
    # item fewer until it fits
    while True:
        result = _assemble(answer, items, window[:taken], page, key)
        fits = counter.count(dumps(result)) <= page.budget
        if fits or taken <= 1:
            break
        taken -= 1
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
# "page" with its sentence and cursor, counted before the items are chosen
_PAGE_OVERHEAD = 160


def _assemble(
    answer: Answer, items: list[tuple[str, object]], shown: list[tuple[str, object]], page: Page, key: str
) -> dict[str, object]:
    result: dict[str, object] = dict(answer.head)
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
    if left > 0:
        info["next_cursor"] = make_cursor(end, key)
        info["left_out"] = (
            f"items {page.offset + 1}-{end} of {len(items)} ({names}) shown, {left} left out by {cut_by}: "
            f"call again with the same arguments and cursor=next_cursor for the next ones"
            + (f"; {answer.note}" if answer.note else "")
        )
    elif answer.note:
        info["left_out"] = answer.note
    result["page"] = info
    return result


def _shortened(item: object) -> object:
    if isinstance(item, str):
        return item if len(item) <= SHORT_STRING else item[:SHORT_STRING] + "…"
    if isinstance(item, dict):
        return {k: _shortened(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_shortened(v) for v in item]
    return item
