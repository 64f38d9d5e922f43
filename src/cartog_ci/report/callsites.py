"""The call-site check (docs/report.md): for every direct caller of a
function whose signature changed, the call's arguments as written are bound
against the new signature; each call site *will break*, is *fine*, or cannot
be told (a spread, an unknown decorator, a changed type). The languages read
the calls and bind them (``languages/arguments.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import languages
from cartog_ci.domain import CALLABLE_KINDS, CONSTRUCTOR_NAMES, VALUE, Edge, Symbol
from cartog_ci.domain.results import CallSite, ChangeSet, Side, SymbolChange
from cartog_ci.languages.arguments import UNKNOWN, WILL_BREAK, Call, CallCheck, calls_on_line
from cartog_ci.parse.budget import ParseTimeout, parse

if TYPE_CHECKING:  # the interface, for type checkers only
    import tree_sitter as ts

    from cartog_ci.store.base import Store

MAX_FILE_BYTES = 2_000_000
PARSE_TIMEOUT_MS = 2_000


class _Trees:
    """The head's files, each read and parsed once."""

    def __init__(self, cs: ChangeSet) -> None:
        self.cs = cs
        self.trees: dict[str, ts.Node | None] = {}

    def root(self, path: str) -> ts.Node | None:
        if path not in self.trees:
            self.trees[path] = self._parse(path)
        return self.trees[path]

    def _parse(self, path: str) -> ts.Node | None:
        language = languages.for_path(path)
        source = self.cs.head_sources.get(path)
        if source is None:
            try:
                file = Path(self.cs.root) / path
                source = file.read_bytes() if file.is_file() and file.stat().st_size <= MAX_FILE_BYTES else None
            except OSError:
                source = None
        if language is None or source is None:
            return None
        try:
            return parse(language.syntax.grammar, source, PARSE_TIMEOUT_MS).root_node
        except (ParseTimeout, ValueError):
            return None


def check_call_sites(
    store: Store, cs: ChangeSet, change: SymbolChange, found: Sequence[Edge] = ()
) -> list[CallSite]:
    """Each direct call of the changed function, checked against its new
    signature; ``found``: calls of it the compiler tier found (docs/report.md)."""
    target = change.symbol
    if target is None or not change.signature_changed or target.kind not in CALLABLE_KINDS:
        return []
    language = languages.get(target.language)
    if language is None:
        return []
    edges = store.edges_to([target.id], ("calls",)) + list(found)
    if target.name in CONSTRUCTOR_NAMES and target.parent_id:  # `Foo(...)` calls the constructor
        edges += store.edges_to([target.parent_id], ("calls",))
    overloads = [
        s
        for s in store.symbols_in_file(target.file)
        if s.parent_id == target.parent_id and s.name == target.name and s.id != target.id
    ]
    trees = _Trees(cs)
    out: list[CallSite] = []
    seen: set[tuple[str, int, str]] = set()
    for edge in sorted(edges, key=lambda e: (e.file, e.line, e.source_id)):
        key = (edge.file, edge.line, edge.source_id)
        if key in seen:
            continue
        seen.add(key)
        check = _check(trees, edge, target, change.old, overloads)
        out.append(CallSite(edge, target, check.verdict, check.reason))
    return out


def check_new_signature(store: Store, symbol: Symbol, signature: str, *, root: Path) -> tuple[SymbolChange, list[CallSite]]:
    """A proposed signature for ``symbol``, before any edit: the verdict the
    report would give the change (breaking, compatible, "") and each direct
    call site, read from the work tree, checked against it."""
    proposed = replace(symbol, signature=signature)
    verdict = languages.signature_verdict(symbol.signature, signature, symbol.language)
    change = SymbolChange("modified", proposed, symbol, bool(verdict), signature_verdict=verdict)
    cs = ChangeSet("proposed signature", "HEAD", "", Side("worktree", None, "working tree"), root=str(root))
    return change, check_call_sites(store, cs, change)


def _check(trees: _Trees, edge: Edge, target: Symbol, old: Symbol | None, overloads: list[Symbol]) -> CallCheck:
    caller_language = languages.for_path(edge.file)
    target_language = languages.get(target.language)
    root = trees.root(edge.file)
    if root is None or caller_language is None or target_language is None:
        return CallCheck(UNKNOWN, "the calling file could not be read")
    calls: list[Call] = [c for c in calls_on_line(root, edge.line, caller_language.read_call) if c.name == edge.target_name]
    if not calls and edge.alias == VALUE:
        return CallCheck(UNKNOWN, "named as a value there (passed, stored, assigned): how it is called is not read")
    if not calls:
        return CallCheck(UNKNOWN, "no call read at that line")
    checks = [_against_both(target_language, target, old, call, overloads) for call in calls]
    verdicts = {c.verdict for c in checks}
    if len(verdicts) == 1:
        return checks[0]
    return CallCheck(UNKNOWN, "several calls of that name on the line")


def _against_both(
    language: languages.Language, target: Symbol, old: Symbol | None, call: Call, overloads: list[Symbol]
) -> CallCheck:
    """The check against the new signature; a call that did not fit the old
    one either is not this change's doing."""
    check = language.check_call(target, old, call, overloads) or CallCheck(UNKNOWN)
    if check.verdict == WILL_BREAK and old is not None:
        before = language.check_call(old, None, call, overloads)
        if before is not None and before.verdict == WILL_BREAK:
            return CallCheck(UNKNOWN, f"did not fit the old signature either ({before.reason})")
    return check
