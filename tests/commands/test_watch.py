"""Watch mode: one re-index per burst of edits, readers keep answering, on
either backend (the SQLite file, a PostgreSQL graph).

Nothing here waits on the clock: the test waits for the watcher's own
lines ("watching" once its watch is in place, "re-indexed" after each run),
with a cap that only a hang reaches. The one time that matters is the
watcher's debounce: the five saves of a burst are written back to back,
and the debounce (1.5 s of quiet) is far above any pause between two of
them, even on a loaded machine."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path

from tests.testing.fixtures import index, make_repo

WAIT = 300  # seconds: a cap against a hang, never a guess of how long a step takes


class Lines:
    """The lines a process writes to a pipe, as they come."""

    def __init__(self, pipe: object) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            for line in pipe:  # type: ignore[attr-defined]
                self._queue.put(line)
            self._queue.put(None)

        threading.Thread(target=read, daemon=True).start()

    def until(self, text: str, count: int = 1) -> None:
        """Wait until ``count`` lines hold ``text`` (or the pipe closes)."""
        while sum(text in line for line in self.seen) < count:
            line = self._queue.get(timeout=WAIT)
            assert line is not None, f"closed before {count} line(s) with {text!r}: {self.seen}"
            self.seen.append(line)

    def to_the_end(self) -> None:
        while (line := self._queue.get(timeout=WAIT)) is not None:
            self.seen.append(line)


def test_one_reindex_per_burst_while_a_reader_answers(tmp_path: Path, backend: str) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", "watch", "--repo", str(repo), "--debounce", "1.5", "--max-runs", "3"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        log = Lines(watcher.stderr)
        log.until("watching")
        answers = []
        for burst in range(2):
            for i in range(5):  # a burst: five quick saves
                (repo / f"shop/burst_{burst}.py").write_text(f"def f{burst}_{i}():\n    return {i}\n")
            # a reader keeps answering while the watcher re-indexes (from
            # the index as it is: refreshing it would do the watcher's work)
            reader = subprocess.run(
                [sys.executable, "-m", "cartog_ci.cli", "refs", "persist", "--no-refresh", "--repo", str(repo), "--json"],
                capture_output=True, text=True,
            )  # fmt: skip
            answers.append(reader.returncode)
            log.until("re-indexed", burst + 2)
        assert watcher.wait(timeout=WAIT) == 0
        log.to_the_end()
    finally:
        if watcher.poll() is None:
            watcher.kill()
    lines = [line for line in log.seen if "re-indexed" in line]
    assert len(lines) == 3, lines
    assert "(initial)" in lines[0]
    assert all("1 file(s) parsed, +2 ~0 -0" in line for line in lines[1:]), lines
    assert answers == [0, 0]
