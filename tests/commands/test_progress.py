"""Progress of the files parsed (and texts embedded) on stderr (issue 16):
a bar with the rate and the time left on a terminal, whole lines in a log
(the first after 2 s, then about every 10 s); the indexer reports every
file once, in order. Steps that run over 2 s say so (issue 31)."""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

import pytest

from cartog_ci.cli import main
from cartog_ci.commands.progress import Meter, Steps
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


def test_in_a_log_the_first_line_after_two_seconds_then_one_about_every_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cartog_ci.commands.progress.FIRST_AFTER", 2.0)  # the tests' own default is longer
    out, clock = io.StringIO(), Clock()
    meter = Meter("parsing", "files", terminal=False, stream=out, clock=clock)
    for done in range(1, 5001):
        clock.now += 0.01  # 100 files a second: 50 s
        meter(done, 5000)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines[0] == "cartog-ci: parsing 201/5000 files, 100 files/s, 48 s left"  # after 2 s
    assert lines[1] == "cartog-ci: parsing 1201/5000 files, 100 files/s, 38 s left"  # then every 10 s
    assert lines[-1] == "cartog-ci: parsing 5000/5000 files, 100 files/s in 50 s"
    assert len(lines) == 6


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
    monkeypatch.setattr("cartog_ci.commands.progress.FIRST_AFTER", 0.0)
    monkeypatch.setattr("cartog_ci.commands.progress.LOG_EVERY", 0.0)  # a line for every file
    assert main(["index", str(repo), "--no-embed"]) == 0  # in a log, with or without --progress
    err = capsys.readouterr().err
    assert "\r" not in err
    assert [line.split(",")[0] for line in err.splitlines() if "parsing" in line] == [
        f"cartog-ci: parsing {i}/5 files" for i in range(1, 6)
    ]


class Said(io.StringIO):
    """A stream that tells a waiting test each time a line arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Condition()

    def write(self, text: str) -> int:
        with self.arrived:
            n = super().write(text)
            self.arrived.notify_all()
        return n

    def wait_for(self, lines: int) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: self.getvalue().count("\n") >= lines, timeout=60)


def test_a_step_that_runs_long_says_so_then_its_time() -> None:
    out, clock = Said(), Clock()
    steps = Steps(out, first_after=0.0, every=3600.0, clock=clock)
    with steps.step("reading both sides of the change"):
        out.wait_for(1)  # the line comes while the step runs
        clock.now += 75.0
    assert out.getvalue().splitlines() == [
        "cartog-ci: reading both sides of the change...",
        "cartog-ci: reading both sides of the change: done in 1 min 15 s",
    ]


def test_a_step_that_goes_on_in_silence_says_so_again() -> None:
    out, clock = Said(), Clock()
    steps = Steps(out, first_after=0.0, every=0.0, clock=clock)
    with steps.step("indexing"):
        out.wait_for(3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "cartog-ci: indexing..." and lines[-1] == "cartog-ci: indexing: done in 0 s"
    assert lines[1:-1] and all(line == "cartog-ci: indexing... 0 s" for line in lines[1:-1])


def test_a_short_step_says_nothing_and_a_quiet_one_never() -> None:
    out = Said()
    with Steps(out, first_after=3600.0).step("indexing"):
        pass
    with Steps(out, first_after=0.0, quiet=True).step("indexing"):
        pass
    assert out.getvalue() == ""


def test_a_meter_speaking_keeps_the_step_from_repeating_itself() -> None:
    out, clock = Said(), Clock()
    steps = Steps(out, first_after=0.0, every=10.0, clock=clock)
    meter = Meter("parsing", "files", terminal=False, stream=steps.stream, clock=clock)
    with steps.step("indexing"):
        out.wait_for(1)
        for done in range(1, 101):
            clock.now += 0.5  # a meter line every 10 s: the step's own never comes due
            meter(done, 100)
    lines = out.getvalue().splitlines()
    assert lines[0] == "cartog-ci: indexing..." and lines[-1] == "cartog-ci: indexing: done in 50 s"
    assert all(line.startswith("cartog-ci: parsing ") for line in lines[1:-1])


def test_a_report_in_a_log_shows_the_files_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first report (a hook, a CI job: no terminal) was silent after its
    heading while it indexed: now its files parsed are counted there too."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)})
    commit(repo)
    monkeypatch.setattr("cartog_ci.commands.progress.FIRST_AFTER", 0.0)
    monkeypatch.setattr("cartog_ci.commands.progress.LOG_EVERY", 0.0)  # a line for every file
    assert main(["report", "--repo", str(repo), "--base", "HEAD", "--no-related"]) == 0
    err = capsys.readouterr().err
    parsed = [line.split(",")[0] for line in err.splitlines() if "parsing" in line]
    assert err.splitlines()[0] == "cartog-ci: indexing 5 files (first run)..."
    assert parsed == [f"cartog-ci: parsing {i}/5 files" for i in range(1, 6)]
    assert all(re.fullmatch(r"cartog-ci: [a-z ,]+(\.\.\.( \d+ s)?|: done in \d+ s)", line)
               for line in err.splitlines()[1:] if "parsing" not in line)  # fmt: skip


def test_on_a_terminal_a_step_line_goes_below_the_bar() -> None:
    out, clock = Said(), Clock()
    steps = Steps(out, first_after=3600.0, clock=clock)
    meter = Meter("parsing", "files", terminal=True, stream=steps.stream, clock=clock)
    meter(1, 4)  # the bar, its line left open for the next redraw
    steps._write("cartog-ci: indexing...\n", own_line=True)
    clock.now += 1.0
    meter(4, 4)
    assert out.getvalue().split("\n") == [
        f"\rcartog-ci: parsing [{'#' * 6}{'.' * 18}] 1/4 files\x1b[K",
        "cartog-ci: indexing...",
        "\rcartog-ci: parsing [########################] 4/4 files, 4 files/s in 1 s\x1b[K",
        "",
    ]
