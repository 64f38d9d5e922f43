"""The report's related code on real 10-commit changes: the hits to judge by
hand, the overlap of the keyword-candidate path with the whole-repository
path, and the cold report's wall time with related code.

The pairs are those of benchmarks/report.py (``main`` = the old release,
``upgrade`` = 10 commits to the new one, under benchmarks/.corpora).

``hits`` (default): an index of the head with every symbol embedded
(``cartog-ci index``, untimed, kept at ``--index`` or under
benchmarks/.corpora/related/), the change ``main..upgrade``, and a sample of
its changed symbols (modified, added or renamed; not tests, docs or modules;
every ``len/N``-th one by ID, so the same list each run). For each, the
report's related code (``build_report``, 3 hits after its own callers are
left out) by both finders (modules, constants: no text, no related code) of ``search/related.py``:

- ``knn``: the stored vectors' KNN fused with a keyword search on the name's
  words (the report before the keyword candidates: it needed the whole
  repository embedded);
- ``keyword``: candidates from the keyword index, ranked by cosine (now).

and the overlap@5 of the two finders' first five hits (|A ∩ B| / 5, over
the sampled symbols that have hits by the knn path).

``--variants``: the overlap@5 of each candidate count (15, 25, 50) and
ranking (cosine alone, or fused by RRF with the order of a keyword search on
the name's words, as the knn path does) with the knn
path, over every reportable changed symbol, and how many texts each embeds.

``cold``: ``cartog-ci report --base main --format markdown`` with no index
(it builds the index, then embeds what related code needs), wall and CPU
seconds, ``--runs`` times, and the number of related lines in the comment.

    .venv/bin/python benchmarks/related.py --pair scrapy --sample 15
    .venv/bin/python benchmarks/related.py --pair scrapy --cold --runs 3

No thresholds: the output is for reading and judging.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from measure import cli_env, load_average, median, run_process  # noqa: E402
from report import PAIRS, build_history  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
OVERLAP_AT = 5


def cli(*args: str) -> list[str]:
    return [str(Path(PYTHON).parent / "cartog-ci"), *args]


def full_index(repo: Path, index: Path) -> None:
    if index.exists():
        return
    print(f"embedding every symbol of {repo.name} into {index} (untimed) ...", file=sys.stderr)
    subprocess.run(cli("index", str(repo), "--index", str(index)), check=True, env=cli_env(), stdout=subprocess.DEVNULL)


def sample_changes(changes: Sequence[object], n: int) -> list[object]:
    """Every len/n-th reportable change by symbol ID: deterministic."""
    from cartog_ci.report.build import _in_test_code  # the report's own test rule

    kept = sorted(
        (
            c
            for c in changes
            if c.symbol is not None  # type: ignore[attr-defined]
            and c.category in ("modified", "added", "renamed")  # type: ignore[attr-defined]
            and c.symbol.kind not in ("module", "section", "constant")  # type: ignore[attr-defined]
            and not _in_test_code(c.symbol)  # type: ignore[attr-defined]
        ),
        key=lambda c: c.symbol.id,  # type: ignore[attr-defined]
    )
    if len(kept) <= n:
        return kept
    step = len(kept) / n
    return [kept[int(i * step)] for i in range(n)]


def overlaps(store: object, config: object, model: object, changes: Sequence[object]) -> list[str]:
    """overlap@5 of each keyword-candidate variant with the whole-index KNN
    path, as it is and restricted to implementation code (the candidates
    leave tests and docs out), over every reportable changed symbol."""
    from cartog_ci.search.related import keyword_candidates, related_finder, same_name
    from cartog_ci.search.roles import role_of

    knn = related_finder(store, config, strategy="knn")  # type: ignore[arg-type]
    symbols = [c.symbol for c in sample_changes(changes, 10**9)]  # type: ignore[attr-defined]
    full = {s.id: [h.id for h, _ in knn(s, OVERLAP_AT)] for s in symbols}  # type: ignore[misc]
    impl = {s.id: [h.id for h, _ in knn(s, 40) if not role_of(h.file)][:OVERLAP_AT] for s in symbols}  # type: ignore[misc]
    rows = [
        f"overlap@{OVERLAP_AT} over {len(symbols)} changed symbols (implementation code, with a text)",
        "| candidates per symbol | ranking | vs knn as on main | vs knn of implementation code | texts embedded |",
        "|---|---|---|---|---|",
    ]
    for k, fuse in ((15, True), (25, True), (50, True), (15, False), (50, False)):
        if True:
            finder = related_finder(store, config, lambda: model, candidates=k, fuse=fuse)  # type: ignore[arg-type]
            embedded: set[str] = set()
            a, b = [], []
            for s in symbols:
                got = [h.id for h, _ in finder(s, OVERLAP_AT)]  # type: ignore[misc]
                named = same_name(store, s) if fuse else []  # type: ignore[arg-type]
                embedded.update([s.id, *keyword_candidates(store, s, k), *named])  # type: ignore[arg-type]
                if full[s.id]:
                    a.append(len(set(got) & set(full[s.id])) / OVERLAP_AT)
                if impl[s.id]:
                    b.append(len(set(got) & set(impl[s.id])) / OVERLAP_AT)
            rows.append(
                f"| {k} | {'cosine + name words (RRF)' if fuse else 'cosine'} | {sum(a) / max(len(a), 1):.3f} ({len(a)}) "
                f"| {sum(b) / max(len(b), 1):.3f} ({len(b)}) | {len(embedded)} |"
            )
    return rows


def where(symbol: object) -> str:
    return f"{symbol.file}:{symbol.start_line}"  # type: ignore[attr-defined]


def run_hits(pair_name: str, index: Path, n: int, as_json: bool, variants: bool = False) -> int:
    from cartog_ci import workspace
    from cartog_ci.embed.provider import model_from_config
    from cartog_ci.index.files import Limits
    from cartog_ci.report import sides
    from cartog_ci.report.build import build_report
    from cartog_ci.report.diff import compute_change
    from cartog_ci.search.related import related_finder

    repo = build_history(PAIRS[pair_name])
    full_index(repo, index)
    ws = workspace.locate(str(repo), str(index), require_git=True)
    comparison = sides.choose(repo, base="main")
    change = compute_change(repo, comparison, limits=Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms))
    sample = {c.symbol.id for c in sample_changes(change.changes, n)}  # type: ignore[attr-defined]
    out: dict[str, object] = {"pair": PAIRS[pair_name].label, "symbols": []}
    with workspace.open_store(ws, create=False) as store:
        model = model_from_config(ws.config, ws.root)
        if variants:
            print("\n".join(overlaps(store, ws.config, model, change.changes)))
            return 0
        finders = {
            "knn": related_finder(store, ws.config, strategy="knn"),
            "keyword": related_finder(store, ws.config, lambda: model, strategy="keyword"),
        }
        shown: dict[str, dict[str, list[object]]] = {}
        for name, finder in finders.items():
            started = time.perf_counter()
            report = build_report(store, change, related=finder)
            seconds = time.perf_counter() - started
            print(f"{name}: build_report with related code {seconds:.1f} s", file=sys.stderr)
            shown[name] = {item.symbol.id: item.related for item in report.changed if item.symbol.id in sample}
        overlaps_ = []
        for symbol_id in sorted(sample):
            symbol = store.symbol(symbol_id)
            assert symbol is not None
            top = {name: [s.id for s, _ in finder(symbol, OVERLAP_AT)] for name, finder in finders.items()}  # type: ignore[misc]
            overlap = len(set(top["knn"]) & set(top["keyword"])) / OVERLAP_AT if top["knn"] else None
            if overlap is not None:
                overlaps_.append(overlap)
            row = {
                "symbol": symbol.qualified_name,
                "at": where(symbol),
                "overlap@5": overlap,
                **{name: [(s.qualified_name, where(s), round(score, 4)) for s, score in shown[name][symbol_id]] for name in finders},
            }
            out["symbols"].append(row)  # type: ignore[attr-defined]
    out["overlap@5"] = round(sum(overlaps_) / len(overlaps_), 3) if overlaps_ else None
    out["overlap_symbols"] = len(overlaps_)
    if as_json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"# {out['pair']}: {len(sample)} changed symbols, overlap@5 knn vs keyword {out['overlap@5']} over {len(overlaps_)}")
    for row in out["symbols"]:  # type: ignore[attr-defined]
        print(f"\n## {row['symbol']} ({row['at']}) overlap@5 {row['overlap@5']}")
        for name in finders:
            print(f"  {name}:")
            for qualified, at, score in row[name] or [("(none)", "", 0.0)]:
                print(f"    - {qualified} {at} {score}")
    return 0


def related_lines(markdown: str) -> list[str]:
    """The lines of the comment's related-code section."""
    _, _, rest = markdown.partition("### Related code")
    return [line for line in rest.split("\n#")[0].splitlines() if line.startswith("- ")]


