"""Peak memory of indexing a large generated repository (robustness issue:
memory is a limit, not a timing; tests/robustness/test_resources.py asserts
only on the memory figures printed here).

A repository of N realistic files (tests/testing/generate.py: Python
packages that import each other, TypeScript, Go, Markdown) is generated and
committed, then ``cartog-ci index --no-embed`` runs as the only child of this
process. Two figures:

* ``max_rss``: ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` once the
  child is reaped: the high-water mark of the largest single process among
  the child and the parse workers it reaped (a maximum, not a sum);
* ``tree_rss``: the peak of the summed VmRSS of the child's process tree,
  sampled every 5 ms (what the machine had to hold at once; pages shared
  after fork are counted once per process, so it over-states a little).

    .venv/bin/python benchmarks/memory.py                    # 5,000 files
    .venv/bin/python benchmarks/memory.py --files 2000 --json
    .venv/bin/python benchmarks/memory.py --repo /path/to/generated --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.testing.generate

from measure import cartog_ci, load_average, mb, run_process

from tests.testing.generate import generate_repo

LIMIT_MB = 1024


def make_repo(root: Path, files: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    generate_repo(root, files)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "generated"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    return root


def measure(repo: Path) -> dict[str, object]:
    """Index ``repo`` in a child; this process must have no other child."""
    with tempfile.TemporaryDirectory(prefix="cartog-mem-") as tmp:
        cmd = [cartog_ci(), "index", "--no-embed", "--json", "--repo", str(repo), "--index", str(Path(tmp) / "i.db")]
        run = run_process(cmd, sample_tree=True)
    result = json.loads(run.stdout)
    return {
        "files": result["candidates"],
        "parsed": result["parsed"],
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "tree_rss_mb": round(run.tree_rss_kb / 1024, 1),
        "wall_s": round(run.wall, 2),
        "cpus": os.cpu_count(),
        "load": load_average(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repo", type=Path, help="an already generated repository (no git children here)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.repo:
        figures = measure(args.repo)
    else:
        with tempfile.TemporaryDirectory(prefix="cartog-mem-repo-") as tmp:
            repo = make_repo(Path(tmp) / "repo", args.files)
            # git's own children are reaped already; measure in a fresh process
            # so that RUSAGE_CHILDREN holds cartog-ci and its workers only
            out = subprocess.run(
                [sys.executable, __file__, "--repo", str(repo), "--json"], capture_output=True, text=True, check=True
            ).stdout
            figures = json.loads(out)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"cold `cartog-ci index --no-embed` of {figures['files']:,} generated files ({figures['parsed']:,} parsed)")
    print(f"  max RSS of one process (RUSAGE_CHILDREN): {mb(int(float(figures['max_rss_mb']) * 1024))}")  # type: ignore[arg-type]
    print(f"  peak RSS of the process tree (sampled):   {mb(int(float(figures['tree_rss_mb']) * 1024))}")  # type: ignore[arg-type]
    print(f"  limit: {LIMIT_MB} MB; wall {figures['wall_s']} s on {figures['cpus']} CPUs, load {figures['load']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
