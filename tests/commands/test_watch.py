"""Watch mode: one re-index per burst of edits, readers keep answering, on
either backend (the SQLite file, a PostgreSQL graph)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.testing.fixtures import index, make_repo


def _wait_for(predicate, timeout: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_one_reindex_per_burst_while_a_reader_answers(tmp_path: Path, backend: str) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    log = tmp_path / "watch.log"
    with log.open("w") as err:
        watcher = subprocess.Popen(
            [sys.executable, "-m", "cartog_ci.cli", "watch", "--repo", str(repo), "--debounce", "0.6", "--max-runs", "3"],
            stderr=err, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        assert _wait_for(lambda: "watching" in log.read_text()), log.read_text()
        answers = []
        for burst in range(2):
            for i in range(5):  # a burst: five quick saves
                (repo / f"shop/burst_{burst}.py").write_text(f"def f{burst}_{i}():\n    return {i}\n")
                time.sleep(0.02)
            # a reader keeps answering while the watcher re-indexes (from
            # the index as it is: refreshing it would do the watcher's work)
            reader = subprocess.run(
                [sys.executable, "-m", "cartog_ci.cli", "refs", "persist", "--no-refresh", "--repo", str(repo), "--json"],
                capture_output=True, text=True,
            )  # fmt: skip
            answers.append(reader.returncode)
            expected = burst + 2
            assert _wait_for(lambda: log.read_text().count("re-indexed") >= expected), log.read_text()
        assert watcher.wait(timeout=30) == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
    lines = [line for line in log.read_text().splitlines() if "re-indexed" in line]
    assert len(lines) == 3, lines
    assert "(initial)" in lines[0]
    assert all("1 file(s) parsed, +2 ~0 -0" in line for line in lines[1:]), lines
    assert answers == [0, 0]
