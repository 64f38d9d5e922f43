"""Worker processes that never outlive the run that started them.

A ``cartog-ci`` killed with SIGKILL (a CI job cancelled, ``kill -9``, the
OOM killer) cannot stop its process pools: their workers, blocked writing a
result no one reads, would stay forever, holding the caller's stdout open
(a CI step or ``subprocess.run`` would wait for them). On Linux each worker
asks the kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``);
elsewhere a worker finds its parent gone when it next reads its work.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a pool starts: a one-file run starts none (~10 ms)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the worker could ask
        os._exit(1)


def spare_core() -> bool:
    """Whether a core is idle for one more process: the 1-minute load
    average (this process, busy, counts about one) under the cores less
    one half. A process forked to work beside this one costs CPU, the
    copies of the pages either side writes (a cold celery run's forked
    resolver: 72k page faults against 46k in one process, 2-8 % more CPU
    at load 8-18; docs/incremental.md), and on a busy machine its wall
    time is only a share taken from the other processes."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average here: as if idle
        return cores >= 2
    return cores >= 2 and load < cores - 0.5


def pool(workers: int, *, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if sys.platform.startswith("linux"):
        # for ``_die_with_parent``: imported in each worker, ctypes cost it
        # 1.9 ms of CPU and 89 page faults; imported here, the workers
        # inherit it (a cold run imports it anyway: the forked resolver's
        # shared counters, index/resolve.py ``_Shared``)
        import ctypes  # noqa: F401

    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context or multiprocessing.get_context(),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )
