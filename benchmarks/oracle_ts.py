"""Call resolution of JavaScript / TypeScript, checked against the TypeScript
language service: precision and recall of cartog-ci's ``calls`` edges on
real npm packages, per resolution tier, with the miss patterns and the
possible false positives.

    .venv/bin/python benchmarks/oracle_ts.py                       # both corpora
    .venv/bin/python benchmarks/oracle_ts.py --corpus rxjs --out /tmp/rxjs.json
    .venv/bin/python benchmarks/oracle_ts.py --cartog-src /work/wt-resolve/src

=================  ==========  =================================================
npm tarball        role        why this one
=================  ==========  =================================================
rxjs 7.8.2         library     ships ``src/`` (251 .ts) and ``tsconfig.json``
                               (no ``include``: the whole tarball), plus its
                               compiled JavaScript (``dist/cjs``, ``dist/esm``,
                               ``dist/esm5``, ``dist/bundles``): the JS half of
                               the comparison; also benchmarks/languages.py's
@lobehub/chat      React app   a Next.js / React application published whole
1.143.3                        (``src/`` + ``packages/``, ~3,700 .ts/.tsx,
                               424k lines); ``compilerOptions.paths`` maps
                               ``@/*`` (5,000+ imports), some aliases to two
                               directories. Smaller candidates fell short: a
                               Salesforce React template (105 files, 15 alias
                               imports), @medusajs/dashboard (no tsconfig.json
                               in the tarball: measured since with one written)
zod 4.1.12         library     ``src/`` (v3, v4 classic/core/mini and their
                               tests); no tsconfig.json: one is written (the
                               ``@zod/source`` condition its package.json
                               exports map to ``src/``, as zod's own build)
@trpc/server       library     a public API of interfaces, type-level
11.25.2                        builders and barrels of re-exports; ``src/``
                               (84 .ts), no tsconfig.json: one is written
@medusajs/         React app   Medusa's admin dashboard, published whole
dashboard 2.21.2               (``src/``: ~1,950 .ts/.tsx, routes, hooks,
                               forms, tests); relative imports; no
                               tsconfig.json: one is written
qs 6.17.1,         CommonJS    JavaScript packages whose tarballs ship their
minimist 1.2.8,                tape tests (``require('../')``), and express's
resolve 1.22.10,               ``lib/``: ``module.exports = function``, objects
object-inspect                 of required functions, ``exports.f``; a tsconfig
1.13.4, express                is written (``module: commonjs``, ``node10``
4.21.2                         resolution) that includes the listed files
=================  ==========  =================================================

A tsconfig written for a tarball lives outside the repository (cartog-ci
never reads it): strict, ES2022, its ``src/`` included, and the module
resolution the package's own build uses.

Neither corpus' dependencies are installed (nor lobechat's workspace links
``@lobechat/*`` → ``packages/*``): a call into one is external for the
oracle, as a bare specifier is for cartog-ci. TypeScript is installed with
npm into ``benchmarks/.corpora/node/`` (pinned, never global); the corpora
are built by benchmarks/corpora.py (``ensure_npm``).

How it works:

1. **Ours**: ``python -m cartog_ci.cli index REPO --no-embed --force`` into a
   temporary index, then ``export --json``, with ``PYTHONPATH`` set to
   ``--cartog-src``. ``calls`` edges of .js/.jsx/.ts/.tsx/.mjs/.cjs files.
2. **Oracle**: benchmarks/oracle_ts.mjs builds a language service from the
   corpus' tsconfig.json (``allowJs`` forced on), walks every file of that
   program and asks ``getDefinitionAtPosition`` at the callee's name of
   every call, ``new`` and JSX component tag. Definitions in the repository
   that are functions, methods, classes (constructors count as their class)
   or variables/properties initialised with a function, a class or a call
   (a HOC or a factory; not ``require('tape')``, an import
   the service cannot resolve: external) are targets; an overload set is one target. One →
   *confident*; several → *ambiguous*; none because the definition is
   outside the repository or behind an import the service cannot resolve →
   *external*; none otherwise (no definition, a parameter, an interface
   member, a destructured name) → *unknown*. Our edges in files outside the
   program are counted, not compared.
3. **Matching** (benchmarks/oracle_ts_match.py): an oracle target is the
   innermost cartog-ci symbol of its file whose qualified name ends with
   its name and whose lines hold its line ("target not extracted" when
   none); sites pair on (file, line, called name) as multisets, the line
   being where the callee expression starts (where cartog-ci anchors an
   edge); a line whose answers cannot be paired unambiguously is skipped.
4. **Metrics**: precision = confirmed / (confirmed + wrong target) over our
   in-project edges at oracle-confident sites; recall = confirmed /
   oracle-confident sites, an oracle site we have no edge for included. Our
   in-project edges where the oracle says external/unknown are *possible
   false positives* (the oracle is weak on untyped JavaScript and on
   ``this`` in a function expression: read the examples). Misses are
   grouped by how the callee is written and what binds its leftmost name.

``--out FILE`` writes every site's outcome as JSON. No threshold is checked:
the figures are for reading.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import corpora
from measure import cli_env, load_average, ms, run_process, table
from oracle_ts_match import OracleSite, OurEdge, Site, Sym, classify, in_project, pair

HERE = Path(__file__).resolve().parent
ORACLE_JS = HERE / "oracle_ts.mjs"
TYPESCRIPT = "5.9.3"  # the last 5.x: its JS API is the language service used here
NODE_PREFIX = corpora.CORPORA_DIR / "node" / f"typescript-{TYPESCRIPT}"
EXTENSIONS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
EXAMPLES = 10


@dataclass(frozen=True)
class TsCorpus:
    npm: corpora.NpmCorpus
    role: str
    tsconfig: str = "tsconfig.json"  # relative to the tarball's root
    # compilerOptions of a tsconfig written outside the repository, for a
    # tarball that ships none (it includes the tarball's src/)
    written: tuple[tuple[str, object], ...] = ()
    # what that written tsconfig includes (directories or files of the tarball)
    include: tuple[str, ...] = ("src",)


_STRICT = (("strict", True), ("target", "es2022"), ("skipLibCheck", True), ("lib", ["es2022", "dom", "dom.iterable"]))
_BUNDLER = (*_STRICT, ("module", "esnext"), ("moduleResolution", "bundler"))
# CommonJS packages written in JavaScript: Node's own resolution (`require('../')`
# is the package's `main`; benchmarks/oracle_ts.mjs allows JavaScript)
_COMMONJS = (*_STRICT, ("module", "commonjs"), ("moduleResolution", "node10"))


CORPORA = {
    c.npm.name: c
    for c in (
        TsCorpus(corpora.NpmCorpus("rxjs", "rxjs", "7.8.2"), "library"),
        TsCorpus(corpora.NpmCorpus("lobechat", "@lobehub/chat", "1.143.3"), "React app"),
        TsCorpus(
            corpora.NpmCorpus("zod", "zod", "4.1.12"), "library",
            written=(*_STRICT, ("module", "nodenext"), ("moduleResolution", "nodenext"),
                     ("customConditions", ["@zod/source"])),
        ),  # fmt: skip
        TsCorpus(corpora.NpmCorpus("trpc", "@trpc/server", "11.25.2"), "library", written=_BUNDLER),
        TsCorpus(corpora.NpmCorpus("qs", "qs", "6.17.1"), "CommonJS", written=_COMMONJS, include=("lib", "test")),
        TsCorpus(corpora.NpmCorpus("minimist", "minimist", "1.2.8"), "CommonJS", written=_COMMONJS,
                 include=("index.js", "test")),
        TsCorpus(corpora.NpmCorpus("resolve", "resolve", "1.22.10"), "CommonJS", written=_COMMONJS,
                 include=("index.js", "sync.js", "async.js", "lib", "test")),
        TsCorpus(corpora.NpmCorpus("object-inspect", "object-inspect", "1.13.4"), "CommonJS", written=_COMMONJS,
                 include=("index.js", "util.inspect.js", "test")),
        TsCorpus(corpora.NpmCorpus("express", "express", "4.21.2"), "CommonJS", written=_COMMONJS,
                 include=("index.js", "lib")),
        TsCorpus(
            corpora.NpmCorpus("medusa", "@medusajs/dashboard", "2.21.2"), "React app",
            written=(*_BUNDLER, ("jsx", "react-jsx")),
        ),  # fmt: skip
    )
}


# --- the two sides --------------------------------------------------------


def ensure_typescript(prefix: Path = NODE_PREFIX) -> Path:
    """``typescript`` in a prefix of its own (by default under benchmarks/.corpora/node/)."""
    if not (prefix / "node_modules" / "typescript" / "package.json").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing typescript@{TYPESCRIPT} into {prefix} ...", file=sys.stderr)
        cmd = ["npm", "install", "--prefix", str(prefix), "--save-exact", "--no-audit", "--no-fund",
               "--silent", f"typescript@{TYPESCRIPT}"]  # fmt: skip
        subprocess.run(cmd, check=True)
    return prefix


def child_env(cartog_src: Path) -> dict[str, str]:
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(cartog_src), env.get("PYTHONPATH", "")) if p)
    return env


def measured_note(python: str, env: dict[str, str]) -> str:
    """Where the child imports cartog_ci from, and that checkout's git state."""
    where = run_process([python, "-c", "import cartog_ci, os; print(os.path.dirname(cartog_ci.__file__))"], env=env)
    origin = where.stdout.strip()
    git = ["git", "-C", origin]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True, check=False)
    state = f" at {head.stdout.strip()}" if head.returncode == 0 else ""
    return f"cartog_ci from {origin}{state}{' + uncommitted changes' if dirty.stdout.strip() else ''}"


