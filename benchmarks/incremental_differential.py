"""Differential check of the incremental index on real release histories.

Each language has a history: two or three consecutive releases of a real
project, replayed as commits of one git repository (tagged ``v<version>``).
A seeded walk of random steps (benchmarks/differential.py: checkouts forward
and backward, commits, edits, appends, reorderings, renames, deletions and
restores, moves, file <-> directory swaps, deleted package index files,
symlink swaps, ``kill -9`` mid-run and edits mid-run) changes the work tree;
after every step ``cartog-ci index`` runs incrementally into an index file
outside the repository, a cold ``cartog-ci index --force`` runs into another,
and the two are compared (symbols with hashes and in-degree, edges with
targets, the files table, the search rows). A step that differs is recorded
with its causes, then the incremental index is replaced by the cold one, so
every step is judged on its own.

    .venv/bin/python benchmarks/incremental_differential.py                    # 200 steps x 5 languages
    .venv/bin/python benchmarks/incremental_differential.py --steps 50 --language go
    .venv/bin/python benchmarks/incremental_differential.py --seed 7 --json out.json
    .venv/bin/python benchmarks/incremental_differential.py --corpus flask --corpus qs --steps 40   # other shapes

To measure another checkout of cartog-ci, put its ``src`` first:
``PYTHONPATH=<checkout>/src`` (the CLI runs and the comparison both import it
from there). The same ``--seed`` walks the same trees on any checkout
(below), so a run on main and one on a branch compare step by step.

Downloads and the history repositories are cached under
``$CARTOG_CI_BENCH_CACHE`` (default ``~/.cache/cartog-ci-bench``); nothing of
them is committed. Sources: PyPI sdists (``pip download``), npm tarballs
(``npm pack``), Debian source packages' upstream tarballs (``apt-get source
--download-only``: apt needs ``deb-src`` entries for the suites bookworm and
trixie, the second release of cobra and commons-codec being trixie's) and
Debian's Rust source packages (``apt-get download librust-…-dev``, the crate
as shipped under /usr/share/cargo/registry).

Files and lines of the language's own files (``--sizes``; other files in
the trees, Markdown, JSON, are indexed as well):

==========  =====================  ===================  ========  ===============
language    corpus                 releases             files     lines
==========  =====================  ===================  ========  ===============
python      scrapy (PyPI sdist)    2.11.0 2.11.1 2.11.2 345-347   62,196-64,560
typescript  zod ``src/v4`` (npm)   4.1.0 4.1.12         164-169   42,567-43,684
go          cobra (Debian)         1.6.1 1.8.1          36        14,378-15,714
java        commons-codec ``src/`` 1.15 1.18.0          143-156   42,988-44,108
            (Debian)
rust        clap (Debian           3.2.23 4.0.32        114-128   33,056-30,375
            librust-clap-3-dev,
            librust-clap-dev)
==========  =====================  ===================  ========  ===============

A language's ``--steps`` are walks of ``--walk-length`` steps, each from a
fresh clone of the history checked out at a release the walk's seed draws
(``<seed>:<language>:<walk>``); the walks of the languages are taken in turn,
so that a run stopped early covers all five, and ``--json`` is rewritten
after every walk (``--tables FILE`` prints the tables of a saved run). A
step's choices depend on its seed and the work tree only, never on the
index, so every checkout of cartog-ci walks the same trees; only the moment
a ``kill9`` strikes or an ``edit_mid_run`` edits depends on how long runs
take (the delay is drawn up to 1.3 times the last incremental run).

The first table: steps and steps differing per language; the second: steps
and steps differing per kind of step; the third: the causes (what differs:
"edge target missing [calls]", "symbol in_degree differs", ...), per
language, with the items and steps they make differ and one example each.
A step (incremental run, cold run, two snapshots) takes 1-4 s on 2 cores:
1,000 steps took 44 minutes on 2 cores shared with other work (load 5).

Main at 76bcc46, ``--seed 1`` (200 steps a language, 1,000 in all):

==========  =====  ===============  =========================================
language    steps  steps differing  causes (steps)
==========  =====  ===============  =========================================
python      200    2                an unresolved edge's resolution, external
                                    or none, kept when ``scrapy/__init__.py``
                                    goes or comes back (2: 67 and 14 edges)
typescript  200    3                calls through an import left unresolved
                                    after a checkout (2: 3 and 16 edges); a
                                    call kept its target after a reorder (1)
go          200    1                a package import kept the file it named
                                    after a checkout (1: 6 edges)
java        200    0
rust        200    10               a ``mod.rs`` deleted or restored: calls
                                    keep a target's tier (import / unique),
                                    a stale target or none (9); a call's
                                    resolution, external or none (2 of them)
all         1000   16
==========  =====  ===============  =========================================
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import differential
from corpora import GIT_ENV
from measure import table, tool_note

CACHE = Path(os.environ.get("CARTOG_CI_BENCH_CACHE", Path.home() / ".cache" / "cartog-ci-bench"))
DOWNLOADS = CACHE / "downloads"
HISTORIES = CACHE / "histories"
READY_MARK = ".cartog-bench-ready"


@dataclass(frozen=True)
class Release:
    version: str
    source: str  # pypi | npm | deb-source | deb-binary
    package: str
    debian: str = ""  # the Debian version (pkg=version)
    keep: tuple[str, ...] = ()  # paths kept, relative to the release's top (all when empty)
    root: str = ""  # the release's top inside the unpacked archive (deb-binary)


@dataclass(frozen=True)
class History:
    language: str  # the label of its rows and walk seeds: the language, or the corpus of an extra history
    name: str
    releases: tuple[Release, ...]
    syntax: str = ""  # the walker's language (benchmarks/differential.py SYNTAXES), when not ``language``

    @property
    def walks(self) -> str:
        """The language the walker edits (``differential.SYNTAXES``)."""
        return self.syntax or self.language

    @property
    def root(self) -> Path:
        kept = "".join(f"-{k}".replace("/", "_") for k in self.releases[0].keep)
        return HISTORIES / f"{self.name}-{'-'.join(r.version for r in self.releases)}{kept}"

    @property
    def tags(self) -> list[str]:
        return [f"v{r.version}" for r in self.releases]


def _clap(version: str, package: str, debian: str) -> Release:
    return Release(version, "deb-binary", package, debian, root=f"usr/share/cargo/registry/clap-{version}")


HISTORY_LIST = (
    History("python", "scrapy", tuple(Release(v, "pypi", "Scrapy") for v in ("2.11.0", "2.11.1", "2.11.2"))),
    History("typescript", "zod", tuple(Release(v, "npm", "zod", keep=("src/v4",)) for v in ("4.1.0", "4.1.12"))),
    History(
        "go",
        "cobra",
        (
            Release("1.6.1", "deb-source", "golang-github-spf13-cobra", "1.6.1-1"),
            Release("1.8.1", "deb-source", "golang-github-spf13-cobra", "1.8.1-1"),
        ),
    ),
    History(
        "java",
        "commons-codec",
        (
            Release("1.15", "deb-source", "libcommons-codec-java", "1.15-1", keep=("src",)),
            Release("1.18.0", "deb-source", "libcommons-codec-java", "1.18.0-1", keep=("src",)),
        ),
    ),
    History(
        "rust",
        "clap",
        (_clap("3.2.23", "librust-clap-3-dev", "3.2.23-4+b1"), _clap("4.0.32", "librust-clap-dev", "4.0.32-1")),
    ),
)
# Histories of other shapes, run with ``--corpus`` (never by default: the
# five above stay the benchmark's): Python packages under ``src/`` with
# ``.pyi`` stubs beside their modules (attrs) or examples and docs code
# (flask), CommonJS JavaScript packages (qs, mocha).
EXTRA_HISTORIES = (
    History("flask", "flask", tuple(Release(v, "pypi", "flask") for v in ("3.0.0", "3.0.3")), syntax="python"),
    History("attrs", "attrs", tuple(Release(v, "pypi", "attrs") for v in ("23.1.0", "23.2.0")), syntax="python"),
    History("qs", "qs", tuple(Release(v, "npm", "qs") for v in ("6.11.0", "6.13.0")), syntax="javascript"),
    History("mocha", "mocha", tuple(Release(v, "npm", "mocha") for v in ("10.2.0", "10.4.0")), syntax="javascript"),
)
HISTORIES_BY_LANGUAGE = {h.language: h for h in (*HISTORY_LIST, *EXTRA_HISTORIES)}
DEFAULT_LANGUAGES = tuple(h.language for h in HISTORY_LIST)


# -- fetching and building ---------------------------------------------------------


def _run(cmd: Sequence[str], cwd: Path, *, check: bool = True) -> None:
    subprocess.run(list(cmd), cwd=cwd, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fetch(release: Release) -> Path:
    """The release's archive, downloaded once into the cache."""
    target = DOWNLOADS / release.source / f"{release.package}-{release.debian or release.version}"
    patterns = {
        "pypi": ("*.tar.gz", "*.zip"),
        "npm": ("*.tgz",),
        "deb-source": (f"*_{release.version}.orig.tar.*",),
        "deb-binary": ("*.deb",),
    }[release.source]
    found = _glob(target, patterns)
    if found:
        return found
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {release.package} {release.version} ({release.source}) ...", file=sys.stderr)
    spec = f"{release.package}={release.debian}"
    if release.source == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
               f"{release.package}=={release.version}", "-d", str(target)]  # fmt: skip
        _run(cmd, target)
    elif release.source == "npm":
        _run(["npm", "pack", "--silent", f"{release.package}@{release.version}"], target)
    elif release.source == "deb-source":
        # the .dsc or the Debian part may be gone from the mirror: only the
        # upstream tarball is needed
        _run(["apt-get", "source", "--download-only", "-q", spec], target, check=False)
    else:
        _run(["apt-get", "download", "-q", spec], target, check=False)
    found = _glob(target, patterns)
    if not found:
        hint = " (apt needs deb-src lines for bookworm and trixie)" if release.source == "deb-source" else ""
        raise SystemExit(f"could not fetch {release.package} {release.version}{hint}")
    return found


