"""From a change set and the up-to-date graph to the report's content
(SPEC §6 steps 4-7): impacted callers, broken references, tests, related
code and a risk level that explains itself."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cartog_ci import graph
from cartog_ci.domain import Edge, ImpactNode, Symbol, SymbolChange
from cartog_ci.index.resolve import Resolver, SymbolTable
from cartog_ci.report.diff import ChangeSet
from cartog_ci.store.base import Store

RelatedFinder = Callable[[Symbol, int], list[tuple[Symbol, float]]]
REPORT_SCHEMA = 1
MAX_CALLERS_PER_SYMBOL = 25
MAX_TEST_IDS = 30
_IMPACTING = ("modified", "removed", "renamed")
_TEST_DIRS = re.compile(r"(^|/)(tests?|spec|specs|__tests__|testing)/")
_TEST_FILES = re.compile(
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*_test\.go|[^/]*\.(spec|test)\.[jt]sx?|"
    r"[^/]*_spec\.rb|[^/]*_test\.rb|[^/]*Tests?\.java|conftest\.py)$"
)


@dataclass(frozen=True)
class BrokenRef:
    edge: Edge
    old_target: Symbol
    change: str  # removed | renamed
    new_name: str | None = None


@dataclass
class ChangedSymbol:
    change: SymbolChange
    callers: list[ImpactNode] = field(default_factory=list)
    callers_total: int = 0
    tests: list[Symbol] = field(default_factory=list)
    related: list[tuple[Symbol, float]] = field(default_factory=list)
    in_degree: int = 0

    @property
    def symbol(self) -> Symbol:
        s = self.change.symbol or self.change.old
        assert s is not None
        return s

    @property
    def untested(self) -> bool:
        return (
            self.change.category in ("modified", "renamed", "added")
            and not self.tests
            and not is_test(self.symbol)
            and self.symbol.kind in ("function", "method")
        )


    @property
    def shown(self) -> bool:
        """Children-changed entries are implied by their changed children."""
        return self.change.category != "children_changed"


@dataclass
class Risk:
    level: str  # low | medium | high
    reasons: list[str]


@dataclass
class Report:
    changes: ChangeSet
    changed: list[ChangedSymbol]
    broken: list[BrokenRef]
    tests: list[Symbol]
    test_commands: list[str]
    risk: Risk
    depth: int
    unresolved_edges: int
    total_edges: int
    related_available: bool
    notes: list[str] = field(default_factory=list)


def is_test(symbol: Symbol) -> bool:
    path = symbol.file
    in_test_file = bool(_TEST_DIRS.search(path) or _TEST_FILES.search(path))
    if any(d.startswith(("#[test]", "@Test", "#[tokio::test]", "@ParameterizedTest")) for d in symbol.decorators):
        return True
    if symbol.kind not in ("function", "method"):
        return False
    name = symbol.name
    if symbol.language == "go":
        return path.endswith("_test.go") and name.startswith(("Test", "Benchmark", "Example"))
    if symbol.language == "python":
        return in_test_file and name.startswith("test")
    return in_test_file


def test_commands(tests: Sequence[Symbol]) -> list[str]:
    """Ready commands that run exactly these tests, where the language allows."""
    commands: list[str] = []
    py = [t for t in tests if t.language == "python"]
    if py:
        ids = sorted({f"{t.file}::{t.qualified_name.replace('.', '::')}" for t in py})
        if len(ids) > MAX_TEST_IDS:  # a readable command: whole files
            ids = sorted({t.file for t in py})
        commands.append("pytest " + " ".join(_shell_quote(i) for i in ids))
    go: dict[str, set[str]] = {}
    for t in tests:
        if t.language == "go":
            go.setdefault("./" + (posixpath.dirname(t.file) or "."), set()).add(t.name)
    for pkg, names in sorted(go.items()):
        commands.append(f"go test {_shell_quote(pkg)} -run {_shell_quote('^(' + '|'.join(sorted(names)) + ')$')}")
    js = sorted({t.file for t in tests if t.language in ("javascript", "typescript", "tsx")})
    if js:
        commands.append("npx jest " + " ".join(_shell_quote(f) for f in js))
    rust = sorted({t.name for t in tests if t.language == "rust"})
    for name in rust:
        commands.append(f"cargo test {_shell_quote(name)}")
    java = sorted({f"{t.qualified_name.rsplit('.', 1)[0]}#{t.name}" for t in tests if t.language == "java"})
    if java:
        commands.append(f"mvn test -Dtest={_shell_quote(','.join(java))}")
    ruby = sorted({f"{t.file}:{t.start_line}" for t in tests if t.language == "ruby"})
    if ruby:
        commands.append("bundle exec rspec " + " ".join(_shell_quote(r) for r in ruby))
    return commands


def _shell_quote(text: str) -> str:
    if re.fullmatch(r"[\w./:@%^$|()=,#+-]+", text) and not re.search(r"[|()$^]", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _base_resolver(store: Store, cs: ChangeSet) -> Resolver:
    """A resolver over the graph as it was at the merge-base, for the files
    the change touched (the rest of the graph is shared)."""
    changed = set(cs.files)
    symbols = [s for s in store.all_symbols() if s.file not in changed]
    symbols += [s for f in cs.base_files.values() for s in f.symbols]
    imports = [e for e in store.import_edges() if e.file not in changed]
    imports += [e for f in cs.base_files.values() for e in f.edges if e.kind == "imports"]
    table = SymbolTable.build(symbols, imports)
    table.root = cs.root  # as the indexer does: go.mod / Cargo.toml lookups
    resolver = Resolver(table)
    bases: dict[str, list[str]] = {}
    for e in [e for f in cs.base_files.values() for e in f.edges if e.kind == "inherits"]:
        target, _ = resolver.resolve(e)
        if target:
            bases.setdefault(e.source_id, []).append(target)
    for class_id, ids in store.bases().items():
        if class_id.split(":", 1)[0] not in changed:
            bases.setdefault(class_id, []).extend(ids)
    for class_id, ids in bases.items():
        resolver.set_bases(class_id, ids)
    return resolver


def broken_references(store: Store, cs: ChangeSet) -> list[BrokenRef]:
    """Call sites in the head that resolve to nothing, and that resolved to a
    symbol this change removed or renamed."""
    gone = {c.old.id: c for c in cs.by_category("removed", "renamed") if c.old is not None}
    if not gone:
        return []
    names = sorted({c.old.name for c in gone.values() if c.old is not None})
    candidates = store.unresolved_edges_named(names, aliases=True)
    aliases = {e.alias for e in candidates if e.kind == "imports" and e.alias}
    if aliases:
        candidates += store.unresolved_edges_named(sorted(aliases))
    resolver = _base_resolver(store, cs)
    out: list[BrokenRef] = []
    seen: set[tuple[str, int, str, str]] = set()
    for edge in candidates:
        key = (edge.file, edge.line, edge.source_id, edge.target_name)
        if key in seen:
            continue
        seen.add(key)
        target, _ = resolver.resolve(edge)
        change = gone.get(target or "")
        if change is None or change.old is None:
            continue
        new_name = change.symbol.qualified_name if change.symbol is not None else None
        out.append(BrokenRef(edge, change.old, change.category, new_name))
    out.sort(key=lambda b: (b.edge.file, b.edge.line, b.edge.source_id))
    return out


def _has_broken(item: ChangedSymbol, broken: list[BrokenRef]) -> bool:
    old = item.change.old
    return old is not None and any(b.old_target.id == old.id for b in broken)


def _risk(report_changed: list[ChangedSymbol], broken: list[BrokenRef], cs: ChangeSet) -> Risk:
    high: list[str] = []
    medium: list[str] = []
    low: list[str] = []
    if broken:
        files = len({b.edge.file for b in broken})
        high.append(f"{len(broken)} call site(s) in {files} file(s) still reference removed or renamed symbols")
    for c in report_changed:
        s = c.symbol
        if c.change.signature_changed and c.callers_total:
            direct = sum(1 for n in c.callers if n.depth == 1)
            target = high if direct >= 5 else medium
            target.append(f"signature of {s.qualified_name} changed; {direct} direct caller(s) may break")
        elif c.change.category == "renamed" and c.in_degree and not _has_broken(c, broken):
            old_name = c.change.old.qualified_name if c.change.old else s.qualified_name
            what = f"moved to {s.file}" if old_name == s.qualified_name else f"renamed to {s.qualified_name}"
            low.append(f"{old_name} was {what}; its {c.in_degree} reference(s) follow it")
    central = sorted((c for c in report_changed if c.change.category in _IMPACTING), key=lambda c: -c.in_degree)
    for c in central[:3]:
        if c.in_degree >= 10:
            medium.append(f"{c.symbol.qualified_name} is central ({c.in_degree} incoming references)")
    untested = [c for c in report_changed if c.untested]
    if untested:
        names = ", ".join(c.symbol.qualified_name for c in untested[:3])
        more = f" and {len(untested) - 3} more" if len(untested) > 3 else ""
        reason = f"no test reaches {len(untested)} changed function(s): {names}{more}"
        (medium if any(c.callers_total >= 3 for c in untested) else low).append(reason)
    if cs.unparsed:
        medium.append(
            f"{len(cs.unparsed)} changed file(s) could not be parsed on one side "
            f"(e.g. {cs.unparsed[0]}): their impact is unknown"
        )
    impacted = sum(c.callers_total for c in report_changed)
    if impacted > 50:
        medium.append(f"{impacted} impacted callers in total")
    if len(cs.changes) > 80:
        medium.append(f"large change: {len(cs.changes)} symbols")
    if high:
        return Risk("high", high + medium + low)
    if medium:
        return Risk("medium", medium + low)
    return Risk("low", low or ["no broken reference, no signature change with callers"])


def build_report(
    store: Store,
    cs: ChangeSet,
    *,
    depth: int = 3,
    related: RelatedFinder | None = None,
    related_limit: int = 3,
) -> Report:
    broken = broken_references(store, cs)
    changed: list[ChangedSymbol] = []
    all_tests: dict[str, Symbol] = {}
    for change in cs.changes:
        item = _changed_symbol(store, change, broken, depth)
        for t in item.tests:
            all_tests[t.id] = t
        if related is not None and change.symbol is not None and change.category in ("modified", "added", "renamed"):
            exclude = {change.symbol.id} | {n.symbol.id for n in item.callers}
            found = related(change.symbol, related_limit + len(exclude))
            item.related = [(s, score) for s, score in found if s.id not in exclude][:related_limit]
        changed.append(item)
    for c in changed:  # a changed test function is itself a test to run
        if c.change.symbol is not None and is_test(c.change.symbol) and c.change.category != "removed":
            all_tests[c.change.symbol.id] = c.change.symbol
    tests = sorted(all_tests.values(), key=lambda s: (s.file, s.start_line))
    counts = store.edge_counts()
    report = Report(
        changes=cs,
        changed=changed,
        broken=broken,
        tests=tests,
        test_commands=test_commands(tests),
        risk=_risk(changed, broken, cs),
        depth=depth,
        unresolved_edges=counts.unresolved,
        total_edges=counts.total,
        related_available=related is not None,
    )
    for path, reason in cs.skipped:
        report.notes.append(f"{path}: skipped ({reason})")
    if cs.unstaged_elsewhere:
        report.notes.append(
            f"callers include unstaged edits in {len(cs.unstaged_elsewhere)} other file(s) "
            f"(e.g. {cs.unstaged_elsewhere[0]}); git stash --keep-index for the staged graph alone"
        )
    return report


def _changed_symbol(store: Store, change: SymbolChange, broken: list[BrokenRef], depth: int) -> ChangedSymbol:
    item = ChangedSymbol(change)
    old_id = change.old.id if change.old is not None else None
    via_broken = [b.edge.source_id for b in broken if old_id is not None and b.old_target.id == old_id]
    if change.symbol is not None:
        current = store.symbol(change.symbol.id)
        item.in_degree = current.in_degree if current is not None else 0
    else:
        item.in_degree = len(via_broken)
    added_code = change.category == "added" and item.symbol.kind in ("function", "method")
    if (change.category not in _IMPACTING and not added_code) or item.symbol.kind == "module":
        return item
    nodes: list[ImpactNode] = []
    if change.category in ("modified", "renamed", "added") and change.symbol is not None:
        nodes = graph.impact(store, [change.symbol.id], depth=depth)
    known = {n.symbol.id for n in nodes}
    anchor = (old_id,) if old_id is not None else ()
    nodes += [
        ImpactNode(n.symbol, n.depth, anchor + n.path, n.via)
        for n in _impact_from_sources(store, via_broken, depth)
        if n.symbol.id not in known
    ]
    nodes.sort(key=lambda n: (n.depth, n.symbol.file, n.symbol.start_line, n.symbol.id))
    item.callers_total = len(nodes)
    item.callers = nodes[:MAX_CALLERS_PER_SYMBOL]
    item.tests = [n.symbol for n in nodes if is_test(n.symbol)]
    return item


def _impact_from_sources(store: Store, roots: list[str], depth: int) -> list[ImpactNode]:
    """Callers reached from call sites (the sources of broken references are
    depth 1; their own callers follow)."""
    sources = [r for r in roots if store.symbol(r) is not None]
    if not sources:
        return []
    first = store.symbols(sources)
    nodes = [ImpactNode(first[s], 1, (s,), "calls") for s in sources if s in first]
    if depth > 1:
        for n in graph.impact(store, sources, depth=depth - 1):
            nodes.append(ImpactNode(n.symbol, n.depth + 1, n.path, n.via))
    seen: set[str] = set()
    unique = []
    for n in nodes:
        if n.symbol.id not in seen:
            seen.add(n.symbol.id)
            unique.append(n)
    return unique
