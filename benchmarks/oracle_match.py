"""Matching jedi's answers with cartog-ci's call edges, for ``oracle_python.py``.

* A jedi definition maps to our symbol in the same file whose qualified name
  is, or ends with, the definition's name and whose line range holds the
  definition's line (the innermost such class / function / method).
* Targets are compared in a canonical form: ``Foo.__init__`` stands for the
  class ``Foo`` (a call ``Foo()`` may be resolved to either), and ``#N``
  redefinitions of one qualified name in one file stand for the first.
* Sites and edges meet on (file, line, called name). With several on one
  key, equal targets pair first; the rest pair only when every remaining
  answer on one side is the same, so the pairing cannot change a verdict;
  otherwise the sites are skipped (``skipped_line``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from jedi_sites import Site

TARGET_KINDS = frozenset({"class", "function", "method"})

Key = tuple[str, int, str]  # (file, line, called name)


@dataclass(frozen=True)
class Symbol:
    id: str
    qualified_name: str
    kind: str
    file: str
    start_line: int
    end_line: int
    parent_id: str | None


@dataclass(frozen=True)
class Edge:
    file: str
    line: int
    target_name: str
    target_id: str | None
    resolution: str | None


@dataclass(frozen=True)
class Answer:
    """What the oracle says about one site."""

    status: str  # confident | ambiguous | external | unknown | unmapped | error
    target: str | None  # canonical symbol ID when confident


@dataclass(frozen=True)
class Outcome:
    file: str
    line: int  # where the called expression starts (our edges' line)
    name_line: int  # where jedi was asked, with col (characters)
    col: int
    name: str
    text: str
    pattern: str
    oracle: str
    oracle_target: str | None
    oracle_via: str
    oracle_landings: list[str]
    ours_edge: bool
    ours_target: str | None
    ours_resolution: str | None
    verdict: str


def call_edges(graph: dict[str, Any], files: set[str]) -> list[Edge]:
    keep = (e for e in graph["edges"] if e["kind"] == "calls" and e["file"] in files)
    return [Edge(e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"]) for e in keep]


class Symbols:
    """Our symbols, for mapping a jedi definition and comparing targets."""

    def __init__(self, graph: dict[str, Any]) -> None:
        fields = Symbol.__dataclass_fields__
        every = [Symbol(**{k: s[k] for k in fields}) for s in graph["symbols"]]
        self.by_id = {s.id: s for s in every}
        self.by_file: dict[str, list[Symbol]] = defaultdict(list)
        for s in every:
            if s.kind in TARGET_KINDS:
                self.by_file[s.file].append(s)

    def find(self, file: str, line: int, name: str) -> str | None:
        """The innermost symbol named ``name`` whose range holds ``line``, canonical."""
        hits = [
            s for s in self.by_file.get(file, ())
            if (s.qualified_name == name or s.qualified_name.endswith("." + name))
            and s.start_line <= line <= s.end_line
        ]  # fmt: skip
        if not hits:
            return None
        return self.canonical(min(hits, key=lambda s: s.end_line - s.start_line).id)

    def canonical(self, symbol_id: str) -> str:
        """A class stands for its ``__init__``; ``#N`` redefinitions for the first."""
        symbol = self.by_id.get(symbol_id)
        if symbol and symbol.qualified_name.endswith(".__init__") and symbol.parent_id in self.by_id:
            return self.canonical(symbol.parent_id)
        return re.sub(r"#\d+$", "", symbol_id)

    def kind(self, symbol_id: str | None) -> str:
        symbol = self.by_id.get(symbol_id or "")
        return symbol.kind if symbol else ""


def judge(site: Site, symbols: Symbols) -> Answer:
    if site.via in {"error", "timeout"}:
        return Answer("error", None)
    inside = [x for x in site.landings if x.file is not None]
    if not inside:
        return Answer("external" if site.landings else "unknown", None)
    if len(inside) < len(site.landings):
        return Answer("ambiguous", None)  # in the project and outside it
    targets = {symbols.find(x.file, x.line, x.name) or f"?{x.file}:{x.line}" for x in inside if x.file}
    if len(targets) > 1:
        return Answer("ambiguous", None)
    target = targets.pop()
    return Answer("unmapped", None) if target.startswith("?") else Answer("confident", target)


# --- pairing ---------------------------------------------------------------

Pair = tuple[Site, Answer, Edge | None]


