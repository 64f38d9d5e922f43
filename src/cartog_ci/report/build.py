"""From a change set and the up-to-date graph to the report's content
(docs/report.md, steps 4-7): impacted callers, broken references, tests, related
code and a risk level that explains itself."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import graph, languages
from cartog_ci.domain import CALLABLE_KINDS, TYPE_KINDS, Symbol
from cartog_ci.domain.results import (
    named,
    BrokenRef,
    ChangedSymbol,
    ChangeSet,
    CoverageUse,
    ImpactNode,
    RelatedFinder,
    Report,
    Risk,
    SymbolChange,
)
from cartog_ci.index.files import Limits
from cartog_ci.index.resolve import EXTERNAL
from cartog_ci.languages import is_test, test_plan
from cartog_ci.report.base_graph import base_resolver
from cartog_ci.report.diff import still_declared, unreadable_spans
from cartog_ci.report.callsites import check_call_sites
from cartog_ci.languages.testrunners import DOCTEST, Workspace
from cartog_ci.report.doctests import own_doctests, recorded_doctests
from cartog_ci.report.fixture_tests import fixture_tests
from cartog_ci.report.entries import ScriptEntries, started_tests
from cartog_ci.report.reads import Reads, remembering
from cartog_ci.report.inherited_tests import CollectedTests
from cartog_ci.report.testplan import TEST_DEPTH, RanTests, own_tests, select_tests

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.precise import CompilerTier, Findings
    from cartog_ci.store.base import Store

# 2: tests carry chosen_by, test_depth and tests_more replace tests_more_at_depth_3,
# untested is recorded coverage's (unreached is the graph's), coverage
REPORT_SCHEMA = 2
MAX_CALLERS_PER_SYMBOL = 25
_IMPACTING = ("modified", "removed", "renamed")
_WALKED_UP = ("modified", "renamed", "added")  # the changes whose callers are walked from the head's symbol


def by_weight(changed: list[ChangedSymbol]) -> list[ChangedSymbol]:
    """What a reader needs first: removed-and-referenced or breaking, then
    by callers outside tests, then by callers (the JSON keeps the diff's order)."""

    def weight(item: ChangedSymbol) -> tuple[int, bool, int, int]:
        unchecked = any(site.verdict == "" for site in item.call_sites)
        urgent = (
            item.change.category == "removed" and item.in_degree > 0
            or bool(item.sites("will break"))
            or item.change.breaking and item.callers_total > 0 and (unchecked or not item.call_sites)
        )
        # new code has no caller that relied on it before: after changed code
        return (0 if urgent else 1, item.change.category == "added", -item.production_callers, -item.callers_total)

    return sorted(changed, key=weight)


# breaking changes whose call sites could not all be checked: a sentence
# each for this many names of a level, one for the rest
MAX_UNCHECKED_SENTENCES = 3
# a declaration file describes code written elsewhere (a .pyi stub beside
# its module, a .d.ts beside its JavaScript): no test runs what it declares
DECLARATION_FILES = (".pyi", ".d.ts", ".d.mts", ".d.cts")


def is_unreached(item: ChangedSymbol) -> bool:
    """Changed code (a function or method, no test itself, not a
    declaration) that no test calls within ``TEST_DEPTH`` in the graph: what
    the graph knows, not a verdict (a test may reach it through framework
    dispatch the graph cannot see)."""
    return (
        item.change.category in ("modified", "renamed", "added")
        and not item.tests
        and not is_test(item.symbol)
        and item.symbol.kind in ("function", "method")
        and not item.symbol.file.endswith(DECLARATION_FILES)
    )


def broken_references(store: Store, cs: ChangeSet) -> list[BrokenRef]:
    """Call sites in the head that resolve to nothing, and that resolved to a
    symbol this change removed or renamed."""
    gone = {
        c.old.id: c
        for c in cs.by_category("removed", "renamed")
        if c.old is not None and not (c.category == "removed" and _still_bound(cs, c.old))
    }
    if not gone:
        return []
    names = sorted({c.old.name for c in gone.values() if c.old is not None})
    candidates = store.unresolved_edges_named(names, aliases=True)
    aliases = {e.alias for e in candidates if e.kind == "imports" and e.alias}
    if aliases:
        candidates += store.unresolved_edges_named(sorted(aliases))
    # an edge the head resolves outside the project reaches something that
    # exists (`super().__init__()` of a class whose base became `dict`)
    candidates = [e for e in candidates if e.resolution != EXTERNAL]
    if not candidates:
        return []
    resolver = base_resolver(store, cs)
    out: list[BrokenRef] = []
    seen: set[tuple[str, int, str, str]] = set()
    for edge in candidates:
        key = (edge.file, edge.line, edge.source_id, edge.target_name)
        if key in seen:
            continue
        seen.add(key)
        target, tier = resolver.resolve(edge)
        change = gone.get(target or "")
        if change is None or change.old is None:
            continue
        if tier in NAME_GUESSES and _defined_elsewhere(store, change.old, gone):
            continue
        if change.old.name in cs.unread_names or _unreadable_at(cs, edge.file, edge.line):
            continue  # the head may define it, or the site be, where its grammar reads nothing
        new_name = change.symbol.qualified_name if change.symbol is not None else None
        out.append(BrokenRef(edge, change.old, change.category, new_name))
    out.sort(key=lambda b: (b.edge.file, b.edge.line, b.edge.source_id))
    return out


def _unreadable_at(cs: ChangeSet, path: str, line: int) -> bool:
    """Whether ``line`` of a changed head file lies in what its grammar
    cannot read (report/diff.py ``unreadable_spans``, parsed once a file):
    a site read from there is no fact (redux-toolkit 2.2.7's
    listenerMiddleware/types.ts)."""
    source = cs.head_sources.get(path)
    if source is None:
        return False
    spans = cs.unread_spans.get(path)
    if spans is None:
        spans = cs.unread_spans[path] = unreadable_spans(path, source, Limits().timeout_ms)
    return any(source.count(b"\n", 0, a) + 1 <= line <= source.count(b"\n", 0, b) + 1 for a, b in spans)


# Tiers whose answer is a guess by the name alone (domain.TIERS): at the base,
# the one definition the name could be; not proof of which one a site calls
NAME_GUESSES = ("same_dir", "unique")


def _defined_elsewhere(store: Store, old: Symbol, gone: dict[str, SymbolChange]) -> bool:
    """Whether the head still defines ``old``'s name elsewhere, in its
    language family: a site the base answered by the name alone may call
    that one (redux-toolkit 2.2.7 bundled its dist/*.d.ts into one file: a
    test's `selectIdValue` from `await import('../utils')` had been guessed
    to dist/entities/utils.d.ts, while src/entities/utils.ts still defines
    it)."""
    family = languages.scope_of(old.language).family or old.language
    return any(
        s.id not in gone
        and s.kind not in ("module", "section")
        and (languages.scope_of(s.language).family or s.language) == family
        for s in store.symbols_by("name", old.name)
    )


def _still_bound(cs: ChangeSet, old: Symbol) -> bool:
    """A removed definition whose scope (its class, or its module) still
    binds its name by an assignment at the head: its callers still reach
    something (pyparsing 3.1.2: 1,184 call sites of `setParseAction`, `oneOf`
    … "still call removed code", which became assigned wrappers); a
    function's local, a member of what the function still returns."""
    head = cs.head_files.get(old.file)
    if head is None:
        return False
    owner = old.qualified_name.rpartition(".")[0]
    scope = None
    if owner:
        scope = next(
            (s for s in head.symbols if s.qualified_name == owner and (s.kind in TYPE_KINDS or s.kind in CALLABLE_KINDS)),
            None,
        )
        if scope is None:
            return False
    return still_declared(cs, old, scope)


def _has_broken(item: ChangedSymbol, broken: list[BrokenRef]) -> bool:
    old = item.change.old
    return old is not None and any(b.old_target.id == old.id for b in broken)


MAX_NAMED = 3


def _names(items: list[str]) -> str:
    """The names, each once: one defined in several files (a package's
    build/ copies of src/) says how many definitions it stands for."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    unique = list(counts)
    shown = ", ".join(
        named(i) + (f" ({counts[i]} definitions)" if counts[i] > 1 else "") for i in unique[:MAX_NAMED]
    )
    return shown + (f" and {len(unique) - MAX_NAMED} more" if len(unique) > MAX_NAMED else "")


def _still_fitting(fitting: list[tuple[Symbol, int]]) -> list[str]:
    """A sentence per breaking change whose call sites all still fit, or one
    for them all past two (httpx 0.28 changed the keywords of 25 functions:
    one sentence, not 25)."""
    def outside(symbols: list[Symbol]) -> str:
        return "" if all(s.name.startswith("_") for s in symbols) else " (callers outside it may not)"

    if len(fitting) <= 2:
        return [
            f"breaking signature change of {named(s.qualified_name)}: all {n} call site(s) in the repository "
            f"still fit{outside([s])}"
            for s, n in fitting
        ]
    symbols = [s for s, _ in fitting]
    return [
        f"breaking signature change of {len(fitting)} functions: all {sum(n for _, n in fitting)} call site(s) in "
        f"the repository still fit{outside(symbols)}: {_names([s.qualified_name for s in symbols])}"
    ]


MAX_MOVE_SENTENCES = 3  # past them, one sentence for the other moves


def _moves(moved: list[ChangedSymbol]) -> list[str]:
    """One sentence per moved symbol (its name kept), or per directory whose
    files moved together (requests 2.32 moved `requests/` under `src/`: one
    sentence, not 300)."""
    groups: dict[tuple[str, str], list[ChangedSymbol]] = {}
    for c in moved:
        assert c.change.old is not None
        old, new = Path(c.change.old.file), Path(c.symbol.file)
        # a file moved under its own name groups by directory, else by file
        key = (old.parent.as_posix(), new.parent.as_posix()) if old.name == new.name else (old.as_posix(), new.as_posix())
        groups.setdefault(key, []).append(c)
    out = []
    if len(groups) > MAX_MOVE_SENTENCES + 1:
        # redux-toolkit 2.2.7 bundled its dist/*.d.ts into dist/index.d.ts: 26 such sentences
        rest = list(groups.items())[MAX_MOVE_SENTENCES:]
        groups = dict(list(groups.items())[:MAX_MOVE_SENTENCES])
        items = [c for _, group in rest for c in group]
        files = len({c.change.old.file for c in items if c.change.old is not None})
        folded = [
            f"{len(items)} more symbols were moved, from {files} file(s): {_names([c.symbol.qualified_name for c in items])}; "
            f"their {sum(c.in_degree for c in items)} reference(s) follow them"
        ]
    else:
        folded = []
    for (was, now), items in groups.items():
        refs = sum(c.in_degree for c in items)
        if len(items) == 1:
            out.append(f"{named(items[0].symbol.qualified_name)} was moved to {named(items[0].symbol.file)}; its {refs} reference(s) follow it")
            continue
        files = len({c.symbol.file for c in items})
        where = f"from {named(was)} to {named(now)}" if files == 1 else f"from {named(was + '/')} to {named(now + '/')} ({files} files)"
        names = _names([c.symbol.qualified_name for c in items])
        out.append(f"{len(items)} symbols were moved {where}: {names}; their {refs} reference(s) follow them")
    return out + folded


def _risk(
    report_changed: list[ChangedSymbol], broken: list[BrokenRef], cs: ChangeSet, coverage: CoverageUse | None = None
) -> Risk:
    """A level and its reasons as plain sentences, the most important first."""
    high: list[str] = []
    medium: list[str] = []
    low: list[str] = []
    if broken:
        files = len({b.edge.file for b in broken})
        gone = sorted({b.old_target.qualified_name for b in broken})
        high.append(f"{len(broken)} call site(s) in {files} file(s) still call removed or renamed code: {_names(gone)}")
    for c in report_changed:
        will_break = c.sites("will break")
        if will_break:
            first = will_break[0]
            high.append(
                f"{len(will_break)} call site(s) of {named(c.symbol.qualified_name)} no longer fit its new signature "
                f"({named(f'{first.edge.file}:{first.edge.line}')}: {first.reason})"
            )
    moved: list[ChangedSymbol] = []  # renamed without a new name, their references following
    fitting: list[tuple[Symbol, int]] = []  # breaking, every call site in the repository still fitting
    # breaking, some call sites unchecked: (level, name) -> [definitions, unchecked, call sites]
    unchecked: dict[tuple[str, str], list[int]] = {}
    # names some changed definition of which has resolved callers: their
    # unresolved sites are said with those (ajv's lib/… .ts and dist/… .d.ts)
    resolved_names = {c.symbol.qualified_name for c in report_changed if c.callers_total}
    # breaking, no call site resolved: name -> its definitions (Java overloads are one name)
    unresolved: dict[str, list[ChangedSymbol]] = {}
    renames: dict[tuple[str, str], list[int]] = {}  # (old name, new name) -> references of each definition
    for c in report_changed:
        s = c.symbol
        # a JS/TS function named as a value has call sites and no caller
        # (report/callsites.py); with unresolved sites of its name, those are said
        if c.change.breaking and (c.callers_total or c.call_sites and not c.possible_callers) and not c.sites("will break"):
            unknown = [site for site in c.call_sites if site.verdict == ""]
            fine = c.sites("fine")
            if unknown:
                # a test helper's callers are tests: the test run will tell
                level = "low" if c.low_signal else "high" if c.production_callers >= 5 else "medium"
                counts = unchecked.setdefault((level, s.qualified_name), [0, 0, 0])
                counts[0] += 1
                counts[1] += len(unknown)
                counts[2] += len(c.call_sites)
            elif fine:
                fitting.append((s, len(fine)))
        elif (
            c.change.breaking and not c.callers_total and c.possible_callers and not c.low_signal
            and s.qualified_name not in resolved_names
        ):  # fmt: skip
            # no call site resolved, some of the name did not: none was checked
            # (pino 9.4: `child (bindings, …)` -> `child (setOpts, bindings, …)`, 72 sites named child)
            unresolved.setdefault(s.qualified_name, []).append(c)
        elif c.change.category == "renamed" and c.in_degree and not c.low_signal and not _has_broken(c, broken):
            # test code's renames are folded with it (Django 5.1 -> 5.1.4: a renamed
            # test class's local classes were four of the risk's first reasons)
            old_name = c.change.old.qualified_name if c.change.old else s.qualified_name
            if old_name == s.qualified_name:
                moved.append(c)
            else:
                renames.setdefault((old_name, s.qualified_name), []).append(c.in_degree)
    # one sentence a name: trpc's constant renamed in src/ and in its dist/ copies is one rename
    for (old_name, new_name), degrees in renames.items():
        if len(degrees) == 1:
            low.append(f"{named(old_name)} was renamed to {named(new_name)}; its {degrees[0]} reference(s) follow it")
        else:
            low.append(
                f"{named(old_name)} was renamed to {named(new_name)} ({len(degrees)} definitions); "
                f"their {sum(degrees)} reference(s) follow them"
            )
    levels = {"high": high, "medium": medium, "low": low}
    # past the first few names of a level, one sentence for the rest
    per_level = Counter(level for level, _ in unchecked)
    named_at: Counter[str] = Counter()
    said: dict[str, list[tuple[str, int, int]]] = {}  # level -> (name, unchecked, sites) of the rest
    for (level, name), (definitions, unchecked_sites, sites) in unchecked.items():
        if named_at[level] >= MAX_UNCHECKED_SENTENCES and per_level[level] > MAX_UNCHECKED_SENTENCES + 1:
            said.setdefault(level, []).append((name, unchecked_sites, sites))
            continue
        named_at[level] += 1
        # one sentence per name: viper's hcl, json and yaml `Codec.Encode` are one change three times
        if definitions > 1:
            of = f"{named(name)} ({definitions} definitions): {unchecked_sites} of their"
        else:
            of = f"{named(name)}: {unchecked_sites} of its"
        levels[level].append(f"breaking signature change of {of} {sites} call site(s) could not be checked")
    for level, rest in said.items():
        # commons-lang3 3.12 -> 3.17: 29 such sentences, one a line
        levels[level].append(
            f"breaking signature change of {len(rest)} more functions: {sum(u for _, u, _ in rest)} of their "
            f"{sum(n for _, _, n in rest)} call site(s) could not be checked: {_names([n for n, _, _ in rest])}"
        )
    for name, group in unresolved.items():
        c = group[0]  # the sites are those of the name: the same for each definition
        where = f"{c.possible_production_callers} outside tests" if c.possible_production_callers else "all in tests"
        declared = all(g.symbol.file.endswith(DECLARATION_FILES) for g in group)  # types only
        of = f"{named(name)} ({len(group)} definitions)" if len(group) > 1 else named(name)
        (medium if max(g.likely_unseen_callers for g in group) >= 3 and not declared else low).append(
            f"breaking signature change of {of}: no call site resolved to it; "
            f"{c.possible_callers} call site(s) named {named(c.symbol.name)} stayed unresolved ({where})"
        )
    low += _still_fitting(fitting)
    low += _moves(moved)
    # central = called from much production code; tests and test helpers do not count
    # (a move or rename whose references follow it changes no behaviour)
    central = sorted(
        (c for c in report_changed if c.change.category == "modified" and not _in_test_code(c.symbol)),
        key=lambda c: -c.production_callers,
    )
    # one sentence a name: zod's addIssueToContext in lib/index.mjs and in
    # lib/index.umd.js (a package's builds) was said twice, alike
    central_names = Counter(c.symbol.qualified_name for c in central if c.production_callers >= 10)
    for name in list(central_names)[:2]:
        callers = {c.production_callers for c in central if c.symbol.qualified_name == name and c.production_callers >= 10}
        of = f"{named(name)} ({central_names[name]} definitions)" if central_names[name] > 1 else named(name)
        most = "up to " if len(callers) > 1 else ""
        medium.append(f"{of} is central: {most}{max(callers)} direct callers outside tests")
    # only recorded coverage says "untested" (docs/coverage.md); the graph's
    # "no test within 2 calls" is no reason: framework dispatch hides tests
    untested = [c for c in report_changed if c.untested and not c.low_signal]
    if untested and coverage is not None:
        reason = (
            f"coverage recorded at {coverage.commit[:12]} shows no test executed {len(untested)} changed "
            f"function(s): {_names([c.symbol.qualified_name for c in untested])}"
        )
        (medium if any(c.production_callers >= 3 for c in untested) else low).append(reason)
    # "0 callers" is not said when call sites of the name stayed unresolved;
    # it weighs when some of those are outside tests
    by_name: dict[str, list[ChangedSymbol]] = {}
    for c in report_changed:
        # a breaking change's unresolved sites are said above, with its signature
        if c.unreached and not c.callers_total and c.possible_callers and not c.low_signal and not c.change.breaking:
            by_name.setdefault(c.symbol.name, []).append(c)
    unknown_callers = sorted(by_name.values(), key=lambda group: -max(c.likely_unseen_callers for c in group))
    for group in unknown_callers[:2]:
        c = group[0]  # the sites are those of the name: the same for each
        where = f", {c.possible_production_callers} outside tests" if c.possible_production_callers else ", all in tests"
        (medium if max(g.likely_unseen_callers for g in group) >= 3 else low).append(
            f"{c.possible_callers} call site(s) named {named(c.symbol.name)} could not be resolved{where}: "
            f"{_names([g.symbol.qualified_name for g in group])} may have callers the graph does not show"
        )
    if cs.unread:
        path, from_line, to_line, _ = cs.unread[0]
        medium.append(
            f"{sum(u[3] for u in cs.unread)} definition(s) in {len(cs.unread)} file(s) not compared: the grammar "
            f"cannot read their lines at the head (e.g. {named(path)}, lines {from_line}-{to_line}): their impact is unknown"
        )
    if cs.unparsed:
        medium.append(
            f"{len(cs.unparsed)} changed file(s) could not be parsed on one side "
            f"(e.g. {named(cs.unparsed[0])}): their impact is unknown"
        )
    shown = sum(1 for c in report_changed if c.shown and not c.low_signal)  # the table's count
    if shown > 80:
        medium.append(f"large change: {shown} changed symbols outside tests")
    if high:
        return Risk("high", high + medium + low)
    if medium:
        return Risk("medium", medium + low)
    return Risk("low", low or ["no broken reference and no call site that no longer fits"])


def _js_test(test: Symbol) -> bool:
    """A test jest's group of languages runs (JavaScript, TypeScript)."""
    language = languages.LANGUAGES.get(test.language)
    return language is not None and language.test_runner == "jest"


def _one_test_per_js_file(
    edited: list[Symbol], tests: list[Symbol], chosen_by: dict[str, tuple[str, ...]], modules: dict[str, Symbol]
) -> tuple[list[Symbol], list[Symbol], dict[str, tuple[str, ...]]]:
    """A JavaScript/TypeScript test file is one test, its module (what its
    command runs, docs/report.md "Tests to run"): its functions chosen or
    edited are helpers, listed as their file, edited when one of them is,
    chosen by what chose any of them. zod 4.5.4 -> 4.6.0: "140 reach the
    change … 115 edited … the commands run 97" counted 52 symbols of
    compile-generative.test.ts (mulberry32, leaf.valid …); now 97 files."""
    module_of = {t.id: modules[t.file] for t in edited + tests if _js_test(t) and t.file in modules}
    edited_files = {t.file for t in edited if t.id in module_of}
    merged = {i: by for i, by in chosen_by.items() if i not in module_of}
    for t in edited + tests:
        if t.id in module_of:
            m = module_of[t.id].id
            merged[m] = tuple(dict.fromkeys(merged.get(m, ()) + chosen_by.get(t.id, ())))

    def listed(items: list[Symbol]) -> list[Symbol]:
        out: dict[str, Symbol] = {}
        for t in items:
            m = module_of.get(t.id, t)
            out.setdefault(m.id, m)
        return sorted(out.values(), key=lambda s: (s.file, s.start_line, s.id))

    new_edited = listed(edited + [t for t in tests if t.id in module_of and t.file in edited_files])
    new_tests = listed([t for t in tests if t.id not in module_of or t.file not in edited_files])
    return new_edited, new_tests, {i: by for i, by in merged.items() if by}


def build_report(
    store: Store,
    cs: ChangeSet,
    *,
    depth: int = 3,
    related: RelatedFinder | None = None,
    related_limit: int = 3,
    compiler: CompilerTier | None = None,
) -> Report:
    store = remembering(store)  # the neighbourhoods of the changed symbols overlap: each read once
    store.symbols([c.symbol.id for c in cs.changes if c.symbol is not None])  # their in-degrees: one read
    _read_at_once(store, cs.changes)
    broken = broken_references(store, cs)
    compiled = compiler.findings(_asked_of_compiler(cs)) if compiler is not None else {}
    changed: list[ChangedSymbol] = []
    for change in cs.changes:
        findings = compiled.get(change.symbol.id) if change.symbol is not None else None
        item = _changed_symbol(store, change, broken, depth, findings)
        item.call_sites = check_call_sites(store, cs, change, findings.callers if findings else ())
        item.unreached = is_unreached(item)
        item.low_signal = item.symbol.kind in ("module", "section") or _in_test_code(item.symbol)
        if related is not None and change.symbol is not None and change.category in ("modified", "added", "renamed"):
            exclude = {change.symbol.id} | {n.symbol.id for n in item.callers}
            found = related(change.symbol, related_limit + len(exclude))
            item.related = [(s, score) for s, score in found if s.id not in exclude][:related_limit]
        changed.append(item)
    # the tests within TEST_DEPTH of the change, whatever the caller depth
    # (a changed test is one: listed as edited), run by the project's own
    # commands; a symbol whose own tests they run is not unreached
    roots = [
        c.change.symbol.id
        for c in changed
        if c.change.symbol is not None and c.change.category in ("modified", "renamed", "added")
    ]
    twins = [t for c in changed if c.change.symbol is not None and c.change.symbol.id in roots for t in same_methods(store, c.change.symbol)]
    collected = CollectedTests(store)  # both calls below ask for the tests of many of the same symbols
    selected, tests_more = select_tests(
        store, roots + twins, call_sites=[b.edge.source_id for b in broken], collected=collected
    )
    edited_ids = set(roots)
    edited = [t for t in selected if t.id in edited_ids]
    tests = [t for t in selected if t.id not in edited_ids]
    chosen_by: dict[str, tuple[str, ...]] = {t.id: ("graph",) for t in tests}
    # an edited test that also calls the changed code reaches the change
    # (qs 6.11 -> 6.13: test/parse.js, edited, calls the changed parse; the
    # report said "0 reach the change")
    if edited:
        edited_tests = {t.id for t in edited}
        others = [i for i in roots + twins if i not in edited_tests]
        sites = [b.edge.source_id for b in broken]
        reached, _ = select_tests(store, others, call_sites=sites, more=False, collected=collected) if others else ([], 0)
        reached_ids = {r.id for r in reached}
        for t in edited:
            if t.id in reached_ids:
                chosen_by[t.id] = ("graph",)
    # the tests that use a changed pytest fixture (report/fixture_tests.py)
    chose: set[str] = set()
    for t, fixture in fixture_tests(store, changed, Workspace(cs.root)):
        chose.add(fixture)
        if t.id in edited_ids:
            continue
        if t.id not in chosen_by:
            tests.append(t)
        chosen_by[t.id] = chosen_by.get(t.id, ()) + ("fixture",)
    # a changed fixture or set-up that chose tests runs in them (Go's `func init()`)
    for c in changed:
        if c.unreached and c.symbol.qualified_name in chose:
            c.unreached = False
    # the tests that start a changed script entry as a process (report/process_tests.py)
    entries = ScriptEntries(Path(cs.root))
    for t in started_tests(store, changed, entries, edited_ids):
        if t.id not in chosen_by:
            tests.append(t)
        chosen_by[t.id] = chosen_by.get(t.id, ()) + ("process",)
    # the tests whose recorded run executed a changed symbol (docs/coverage.md):
    # report/coverage.py is imported where there is a recording to read
    coverage = None
    if cs.merge_base and store.supports_coverage and store.coverage_runs():
        from cartog_ci.report.coverage import apply_coverage, changed_base_lines, recorded_use

        coverage = recorded_use(store, Path(cs.root), cs.merge_base)
    if coverage is not None:
        apply_coverage(
            store, coverage, changed, in_test_code={c.symbol.id for c in changed if _in_test_code(c.symbol)},
            changed_lines=changed_base_lines(cs.base_sources, cs.head_sources), entries=entries,
        )  # fmt: skip
        for t in {t.id: t for c in changed for t in c.covered_by}.values():
            if t.id not in chosen_by and t.id not in edited_ids:
                tests.append(t)
            chosen_by[t.id] = chosen_by.get(t.id, ()) + ("coverage",)
        # a changed function that ran at import: the tests whose files import it (report/coverage.py importing_tests)
        for t in {t.id: t for c in changed for t in c.imported_by}.values():
            if t.id not in chosen_by and t.id not in edited_ids:
                tests.append(t)
            if "import" not in chosen_by.get(t.id, ()):
                chosen_by[t.id] = chosen_by.get(t.id, ()) + ("import",)
    # the doctests of a changed function's own docstring, where the project runs them (report/doctests.py)
    recorded = recorded_doctests(store, coverage, changed)
    for t in own_doctests(changed, Workspace(cs.root), cs.head_sources, recorded).values():
        if t.id not in chosen_by:
            tests.append(t)
        chosen_by[t.id] = chosen_by.get(t.id, ()) + ("doctest",)
    tests.sort(key=lambda s: (s.file, s.start_line, s.id))
    plan = test_plan(edited + tests, root=cs.root, symbols_in_file=store.symbols_in_file)
    # a test a recording names in a file that does not define it is no
    # symbol of the store (report/coverage.py collected_tests): kept as built
    ran_ids = {i for c in plan for i in c.tests}
    # a JavaScript file no command runs is no test: a helper under test/
    # (qs 6.13.0's edited test/empty-keys-cases.js, data), a browser-only
    # file outside the tape script's glob (object-inspect's test/browser/dom.js)
    run_files = {i.partition(":")[0] for i in ran_ids}
    if any(_js_test(t) for t in edited + tests):
        edited = [t for t in edited if not _js_test(t) or t.file in run_files]
        tests = [t for t in tests if not _js_test(t) or t.file in run_files]
        modules = {m.file: m for m in store.symbols(sorted(ran_ids)).values() if m.kind == "module" and _js_test(m)}
        edited, tests, chosen_by = _one_test_per_js_file(edited, tests, chosen_by, modules)
        kept = {t.id for t in tests + edited}
        chosen_by = {i: by for i, by in chosen_by.items() if i in kept}
    listed = {t.id: t for t in edited + tests}
    ran = RanTests([*(listed[i] for i in ran_ids & listed.keys()), *_symbols_of(store, ran_ids - listed.keys()).values()])
    doctest_of = {t.parent_id for t in ran.by_id.values() if t.kind == DOCTEST}
    for c in changed:
        if c.unreached and (c.symbol.id in doctest_of or own_tests(store, c.symbol, ran)):
            c.unreached = False
    counts = store.edge_counts()
    report = Report(
        changes=cs,
        changed=changed,
        broken=broken,
        tests=tests,
        test_commands=[c.command for c in plan],
        tests_more=tests_more,
        tests_run=len(ran.by_id),
        test_depth=TEST_DEPTH,
        tests_edited=edited,
        chosen_by=chosen_by,
        coverage=coverage,
        risk=_risk(changed, broken, cs, coverage),
        depth=depth,
        unresolved_edges=counts.unresolved,
        total_edges=counts.total,
        related_available=related is not None,
        compiler_tier=compiler.runs if compiler is not None else [],
    )
    report.notes += [run.sentence() for run in report.compiler_tier]
    if not tests and not report.tests_edited:
        report.test_files = store.any_module_file(_in_test_file)
    for path, reason in cs.skipped:
        report.notes.append(f"{path}: skipped ({reason})")
    for path, first, last, count in cs.unread:
        report.notes.append(
            f"{path}: lines {first}-{last} are a syntax error to its tree-sitter grammar at the head; "
            f"{count} definition(s) of the base written there are not compared"
        )
    if cs.unstaged_elsewhere:
        report.notes.append(
            f"callers include unstaged edits in {len(cs.unstaged_elsewhere)} other file(s) "
            f"(e.g. {cs.unstaged_elsewhere[0]}); git stash --keep-index for the staged graph alone"
        )
    return report


def _symbols_of(store: Store, ids: Iterable[str]) -> dict[str, Symbol]:
    """``store.symbols(ids)``, those of a test file the test plan read whole
    taken from that read (Django 5.1 -> 5.1.4 HEAD~10: 2,388 tests the
    commands run, all in the 48 files the plan read; ~30 ms of CPU to read
    them again)."""
    if not isinstance(store, Reads):
        return store.symbols(ids)
    held, rest = store.symbols_in_files_read(ids)
    return {**held, **store.symbols(rest)} if rest else held


def _asked_of_compiler(cs: ChangeSet) -> list[Symbol]:
    """The changed symbols whose callers the compiler tier is asked for: those
    the report counts possible callers of (``_changed_symbol``)."""
    return [
        c.symbol
        for c in cs.changes
        if c.symbol is not None
        and c.symbol.kind in ("function", "method", "class")
        and (c.category in _IMPACTING or c.category == "added")
    ]


def _walked(change: SymbolChange) -> bool:
    """Whether ``_changed_symbol`` reads the callers of the change: added
    code has callers like any other (a new class already used in 7 places)."""
    symbol = change.symbol or change.old
    assert symbol is not None
    added_code = change.category == "added" and symbol.kind in CALLABLE_KINDS | TYPE_KINDS
    return (change.category in _IMPACTING or added_code) and symbol.kind != "module"


def _read_at_once(store: Store, changes: list[SymbolChange]) -> None:
    """The reads ``_changed_symbol`` makes of every changed symbol alike,
    one for them all instead of one each: the callers its walk meets first
    (``graph.impact``'s first level), its type uses and the unresolved call
    sites of its name, the definitions of its name, the bases' methods its
    walk looks up as overridden (report/reads.py; Django 5.1 -> 5.1.4
    HEAD~10, 281 changed symbols: 87 ``edges_to`` reads of the store instead
    of 405, 2 ``unresolved_edges_named`` instead of 135, 3
    ``definitions_named`` instead of 134 to 402, 1 + 50 ``members_named``
    instead of 336)."""
    if not isinstance(store, Reads):
        return
    walked = [c.symbol for c in changes if c.symbol is not None and _walked(c)]
    walked_up = [c.symbol for c in changes if c.symbol is not None and _walked(c) and c.category in _WALKED_UP]
    roots = [s.id for s in walked_up]
    store.read_edges_to_each(roots, graph.CALLER_KINDS)
    store.read_edges_to_each(roots, ("references",))
    named = [s.name for s in walked if s.kind in ("function", "method", "class")]
    store.read_unresolved_each(named, ("calls",))
    store.read_definitions_each(named)
    # the bases' methods a walk's first level looks up, as overridden (graph.py
    # ``_overridden``: Django HEAD~10, 336 reads of one name under one class, 10 rows)
    store.read_members_each(graph.override_lookups(store, walked_up))


def _changed_symbol(
    store: Store, change: SymbolChange, broken: list[BrokenRef], depth: int, found: Findings | None = None
) -> ChangedSymbol:
    item = ChangedSymbol(change)
    old_id = change.old.id if change.old is not None else None
    via_broken = [b.edge.source_id for b in broken if old_id is not None and b.old_target.id == old_id]
    if change.symbol is not None:
        current = store.symbol(change.symbol.id)
        item.in_degree = current.in_degree if current is not None else 0
    else:
        item.in_degree = len(via_broken)
    if not _walked(change):
        return item
    nodes: list[ImpactNode] = []
    tests: list[ImpactNode] = []
    if change.category in _WALKED_UP and change.symbol is not None:
        # the tests are those within TEST_DEPTH whatever the caller --depth
        roots = [change.symbol.id, *same_methods(store, change.symbol)]
        reached = graph.impact(store, roots, depth=max(depth, TEST_DEPTH), kinds=graph.CALLER_KINDS)
        nodes = [n for n in reached if n.depth <= depth]
        tests = [n for n in reached if n.depth <= TEST_DEPTH and is_test(n.symbol)]
        item.type_uses = len(store.edges_to([change.symbol.id], ("references",)))
    if change.symbol is not None and item.symbol.kind in ("function", "method", "class"):
        # call sites of this name the graph could not resolve (broken ones
        # aside): "0 callers" is said only when it is true
        broken_sites = {(b.edge.file, b.edge.line, b.edge.source_id) for b in broken}
        # a site the compiler tier answered is no longer a guess
        broken_sites |= found.settled if found is not None else set()
        possible = [
            e
            for e in store.unresolved_edges_named([item.symbol.name], kinds=("calls",))
            if e.resolution is None and (e.file, e.line, e.source_id) not in broken_sites
        ]
        item.possible_callers = len(possible)
        outside = sum(1 for e in possible if not _in_test_file(e.file))
        # a site of a name that k project symbols define calls this one about once in k
        definitions = {(file, name) for file, name, kind in store.definitions_named(item.symbol.name) if kind != "module"}
        item.possible_production_callers = outside
        item.likely_unseen_callers = outside / max(1, len(definitions))
    known = {n.symbol.id for n in nodes}
    anchor = (old_id,) if old_id is not None else ()
    nodes += [
        ImpactNode(n.symbol, n.depth, anchor + n.path, n.via)
        for n in _impact_from_sources(store, via_broken, depth)
        if n.symbol.id not in known
    ]
    if found is not None and found.callers and change.symbol is not None:
        known = {n.symbol.id for n in nodes}
        sources = list(dict.fromkeys(e.source_id for e in found.callers))
        compiler_nodes = [
            ImpactNode(n.symbol, n.depth, (change.symbol.id, *n.path), n.via, "compiler" if n.depth == 1 else "")
            for n in _impact_from_sources(store, sources, depth)
            if n.symbol.id not in known
        ]
        item.compiler_callers = sum(1 for n in compiler_nodes if n.depth == 1)
        nodes += compiler_nodes
    # nearest first, production code before tests
    nodes.sort(key=_nearest)
    item.callers_total = len(nodes)
    item.callers = nodes[:MAX_CALLERS_PER_SYMBOL]
    seen = {n.symbol.id for n in tests}
    tests += [n for n in nodes if n.depth <= TEST_DEPTH and is_test(n.symbol) and n.symbol.id not in seen]
    tests.sort(key=_nearest)
    item.tests = [n.symbol for n in tests]
    item.production_callers = sum(1 for n in nodes if n.depth == 1 and not _in_test_code(n.symbol))
    return item


def same_methods(store: Store, symbol: Symbol) -> list[str]:
    """The other definitions of ``symbol``'s method where the language makes
    a method its qualified name (``Language.reopened_methods``: Ruby), in
    other files: a call the graph answered with one of them may run this
    one (addressable 2.8.7's `Addressable::IDNA.to_ascii` of idna/native.rb
    and idna/pure.rb, which idna_spec.rb loads in turn)."""
    language = languages.get(symbol.language)
    if language is None or not language.reopened_methods or symbol.kind not in ("function", "method"):
        return []
    return [
        s.id
        for s in store.symbols_by("qualified_name", symbol.qualified_name)
        if s.id != symbol.id and s.file != symbol.file and s.language == symbol.language and s.kind == symbol.kind
    ]


def _nearest(n: ImpactNode) -> tuple[int, bool, str, int, str]:
    return (n.depth, _in_test_code(n.symbol), n.symbol.file, n.symbol.start_line, n.symbol.id)


def _in_test_code(symbol: Symbol) -> bool:
    """A test, or anything in a test file or directory (helpers, fixtures)."""
    return is_test(symbol) or _in_test_file(symbol.file)


@lru_cache(maxsize=4096)  # asked for every caller of every changed symbol
def _in_test_file(path: str) -> bool:
    language = languages.for_path(path)
    return language is not None and language.in_test_file(path)


def _impact_from_sources(store: Store, roots: list[str], depth: int) -> list[ImpactNode]:
    """Callers reached from call sites (the sources of broken references are
    depth 1; their own callers follow)."""
    sources = [r for r in roots if store.symbol(r) is not None]
    if not sources:
        return []
    first = store.symbols(sources)
    nodes = [ImpactNode(first[s], 1, (s,), "calls") for s in sources if s in first]
    if depth > 1:
        for n in graph.impact(store, sources, depth=depth - 1, kinds=graph.CALLER_KINDS):
            nodes.append(ImpactNode(n.symbol, n.depth + 1, n.path, n.via))
    seen: set[str] = set()
    unique = []
    for n in nodes:
        if n.symbol.id not in seen:
            seen.add(n.symbol.id)
            unique.append(n)
    return unique
