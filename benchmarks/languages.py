"""Per-language figures on a real multi-language tree: resolved %, files,
lines, symbols, edges, and the wall time of one cold index.

No single package ships Python, TypeScript, Go and Rust together, so the
tree combines three published archives, each under its own top directory of
one git repository:

=================  ========  ==================================================
archive            registry  languages it brings
=================  ========  ==================================================
cryptography 41.0.7  PyPI    Python (+ .pyi), Rust (src/rust, pyo3 bindings), a
                             few Go test vectors tools; the last release built
                             with setuptools-rust, whose sdist pip can fetch
                             without compiling (maturin sdists such as
                             pydantic-core need crates.io just to read their
                             metadata)
gojsonnet 0.22.0     PyPI    Go (the go-jsonnet interpreter behind a cgo
                             binding), a setup.py, C headers
rxjs 7.8.2           npm     TypeScript sources (src/), the compiled JavaScript
                             (dist/cjs, dist/esm, dist/bundles) and .d.ts types
=================  ========  ==================================================

Archives are fetched once with pip / npm into ``benchmarks/.corpora/downloads``
and the repository is built once (pinned git identity and date), so re-runs
touch neither the network nor git.

    .venv/bin/python benchmarks/languages.py            # index + per-language table
    .venv/bin/python benchmarks/languages.py --json     # the raw stats as well

The index is structural only (``--no-embed``): embeddings do not depend on the
language and would dominate the wall time. Whether the long-tail languages
(C headers here) are parsed depends on the ``all-languages`` extra; the
output says which.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import corpora
from measure import cartog_ci, cli_env, load_average, ms, run_process, table, tool_note, warm_up

ROOT = corpora.CORPORA_DIR / "languages-crypto41-gojsonnet022-rxjs782"


@dataclass(frozen=True)
class Archive:
    registry: str  # "pypi" | "npm"
    package: str
    version: str
    directory: str  # top directory in the combined tree

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}" if self.registry == "pypi" else f"{self.package}@{self.version}"


ARCHIVES = (
    Archive("pypi", "cryptography", "41.0.7", "cryptography"),
    Archive("pypi", "gojsonnet", "0.22.0", "gojsonnet"),
    Archive("npm", "rxjs", "7.8.2", "rxjs"),
)


def _download(archive: Archive) -> Path:
    target = corpora.DOWNLOADS / f"{archive.package}-{archive.version}"
    found = sorted(target.glob("*.t*gz")) if target.is_dir() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {archive.requirement} from {archive.registry} ...", file=sys.stderr)
    if archive.registry == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--no-binary", archive.package, archive.requirement, "-d", str(target)]  # fmt: skip
    else:
        cmd = ["npm", "pack", "--silent", archive.requirement, "--pack-destination", str(target)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    found = sorted(target.glob("*.t*gz"))
    if not found:
        raise SystemExit(f"no archive for {archive.requirement} in {target}")
    return found[0]


def _unpack(path: Path, dest: Path) -> None:
    """The archive's single top directory (``pkg-1.0/``, npm's ``package/``) becomes ``dest``."""
    with tempfile.TemporaryDirectory(dir=corpora.CORPORA_DIR) as tmp:
        with tarfile.open(path) as tar:
            tar.extractall(tmp, filter="data")
        tops = list(Path(tmp).iterdir())
        source = tops[0] if len(tops) == 1 and tops[0].is_dir() else Path(tmp)
        shutil.move(str(source), str(dest))


def ensure() -> Path:
    if (ROOT / ".git" / corpora.READY_MARK).exists():
        return ROOT
    if ROOT.exists():
        shutil.rmtree(ROOT)  # half-built by an interrupted run
    downloads = [(a, _download(a)) for a in ARCHIVES]
    ROOT.mkdir(parents=True)
    print(f"building {ROOT.relative_to(corpora.HERE)} ...", file=sys.stderr)
    for archive, path in downloads:
        _unpack(path, ROOT / archive.directory)
    corpora.git(ROOT, "init", "-q", "-b", "main")
    corpora.git(ROOT, "add", "-A", "-f", ".")
    message = " + ".join(a.requirement for a in ARCHIVES)
    corpora.git(ROOT, "commit", "-q", "--no-verify", "-m", message)
    (ROOT / ".git" / corpora.READY_MARK).touch()
    return ROOT


def render(stats: dict[str, object], wall: float) -> str:
    languages = stats["languages"]
    assert isinstance(languages, dict)
    rows = []
    for name, entry in sorted(languages.items(), key=lambda kv: -int(kv[1].get("files", 0))):
        rows.append([
            name, f"{entry.get('files', 0):,}", f"{entry.get('lines', 0):,}", f"{entry.get('symbols', 0):,}",
            f"{entry.get('edges', 0):,}", f"{entry.get('resolved', 0):,}", f"{entry.get('resolved_pct', 0.0)}",
        ])  # fmt: skip
    lines = sum(int(e.get("lines", 0)) for e in languages.values())
    rows.append([
        "all", f"{stats['files']:,}", f"{lines:,}", f"{stats['symbols']:,}", f"{stats['edges']:,}",
        f"{stats['resolved_edges']:,}", f"{stats['resolved_pct']}",
    ])  # fmt: skip
    unsupported = stats.get("unsupported", {})
    assert isinstance(unsupported, dict)
    top = ", ".join(f"{ext} {n}" for ext, n in list(unsupported.items())[:12])
    notes = [
        "",
        f"tree: {' + '.join(a.requirement for a in ARCHIVES)} ({ROOT.relative_to(corpora.HERE.parent)})",
        f"cold index wall: {ms(wall)} ({cartog_ci()} index <tree> --force --no-embed --index <fresh file>)",
        "resolved %: resolved edges / edges not marked external (stats resolved_pct)",
        f"unsupported: {sum(unsupported.values())} files ({top})",
        f"long-tail languages (all-languages extra): {_pack_note()}",
        f"{tool_note()}; 1-min load average {load_average()}",
    ]
    headers = ["language", "files", "lines", "symbols", "edges", "resolved", "resolved %"]
    return table(headers, rows) + "\n".join(notes)


def _pack_note() -> str:
    from cartog_ci.languages import pack

    module = pack.bundled()
    return f"installed ({getattr(module, '__file__', '?')})" if module is not None else "not installed"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print stats --json after the table")
    args = parser.parse_args(argv)
    root = ensure()
    env = cli_env()
    warm_up(env)
    with tempfile.TemporaryDirectory(prefix="cartog-bench-") as tmp:
        index = Path(tmp) / "index.db"
        run = run_process([cartog_ci(), "index", str(root), "--force", "--no-embed", "--index", str(index)], env=env)
        stats_cmd = [cartog_ci(), "stats", "--json", "--repo", str(root), "--index", str(index)]
        stats = json.loads(run_process(stats_cmd, env=env).stdout)
    print(render(stats, run.wall))
    if args.json:
        print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