def run_ours(repo: Path, python: str, env: dict[str, str]) -> tuple[dict[str, object], float]:
    """``index --force --no-embed`` into a fresh file, then ``export --json``."""
    with tempfile.TemporaryDirectory(prefix="cartog-oracle-") as tmp:
        index = str(Path(tmp) / "index.db")
        cli = [python, "-m", "cartog_ci.cli"]
        built = run_process([*cli, "index", str(repo), "--no-embed", "--force", "--index", index], env=env)
        exported = run_process([*cli, "export", "--json", "--repo", str(repo), "--index", index], env=env)
    return json.loads(exported.stdout), built.wall + exported.wall


def our_calls(export: dict[str, object]) -> list[OurEdge]:
    edges = export["edges"]
    assert isinstance(edges, list)
    return [
        OurEdge(e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"])
        for e in edges
        if e["kind"] == "calls" and e["file"].endswith(EXTENSIONS)
    ]


def our_symbols(export: dict[str, object]) -> dict[str, Sym]:
    symbols = export["symbols"]
    assert isinstance(symbols, list)
    fields = Sym.__dataclass_fields__
    return {s["id"]: Sym(**{k: s[k] for k in fields}) for s in symbols}


def run_oracle(repo: Path, corpus: TsCorpus) -> tuple[set[str], list[OracleSite], str, float]:
    """(files walked, call sites, typescript version, wall)."""
    with tempfile.TemporaryDirectory(prefix="cartog-oracle-tsconfig-") as tmp:
        tsconfig = corpus.tsconfig
        if corpus.written:
            include = [str(repo.resolve() / part) for part in corpus.include]
            written = {"compilerOptions": dict(corpus.written), "include": include}
            tsconfig = str(Path(tmp) / "tsconfig.json")
            Path(tsconfig).write_text(json.dumps(written))
        cmd = ["node", "--max-old-space-size=8192", str(ORACLE_JS), str(ensure_typescript()), str(repo), tsconfig]
        run = run_process(cmd)
    lines = iter(run.stdout.splitlines())
    header = json.loads(next(lines))
    sites = [_oracle_site(json.loads(line)) for line in lines]
    return set(header["files"]), sites, header["typescript"], run.wall


def _oracle_site(raw: dict[str, Any]) -> OracleSite:
    target = raw.get("target") or {}
    found = (target["file"], target["line"], target["name"]) if target else None
    kind = f"{target['kind']}{' (local)' if target['local'] else ''}" if target else ""
    reason = raw.get("reason", "")
    return OracleSite(raw["file"], raw["line"], raw["name"], raw["status"], reason, found, kind, raw["shape"])


# --- figures --------------------------------------------------------------


@dataclass
class Figures:
    sites: int = 0
    confident: int = 0
    ambiguous: int = 0
    external: int = 0
    ours_in_project: int = 0
    confirmed: int = 0
    wrong: int = 0
    possible_fp: int = 0

    def add(self, site: Site) -> None:
        if site.oracle is not None:
            self.sites += 1
            status = site.oracle.status
            self.confident += status == "confident"
            self.ambiguous += status == "ambiguous"
            self.external += status in ("external", "unknown")
        self.ours_in_project += in_project(site.ours)
        self.confirmed += site.outcome == "confirmed"
        self.wrong += site.outcome == "wrong target"
        self.possible_fp += site.outcome == "possible false positive"

    def merge(self, other: Figures) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def precision(self) -> str:
        return pct(self.confirmed, self.confirmed + self.wrong)

    @property
    def recall(self) -> str:
        return pct(self.confirmed, self.confident)


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def figures(sites: Iterable[Site]) -> Figures:
    out = Figures()
    for site in sites:
        out.add(site)
    return out


def tier_rows(sites: Sequence[Site]) -> list[list[str]]:
    """Our in-project edges by the tier that resolved them."""
    by_tier: dict[str, Counter[str]] = defaultdict(Counter)
    for site in sites:
        if in_project(site.ours):
            assert site.ours is not None
            by_tier[str(site.ours.resolution)][site.outcome] += 1
    rows = []
    for tier, counts in sorted(by_tier.items(), key=lambda kv: -sum(kv[1].values())):
        good, bad = counts["confirmed"], counts["wrong target"]
        shown = [sum(counts.values()), good, bad, *(counts[k] for k in TIER_OUTCOMES)]
        rows.append([tier, *(f"{n:,}" for n in shown), pct(good, good + bad)])
    return rows


TIER_OUTCOMES = ("possible false positive", "oracle ambiguous", "not an oracle site")
TIER_HEADERS = ["our tier", "in-project edges", "confirmed", "wrong target", "possible FP", "oracle ambiguous",
                "no oracle site", "precision"]  # fmt: skip


class Source:
    """Source lines of a corpus, for the examples."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.cache: dict[str, list[str]] = {}

    def line(self, file: str, line: int) -> str:
        if file not in self.cache:
            self.cache[file] = (self.repo / file).read_text(encoding="utf-8", errors="replace").splitlines()
        lines = self.cache[file]
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return text if len(text) <= 100 else text[:97] + "..."


def spread(sites: Sequence[Site], key: Callable[[Site], object], limit: int = EXAMPLES) -> list[Site]:
    """Up to ``limit`` examples taken in turn from each group (largest first)."""
    groups: dict[object, list[Site]] = defaultdict(list)
    for site in sites:
        groups[key(site)].append(site)
    ordered = sorted(groups.values(), key=len, reverse=True)
    picked: list[Site] = []
    for depth in range(limit):
        picked += [g[depth] for g in ordered if depth < len(g)][: limit - len(picked)]
    return picked


def miss_report(sites: Sequence[Site], source: Source) -> str:
    misses = [s for s in sites if s.pattern]
    counts = Counter(s.pattern for s in misses)
    rows = [[str(p), f"{n:,}", pct(n, len(misses))] for p, n in counts.most_common()]
    lines = [table(["miss pattern (oracle confident, not confirmed)", "sites", "share"], rows), ""]
    for site in spread(misses, lambda s: s.pattern):
        assert site.oracle is not None and site.oracle.target is not None
        file, line, name = site.oracle.target
        ours = f"{site.ours.resolution or 'unresolved'} {site.ours.target_id or ''}".strip() if site.ours else "no edge"
        lines.append(f"  [{site.pattern}] {site.file}:{site.line} {site.name}() -> {file}:{line} {name}; ours: {ours}")
        lines.append(f"      {source.line(site.file, site.line)}")
    return "\n".join(lines)


def fp_report(sites: Sequence[Site], source: Source) -> str:
    fps = [s for s in sites if s.outcome == "possible false positive"]
    reasons = Counter(f"{s.oracle.status}: {s.oracle.reason}" for s in fps if s.oracle)
    top = ", ".join(f"{r} {n:,}" for r, n in reasons.most_common(5))
    lines = [f"possible false positives: {len(fps):,} (oracle: {top})"]
    for site in spread(fps, lambda s: (s.ours and s.ours.resolution, s.oracle and s.oracle.reason)):
        assert site.ours is not None and site.oracle is not None
        lines.append(f"  {site.file}:{site.line} {site.name}() -> {site.ours.target_id} [{site.ours.resolution}];"
                     f" oracle: {site.oracle.status} ({site.oracle.reason})")  # fmt: skip
        lines.append(f"      {source.line(site.file, site.line)}")
    return "\n".join(lines)


# --- one corpus -----------------------------------------------------------


@dataclass
class Result:
    name: str
    sites: list[Site]
    figures: Figures
    skipped_lines: int
    outside_program: int
    ours_wall: float
    oracle_wall: float
    typescript: str


def measure_corpus(corpus: TsCorpus, python: str, env: dict[str, str]) -> tuple[Result, str]:
    repo = corpora.ensure_npm(corpus.npm)
    print(f"{corpus.npm.spec}: cartog-ci index + export ...", file=sys.stderr)
    export, ours_wall = run_ours(repo, python, env)
    print(f"{corpus.npm.spec}: TypeScript language service ...", file=sys.stderr)
    files, oracle, version, oracle_wall = run_oracle(repo, corpus)
    calls = our_calls(export)
    scoped = [e for e in calls if e.file in files]
    pairs, skipped = pair(scoped, (s for s in oracle if s.file.endswith(EXTENSIONS)))
    sites = classify(pairs, our_symbols(export))
    outside = len(calls) - len(scoped)
    result = Result(corpus.npm.name, sites, figures(sites), skipped, outside, ours_wall, oracle_wall, version)
    return result, corpus_report(corpus, repo, result)


def corpus_report(corpus: TsCorpus, repo: Path, result: Result) -> str:
    source = Source(repo)
    unmapped = sum(1 for s in result.sites if s.pattern and s.pattern.startswith("target not extracted"))
    notes = [
        f"== {corpus.npm.spec} ({corpus.role}; {repo.relative_to(HERE.parent)}, {corpus.tsconfig})",
        table(TIER_HEADERS, tier_rows(result.sites)),
        (
            f"lines skipped (both sides have several different outcomes): {result.skipped_lines:,};"
            f" our calls edges outside the oracle's program: {result.outside_program:,};"
            f" oracle targets not extracted as cartog-ci symbols: {unmapped:,}"
        ),
        "",
        miss_report(result.sites, source),
        "",
        fp_report(result.sites, source),
    ]
    return "\n".join(notes)


def summary(results: Sequence[Result]) -> str:
    headers = ["corpus", "sites", "oracle confident", "ambiguous", "external/unknown", "ours in-project",
               "precision", "recall", "ours wall", "oracle wall"]  # fmt: skip
    rows = [_summary_row(r.name, r.figures, r.ours_wall, r.oracle_wall) for r in results]
    total = Figures()
    for r in results:
        total.merge(r.figures)
    rows.append(_summary_row("total", total, sum(r.ours_wall for r in results), sum(r.oracle_wall for r in results)))
    return table(headers, rows)


def _summary_row(name: str, f: Figures, ours_wall: float, oracle_wall: float) -> list[str]:
    return [name, f"{f.sites:,}", f"{f.confident:,}", f"{f.ambiguous:,}", f"{f.external:,}", f"{f.ours_in_project:,}",
            f.precision, f.recall, ms(ours_wall), ms(oracle_wall)]  # fmt: skip


def site_json(corpus: str, site: Site) -> dict[str, object]:
    return {
        "corpus": corpus, "file": site.file, "line": site.line, "name": site.name, "outcome": site.outcome,
        "pattern": site.pattern, "ours": asdict(site.ours) if site.ours else None,
        "oracle": asdict(site.oracle) if site.oracle else None, "oracle_target_id": site.oracle_target_id,
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="repeatable; default: all")
    parser.add_argument("--cartog-src", type=Path, default=HERE.parent / "src", help="src/ of the checkout to measure")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs cartog_ci")
    parser.add_argument("--out", type=Path, help="write every call site's outcome here (JSON)")
    args = parser.parse_args(argv)
    env = child_env(args.cartog_src.resolve())
    results = []
    for name in args.corpus or list(CORPORA):
        result, report = measure_corpus(CORPORA[name], args.python, env)
        print(report + "\n")
        results.append(result)
    print(summary(results))
    print("precision: confirmed / (confirmed + wrong target), over our in-project edges where the oracle is confident")
    print("recall: confirmed / oracle-confident in-project sites (an oracle site we have no edge for is a miss)")
    print(f"typescript {results[0].typescript}; {measured_note(args.python, env)}; 1-min load average {load_average()}")
    if args.out:
        args.out.write_text(json.dumps([site_json(r.name, s) for r in results for s in r.sites], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
