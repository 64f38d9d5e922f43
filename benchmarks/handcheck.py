"""Hand-check samples of Go, Java and Rust call resolution on real code.

No independent oracle as handy as jedi or the TypeScript language service
exists here for these three languages, so the check is done by reading: the
script builds each corpus as a git repository, indexes it with cartog-ci and
prints a seeded random sample of resolved and of unresolved ``calls`` edges
(30 each by default), each with its source line and, for a resolved edge, the
target's definition line, so a reader can judge every one and anyone can redo
the same sample.

    .venv/bin/python benchmarks/handcheck.py                      # go, java, rust
    .venv/bin/python benchmarks/handcheck.py --lang rust --n 30 --seed 13
    .venv/bin/python benchmarks/handcheck.py --cartog-src /path/to/other/src
    .venv/bin/python benchmarks/handcheck.py --lang go --baseline-src /old/src --rounds 11  # + cold CPU

=======  =====================================  ===================================
lang     corpus (registry)                      why this one
=======  =====================================  ===================================
go       cobra 1.6.1 + afero 1.9.3 (Debian      two modules with their go.mod, one
         golang-github-spf13-cobra-dev 1.6.1-1, repository (``cobra/``, ``afero/``);
         golang-github-spf13-afero-dev          afero is interface dispatch through
         1.9.3-1, usr/share/gocode/src)         ``Fs``/``File`` and its many
                                                implementations
java     React Native 0.71.19's ReactAndroid    a real Gradle project (650 .java
         (npm ``react-native``, the tarball's   files under src/main/java and
         ``package/ReactAndroid``)              src/test/java), fields, casts,
                                                inner classes, interfaces
rust     regex 1.7.1 + regex-syntax 0.6.27      the rust-lang/regex workspace as it
         (Debian librust-regex-dev 1.7.1-1,     is laid out upstream: the ``regex``
         librust-regex-syntax-dev 0.6.27-1,     crate at the root, ``regex-syntax/``
         usr/share/cargo/registry)              below it, used as ``regex_syntax::``
=======  =====================================  ===================================

(cryptography >= 42 would have been the natural Rust workspace, but its sdist
is built with maturin, whose metadata step needs crates.io: pip cannot fetch
it here.)

Archives are fetched once with ``apt-get download`` / ``npm pack`` into
``benchmarks/.corpora/downloads/`` and each repository is built once under
``benchmarks/.corpora/handcheck-<lang>/`` with the pinned identity and date of
benchmarks/corpora.py, so re-runs touch neither the network nor git.

Resolved means an in-project target (tier recorded); unresolved means no
target and not ``external``. The verdicts of a reading are in
docs/languages.md ("Hand-checked samples").
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import corpora
from measure import cli_env, run_process

HERE = Path(__file__).resolve().parent
DEFAULT_SRC = HERE.parent / "src"


@dataclass(frozen=True)
class Part:
    """One archive's directory, placed at ``dest`` in the corpus repository."""

    registry: str  # "debian" | "npm"
    package: str
    version: str
    inner: str  # the directory inside the unpacked archive
    dest: str  # "" is the repository root


@dataclass(frozen=True)
class HandCorpus:
    lang: str
    label: str
    parts: tuple[Part, ...]
    extensions: tuple[str, ...]

    @property
    def root(self) -> Path:
        return corpora.CORPORA_DIR / f"handcheck-{self.lang}"


GOCODE = "usr/share/gocode/src/github.com/spf13"
CARGO = "usr/share/cargo/registry"
CORPORA: dict[str, HandCorpus] = {
    c.lang: c
    for c in (
        HandCorpus(
            "go",
            "cobra 1.6.1 + afero 1.9.3 (Debian)",
            (
                Part("debian", "golang-github-spf13-cobra-dev", "1.6.1-1", f"{GOCODE}/cobra", "cobra"),
                Part("debian", "golang-github-spf13-afero-dev", "1.9.3-1", f"{GOCODE}/afero", "afero"),
            ),
            (".go",),
        ),
        HandCorpus(
            "java",
            "react-native 0.71.19 ReactAndroid (npm)",
            (Part("npm", "react-native", "0.71.19", "package/ReactAndroid", ""),),
            (".java",),
        ),
        HandCorpus(
            "rust",
            "regex 1.7.1 + regex-syntax 0.6.27 (Debian)",
            (
                Part("debian", "librust-regex-dev", "1.7.1-1", f"{CARGO}/regex-1.7.1", ""),
                Part("debian", "librust-regex-syntax-dev", "0.6.27-1", f"{CARGO}/regex-syntax-0.6.27", "regex-syntax"),
            ),
            (".rs",),
        ),
    )
}