def _glob(target: Path, patterns: Sequence[str]) -> Path | None:
    if not target.is_dir():
        return None
    for pattern in patterns:
        found = sorted(target.glob(pattern))
        if found:
            return found[0]
    return None


def unpack(release: Release, archive: Path, dest: Path) -> None:
    """The release's files (its top directory's contents, ``keep`` only) into ``dest``."""
    with tempfile.TemporaryDirectory(dir=HISTORIES) as tmp:
        if archive.suffix == ".deb":
            subprocess.run(["dpkg-deb", "-x", str(archive), tmp], check=True)
            top = Path(tmp, release.root)
        elif archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(tmp)
            top = _single_top(Path(tmp))
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
            top = _single_top(Path(tmp))
        for part in release.keep or [p.name for p in top.iterdir()]:
            source = top / part
            if source.is_dir():
                shutil.copytree(source, dest / part, symlinks=True)
            elif source.exists():
                shutil.copy2(source, dest / part)


def _single_top(tmp: Path) -> Path:
    tops = list(tmp.iterdir())
    return tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True).stdout


def ensure(history: History) -> Path:
    """The history as a git repository, one commit and tag per release (built once)."""
    root = history.root
    if (root / ".git" / READY_MARK).exists():
        return root
    if root.exists():
        shutil.rmtree(root)  # half built by an interrupted run
    archives = [fetch(r) for r in history.releases]
    print(f"building {root} ...", file=sys.stderr)
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for release, archive in zip(history.releases, archives):
        for entry in root.iterdir():
            if entry.name != ".git":
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        unpack(release, archive, root)
        _git(root, "add", "-A", "-f", ".")
        _git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", f"{history.name} {release.version}")
        _git(root, "tag", f"v{release.version}")
    (root / ".git" / READY_MARK).touch()
    return root


