"""One long-lived service process, fed JSON lines and read against a
deadline (docs/report.md, "The compiler tier"): the sites are written by a
thread while the answers are read, so that neither side's pipe fills; past
the budget the process is killed and what it did not answer is counted, and
a process that crashes or cannot start is one line, never a traceback."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_READ = 1 << 16


@dataclass
class ServiceRun:
    """What one run of a service answered, by site ID."""

    answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    version: str = ""  # the tool's own, from its ready line
    failure: str = ""  # one line: why it stopped before answering every site
    timed_out: bool = False
    seconds: float = 0.0


def run_service(
    argv: Sequence[str], *, cwd: Path, files: Sequence[str], sites: Sequence[dict[str, Any]], budget: float
) -> ServiceRun:
    """Start ``argv``, send ``{"files"}`` then every site, and read answers
    until each site has one, the process ends, or ``budget`` seconds pass."""
    import tempfile  # with ``random``: only when a service runs, not in each warm report (docs/report.md, "Start-up")

    start = time.monotonic()
    run = ServiceRun()
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(
                list(argv), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, start_new_session=True
            )
        except OSError as exc:
            run.failure = f"could not start {Path(argv[0]).name}: {exc.strerror or exc}"
            return run
        try:
            _exchange(process, files, sites, start + budget, run)
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            assert process.stdout is not None
            process.stdout.close()
        if run.failure == "" and len(run.answers) < len(sites) and not run.timed_out:
            run.failure = f"{Path(argv[0]).name} exited with code {process.returncode}{_last_line(errors)}"
    run.seconds = time.monotonic() - start
    return run


def _exchange(
    process: subprocess.Popen[bytes], files: Sequence[str], sites: Sequence[dict[str, Any]], deadline: float, run: ServiceRun
) -> None:
    assert process.stdin is not None and process.stdout is not None
    lines = [json.dumps({"files": list(files)})] + [json.dumps(s) for s in sites]
    writer = threading.Thread(target=_write, args=(process.stdin, lines), daemon=True)
    writer.start()
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    fd = process.stdout.fileno()
    pending = b""
    with selector:
        while len(run.answers) < len(sites):
            left = deadline - time.monotonic()
            if left <= 0:
                run.timed_out = True
                return
            if not selector.select(left):
                continue
            chunk = os.read(fd, _READ)
            if not chunk:
                return  # the process ended
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                _take(line, run)


def _take(line: bytes, run: ServiceRun) -> None:
    try:
        message = json.loads(line)
    except ValueError:
        return  # a stray line (a library printing on stdout): not an answer
    if not isinstance(message, dict):
        return
    if message.get("ready"):
        run.version = str(message.get("typescript") or message.get("jedi") or "")
    elif isinstance(message.get("id"), int):
        run.answers[message["id"]] = message


def _write(stream: Any, lines: list[str]) -> None:
    try:
        for line in lines:
            stream.write(line.encode("utf-8") + b"\n")
        stream.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the process ended or was killed: the reader says why


def _last_line(errors: Any) -> str:
    errors.seek(0)
    text = errors.read()[-4000:].decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines()]
    # a stack's frames and node's closing "Node.js v20" say nothing of the cause
    useful = [line for line in lines if line and not line.startswith(("at ", "Node.js v"))]
    errors = [line for line in useful if re.match(r"^[\w.]*(Error|Exception)\b", line)]
    said = (errors or useful)[-1:]
    return f": {said[0][:200]}" if said else ""
