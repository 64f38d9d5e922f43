"""Rendering: the Markdown form (written out here, ``_markdown``), the
terminal's (a Jinja2 template) and a stable JSON form. Everything quoted
from the repository goes through ``code`` (an inert inline code span) or
``mermaid_label``: a crafted identifier cannot inject Markdown, HTML,
links or mentions into a PR comment."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from cartog_ci import config
from cartog_ci.domain import Symbol, symbol_json
from cartog_ci.domain.results import NAME, CallSite, ChangedSymbol, ImpactNode, Report, impact_node_json
from cartog_ci.report.build import REPORT_SCHEMA, by_weight

if TYPE_CHECKING:  # imported with the terminal's template: a JSON or Markdown report renders none (~28 ms)
    import jinja2

GITHUB_COMMENT_LIMIT = 65_536
# Room for the sticky-comment marker and the trimming note.
MARKDOWN_BUDGET = GITHUB_COMMENT_LIMIT - 1_536
MERMAID_MAX_NODES = 20
_BACKTICKS = re.compile(r"`+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def code(value: object) -> str:
    """An inline code span that renders ``value`` literally, table-safe.

    Inside a code span CommonMark does no HTML, links, emphasis or mentions;
    the fence is one backtick longer than any run inside; ``|`` is escaped
    so that GFM tables keep their shape; newlines become spaces.
    """
    from cartog_ci.domain.visible import escape_invisible  # bidi and zero-width shown as \u202e

    text = _CONTROL.sub(" ", escape_invisible(str(value))).replace("|", "\\|")
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text.strip():
        text = f" {text} "
    return f"{fence}{text}{fence}"


def mermaid_label(value: object) -> str:
    """A Mermaid node label: quoted, with every markup character as an entity."""
    from cartog_ci.domain.visible import escape_invisible  # bidi and zero-width shown as \u202e

    text = _CONTROL.sub(" ", escape_invisible(str(value)))
    out = []
    for ch in text:
        if ch.isalnum() or ch in " ._:/-":
            out.append(ch)
        else:
            out.append(f"#{ord(ch)};")
    return '"' + "".join(out) + '"'


def plain(value: object) -> str:
    """Terminal text: strip control characters (no escape sequences from repo names)."""
    from cartog_ci.domain.visible import escape_invisible  # bidi and zero-width shown as \u202e

    return _CONTROL.sub("?", escape_invisible(unmark(value)))


def unmark(value: object) -> str:
    """A risk reason without the marks around its names (JSON, terminal)."""
    return str(value).replace(NAME, "")


_PROSE_ESCAPES = re.compile(r"([\\`*_\[\]<>|~&@#])")


def prose(value: object) -> str:
    """A sentence of ours with names from the repository inside: the names
    (between ``NAME`` marks) become code spans, the rest is escaped."""
    from cartog_ci.domain.visible import escape_invisible  # bidi and zero-width shown as \u202e

    parts = str(value).split(NAME)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(code(part))
        else:
            out.append(_PROSE_ESCAPES.sub(r"\\\1", _CONTROL.sub(" ", escape_invisible(part))))
    return "".join(out)


def _templates_dir() -> Path:
    # the wheel's package holds them (pyproject.toml: "templates" =
    # "cartog_ci/templates"); read as a path, not through importlib.resources,
    # whose import and lookup cost ~14 ms of CPU a report
    packaged = Path(__file__).parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "templates"  # editable install


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept between runs (compiling the report's template
    costs more than rendering it); a cache that cannot be read or written is
    no cache, never an error."""
    import jinja2

    class QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except OSError:
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    folder = config.home() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return QuietBytecodeCache(str(folder))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_templates_dir())),
        bytecode_cache=_bytecode_cache(),
        autoescape=False,  # Markdown, not HTML: every repo string goes through `code`
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["code"] = code
    env.filters["plain"] = plain
    env.filters["mermaid_label"] = mermaid_label
    env.filters["prose"] = prose
    return env