def size(history: History, tag: str) -> tuple[int, int]:
    """(files, lines) of the language's files at ``tag``."""
    root = ensure(history)
    extensions = differential.SYNTAXES[history.walks].extensions
    files = lines = 0
    for path in _git(root, "ls-tree", "-r", "--name-only", "-z", tag).split("\0"):
        if path.endswith(extensions):
            files += 1
            lines += _git(root, "show", f"{tag}:{path}").count("\n")
    return files, lines


# -- running --------------------------------------------------------------------------


@dataclass(frozen=True)
class Walked:
    history: History
    seed: str
    results: list[differential.StepResult]


def plan(histories: Sequence[History], seed: int, steps: int, walk_length: int) -> list[tuple[History, str, int]]:
    """(history, walk seed, steps) of every walk: ``steps`` per language in
    walks of ``walk_length``, taken in turn from each language, so that a
    run stopped early still covers all of them."""
    per_language = [
        [(h, f"{seed}:{h.language}:{n}", min(walk_length, steps - start)) for n, start in enumerate(range(0, steps, walk_length))]
        for h in histories
    ]
    return [w for turn in itertools.zip_longest(*per_language) for w in turn if w is not None]


def run_walk(history: History, seed: str, steps: int, workdir: Path) -> Walked:
    """One walk from a fresh clone, checked out at a release drawn by the seed."""
    source = ensure(history)
    with tempfile.TemporaryDirectory(prefix=f"diff-{history.language}-", dir=workdir) as tmp:
        return _one_walk(history, source, seed, steps, Path(tmp))