def _same(items: Sequence[object]) -> bool:
    return len(set(items)) <= 1


def _pair_equal(
    sites: list[tuple[Site, Answer]], edges: list[Edge], symbols: Symbols
) -> tuple[list[Pair], list[tuple[Site, Answer]], list[Edge]]:
    """Each confident site paired with an edge to its target; the rest of both sides."""
    pairs: list[Pair] = []
    rest, free = [], list(edges)
    for site, answer in sites:
        same = (e for e in free if e.target_id and symbols.canonical(e.target_id) == answer.target)
        match = next(same, None) if answer.status == "confident" else None
        if match is None:
            rest.append((site, answer))
        else:
            pairs.append((site, answer, match))
            free.remove(match)
    return pairs, rest, free


def pair_key(
    sites: list[tuple[Site, Answer]], edges: list[Edge], symbols: Symbols
) -> tuple[list[Pair], list[Edge], list[tuple[Site, Answer]], list[Edge]]:
    """(pairs, our edges without a site, sites skipped, our edges skipped) on one (file, line, name)."""
    if len(sites) == 1 and len(edges) <= 1:
        return [(*sites[0], edges[0] if edges else None)], [], [], []
    pairs, rest, free = _pair_equal(sites, edges, symbols)
    ours = [(e.target_id and symbols.canonical(e.target_id), e.resolution) for e in free]
    if rest and free and not (_same([a for _, a in rest]) or _same(ours)):
        return pairs, [], rest, free  # which is which cannot be told, and it would matter
    pairs += [(site, answer, free[i] if i < len(free) else None) for i, (site, answer) in enumerate(rest)]
    return pairs, free[len(rest) :], [], []


def verdict(answer: Answer, edge: Edge | None, symbols: Symbols) -> str:
    ours_in = edge is not None and edge.target_id is not None
    if answer.status in {"external", "unknown"}:
        return f"possible_fp_{answer.status}" if ours_in else "neither_in_project"
    if answer.status != "confident":
        return f"oracle_{answer.status}"
    if edge is None:
        return "miss_no_edge"
    if edge.target_id is not None:
        return "agree" if symbols.canonical(edge.target_id) == answer.target else "wrong"
    return "miss_external" if edge.resolution == "external" else "miss_unresolved"


def pattern(site: Site, answer: Answer, symbols: Symbols) -> str:
    form = "Foo()" if site.form == "f()" and symbols.kind(answer.target) == "class" else site.form
    return f"{form} [{site.role}]" if site.role else form


def _landing_text(site: Site) -> list[str]:
    return [f"{x.file or x.module}:{x.line}:{x.name}" for x in site.landings]


def outcome(site: Site, answer: Answer, edge: Edge | None, symbols: Symbols, skipped: bool) -> Outcome:
    return Outcome(
        site.file, site.start_line, site.line, site.col, site.name, site.text, pattern(site, answer, symbols),
        answer.status, answer.target, site.via, _landing_text(site),
        edge is not None, edge.target_id if edge else None, edge.resolution if edge else None,
        "skipped_line" if skipped else verdict(answer, edge, symbols),
    )  # fmt: skip


def compare(sites: Iterable[Site], edges: list[Edge], symbols: Symbols) -> tuple[list[Outcome], list[Edge], int]:
    """Every site's outcome, our edges at no site, and how many of ours were skipped with their line."""
    by_key_sites: dict[Key, list[tuple[Site, Answer]]] = defaultdict(list)
    for site in sites:
        by_key_sites[(site.file, site.start_line, site.name)].append((site, judge(site, symbols)))
    by_key_edges: dict[Key, list[Edge]] = defaultdict(list)
    for edge in edges:
        by_key_edges[(edge.file, edge.line, edge.target_name)].append(edge)
    outcomes, lonely, skipped_edges = [], [], 0
    for key in sorted(by_key_sites.keys() | by_key_edges.keys()):
        found = by_key_sites.get(key, [])
        if not found:
            lonely += by_key_edges[key]
            continue
        pairs, extra, skipped, ours_skipped = pair_key(found, by_key_edges.get(key, []), symbols)
        outcomes += [outcome(s, a, e, symbols, False) for s, a, e in pairs]
        outcomes += [outcome(s, a, None, symbols, True) for s, a in skipped]
        lonely += extra
        skipped_edges += len(ours_skipped)
    return outcomes, lonely, skipped_edges
