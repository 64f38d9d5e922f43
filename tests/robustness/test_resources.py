"""Resource limits: memory is a limit (asserted), time is a measurement (never
asserted here; benchmarks/ print it).

* 5,000 generated files index with a peak RSS under 1 GiB, measured by
  benchmarks/memory.py in a subprocess of its own (RUSAGE_CHILDREN of that
  process holds cartog-ci and its parse workers only);
* one 200,000-line file (over the default 2 MB cap, so the cap is raised in
  the repository's configuration) is indexed completely.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.fixtures import commit, init_repo, write
from tests.testing.generate import big_python_file, generate_repo

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MB = 1024


@pytest.mark.slow
def test_indexing_5000_files_stays_under_1_gib(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    generate_repo(repo, 5000)
    commit(repo, "generated")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "memory.py"), "--repo", str(repo), "--json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["parsed"] >= 5000
    assert figures["max_rss_mb"] < LIMIT_MB, figures
    assert figures["tree_rss_mb"] < LIMIT_MB, figures


@pytest.mark.slow
def test_one_200000_line_file_is_indexed_completely(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    source = big_python_file(200_000)
    write(repo, {"big.py": source, ".cartog-ci.toml": "max_file_bytes = 20_000_000\n"})
    commit(repo)
    run = [sys.executable, "-m", "cartog_ci.cli"]
    proc = subprocess.run([*run, "index", "--no-embed", "--json", "--repo", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["parsed"], result["skipped_files"]) == (1, [])
    functions = source.count("\ndef ")
    assert result["symbols"]["added"]["count"] == functions + 1  # and the module
    last = source.rsplit("\ndef ", 1)[1].split("(", 1)[0]
    proc = subprocess.run([*run, "outline", "big.py", "--json", "--repo", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)[-1]["name"] == last
