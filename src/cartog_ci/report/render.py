"""Rendering: Jinja2 templates for Markdown and the terminal, and a stable
JSON form. Everything quoted from the repository goes through ``code`` (an
inert inline code span) or ``mermaid_label``: a crafted identifier cannot
inject Markdown, HTML, links or mentions into a PR comment."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from cartog_ci import config
from cartog_ci.domain import Symbol, symbol_json
from cartog_ci.domain.results import NAME, CallSite, ChangedSymbol, ImpactNode, Report, impact_node_json
from cartog_ci.report.build import REPORT_SCHEMA, by_weight

if TYPE_CHECKING:  # imported with the first template: a JSON report renders none (~28 ms)
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
    template = environment().get_template("report.md.j2")
    return template.render(
        r=report,
        ranked=by_weight(report.changed),
        plan=plan,
        picture=picture,
        picture_omitted=picture_omitted,
        trimmed=trimmed,
        link=lambda s: _link(s, link_base),
    )


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