def run_cold(pair_name: str, runs: int) -> int:
    repo = build_history(PAIRS[pair_name])
    walls, cpus = [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory(dir=corpora.CORPORA_DIR) as tmp:
            index = Path(tmp) / "index.db"
            load = load_average()
            done = run_process(
                cli("report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--index", str(index)),
                env=cli_env(),
            )
            related = related_lines(done.stdout)
            section = "### Related code" in done.stdout
            walls.append(done.wall)
            cpus.append(done.cpu)
            print(
                f"cold report {i + 1}/{runs}: wall {done.wall:.1f} s, CPU {done.cpu:.1f} s, load {load}, "
                f"related section {'yes' if section else 'no'} ({len(related)} lines)",
                file=sys.stderr,
            )
    print(f"# {PAIRS[pair_name].label}: cold report with related code, {runs} runs, "
          f"wall median {median(walls):.1f} s ({min(walls):.1f}-{max(walls):.1f}), CPU median {median(cpus):.1f} s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pair", choices=sorted(PAIRS), default="scrapy")
    parser.add_argument("--sample", type=int, default=15, help="changed symbols to list (default 15)")
    parser.add_argument("--index", help="the fully embedded index of the head (default under benchmarks/.corpora/related/)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cold", action="store_true", help="time cold reports instead of listing hits")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variants", action="store_true", help="overlap@5 of each candidate count and ranking")
    args = parser.parse_args(argv)
    os.chdir(REPO)
    if args.cold:
        return run_cold(args.pair, args.runs)
    index = Path(args.index) if args.index else corpora.CORPORA_DIR / "related" / f"{args.pair}-head.db"
    index.parent.mkdir(parents=True, exist_ok=True)
    return run_hits(args.pair, index, args.sample, args.json, args.variants)


if __name__ == "__main__":
    raise SystemExit(main())
