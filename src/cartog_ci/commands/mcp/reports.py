"""One computation for all the pages of a report (docs/mcp.md, "Limits").

A report costs seconds to minutes (the symbol diff, callers, tests), and
an agent that reads it whole asks for it once a page. The answer is kept,
as its JSON text, under the question (the tool's arguments, paging aside)
and the state it was computed from, and served again while that state
holds:

- the index's state: every stored file's content hash after the index is
  brought up to date (which reads the work tree), the vector model, the
  configuration — when any of them changes, every kept report goes;
- the question's state: the base's merge-base, the head side (a commit,
  the staged change, the work tree), the changed files, and for the staged
  change the blobs staged.

Both are computed before the report and again after it; a report during
which either changed is answered but not kept. At most ``MAX_ENTRIES``
reports and ``MAX_CHARS`` characters of JSON are kept, the least recently
read going first.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from cartog_ci import git, workspace
from cartog_ci.commands.mcp.pages import Answer, dumps
from cartog_ci.domain.results import Comparison
from cartog_ci.index.refresh import refresh
from cartog_ci.report import sides

MAX_ENTRIES = 8
MAX_CHARS = 32_000_000  # about 30 MB: a 10-commit range of Scrapy is 1.3 million

State = tuple[str, str]  # (the index's, the question's)


def report_state(ws: workspace.Workspace, comparison: Comparison) -> State:
    """What a report of ``comparison`` reads, as two digests (the index
    brought up to date first, as the report itself does)."""
    with workspace.open_store(ws, create=True) as store:
        refresh(ws.root, store, ws.config, embed=False)
        index = _digest([sorted(store.file_hashes().items()), store.vector_model(), repr(ws.config)])
    head = comparison.head
    staged = ""
    if head.kind == "staged":
        raw = git.run(ws.root, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", comparison.merge_base)
        staged = hashlib.sha256(raw).hexdigest()
    question = _digest(
        [comparison.base_ref, comparison.merge_base, head.kind, head.commit, sides.changed_files(ws.root, comparison), staged]
    )
    return index, question


def _digest(value: object) -> str:
    return hashlib.sha256(dumps(value).encode()).hexdigest()


@dataclass
class ReportCache:
    """Reports kept for their next pages; ``computed`` and ``from_cache``
    count what each call cost (the ``stats`` tool shows them)."""

    max_entries: int = MAX_ENTRIES
    max_chars: int = MAX_CHARS
    computed: int = 0
    from_cache: int = 0
    _index: str = ""
    # question -> (the question's state, the answer's JSON)
    _kept: OrderedDict[str, tuple[str, str]] = field(default_factory=OrderedDict)

    def answer(self, question: str, state: Callable[[], State], compute: Callable[[], Answer]) -> Answer:
        index, asked = state()
        if index != self._index:
            self._kept.clear()
            self._index = index
        kept = self._kept.get(question)
        if kept is not None and kept[0] == asked:
            self._kept.move_to_end(question)
            self.from_cache += 1
            return _loads(kept[1])
        answer = compute()
        self.computed += 1
        if state() == (index, asked):
            self._keep(question, asked, dumps([answer.head, answer.lists, answer.note, list(answer.first_page_only)]))
        else:
            self._kept.pop(question, None)
        return answer

    def _keep(self, question: str, asked: str, text: str) -> None:
        self._kept.pop(question, None)
        if len(text) > self.max_chars:
            return
        self._kept[question] = (asked, text)
        while len(self._kept) > self.max_entries or self.chars() > self.max_chars:
            self._kept.popitem(last=False)

    def chars(self) -> int:
        return sum(len(text) for _, text in self._kept.values())

    def stats(self) -> dict[str, int]:
        return {
            "reports_computed": self.computed,
            "report_pages_from_cache": self.from_cache,
            "reports_kept": len(self._kept),
            "reports_kept_chars": self.chars(),
        }


def _loads(text: str) -> Answer:
    head, lists, note, first_page_only = json.loads(text)
    return Answer(head, lists, note, tuple(first_page_only))