def _link(symbol: Symbol, link_base: str | None) -> str | None:
    if not link_base:
        return None
    return f"{link_base.rstrip('/')}/{quote(symbol.file, safe='/')}#L{symbol.start_line}"


def mermaid(report: Report, max_nodes: int = MERMAID_MAX_NODES) -> tuple[list[str], int]:
    """Flowchart lines: the changed symbols with the most impact, each with
    its callers along their shortest paths (an edge per call), as trees; and
    how many callers were left out. A changed symbol is drawn only with at
    least one caller."""
    ranked = [c for c in by_weight(report.changed) if c.callers and not c.low_signal]
    ids: dict[str, str] = {}
    lines: list[str] = ["flowchart RL"]
    edges: set[tuple[str, str]] = set()
    omitted = 0
    share = max(4, max_nodes // max(1, min(len(ranked), 5)))

    def node(symbol_id: str, label: str, changed: bool) -> str | None:
        if symbol_id in ids:
            return ids[symbol_id]
        if len(ids) >= max_nodes:
            return None
        ids[symbol_id] = f"n{len(ids)}"
        lines.append(f"  {ids[symbol_id]}[{mermaid_label(label)}]")
        if changed:
            lines.append(f"  class {ids[symbol_id]} changed")
        return ids[symbol_id]

    for item in ranked:
        if len(ids) + 2 > max_nodes:
            omitted += item.callers_total
            continue
        limit = min(max_nodes, len(ids) + share)
        drawn = 0
        for caller in sorted(item.callers, key=lambda n: n.depth):
            if len(ids) >= limit and caller.symbol.id not in ids:
                continue
            if _path_edges(caller, item, node, edges):
                drawn += 1
        omitted += item.callers_total - drawn
    for a, b in sorted(edges):
        lines.append(f"  {a} --> {b}")
    lines.append("  classDef changed fill:#fde2e1,stroke:#c0392b")
    return (lines if edges else []), omitted


def _path_edges(
    caller: ImpactNode,
    item: ChangedSymbol,
    node: Callable[[str, str, bool], str | None],
    edges: set[tuple[str, str]],
) -> bool:
    """The edges from the changed symbol along the caller's path; whether
    the caller itself was reached."""
    path = list(caller.path)
    labels = {caller.symbol.id: caller.symbol.qualified_name}
    previous = node(item.symbol.id, item.symbol.qualified_name, True)
    for symbol_id in path[1:] if path and path[0] == item.symbol.id else path:
        label = labels.get(symbol_id, symbol_id.split(":", 2)[-1])
        current = node(symbol_id, label, False)
        if current is None or previous is None:
            return False
        edges.add((current, previous))
        previous = current
    return True


# What the PR comment shows, most first; later plans trim further to fit
# GitHub's limit (the JSON form always has everything).
_PLANS: tuple[dict[str, object], ...] = (
    dict(reasons=5, break_rows=30, rows=10, signatures=10, caller_symbols=3, callers=6, names=6, related=True, picture=True),
    dict(reasons=5, break_rows=30, rows=10, signatures=10, caller_symbols=3, callers=4, names=6, related=False, picture=True),
    dict(reasons=5, break_rows=20, rows=15, signatures=5, caller_symbols=3, callers=3, names=10, related=False, picture=False),
    dict(reasons=3, break_rows=10, rows=10, signatures=3, caller_symbols=0, callers=0, names=5, related=False, picture=False),
)


def render_markdown(report: Report, *, link_base: str | None = None, budget: int = MARKDOWN_BUDGET) -> str:
    """Markdown, trimmed by priority to fit a PR comment, saying what was left out."""
    text = ""
    for level, plan in enumerate(_PLANS):
        text = _render_markdown(report, link_base, plan | {"depth": report.depth if level == 0 else 2}, level)
        if len(text) <= budget:
            return text
    return text[: budget - 200].rsplit("\n", 1)[0] + "\n\n_Report cut at the PR comment size limit._\n"


# The short form that goes with the JSON (the MCP server's `report`,
# docs/mcp.md): the verdict, what will break, the top changed symbols and
# signatures, the tests; every list cut short says "in the JSON form".
_SUMMARY_PLAN: dict[str, object] = dict(
    reasons=3, break_rows=5, rows=5, signatures=3, caller_symbols=0, callers=0, names=5, related=False, picture=False
)


def render_summary(report: Report, *, line_chars: int = 300) -> str:
    """The Markdown report at its shortest level of detail (no callers, no
    picture, no related code, at most 5 rows per table), each line cut at
    ``line_chars`` (a test command can name hundreds of tests)."""
    text = _render_markdown(report, None, _SUMMARY_PLAN | {"depth": report.depth}, 0)
    return "\n".join(line if len(line) <= line_chars else line[:line_chars] + "…" for line in text.split("\n"))


def _render_markdown(report: Report, link_base: str | None, plan: dict[str, object], level: int) -> str:
    picture, picture_omitted = mermaid(report) if plan["picture"] else ([], 0)
    trimmed: list[str] = []
    if level:
        if not plan["related"] and report.related_available:
            trimmed.append("related code")
        if not plan["picture"]:
            trimmed.append("the picture")
        trimmed.append(f"callers beyond depth {plan['depth']} and beyond {plan['callers']} per symbol")
    return _markdown(report, plan, picture, picture_omitted, trimmed, lambda s: _link(s, link_base))


def _escape_html(text: str) -> str:
    # what Jinja2's ``e`` filter (markupsafe.escape) does to a plain string
    return (
        text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace('"', "&#34;")
    )


def _chosen(tests: list[Symbol], ids: set[str]) -> list[Symbol]:
    return [t for t in tests if t.id in ids]


def _listed(items: Sequence[Any], shown: int, text: Callable[[Any], str]) -> str:
    """The first ``shown`` of ``items`` as ``text`` says each, with commas,
    and how many more."""
    said = ", ".join(text(item) for item in items[:shown])
    return said + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _markdown(
    r: Report,
    plan: dict[str, Any],
    picture: list[str],
    picture_omitted: int,
    trimmed: list[str],
    link: Callable[[Symbol], str | None],
) -> str:
    """The Markdown report: the verdict, what will break, the changed
    symbols by production impact, tests, related code, the picture, then
    the low-signal rows folded, in the order a reviewer reads it
    (docs/report.md). Every string from the repository goes through
    ``code`` (an inert code span); our sentences through ``prose``. Written
    out in Python, not as a Jinja2 template, whose import was the largest
    start-up cost of a report (docs/report.md, "Start-up")."""
    cs = r.changes
    ranked = by_weight(r.changed)
    shown_changes = [c for c in ranked if c.shown]
    main_rows = [c for c in shown_changes if not c.low_signal]
    low_rows = [c for c in shown_changes if c.low_signal]
    docs_only = [c for c in ranked if c.change.category == "docs"]
    will_break = r.will_break
    names_shown: int = plan["names"]
    out: list[str] = []
    add = out.append

    def where(s: Symbol, live: bool = True) -> str:
        url = link(s) if live else None
        place = code(f"{s.file}:{s.start_line}")
        return f"[{place}]({url})" if url else place

    def change_text(item: ChangedSymbol) -> str:
        change, s = item.change, item.symbol
        if change.category == "renamed" and change.old.qualified_name == s.qualified_name:  # type: ignore[union-attr]
            text = "moved from " + code(change.old.file)  # type: ignore[union-attr]
        else:
            text = change.category.replace("_", " ")
            if change.category == "renamed":
                text += " from " + code(change.old.qualified_name)  # type: ignore[union-attr]
                if change.moved_from:
                    text += " in " + code(change.old.file)  # type: ignore[union-attr]
        if change.breaking:
            text += ", **breaking signature**"
        elif change.signature_changed:
            text += ", compatible signature"
        if item.untested:
            text += ", untested (recorded coverage)"
        return text

    def names(symbols: Sequence[Symbol]) -> str:
        return _listed(symbols, names_shown, lambda s: code(s.qualified_name))

    def callers_text(item: ChangedSymbol) -> str:
        text = str(item.callers_total)
        if item.production_callers != item.callers_total and item.callers_total:
            text += f" ({item.production_callers} direct outside tests)"
        if item.compiler_callers:
            text += f" ({item.compiler_callers} by the compiler tier)"
        if item.possible_callers:
            text += f"; +{item.possible_callers} unresolved call site(s) of this name"
        if item.type_uses:
            text += f"; used as a type in {item.type_uses} place(s)"
        return text

    reasons = r.risk.reasons
    add(f"## cartog-ci impact report\n\n**Risk: {r.risk.level.upper()}**")
    if reasons:
        add(" · " + prose(reasons[0]))
    add("\n")
    if len(reasons) > 1:
        add("\n")
        for reason in reasons[1 : plan["reasons"]]:
            add(f"- {prose(reason)}\n")
        if len(reasons) > plan["reasons"]:
            add(f"- …and {len(reasons) - plan['reasons']} more reason(s) (in the JSON form)\n")
    add(
        f"\nBase {code(cs.base_ref)} ({code(cs.base_label)}), merge-base {code(cs.merge_base[:12])} → "
        f"{code(cs.head.label)} · {len(cs.files)} file(s) changed · {len(shown_changes)} symbol change(s)"
    )
    if low_rows or docs_only:
        add(f" ({len(low_rows) + len(docs_only)} low-signal, folded below)")
    add("\n")
    if not cs.files:
        add("\nNothing to report: no file changed")
        if cs.head.kind == "staged":
            add(" (nothing staged?)")
        add(".\n")
    elif not shown_changes and not docs_only:
        add("\nNo symbol changed (only comments, whitespace, or files cartog-ci does not parse).\n")

    if r.broken or will_break:
        rows: int = plan["break_rows"]
        add(f"\n### Will break ({len(r.broken) + len(will_break)})\n\n| call site | caller | calls | why |\n|---|---|---|---|\n")
        for b in r.broken[:rows]:
            why = "renamed to " + code(b.new_name) if b.change == "renamed" else "removed"
            add(
                f"| {code(f'{b.edge.file}:{b.edge.line}')} | {code(b.edge.source_id.split(':', 2)[2])} "
                f"| {code(b.edge.target_name)} | {why} |\n"
            )
        for site in will_break[: rows - len(r.broken[:rows])]:
            add(
                f"| {code(f'{site.edge.file}:{site.edge.line}')} | {code(site.edge.source_id.split(':', 2)[2])} "
                f"| {code(site.target.qualified_name)} | {prose(site.reason)} |\n"
            )
        if len(r.broken) + len(will_break) > rows:
            add(f"\n…and {len(r.broken) + len(will_break) - rows} more (in the JSON form).\n")

    if main_rows:
        add(
            f"\n### Changed symbols ({len(main_rows)}, by impact outside tests)\n\n"
            "| symbol | kind | change | where | callers |\n|---|---|---|---|---|\n"
        )
        for item in main_rows[: plan["rows"]]:
            add(
                f"| {code(item.symbol.qualified_name)} | {item.symbol.kind} | {change_text(item)} "
                f"| {where(item.symbol, item.change.symbol is not None)} | {callers_text(item)} |\n"
            )
        if len(main_rows) > plan["rows"]:
            add(f"\n…and {len(main_rows) - plan['rows']} more changed symbol(s) (in the JSON form).\n")
        signatures = [c for c in main_rows if c.change.signature_changed]
        if signatures:
            add("\nSignature changes:\n")
            for item in signatures[: plan["signatures"]]:
                fine = len(item.sites("fine"))
                broken_sites = len(item.sites("will break"))
                unknown = len(item.call_sites) - fine - broken_sites
                add(
                    f"- {code(item.symbol.qualified_name)} ({'**breaking**' if item.change.breaking else 'compatible'}): "
                    f"{code(item.change.old.signature)} → {code(item.change.symbol.signature)}"  # type: ignore[union-attr]
                )
                if item.call_sites:
                    add("; call sites: ")
                    if broken_sites:
                        add(f"**{broken_sites} will break**, ")
                    add(f"{fine} fine")
                    if unknown:
                        add(f", {unknown} not checked")
                add("\n")
            if len(signatures) > plan["signatures"]:
                add(f"- …and {len(signatures) - plan['signatures']} more\n")
        impacted = [c for c in main_rows if c.callers_total]
        if impacted and plan["callers"]:
            add(f"\n#### Callers (depth ≤ {plan['depth']}, shortest paths)\n")
            for item in impacted[: plan["caller_symbols"]]:
                shown = [n for n in item.callers if n.depth <= plan["depth"]][: plan["callers"]]
                summary = _escape_html(plain(item.symbol.qualified_name)).replace("`", "&#96;")
                add(f"\n<details><summary><code>{summary}</code>: {item.callers_total} caller(s)</summary>\n\n")
                for n in shown:
                    add(f"- depth {n.depth}: {code(n.symbol.qualified_name)} {where(n.symbol, False)}")
                    if n.depth > 1:
                        add(" via " + " → ".join(code(step.split(":", 2)[2]) for step in n.path[1:-1]))
                    if n.via == "interface":
                        add(" (through an interface)")
                    elif n.via == "override":
                        add(" (calls it through `self`/`cls` in a base class)")
                    if n.tier:
                        add(f" (tier {n.tier})")
                    add("\n")
                if item.callers_total > len(shown):
                    add(f"- …and {item.callers_total - len(shown)} more\n")
                add("\n</details>\n")
            if len(impacted) > plan["caller_symbols"]:
                add(f"\nCallers of {len(impacted) - plan['caller_symbols']} more changed symbol(s) are in the JSON form.\n")

    untested = [c for c in main_rows if c.untested]
    scripted = [c for c in main_rows if c.script_entry]
    gaps = [c for c in main_rows if c.no_known_test]
    unknown_gaps = [c for c in gaps if not c.recorded_older]
    older = [c for c in gaps if c.recorded_older]
    if r.tests or r.tests_edited or r.tests_more or untested or scripted or gaps:
        add("\n### Tests to run\n")
        reaching = r.reaching
        if reaching or r.tests_edited:
            add("\n")
            if reaching:
                parts = []
                by_graph = _chosen(reaching, r.graph_ids)
                by_coverage = _chosen(reaching, r.covered_ids)
                by_process = _chosen(reaching, r.process_ids)
                by_fixture = _chosen(reaching, r.fixture_ids)
                by_doctest = _chosen(reaching, r.doctest_ids)
                if by_graph:
                    parts.append(f"{len(by_graph)} call it within {r.test_depth} calls in the graph")
                if by_coverage:
                    assert r.coverage is not None
                    parts.append(
                        f"{len(by_coverage)} ran it before this change, in the coverage recorded at "
                        f"{code(r.coverage.commit[:12])}{'' if r.coverage.at_base else ', an ancestor of the base'}"
                    )
                if by_process:
                    parts.append(f"{len(by_process)}{' starts' if len(by_process) == 1 else ' start'} the program as a process")
                if by_fixture:
                    parts.append(
                        f"{len(by_fixture)}{' uses' if len(by_fixture) == 1 else ' use'} a changed fixture (pytest's by a"
                        " parameter, `usefixtures` or `autouse`; a set-up of their class or module)"
                    )
                if by_doctest:
                    parts.append(
                        f"{len(by_doctest)}{' is the doctest' if len(by_doctest) == 1 else ' are the doctests'} of a changed"
                        f" function's own docstring, which {r.doctest_runner}"
                    )
                add(f"- reach the change: {len(reaching)} test(s) ({'; '.join(parts)}): {names(reaching)}\n")
            if r.tests_edited:
                add(f"- edited by the change: {len(r.tests_edited)} test(s): {names(r.tests_edited)}\n")
            if r.test_commands:
                add(f"- these commands run {r.tests_run} test(s)")
                if r.tests_more:
                    add(f" ({r.tests_more} more at depth {r.test_depth + 1} in the graph)")
                add(":\n\n```sh\n")
                for command in r.test_commands:
                    add(plain(command).replace("`", "'") + "\n")
                add("```\n")
        else:
            add("\n")
            if r.test_files:
                add(f"No test calls the changed code within {r.test_depth} calls in the graph")
                if r.tests_more:
                    add(f" ({r.tests_more} more at depth {r.test_depth + 1})")
                add(".\n")
            else:
                add("The repository holds no test file: no test reaches the change.\n")
        if untested:
            assert r.coverage is not None
            said = _listed(untested, names_shown, lambda c: code(c.symbol.qualified_name))
            add(f"\nUntested: coverage recorded at {code(r.coverage.commit[:12])} shows no test executed {said}.\n")
        if scripted:
            assert r.coverage is not None
            said = _listed(scripted, names_shown, lambda c: f"{code(c.symbol.qualified_name)} from {code(c.script_entry)}")
            add(
                f"\nNot executed in the coverage recorded at {code(r.coverage.commit[:12])}, but reached from a script"
                f" entry, which a test may run in a child process the recording does not see: {said}.\n"
            )
        if unknown_gaps and r.test_files:
            them = "it" if len(unknown_gaps) == 1 else "them"
            said = _listed(unknown_gaps, names_shown, lambda c: code(c.symbol.qualified_name))
            add(f"\nNo test calls {said} within {r.test_depth} calls in the graph; ")
            if r.coverage:
                add(f"no coverage recorded for {them} at {code(r.coverage.commit[:12])}")
            else:
                add("no coverage recorded")
            add(f" (a test may reach {them} through what the graph cannot see: routes, callbacks, properties).\n")
        if older:
            assert r.coverage is not None
            add(
                f"\nNo test calls {names([c.symbol for c in older])} within {r.test_depth} calls in the graph, and none"
                f" executed {'its' if len(older) == 1 else 'their'} older body in the coverage recorded at"
                f" {code(r.coverage.commit[:12])} ({'it' if len(older) == 1 else 'they'} changed between that commit"
                " and the base).\n"
            )

    with_related = [c for c in main_rows if c.related]
    if plan["related"] and with_related:
        add("\n### Related code\n\nSimilar logic elsewhere that may need the same change:\n")
        for item in with_related[: plan["caller_symbols"]]:
            found = "; ".join(f"{code(s.qualified_name)} {where(s)}" for s, _ in item.related)
            add(f"- {code(item.symbol.qualified_name)}: {found}\n")

    if picture:
        add("\n### Picture\n\n```mermaid\n")
        for line in picture:
            add(f"{line}\n")
        add("```\n")
        if picture_omitted:
            add(f"{picture_omitted} more caller(s) not drawn.\n")

    if low_rows or docs_only:
        add(
            f"\n<details><summary>Low-signal changes ({len(low_rows) + len(docs_only)}): modules, sections, test code,"
            " documentation only</summary>\n\n"
        )
        groups = [
            ("test code", [c for c in low_rows if c.symbol.kind not in ("module", "section")]),
            ("modules", [c for c in low_rows if c.symbol.kind == "module"]),
            ("Markdown sections", [c for c in low_rows if c.symbol.kind == "section"]),
            ("documentation or formatting only, no caller affected", docs_only),
        ]
        for label, group in groups:
            if group:
                said = _listed(group, names_shown, _low_signal_row)
                add(f"- {label} ({len(group)}): {said}\n")
        add("</details>\n")

    add(f"\n<sub>Graph: {r.total_edges} references, {r.unresolved_edges} left unresolved (ambiguous names are not guessed)")
    if not r.related_available:
        add(" · related code: no embeddings in the index")
    for note in r.notes:
        add(" · " + code(note))
    if trimmed:
        add(" · trimmed to fit a PR comment: " + ", ".join(trimmed))
    add(".</sub>\n")
    return "".join(out)


def _low_signal_row(item: ChangedSymbol) -> str:
    category = item.change.category
    said = code(item.symbol.qualified_name)
    return said if category in ("modified", "docs") else f"{said} ({category.replace('_', ' ')})"


def render_text(report: Report, *, color: bool = False) -> str:
    template = environment().get_template("report.txt.j2")
    styles = {"high": "\x1b[1;31m", "medium": "\x1b[1;33m", "low": "\x1b[1;32m", "dim": "\x1b[2m", "off": "\x1b[0m"}
    return template.render(r=report, ranked=by_weight(report.changed), c=styles if color else {k: "" for k in styles})


def site_json(site: CallSite) -> dict[str, object]:
    edge = site.edge
    return {
        "file": edge.file,
        "line": edge.line,
        "source_id": edge.source_id,
        "name": edge.target_name,
        "target": site.target.id,
        "verdict": site.verdict or None,
        "reason": unmark(site.reason) or None,
        "tier": edge.resolution,
    }


def _all_tests(report: Report) -> list[Symbol]:
    """Every test the commands were made from, by file and line."""
    return sorted(report.tests_edited + report.tests, key=lambda s: (s.file, s.start_line, s.id))


def _chosen_by(report: Report, test: Symbol) -> tuple[str, ...]:
    edited = ("edited",) if any(t.id == test.id for t in report.tests_edited) else ()
    return edited + report.chosen_by.get(test.id, ())


def _coverage_json(report: Report) -> dict[str, object] | None:
    used = report.coverage
    if used is None:
        return None
    return {"commit": used.commit, "at_base": used.at_base, "contexts": used.contexts}


def report_json(report: Report) -> dict[str, object]:
    cs = report.changes
    return {
        "schema": REPORT_SCHEMA,
        "base": {"ref": cs.base_ref, "chosen": cs.base_label, "merge_base": cs.merge_base},
        "head": {"kind": cs.head.kind, "commit": cs.head.commit, "label": cs.head.label},
        "files": cs.files,
        "risk": {"level": report.risk.level, "reasons": [unmark(r) for r in report.risk.reasons]},
        "changed": [
            {
                "category": item.change.category,
                "signature_changed": item.change.signature_changed,
                "signature_verdict": item.change.signature_verdict or None,
                "old_signature": item.change.old.signature if item.change.old and item.change.signature_changed else None,
                "new_signature": item.change.symbol.signature if item.change.symbol and item.change.signature_changed else None,
                "symbol": symbol_json(item.change.symbol) if item.change.symbol else None,
                "old": symbol_json(item.change.old) if item.change.old else None,
                "moved_from": item.change.moved_from,
                "in_degree": item.in_degree,
                "callers_total": item.callers_total,
                "possible_callers": item.possible_callers,
                "type_uses": item.type_uses,
                "callers": [impact_node_json(n) for n in item.callers],
                "call_sites": [site_json(site) for site in item.call_sites],
                "tests": [t.id for t in item.tests],
                "covered_by": [t.id for t in item.covered_by],
                "untested": item.untested,
                "unreached": item.unreached,
                "recorded_older": item.recorded_older,
                "script_entry": item.script_entry or None,
                "related": [symbol_json(s) | {"score": round(score, 4)} for s, score in item.related],
            }
            for item in report.changed
        ],
        "broken_references": [
            {
                "file": b.edge.file,
                "line": b.edge.line,
                "source_id": b.edge.source_id,
                "name": b.edge.target_name,
                "kind": b.edge.kind,
                "old_target": b.old_target.id,
                "change": b.change,
                "new_name": b.new_name,
            }
            for b in report.broken
        ],
        "will_break": [site_json(site) for site in report.will_break],
        "tests": [symbol_json(t) | {"chosen_by": list(_chosen_by(report, t))} for t in _all_tests(report)],
        "test_commands": report.test_commands,
        "tests_run": report.tests_run,
        "test_depth": report.test_depth,
        "tests_more": report.tests_more,
        "coverage": _coverage_json(report),
        "graph": {"edges": report.total_edges, "unresolved": report.unresolved_edges},
        "notes": report.notes,
        "compiler_tier": [run.json() for run in report.compiler_tier],
    }
