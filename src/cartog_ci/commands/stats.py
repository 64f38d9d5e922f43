"""`cartog-ci stats`: what the index holds, per language, and how much resolved."""

from __future__ import annotations

import argparse
from typing import cast

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.store.sqlite import SqliteStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def collect(store: SqliteStore) -> dict[str, object]:
    edges = store.count("edges")
    resolved = store.count("edges", "target_id IS NOT NULL")
    external = store.count("edges", "resolution = 'external'")
    internal = edges - external
    languages: dict[str, dict[str, object]] = {}
    for lang, files, lines in store.query(
        "SELECT language, count(*), sum(lines) FROM files WHERE status = 'indexed' GROUP BY language"
    ):
        languages[str(lang)] = {"files": files, "lines": lines or 0}
    for lang, symbols in store.query("SELECT language, count(*) FROM symbols GROUP BY language"):
        languages.setdefault(str(lang), {})["symbols"] = symbols
    for lang, total, ok, ext in cast(
        "list[tuple[str, int, int | None, int | None]]",
        store.query(
            "SELECT f.language, count(*), sum(e.target_id IS NOT NULL), sum(e.resolution = 'external') "
            "FROM edges e JOIN files f ON f.path = e.file GROUP BY f.language"
        ),
    ):
        entry = languages.setdefault(str(lang), {})
        entry["edges"] = total
        entry["resolved"] = ok
        entry["resolved_pct"] = _pct(int(ok or 0), int(total) - int(ext or 0))
    by_tier = {str(t): n for t, n in store.query(
        "SELECT coalesce(resolution, 'unresolved'), count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
    )}  # fmt: skip
    by_kind = {str(k): n for k, n in store.query("SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY 2 DESC")}
    skipped = [
        {"path": p, "reason": r}
        for p, r in store.query("SELECT path, reason FROM files WHERE status = 'skipped' ORDER BY path")
    ]
    unsupported = {
        str(ext or "(none)"): n
        for ext, n in store.query(
            "SELECT language, count(*) FROM files WHERE status = 'unsupported' GROUP BY language ORDER BY 2 DESC"
        )
    }
    return {
        "files": store.count("files", "status = 'indexed'"),
        "symbols": store.count("symbols"),
        "edges": edges,
        "resolved_edges": resolved,
        "external_edges": external,
        "resolved_pct": _pct(resolved, internal),
        "resolved_pct_all": _pct(resolved, edges),
        "resolution": by_tier,
        "symbol_kinds": by_kind,
        "languages": languages,
        "skipped": skipped,
        "unsupported": unsupported,
        "last_commit": store.get_meta("last_commit"),
    }


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    with workspace.open_store(ws, create=False) as store:
        data = collect(store)
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
    if data["unsupported"]:
        unsupported = cast("dict[str, object]", data["unsupported"])
        echo("unsupported files: " + ", ".join(f"{k} {v}" for k, v in unsupported.items()))
    for item in cast("list[dict[str, object]]", data["skipped"]):
        echo(f"skipped {item['path']}: {item['reason']}")
    return 0
