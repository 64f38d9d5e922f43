"""Progress on stderr, on a terminal and in a log alike (issues 16, 31).

A counted step (files parsed, texts embedded) is a ``Meter``: on a terminal,
a bar redrawn in place with the rate and the time left; in a log (a CI job,
a pre-commit hook), whole lines, none rewritten, the first once the step
has run ``FIRST_AFTER`` s, then about every ``LOG_EVERY`` s. Any other step
that runs over ``FIRST_AFTER`` s is named by ``Steps``: a line when it has
run that long, another every ``LOG_EVERY`` s that nothing else was written,
and one with its time at its end. A step shorter than that says nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

BAR = 24
TERMINAL_EVERY = 0.1  # s between redraws of the bar
FIRST_AFTER = 2.0  # s a step runs before it says so
LOG_EVERY = 10.0  # s between lines in a log


class Writer(Protocol):
    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class Meter:
    """A ``(done, total)`` callback that draws ``label`` progress of ``unit``."""

    def __init__(
        self,
        label: str,
        unit: str,
        *,
        terminal: bool,
        stream: Writer | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.unit, self.terminal = label, unit, terminal
        self.stream = stream
        self.clock = clock
        self.every = TERMINAL_EVERY if terminal else LOG_EVERY
        self.start: float | None = None
        self.last: float | None = None
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self.start is None:  # a terminal shows the bar at once, a log its first line after FIRST_AFTER s
            self.start = now
            self.last = None if self.terminal else now - self.every + FIRST_AFTER
        final = done >= total
        if not final and self.last is not None and now - self.last < self.every:
            return
        if final and not self.terminal and not self.shown:
            return  # a step shorter than a log line's interval: its summary says enough
        self.last = now
        line = self.line(done, total, now - self.start)
        out = self.stream or sys.stderr
        if self.terminal:
            out.write(f"\r{line}\x1b[K" + ("\n" if final else ""))
        else:
            out.write(line + "\n")
        out.flush()
        self.shown = True

    def line(self, done: int, total: int, seconds: float) -> str:
        share = done / total if total else 1.0
        text = f"cartog-ci: {self.label} {done}/{total} {self.unit}"
        if self.terminal:
            filled = round(BAR * share)
            text = f"cartog-ci: {self.label} [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total} {self.unit}"
        if seconds > 0 and done:
            rate = done / seconds
            text += f", {rate:.0f} {self.unit}/s"
            if done < total:
                text += f", {_duration((total - done) / rate)} left"
            else:
                text += f" in {_duration(seconds)}"
        return text


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


class Steps:
    """Names the steps of a command that run over ``first_after`` s (see the
    module's docstring). ``stream`` is what ``Meter`` lines go through too,
    so that a step is not said to go on while a meter speaks for it."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        first_after: float | None = None,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        quiet: bool = False,
    ) -> None:
        self.quiet = quiet  # no line at all (a caller that is not a command: the MCP server)
        self.out = stream
        self.first_after = FIRST_AFTER if first_after is None else first_after
        self.every = LOG_EVERY if every is None else every
        self.clock = clock
        self.lock = threading.Lock()
        self.last_write = clock()
        self.open_line = False  # the last text written left its line open (a bar)
        self.stream = _Through(self)

    def write(self, text: str) -> None:
        self._write(text, own_line=False)

    def _write(self, text: str, *, own_line: bool) -> None:
        """``own_line``: a step's line, which starts a line of its own below
        a terminal's bar being redrawn (the bar goes on under it)."""
        with self.lock:
            out = self.out or sys.stderr
            out.write(("\n" if own_line and self.open_line else "") + text)
            out.flush()
            self.open_line = not text.endswith("\n")
            self.last_write = self.clock()

    @contextmanager
    def step(self, label: str) -> Iterator[None]:
        if self.quiet:
            yield
            return
        started = self.clock()
        stop = threading.Event()
        shown = threading.Event()

        def watch() -> None:
            if stop.wait(self.first_after):
                return
            self._write(f"cartog-ci: {label}...\n", own_line=True)
            shown.set()
            while not stop.wait(self.every):
                if self.clock() - self.last_write >= self.every:
                    self._write(f"cartog-ci: {label}... {_duration(self.clock() - started)}\n", own_line=True)

        watcher = threading.Thread(target=watch, name=f"cartog-ci progress: {label}", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            stop.set()
            watcher.join()
            if shown.is_set():
                self._write(f"cartog-ci: {label}: done in {_duration(self.clock() - started)}\n", own_line=True)


class _Through:
    """A stream that writes through ``Steps`` (its lock, its clock)."""

    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    def write(self, text: str) -> int:
        self.steps.write(text)
        return len(text)

    def flush(self) -> None:
        pass
