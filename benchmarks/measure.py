"""Timing and memory of a child process, and of an in-process call.

Memory of a child comes from two places:

* ``os.wait4`` rusage ``ru_maxrss``: the kernel's high-water mark of the
  child *and its reaped descendants* (the parse pool's workers), i.e. the
  maximum over those processes, never their sum. It is exact but says
  nothing about workers running at the same time.
* A sampler that sums ``VmRSS`` over the child's process tree every few
  milliseconds: the peak of that sum is what the machine had to hold. It
  may miss a short spike, and it counts pages shared after ``fork`` once
  per process, so it over-states a little.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
SAMPLE_SECONDS = 0.005
HERE = Path(__file__).resolve().parent
BIN = HERE.parent / ".venv" / "bin"
# Bytecode of the tool and the stdlib, kept out of src/ (git-ignored).
PYCACHE = HERE / ".corpora" / "pycache"


def cartog_ci() -> str:
    """The installed console script (interpreter start and imports included)."""
    script = BIN / "cartog-ci"
    return str(script) if script.exists() else "cartog-ci"


def cli_env(*, bytecode_cache: bool = True) -> dict[str, str]:
    """The environment of a measured CLI run.

    An installed tool runs from byte-compiled modules (pip compiles wheels on
    install). A shell that exports PYTHONDONTWRITEBYTECODE would make every
    run recompile cartog_ci from source (~25 ms here), so by default the
    children get a bytecode cache of their own under benchmarks/.corpora/.
    """
    env = dict(os.environ)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def index_flags(env: dict[str, str], *, embed: bool) -> list[str]:
    """Extra ``cartog-ci index`` flags: ``--no-embed`` unless asked to embed.

    These benchmarks measure the structural index (docs/incremental.md); embedding has
    its own benchmark. Versions without the flag never embed."""
    if embed:
        return []
    usage = run_process([cartog_ci(), "index", "--help"], env=env).stdout
    return ["--no-embed"] if "--no-embed" in usage else []


def warm_up(env: dict[str, str]) -> None:
    """One untimed run on a one-file directory: fills the bytecode cache."""
    with tempfile.TemporaryDirectory(prefix="cartog-bench-") as tmp:
        Path(tmp, "a.py").write_text("def f():\n    return 1\n")
        run_process([cartog_ci(), "index", tmp, "--index", str(Path(tmp, "i.db"))], env=env)


def load_average() -> str:
    """1-minute load: other work on the machine skews every wall time here."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def tool_note() -> str:
    """Which code was measured: where cartog_ci is imported from (PYTHONPATH
    can point the benchmarks at another checkout's src/), and its git state."""
    spec = importlib.util.find_spec("cartog_ci")
    origin = Path(spec.origin).parent if spec and spec.origin else None
    if origin is None:
        return "cartog_ci not importable"
    git = ["git", "-C", str(origin)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0:
        return f"cartog_ci from {origin}"
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True, check=False)
    changes = " + uncommitted changes" if dirty.stdout.strip() else ""
    return f"cartog_ci from {origin} at {head.stdout.strip()}{changes}"


@dataclass(frozen=True)
class ProcessRun:
    wall: float  # seconds, spawn to reap
    cpu: float  # user + system seconds of the child and its reaped descendants (pool workers, git)
    max_rss_kb: int  # ru_maxrss of the child and its reaped descendants (max, not sum)
    tree_rss_kb: int  # sampled peak of the summed VmRSS of the whole process tree (a child still sharing its parent's memory, vfork before exec, once)
    returncode: int
    stdout: str
    stderr: str


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out += [int(c) for c in fh.read().split()]
    except OSError:
        pass
    return out


_KCMP = 312  # the kcmp system call on x86_64 Linux
_KCMP_VM = 1


def _same_memory(a: int, b: int) -> bool:
    """Whether two processes share one address space: a child that Python's
    subprocess made with vfork and that has not run exec yet shows its
    parent's whole RSS, which a sum would count twice (django, a 190 MB
    indexer spawning git: a 361 MB tree for a few milliseconds)."""
    return _LIBC is not None and int(_LIBC.syscall(_KCMP, a, b, _KCMP_VM, 0, 0)) == 0


_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" and platform.machine() == "x86_64" else None


def _tree_rss_kb(pid: int) -> int:
    total, todo = 0, [(pid, 0)]
    while todo:
        current, parent = todo.pop()
        if not (parent and _same_memory(parent, current)):
            total += _rss_kb(current)
        todo += [(c, current) for c in _children(current)]
    return total


class _TreeSampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(SAMPLE_SECONDS):
            self.peak = max(self.peak, _tree_rss_kb(self.pid))


def run_process(
    cmd: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    sample_tree: bool = False,
    check: bool = True,
) -> ProcessRun:
    """Run ``cmd`` once; wall time from spawn to reap, rusage of that child only.

    Wall time suffers from whatever else the machine runs; CPU time much less,
    so both are kept."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        sampler = _TreeSampler(proc.pid) if sample_tree else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.done.set()
            sampler.join()
        out.seek(0)
        err.seek(0)
        run = ProcessRun(
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            max_rss_kb=int(usage.ru_maxrss),  # Linux: kilobytes
            tree_rss_kb=sampler.peak if sampler else 0,
            returncode=proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )
    if check and run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {run.returncode}:\n{run.stderr}")
    return run


def _cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(call: Callable[[], T]) -> tuple[float, float, T]:
    """(wall, cpu, value); cpu counts this process and the children it reaped
    meanwhile (the parse pool's workers, git)."""
    cpu, start = _cpu_now(), time.perf_counter()
    value = call()
    return time.perf_counter() - start, _cpu_now() - cpu, value


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def mb(kb: int) -> str:
    return f"{kb / 1024:,.0f} MB"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> str:
    """A plain fixed-width table (first column left-aligned, numbers right)."""
    align = list(right) if right is not None else [False] + [True] * (len(headers) - 1)
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, align)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])
