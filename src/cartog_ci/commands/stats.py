"""`cartog-ci stats`: what the index holds, per language, and how much resolved."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, cast

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.domain.answers import LanguageStats

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def collect(store: Store) -> dict[str, object]:
    stats = store.stats()
    return {
        "files": stats.files,
        "symbols": stats.symbols,
        "edges": stats.edges,
        "resolved_edges": stats.resolved_edges,
        "external_edges": stats.external_edges,
        "resolved_pct": _pct(stats.resolved_edges, stats.edges - stats.external_edges),
        "resolved_pct_all": _pct(stats.resolved_edges, stats.edges),
        "resolution": dict(stats.resolution),
        "symbol_kinds": dict(stats.symbol_kinds),
        "languages": {entry.language: _language(entry) for entry in stats.languages},
        "skipped": [{"path": s.path, "reason": s.reason} for s in stats.skipped],
        "unsupported": {ext or "(none)": n for ext, n in stats.unsupported},
        "last_commit": store.get_meta("last_commit"),
    }


def _language(entry: LanguageStats) -> dict[str, object]:
    """Only the parts the language has rows for, as the index reports them."""
    out: dict[str, object] = {}
    if entry.files:
        out |= {"files": entry.files, "lines": entry.lines}
    if entry.symbols:
        out["symbols"] = entry.symbols
    if entry.edges:
        out |= {
            "edges": entry.edges,
            "resolved": entry.resolved,
            "resolved_pct": _pct(entry.resolved, entry.edges - entry.external),
            "tiers": _tiers(entry),
        }
    return out


def _tiers(entry: LanguageStats) -> dict[str, dict[str, object]]:
    """Each tier's edges and share of the language's project edges;
    ``external`` (outside "project edges") as a share of all its edges."""
    project = entry.edges - entry.external
    out: dict[str, dict[str, object]] = {
        tier: {"edges": n, "pct": _pct(n, project)} for tier, n in entry.tiers if tier != "external"
    }
    if entry.external:
        out["external"] = {"edges": entry.external, "pct": _pct(entry.external, entry.edges)}
    return out


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    with workspace.open_store(ws, create=False) as store:
        data = collect(store)
        from cartog_ci.precise import availability

        data["compiler_tier"] = availability(ws.root, store)
    if args.json:
        emit_json(data)
        return 0
    echo(f"files {data['files']}  symbols {data['symbols']}  edges {data['edges']}")
    echo(
        f"resolved {data['resolved_edges']} edges: {data['resolved_pct']}% of project edges "
        f"({data['external_edges']} point outside the project; {data['resolved_pct_all']}% of all)"
    )
    echo("by tier: " + ", ".join(f"{k} {v}" for k, v in cast("dict[str, object]", data["resolution"]).items()))
    for lang, entry in sorted(cast("dict[str, dict[str, object]]", data["languages"]).items()):
        echo(
            f"  {lang:<11} files {entry.get('files', 0):>5}  lines {entry.get('lines', 0):>7}  "
            f"symbols {entry.get('symbols', 0):>6}  edges {entry.get('edges', 0):>6}  "
            f"resolved {entry.get('resolved_pct', 0.0)}%"
        )
        tiers = cast("dict[str, dict[str, object]]", entry.get("tiers", {}))
        if tiers:
            shares = (f"{t} {v['edges']} ({v['pct']}%{' of all' if t == 'external' else ''})" for t, v in tiers.items())
            echo("              by tier: " + ", ".join(shares))
    if data["unsupported"]:
        unsupported = cast("dict[str, object]", data["unsupported"])
        echo("unsupported files: " + ", ".join(f"{k} {v}" for k, v in unsupported.items()))
    for tool in cast("list[dict[str, object]]", data["compiler_tier"]):
        said = f"{tool['tool']} {tool['version']}, {tool['cached_answers']} answer(s) cached"
        echo(f"compiler tier for {tool['languages']}: {said if tool['available'] else 'not available: ' + str(tool['why'])}")
    for item in cast("list[dict[str, object]]", data["skipped"]):
        echo(f"skipped {item['path']}: {item['reason']}")
    return 0