def _one_walk(history: History, source: Path, seed: str, steps: int, tmp: Path) -> Walked:
    repo = tmp / history.name
    subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
    start = random.Random(seed).choice(history.tags)
    _git(repo, "checkout", "-q", "-f", start)
    indexer = differential.Indexer(repo, differential.environment(tmp / "home"))
    index = tmp / "incremental.db"
    differential.first_index(indexer, index)
    walker = differential.Walker(repo, differential.SYNTAXES[history.walks], seed, indexer, index, history.tags)

    def show(r: differential.StepResult) -> None:
        mark = "DIFFERS " + ", ".join(f"{c} x{n}" for c, n in r.differences.counts.most_common(3)) if r.differences else "ok"
        print(f"  {history.language} {seed} #{r.step:<3} {r.kind:<12} {r.seconds:5.1f}s {mark}  [{r.detail[:90]}]", file=sys.stderr)

    results = differential.walk(walker, steps, tmp / "cold.db", on_step=show)
    return Walked(history, seed, results)


# -- tables ------------------------------------------------------------------------------


@dataclass
class Tally:
    """One cause in one language: items differing, steps, step kinds, an example."""

    items: int = 0
    steps: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    example: str = ""


def tables(walks: Sequence[Walked]) -> str:
    per_history: dict[str, list[differential.StepResult]] = {}
    for w in walks:
        per_history.setdefault(w.history.language, []).extend(w.results)
    rows = []
    for language, results in per_history.items():
        history = HISTORIES_BY_LANGUAGE[language]
        differing = sum(1 for r in results if r.differences)
        seconds = sum(r.seconds for r in results)
        releases = " -> ".join(r.version for r in history.releases)
        rows.append([language, f"{history.name} {releases}", str(len(results)), str(differing), f"{seconds:,.0f} s"])
    all_results = [r for rs in per_history.values() for r in rs]
    rows.append(["all", "", str(len(all_results)), str(sum(1 for r in all_results if r.differences)),
                 f"{sum(r.seconds for r in all_results):,.0f} s"])  # fmt: skip
    out = [table(["language", "corpus", "steps", "steps differing", "time"], rows)]

    kinds: dict[str, list[int]] = {}
    for r in all_results:
        entry = kinds.setdefault(r.kind, [0, 0])
        entry[0] += 1
        entry[1] += bool(r.differences)
    out.append(table(["step kind", "steps", "differing"], [[k, str(a), str(b)] for k, (a, b) in sorted(kinds.items())]))

    tallies: dict[tuple[str, str], Tally] = {}
    for w in walks:
        for r in w.results:
            for cause, count in r.differences.counts.items():
                tally = tallies.setdefault((cause, w.history.language), Tally())
                tally.items += count
                tally.steps += 1
                tally.kinds[r.kind] += 1
                tally.example = tally.example or f"{w.seed} #{r.step} {r.kind}: {r.differences.examples[cause]}"
    cause_rows = [
        [cause, language, str(t.items), str(t.steps), ", ".join(f"{k} {n}" for k, n in t.kinds.most_common(3)), t.example[:200]]
        for (cause, language), t in sorted(tallies.items(), key=lambda kv: (-kv[1].steps, kv[0]))
    ]
    if cause_rows:
        headers = ["cause", "language", "items", "steps", "step kinds", "example (seed #step kind: detail)"]
        out.append(table(headers, cause_rows, right=[False, False, True, True, False, False]))
    else:
        out.append("no step differs from a cold build")
    return "\n\n".join(out)


