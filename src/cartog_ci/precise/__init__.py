"""The compiler tier (docs/report.md, "The compiler tier"): at report time,
the call sites that matter to the report — those named like a changed
function, method or class that the graph left unresolved — are asked
of the TypeScript language service or of jedi, when the repository and the
machine have them (``precise/tools.py``). One process per tool and report,
fed every site at once, bounded by a budget in seconds; answers are cached
in the index by the hash of the program the tool read (its version, the
content hashes of every file of its languages and its configuration
files), so any change of any of those files asks again.

Nothing of this is stored as an edge: the graph stays what the structural
tiers make of it, and an incremental index still equals a cold one. A
caller found here is marked with the tier ``compiler`` in the report.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import __version__
from cartog_ci.domain import Edge, Symbol
from cartog_ci.domain.results import TierRun
from cartog_ci.precise import tools as _tools
from cartog_ci.precise.service import run_service

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

TIER = "compiler"
DEFAULT_BUDGET = 30.0  # seconds a report may spend asking (the ``compiler_budget`` setting)
MAX_SITES = 20_000  # asked of a tool in one report: past it the rest stays unanswered
SiteKey = tuple[str, int, str]  # (file, line, called name)


@dataclass(frozen=True)
class Target:
    file: str
    line: int
    name: str
    kind: str


@dataclass(frozen=True)
class Answer:
    targets: tuple[Target, ...]
    external: bool  # a definition outside the repository

    @property
    def settled(self) -> bool:
        """Said where the call goes (in the repository or outside it)."""
        return bool(self.targets) or self.external


@dataclass
class Findings:
    """What the tier says of one changed symbol's call sites."""

    callers: list[Edge] = field(default_factory=list)  # sites it resolves to the symbol, tier "compiler"
    settled: set[tuple[str, int, str]] = field(default_factory=set)  # (file, line, source ID) it answered


class CompilerTier:
    """Asks each available tool once per report; ``runs`` says what each did."""

    def __init__(self, store: Store, root: Path, *, budget: float = DEFAULT_BUDGET) -> None:
        self.store = store
        self.root = root
        self.budget = budget
        self.runs: list[TierRun] = []
        self._files: dict[str, list[Symbol]] = {}

    def findings(self, symbols: Sequence[Symbol]) -> dict[str, Findings]:
        """Per changed symbol ID, the call sites of its name the tier resolved."""
        out: dict[str, Findings] = {}
        deadline = time.monotonic() + self.budget
        for tool in _tools.detect(self.root):
            mine = [s for s in symbols if s.language in tool.languages]
            sites = {s.id: _sites(self.store, s, tool) for s in mine}
            keys = sorted({_key(e) for edges in sites.values() for e in edges})
            if not keys:
                continue  # the graph answered every site of these names: nothing to ask, nothing to say
            if not tool.available:
                self.runs.append(TierRun(tool.name, tool.label, why=tool.why, asked=len(keys)))
                continue
            answers, run = self._ask(tool, keys, deadline)
            for symbol in mine:
                found = out.setdefault(symbol.id, Findings())
                for edge in sites[symbol.id]:
                    answer = answers.get(_key(edge))
                    if answer is None or not answer.settled:
                        continue
                    found.settled.add((edge.file, edge.line, edge.source_id))
                    if symbol.id in {self._symbol_of(t) for t in answer.targets}:
                        found.callers.append(_compiler_edge(edge, symbol))
            callers = sum(len({e.source_id for e in out[s.id].callers}) for s in mine)
            self.runs.append(TierRun(**run, callers=callers))
        return out

    def _ask(self, tool: _tools.Tool, keys: list[SiteKey], deadline: float) -> tuple[dict[SiteKey, Answer], dict]:
        """Answers from the cache, then from the tool for the rest."""
        program = _program(self.store, self.root, tool)
        cached = {k: _answer(v) for k, v in self.store.compiler_answers(tool.name, program, keys).items()}
        missing = [k for k in keys if k not in cached][:MAX_SITES]
        run = {"tool": tool.name, "label": tool.label, "version": tool.version, "asked": len(keys), "budget": self.budget}
        answers = dict(cached)
        if missing:
            sites = [{"id": i, "file": f, "line": line, "name": n} for i, (f, line, n) in enumerate(missing)]
            files = sorted({k[0] for k in missing})
            ran = run_service(
                tool.argv, cwd=self.root, files=files, sites=sites, budget=max(0.0, deadline - time.monotonic())
            )
            fresh = {missing[i]: a for i, a in ran.answers.items() if "error" not in a}
            if fresh:
                with self.store.transaction():
                    self.store.put_compiler_answers(tool.name, program, ((k, json.dumps(a)) for k, a in fresh.items()))
            answers |= {k: _answer_of(a) for k, a in fresh.items()}
            errors = [a["error"] for a in ran.answers.values() if "error" in a]
            failure = ran.failure or (f"{len(errors)} site(s) failed: {errors[0]}" if errors else "")
            run |= {"failure": failure, "timed_out": ran.timed_out, "seconds": ran.seconds}
            run["version"] = tool.version or ran.version
        run |= {"answered": len(answers), "cached": len(cached)}
        return answers, run

    def _symbol_of(self, target: Target) -> str | None:
        """The innermost symbol of the target's file that holds its line and
        bears its name (a constructor: its class)."""
        if target.file not in self._files:
            self._files[target.file] = self.store.symbols_in_file(target.file)
        holding = [s for s in self._files[target.file] if s.start_line <= target.line <= s.end_line]
        named = [s for s in holding if s.name == target.name]
        if not named and target.kind == "constructor":
            named = [s for s in holding if s.kind == "class"]
        best = max(named, key=lambda s: (s.start_line, -s.end_line), default=None)
        return best.id if best is not None else None