# --- the corpus ------------------------------------------------------------


def _download(part: Part) -> Path:
    target = corpora.DOWNLOADS / f"{part.package}-{part.version}"
    pattern = "*.deb" if part.registry == "debian" else "*.tgz"
    found = sorted(target.glob(pattern)) if target.is_dir() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {part.package} {part.version} ({part.registry}) ...", file=sys.stderr)
    if part.registry == "debian":
        cmd = ["apt-get", "download", f"{part.package}={part.version}"]
    else:
        cmd = ["npm", "pack", "--silent", f"{part.package}@{part.version}"]
    subprocess.run(cmd, cwd=target, check=True, stdout=subprocess.DEVNULL)
    found = sorted(target.glob(pattern))
    if not found:
        raise SystemExit(f"no archive for {part.package} {part.version}")
    return found[0]


def _unpack(archive: Path, into: Path) -> None:
    if archive.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", str(archive), str(into)], check=True)
    else:
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")


def ensure(corpus: HandCorpus) -> Path:
    """The corpus as a committed git repository (built once, then reused)."""
    root = corpus.root
    if (root / ".git" / corpora.READY_MARK).exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    archives = [(part, _download(part)) for part in corpus.parts]
    print(f"building {root.relative_to(HERE)} ...", file=sys.stderr)
    root.mkdir(parents=True)
    for part, archive in archives:
        with tempfile.TemporaryDirectory(dir=corpora.CORPORA_DIR) as tmp:
            _unpack(archive, Path(tmp))
            source = Path(tmp) / part.inner
            if not source.is_dir():
                raise SystemExit(f"{part.package}: no {part.inner} in {archive.name}")
            dest = root / part.dest if part.dest else root
            shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True)
    corpora.git(root, "init", "-q", "-b", "main")
    corpora.git(root, "add", "-A", "-f", ".")
    corpora.git(root, "commit", "-q", "--no-verify", "-m", corpus.label)
    (root / ".git" / corpora.READY_MARK).touch()
    return root


# --- ours ------------------------------------------------------------------


