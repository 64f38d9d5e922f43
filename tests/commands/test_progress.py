"""Progress of the files parsed (and texts embedded) on stderr (issue 16):
a bar with the rate and the time left on a terminal, whole lines about
every 10 s in a log; the indexer reports every file once, in order."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cartog_ci.cli import main
from cartog_ci.commands.progress import Meter
from cartog_ci.index.files import POOL_THRESHOLD, ParseJob, extract_all
from tests.testing.fixtures import commit, init_repo, write


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_on_a_terminal_the_bar_is_redrawn_in_place_with_rate_and_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    meter = Meter("parsing", "files", terminal=True, stream=out, clock=clock)
    meter(1, 400)  # the first call starts the clock and draws
    clock.now += 0.05
    meter(2, 400)  # within 0.1 s of the last drawing: not drawn again
    clock.now += 0.95
    meter(100, 400)
    clock.now += 3.0
    meter(400, 400)
    frames = out.getvalue().split("\r")[1:]
    assert frames[0].startswith("cartog-ci: parsing [........................] 1/400 files")
    assert frames[1] == f"cartog-ci: parsing [{'#' * 6}{'.' * 18}] 100/400 files, 100 files/s, 3 s left\x1b[K"
    assert frames[2] == f"cartog-ci: parsing [{'#' * 24}] 400/400 files, 100 files/s in 4 s\x1b[K\n"
    assert len(frames) == 3


def test_in_a_log_one_whole_line_about_every_ten_seconds() -> None:
    out, clock = io.StringIO(), Clock()
    meter = Meter("parsing", "files", terminal=False, stream=out, clock=clock)
    for done in range(1, 5001):
        clock.now += 0.01  # 100 files a second: 50 s
        meter(done, 5000)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines[0] == "cartog-ci: parsing 1001/5000 files, 100 files/s, 40 s left"
    assert lines[-1] == "cartog-ci: parsing 5000/5000 files, 100 files/s in 50 s"
    assert len(lines) == 5


def test_a_short_step_in_a_log_prints_nothing() -> None:
    out, clock = io.StringIO(), Clock()
    meter = Meter("parsing", "files", terminal=False, stream=out, clock=clock)
    for done in range(1, 11):
        clock.now += 0.1
        meter(done, 10)
    assert out.getvalue() == ""


def test_a_long_wait_reads_in_minutes() -> None:
    meter = Meter("embedding", "texts", terminal=False)
    assert meter.line(10, 10_000, 10.0) == "cartog-ci: embedding 10/10000 texts, 1 texts/s, 166 min 30 s left"


@pytest.mark.parametrize("files", [3, POOL_THRESHOLD + 2])  # serial and on the process pool
def test_every_file_is_counted_once_in_order(tmp_path: Path, files: int) -> None:
    for i in range(files):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    seen: list[tuple[int, int]] = []
    jobs = [ParseJob(f"m{i}.py", root=str(tmp_path)) for i in range(files)]
    results = extract_all(jobs, count=lambda done, total: seen.append((done, total)))
    assert seen == [(i, files) for i in range(1, files + 1)]
    assert [r.state.path for r in results] == [f"m{i}.py" for i in range(files)]


def test_index_progress_in_a_log_names_the_files_parsed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    repo = init_repo(tmp_path / "repo")
    write(repo, {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)})
    commit(repo)
    monkeypatch.setattr("cartog_ci.commands.progress.LOG_EVERY", 0.0)  # a line for every file
    assert main(["index", str(repo), "--no-embed", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    assert [line.split(",")[0] for line in err.splitlines() if "parsing" in line] == [
        f"cartog-ci: parsing {i}/5 files" for i in range(1, 6)
    ]