def _sites(store: Store, symbol: Symbol, tool: _tools.Tool) -> list[Edge]:
    """The call sites of the symbol's name the tool is asked about: those
    the graph left unresolved (neither a project symbol nor external). Not
    those it resolved elsewhere or took for external: asked as well on zod,
    they recovered no site more (docs/report.md, "The compiler tier"), and
    cost time."""
    return [
        edge
        for edge in store.unresolved_edges_named([symbol.name], kinds=("calls",))
        if edge.resolution is None and edge.file.endswith(tool.extensions)
    ]


def _key(edge: Edge) -> SiteKey:
    return (edge.file, edge.line, edge.target_name)


def _compiler_edge(edge: Edge, symbol: Symbol) -> Edge:
    return Edge(
        edge.source_id, edge.target_name, "calls", edge.file, edge.line, edge.qualifier,
        target_id=symbol.id, resolution=TIER,
    )  # fmt: skip


def _answer(text: str) -> Answer:
    return _answer_of(json.loads(text))


def _answer_of(raw: dict) -> Answer:
    targets = tuple(
        Target(str(t["file"]), int(t["line"]), str(t["name"]), str(t.get("kind", ""))) for t in raw.get("targets", ())
    )
    return Answer(targets, bool(raw.get("external")))


def _program(store: Store, root: Path, tool: _tools.Tool) -> str:
    """The hash of what the tool reads: its version, this tier's own code,
    the content hash of every indexed file of its languages, and its
    configuration files."""
    digest = hashlib.sha256(f"{tool.name}\0{tool.version}\0{__version__}\0".encode())
    for script in ("ts_service.mjs", "jedi_service.py", "__init__.py"):
        digest.update((_tools.HERE / script).read_bytes())
    # one text for every file (the same digest as a line at a time: 2,700
    # updates and encodings less on Django)
    lines = [
        f"{path}\0{sha}\0{status}\n" for path, (sha, status) in store.file_hashes().items() if path.endswith(tool.extensions)
    ]
    digest.update("".join(lines).encode())
    for name in tool.config_files:
        try:
            digest.update(name.encode() + b"\0" + (root / name).read_bytes())
        except OSError:
            digest.update(name.encode() + b"\0-")
    return digest.hexdigest()


def availability(root: Path, store: Store) -> list[dict[str, object]]:
    """Each tool, whether it is available here and why not, and the answers
    the index caches for it (``cartog-ci stats``)."""
    out: list[dict[str, object]] = []
    for tool in _tools.detect(root):
        out.append({
            "tool": tool.name, "languages": tool.label, "available": tool.available, "version": tool.version or None,
            "why": tool.why or None, "cached_answers": store.compiler_answer_count(tool.name),
        })  # fmt: skip
    return out