def export_graph(root: Path, *, python: str, src: Path) -> dict[str, Any]:
    env = {**cli_env(), "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory(prefix="cartog-handcheck-") as tmp:
        db = str(Path(tmp) / "index.db")
        cli = [python, "-m", "cartog_ci.cli"]
        run_process([*cli, "index", str(root), "--no-embed", "--force", "--index", db], env=env)
        exported = run_process([*cli, "export", "--json", "--repo", str(root), "--index", db], env=env)
    graph: dict[str, Any] = json.loads(exported.stdout)
    return graph


@dataclass(frozen=True)
class Sample:
    resolved: list[dict[str, Any]]
    unresolved: list[dict[str, Any]]
    counts: Counter[str]


def sample(graph: dict[str, Any], corpus: HandCorpus, *, n: int, seed: int) -> Sample:
    # a call site is its own edge: the edges of the tier `dispatch` beside a
    # call of an interface method (what it may run) are shown with it
    calls = sorted(
        (
            e
            for e in graph["edges"]
            if e["kind"] == "calls" and e["file"].endswith(corpus.extensions) and e.get("resolution") != "dispatch"
        ),
        key=lambda e: (e["file"], e["line"], e["target_name"], e.get("target_id") or ""),
    )
    resolved = [e for e in calls if e.get("target_id")]
    unresolved = [e for e in calls if not e.get("target_id") and e.get("resolution") != "external"]
    counts: Counter[str] = Counter(e.get("resolution") or "unresolved" for e in calls)
    rng = random.Random(seed)

    def pick(edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(rng.sample(edges, min(n, len(edges))), key=lambda e: (e["file"], e["line"]))

    return Sample(pick(resolved), pick(unresolved), counts)


def _line(root: Path, file: str, line: int) -> str:
    try:
        lines = (root / file).read_text("utf-8", "replace").splitlines()
    except OSError:
        return "?"
    return lines[line - 1].strip() if 0 < line <= len(lines) else "?"


def show(root: Path, corpus: HandCorpus, graph: dict[str, Any], s: Sample) -> str:
    symbols = {sym["id"]: sym for sym in graph["symbols"]}
    runs: dict[tuple[str, int, str, str], set[str]] = {}
    dispatched = 0
    for e in graph["edges"]:
        if e["kind"] == "calls" and e.get("resolution") == "dispatch":
            runs.setdefault((e["source_id"], e["line"], e["target_name"], e["file"]), set()).add(e["target_id"])
            dispatched += 1
    total = sum(s.counts.values())
    out = [f"## {corpus.lang}: {corpus.label}", ""]
    tiers = ", ".join(f"{tier} {count:,}" for tier, count in s.counts.most_common())
    out += [f"calls edges: {total:,} ({tiers}); dispatch edges beside them: {dispatched:,}", ""]
    out.append(f"### resolved ({len(s.resolved)})")
    for i, e in enumerate(s.resolved, 1):
        target = symbols.get(e["target_id"], {})
        where = f"{target.get('file')}:{target.get('start_line')}" if target else "?"
        source = symbols.get(e["source_id"], {}).get("qualified_name", e["source_id"])
        out.append(f"R{i:02d} {e['file']}:{e['line']} in {source}  [{e['resolution']}]")
        out.append(f"    code:   {_line(root, e['file'], e['line'])}")
        out.append(f"    target: {target.get('qualified_name', e['target_id'])} at {where}")
        out.append(f"            {_line(root, target['file'], target['start_line']) if target else ''}")
        may_run = runs.get((e["source_id"], e["line"], e["target_name"], e["file"]), set())
        if may_run:
            out.append(f"    may run ({len(may_run)}): {', '.join(sorted(may_run))}")
    out += ["", f"### unresolved ({len(s.unresolved)})"]
    for i, e in enumerate(s.unresolved, 1):
        source = symbols.get(e["source_id"], {}).get("qualified_name", e["source_id"])
        qualifier = f"{e['qualifier']}." if e.get("qualifier") else ""
        out.append(f"U{i:02d} {e['file']}:{e['line']} in {source}  calls {qualifier}{e['target_name']}")
        out.append(f"    code:   {_line(root, e['file'], e['line'])}")
    return "\n".join(out)


def cold_cpu(root: Path, *, python: str, src: Path) -> float:
    """CPU seconds (user + system, the process and what it reaped) of one
    cold structural index of ``root`` with the cartog-ci of ``src``."""
    env = {**cli_env(), "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory(prefix="cartog-handcheck-") as tmp:
        cmd = [python, "-m", "cartog_ci.cli", "index", str(root), "--no-embed", "--force", "--index", str(Path(tmp) / "i.db")]
        return run_process(cmd, env=env).cpu


def compare_cpu(root: Path, *, python: str, src: Path, baseline: Path, rounds: int) -> str:
    """Cold index CPU of ``src`` against ``baseline``, interleaved (the order
    alternates each round, after one warm-up run): the medians and their ratio."""
    cold_cpu(root, python=python, src=baseline)
    cpu: dict[Path, list[float]] = {src: [], baseline: []}
    for i in range(rounds):
        for side in (src, baseline) if i % 2 else (baseline, src):
            cpu[side].append(cold_cpu(root, python=python, src=side))
    ours, theirs = statistics.median(cpu[src]), statistics.median(cpu[baseline])
    return (
        f"cold index CPU, median of {rounds} interleaved rounds: {ours:.2f} s against {theirs:.2f} s "
        f"(baseline {baseline}): ratio {ours / theirs:.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", action="append", choices=sorted(CORPORA), help="repeatable; default: all")
    parser.add_argument("--n", type=int, default=30, help="edges per sample (default 30)")
    parser.add_argument("--seed", type=int, default=13, help="seed of the samples (default 13)")
    parser.add_argument("--cartog-src", type=Path, default=DEFAULT_SRC, help="src/ of the checkout to measure")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs cartog_ci")
    parser.add_argument("--baseline-src", type=Path, help="also time cold indexes against this src/, interleaved")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the CPU comparison (default 7)")
    args = parser.parse_args(argv)
    for lang in args.lang or sorted(CORPORA):
        corpus = CORPORA[lang]
        root = ensure(corpus)
        graph = export_graph(root, python=args.python, src=args.cartog_src)
        print(show(root, corpus, graph, sample(graph, corpus, n=args.n, seed=args.seed)))
        if args.baseline_src is not None:
            print()
            print(compare_cpu(root, python=args.python, src=args.cartog_src, baseline=args.baseline_src, rounds=args.rounds))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
