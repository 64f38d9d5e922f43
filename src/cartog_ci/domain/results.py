"""What the report answers: changes, callers, broken references, risk,
coverage. Kept apart from the graph's own value objects
(``cartog_ci.domain``) so that a command that only indexes does not pay for
building these classes at start-up.

What other commands answer (statistics, name matches, hierarchies,
dependencies, verification: domain/answers.py) and a search hit
(domain/hits.py) are defined apart: every report builds this module's
classes at start-up, and a frozen dataclass costs ~1 ms to build (its
methods are compiled one by one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cartog_ci.domain import Edge, FileExtraction, Symbol, symbol_json
# the report's modules take these from here; visible.py defines them for the indexer's too
from cartog_ci.domain.visible import NAME as NAME, named as named

# Finds code similar to a changed symbol: (symbol, limit) -> (similar, score).
RelatedFinder = Callable[[Symbol, int], list[tuple[Symbol, float]]]


@dataclass(frozen=True, slots=True)
class ImpactNode:
    symbol: Symbol
    depth: int
    path: tuple[str, ...]  # symbol IDs from the root to this node
    via: str = "calls"
    # "compiler": a caller the compiler tier found (docs/report.md), not an edge of the graph
    tier: str = ""


def impact_node_json(n: ImpactNode) -> dict[str, object]:
    """The public JSON form of a reached symbol (``impact --json``, the report's callers)."""
    return symbol_json(n.symbol) | {"depth": n.depth, "path": list(n.path), "via": n.via} | (
        {"tier": n.tier} if n.tier else {}
    )


@dataclass(frozen=True, slots=True)
class SymbolChange:
    category: str  # added | modified | removed | renamed | docs (documentation or formatting only) | children_changed
    symbol: Symbol | None  # head version (None when removed)
    old: Symbol | None = None  # base version (None when added)
    signature_changed: bool = False
    moved_from: str | None = None
    # breaking | compatible (every call that worked still works) | "" (no change callers see)
    signature_verdict: str = ""

    @property
    def breaking(self) -> bool:
        return self.signature_verdict == "breaking"


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a commit, the git index, or the work tree."""

    kind: str  # commit | staged | worktree
    commit: str | None = None
    label: str = ""


@dataclass(frozen=True, slots=True)
class Comparison:
    """What a report compares: the merge-base of a base ref with a head side."""

    base_ref: str
    base_label: str  # how the base was chosen ("--base", "the remote's default branch" ...)
    merge_base: str
    head: Side


@dataclass
class ChangeSet:
    """The symbol diff of a change, with what was read to compute it."""

    base_label: str
    base_ref: str
    merge_base: str
    head: Side
    files: list[str] = field(default_factory=list)
    changes: list[SymbolChange] = field(default_factory=list)
    base_files: dict[str, FileExtraction] = field(default_factory=dict)
    head_files: dict[str, FileExtraction] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    base_sources: dict[str, bytes] = field(default_factory=dict)
    head_sources: dict[str, bytes] = field(default_factory=dict)
    root: str = ""  # the repository (module finders read go.mod / Cargo.toml there)
    unparsed: list[str] = field(default_factory=list)  # present at head, unreadable
    # (path, first line, last line, definitions): a head file's lines its
    # grammar cannot read, holding names of base definitions not compared
    unread: list[tuple[str, int, int, int]] = field(default_factory=list)
    unread_names: set[str] = field(default_factory=set)  # names written in those lines
    # head file -> the byte ranges its grammar could not read, once parsed for them
    unread_spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    not_checked_out: list[str] = field(default_factory=list)  # head differs from the work tree
    unstaged_elsewhere: list[str] = field(default_factory=list)  # --staged: other files' edits

    def by_category(self, *categories: str) -> list[SymbolChange]:
        return [c for c in self.changes if c.category in categories]


@dataclass(frozen=True)
class BrokenRef:
    """A call site in the head still pointing at a removed or renamed symbol."""

    edge: Edge
    old_target: Symbol
    change: str  # removed | renamed
    new_name: str | None = None


@dataclass(frozen=True)
class CallSite:
    """A direct call of a function whose signature changed, checked against
    the new signature (report/callsites.py)."""

    edge: Edge
    target: Symbol
    verdict: str  # "will break" | "fine" | "" (cannot be told)
    reason: str = ""


@dataclass
class ChangedSymbol:
    change: SymbolChange
    callers: list[ImpactNode] = field(default_factory=list)
    callers_total: int = 0
    tests: list[Symbol] = field(default_factory=list)
    related: list[tuple[Symbol, float]] = field(default_factory=list)
    in_degree: int = 0
    # recorded coverage at the base shows no test executed it (report/build.py
    # decides): a fact, said with the coverage's commit; never a graph guess
    untested: bool = False
    # no test calls it within the test depth in the graph and no test is its
    # own: what the graph knows, never a verdict (framework dispatch is
    # invisible to it, docs/report.md "Tests to run")
    unreached: bool = False
    # the tests whose recorded run executed it (its version at the base)
    covered_by: list[Symbol] = field(default_factory=list)
    # the recording shows it ran at import or collection (coverage.py's empty
    # context, no test named): the tests of the files whose import imports
    # its file (report/coverage.py importing_tests)
    imported_by: list[Symbol] = field(default_factory=list)
    # the recording read holds an older body than the base's (it changed
    # between the recording and the base): no "untested" from it
    recorded_older: bool = False
    # the recording shows no test executed it, but a script entry reaches it
    # (report/entries.py): a test may run it in a child process the recording
    # does not see, so it is not "untested"; how the entry reaches it
    script_entry: str = ""
    type_uses: int = 0  # places that name it as a type (annotations): not callers
    possible_callers: int = 0  # unresolved call sites that carry its name
    possible_production_callers: int = 0  # of those, outside test files
    # those divided by the project's definitions of the name (report/build.py)
    likely_unseen_callers: float = 0.0
    production_callers: int = 0  # direct callers outside tests
    compiler_callers: int = 0  # of the direct callers, those only the compiler tier found
    call_sites: list[CallSite] = field(default_factory=list)  # with a signature change
    # module rows, Markdown sections, test code: folded in the PR comment
    low_signal: bool = False

    def sites(self, verdict: str) -> list[CallSite]:
        return [c for c in self.call_sites if c.verdict == verdict]

    @property
    def no_known_test(self) -> bool:
        """The graph shows no test within the test depth and no recorded
        coverage says either way: said as that, never as "untested"."""
        return (
            self.unreached and not self.untested and not self.script_entry and not self.covered_by and not self.imported_by
        )

    @property
    def symbol(self) -> Symbol:
        s = self.change.symbol or self.change.old
        assert s is not None
        return s

    @property
    def shown(self) -> bool:
        """In the changed-symbols table: children-changed entries are implied
        by their changed children; documentation-only ones get one line."""
        return self.change.category not in ("children_changed", "docs")


@dataclass(frozen=True)
class CoverageRun:
    """One recording of which tests executed which symbols, on one commit
    (``cartog-ci coverage import``, docs/coverage.md)."""

    commit: str
    imported_at: str
    contexts: int  # the recording's tests (per-test contexts)
    files: int  # the measured files of the repository


@dataclass(frozen=True)
class RecordedSymbol:
    """What a recording says of one symbol of a measured file: its content
    hash then, the tests (symbol IDs) whose run executed it, the contexts
    that named no test the index knows, and its lines' tests."""

    symbol_id: str
    content_hash: str
    tests: tuple[str, ...] = ()
    unknown_contexts: tuple[str, ...] = ()
    # its body's lines by the tests that executed them ("3-5,9", tests),
    # lines after its first (report/coverage.py line_groups): none for a
    # recording imported without them, or another language's
    line_groups: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def executed(self) -> bool:
        return bool(self.tests or self.unknown_contexts)


@dataclass(frozen=True)
class CoverageUse:
    """The recorded coverage a report read (store/coverage.py): the commit it
    was recorded on, and whether that is the base itself (else an ancestor of
    it: symbols changed in between keep their tests, never "untested")."""

    commit: str
    at_base: bool
    contexts: int  # tests (contexts) the recording holds


@dataclass
class Risk:
    level: str  # low | medium | high
    reasons: list[str]


@dataclass(frozen=True)
class TierRun:
    """What the compiler tier did for one tool in a report (docs/report.md,
    "The compiler tier"), or why it could not."""

    tool: str  # "typescript" | "jedi"
    label: str  # the languages it answers for
    version: str = ""
    why: str = ""  # not available: why, in one line
    asked: int = 0  # call sites the report needed answered
    answered: int = 0  # of those, answered (from the cache or the tool)
    cached: int = 0  # of those answered, from the cache
    failure: str = ""  # the tool stopped before answering all: why
    timed_out: bool = False  # stopped by the budget
    budget: float = 0.0
    seconds: float = 0.0
    callers: int = 0  # direct callers it found that the graph did not have

    def sentence(self) -> str:
        if self.why:
            return f"compiler tier not available for {self.label}: {self.why}"
        head = f"compiler tier ({self.tool} {self.version})".replace(" )", ")")
        said = f"{head}: {self.answered} of {self.asked} call site(s) answered"
        said += f" ({self.cached} from the cache)" if self.cached else ""
        said += f", {self.callers} caller(s) the graph did not have" if self.callers else ""
        said += f", in {self.seconds:.1f} s" if self.seconds >= 0.05 else ""
        if self.answered < self.asked:
            why = f"not finished within the {self.budget:g} s budget" if self.timed_out else self.failure or "no answer"
            said += f"; {self.asked - self.answered} unanswered: {why}"
        return said

    def json(self) -> dict[str, object]:
        return {
            "tool": self.tool, "languages": self.label, "available": not self.why, "why": self.why or None,
            "version": self.version or None, "asked": self.asked, "answered": self.answered, "cached": self.cached,
            "callers": self.callers, "unanswered": self.asked - self.answered,
            "failure": ("budget" if self.timed_out else self.failure) or None, "seconds": round(self.seconds, 3),
        }  # fmt: skip


@dataclass
class Report:
    changes: ChangeSet
    changed: list[ChangedSymbol]
    broken: list[BrokenRef]
    tests: list[Symbol]  # that reach the change, within ``test_depth`` or by recorded coverage
    test_commands: list[str]
    risk: Risk
    depth: int
    unresolved_edges: int
    total_edges: int
    related_available: bool
    notes: list[str] = field(default_factory=list)
    tests_more: int = 0  # tests at ``test_depth + 1``, not in the commands
    tests_run: int = 0  # tests the commands run (a whole file runs all of its)
    test_depth: int = 2  # callers away from the change that a test is run (report/testplan.py)
    tests_edited: list[Symbol] = field(default_factory=list)  # tests the change itself edited
    # test ID -> what chose it: "graph", "coverage", "import", "process", "fixture", "doctest" (report/build.py)
    chosen_by: dict[str, tuple[str, ...]] = field(default_factory=dict)
    coverage: CoverageUse | None = None  # the recorded coverage the report used
    compiler_tier: list[TierRun] = field(default_factory=list)  # per tool the change needed
    # whether the repository holds a test file (an sdist or npm tarball that
    # ships none: "no test calls X" would be true of every function)
    test_files: bool = True
    # the work tree's uncommitted files (not the index's own) when the index
    # was brought up to date for the report, and HEAD then (commands/report.py)
    uncommitted: list[str] = field(default_factory=list)
    uncommitted_head: str | None = None

    @property
    def reaching(self) -> list[Symbol]:
        """The tests that reach the change: ``tests`` and the edited tests
        that also call it (``chosen_by`` names what else chose them), by file
        and line."""
        also = [t for t in self.tests_edited if self.chosen_by.get(t.id)]
        return sorted(self.tests + also, key=lambda s: (s.file, s.start_line, s.id))

    @property
    def covered_ids(self) -> set[str]:
        """The tests chosen because their recorded run executed the change."""
        return {i for i, by in self.chosen_by.items() if "coverage" in by}

    @property
    def imported_ids(self) -> set[str]:
        """The tests chosen because their files import code the recording
        shows running at import (report/coverage.py importing_tests)."""
        return {i for i, by in self.chosen_by.items() if "import" in by}

    @property
    def process_ids(self) -> set[str]:
        """The tests chosen because they start a changed script entry as a
        process (report/process_tests.py)."""
        return {i for i, by in self.chosen_by.items() if "process" in by}

    @property
    def fixture_ids(self) -> set[str]:
        """The tests chosen because they use a changed pytest fixture
        (report/fixture_tests.py)."""
        return {i for i, by in self.chosen_by.items() if "fixture" in by}

    @property
    def doctest_ids(self) -> set[str]:
        """The doctests chosen because they are a changed function's own
        docstring's examples, which the project runs (report/doctests.py)."""
        return {i for i, by in self.chosen_by.items() if "doctest" in by}

    @property
    def doctest_runner(self) -> str:
        """What runs the chosen doctests, as the report says it: "the
        project runs with --doctest-modules" (pytest), "cargo test runs"
        (rustdoc), both joined."""
        languages = {t.language for t in self.tests if t.id in self.doctest_ids}
        said = {"python": "the project runs with --doctest-modules", "rust": "cargo test runs"}
        return " or ".join(said[x] for x in sorted(languages) if x in said)

    @property
    def graph_ids(self) -> set[str]:
        """The tests chosen because they call the change within ``test_depth``."""
        return {i for i, by in self.chosen_by.items() if "graph" in by}

    @property
    def will_break(self) -> list[CallSite]:
        """Call sites whose arguments no longer bind, by file and line."""
        sites = [s for c in self.changed for s in c.call_sites if s.verdict == "will break"]
        return sorted(sites, key=lambda s: (s.edge.file, s.edge.line, s.edge.source_id))


