"""Progress of a long step on stderr (issue 16): on a terminal, a bar
redrawn in place with the rate and the time left; in a log (``index
--progress``), one whole line about every 10 s, none rewritten."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

BAR = 24
TERMINAL_EVERY = 0.1  # s between redraws of the bar
LOG_EVERY = 10.0  # s between lines in a log


class Meter:
    """A ``(done, total)`` callback that draws ``label`` progress of ``unit``."""

    def __init__(
        self,
        label: str,
        unit: str,
        *,
        terminal: bool,
        stream: TextIO | None = None,
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
        if self.start is None:  # a terminal shows the bar at once, a log its first line after a while
            self.start = now
            self.last = None if self.terminal else now
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