def as_json(walks: Sequence[Walked], args: argparse.Namespace) -> dict[str, object]:
    return {
        "tool": tool_note(),
        "seed": args.seed,
        "steps_per_language": args.steps,
        "walk_length": args.walk_length,
        "walks": [
            {
                "language": w.history.language,
                "corpus": w.history.name,
                "releases": [r.version for r in w.history.releases],
                "seed": w.seed,
                "steps": [
                    {
                        "step": r.step,
                        "kind": r.kind,
                        "detail": r.detail,
                        "seconds": round(r.seconds, 2),
                        "causes": dict(r.differences.counts),
                        "examples": r.differences.examples,
                    }
                    for r in w.results
                ],
            }
            for w in walks
        ],
    }


def from_json(saved: dict[str, object]) -> list[Walked]:
    walks = []
    for w in saved["walks"]:  # type: ignore[attr-defined]
        results = []
        for r in w["steps"]:
            found = differential.Differences(Counter(r["causes"]), dict(r["examples"]))
            results.append(differential.StepResult(r["step"], r["kind"], r["detail"], found, r["seconds"]))
        walks.append(Walked(HISTORIES_BY_LANGUAGE[w["language"]], w["seed"], results))
    return walks


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200, help="steps per language (default 200)")
    parser.add_argument("--walk-length", type=int, default=50, help="steps per walk from a fresh clone (default 50)")
    parser.add_argument("--language", action="append", choices=sorted(DEFAULT_LANGUAGES), help="repeatable; default: all five")
    parser.add_argument(
        "--corpus", action="append", choices=[h.language for h in EXTRA_HISTORIES],
        help="an extra history (repeatable; instead of the five unless --language names some too)",
    )
    parser.add_argument("--json", type=Path, help="write every step and its differences here")
    parser.add_argument("--workdir", type=Path, help="where the work trees go (default: the system's temporary directory)")
    parser.add_argument("--sizes", action="store_true", help="build the histories, print their sizes and stop")
    parser.add_argument("--tables", type=Path, metavar="JSON", help="print the tables of a run saved with --json and stop")
    args = parser.parse_args(argv)
    if args.tables:
        saved = json.loads(args.tables.read_text())
        print(f"{saved['tool']}; seed {saved['seed']}")
        print(tables(from_json(saved)))
        return 0
    names = [*(args.language or ()), *(args.corpus or ())] or DEFAULT_LANGUAGES
    histories = [HISTORIES_BY_LANGUAGE[name] for name in names]
    HISTORIES.mkdir(parents=True, exist_ok=True)
    if args.sizes:
        rows = []
        for h in histories:
            for tag in h.tags:
                files, lines = size(h, tag)
                rows.append([h.language, h.name, tag, f"{files:,}", f"{lines:,}"])
        print(table(["language", "corpus", "release", "files", "lines"], rows))
        return 0
    print(tool_note(), file=sys.stderr)
    os.environ.update(GIT_ENV)  # the walks' commits: a pinned identity, no user configuration
    started = time.perf_counter()
    walks: list[Walked] = []
    for history, seed, steps in plan(histories, args.seed, args.steps, args.walk_length):
        walks.append(run_walk(history, seed, steps, args.workdir or Path(tempfile.gettempdir())))
        if args.json:  # written as it goes: a long run can be read before it ends
            args.json.write_text(json.dumps(as_json(walks, args), indent=1))
    print(f"{tool_note()}; seed {args.seed}; {time.perf_counter() - started:,.0f} s")
    print(tables(walks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
