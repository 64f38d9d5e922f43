"""The ``cartog-ci`` executable: start git before Python imports the tool.

An ``index``, ``report`` or ``hook`` run begins by asking git for the work tree's
state (``git status`` walks every file: 25-35 ms on django). Started here,
before the ~40 ms of imports and argument parsing, git walks while Python
imports; ``git.prefetching`` then takes the answers (docs/incremental.md,
level 1). A ``search`` asks git for the top level only: that call starts
here the same way. This module imports only what starting a process needs.

Started only where the answer is sure to be asked for, so that no call is
wasted on a busy machine: a run on the directory that holds ``.git`` (the
top level: where hooks and CI run), with none of the variables a hook sets
(a hook's temporary index goes through ``git._env``). Otherwise, and for every
other command, nothing starts early. Tests call ``cli.main`` directly.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys

# what git.prefetching starts (the same arguments: kept equal by a test)
EARLY_CALLS: tuple[tuple[str, ...], ...] = (
    ("rev-parse", "--show-toplevel"),
    (
        "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
        "--untracked-files=all", "--no-renames",
    ),
    ("ls-files", "-z", "--cached"),
)  # fmt: skip
_COMMANDS = frozenset({"index", "report", "hook"})
# the commands that ask git for the top level only (workspace.locate): that
# one call starts early, the others would be wasted (a search: 2-4 ms of
# waiting for git while nothing else runs)
_TOPLEVEL_ONLY = frozenset({"search"})
# the commands whose process ends without the interpreter's teardown
# (``exit_now``): a warm ``search`` spent 30-45 ms of its ~0.35 s wall there,
# freeing numpy's, onnxruntime's and the tool's objects one by one
# (docs/search.md, "Warm search latency")
_ENDS_NOW = _COMMANDS | {"search"}
# of those, the commands that run without the cyclic garbage collector (``main``)
_UNCOLLECTED = frozenset({"index"})
# and the others' collector: a young generation of 100,000 objects, not 700,
# and fewer older passes. A warm `report` of django HEAD~10 -> HEAD spent
# 50-61 ms of its 0.8-1.0 s of CPU in collections (gc callbacks), 20-26 ms
# with a young generation of 20,000 (its first report, the changed files
# parsed and the compiler tier asked, peaked at 149 MB against 138 with
# 700; with no collector at all, 176 MB); with 100,000, 4 collections
# (13.8 ms in all) became none (the young objects a report keeps are its answer:
# 20,000 at a time were walked for 0 to 696 freed), 2,332 -> 2,295M
# instructions, the peak memory the same (warm 64 MB, a first report's
# process tree 285 MB; docs/report.md, "Start-up").
_THRESHOLDS = (100_000, 50, 100)
# what git._env strips (a hook's variables): with any of them set, git._env decides
HOOK_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_INDEX_FILE",
)  # fmt: skip
_VALUED = frozenset({"--repo", "--index", "--push"})  # index's options that take a value


def early_directory(argv: list[str]) -> str | None:
    """The repository directory an ``index`` / ``report`` command line names
    (``--repo``, index's path, else the current directory) when it is a top
    level, resolved; None when unsure (the call then starts as it always did)."""
    if not argv or argv[0] not in _COMMANDS | _TOPLEVEL_ONLY or any(k in os.environ for k in HOOK_VARIABLES):
        return None
    directory = "."
    rest = argv[1:]
    for i, arg in enumerate(rest):
        if arg.startswith("--repo="):
            directory = arg.partition("=")[2]
        elif arg == "--repo" and i + 1 < len(rest):
            directory = rest[i + 1]
        elif argv[0] == "index" and not arg.startswith("-") and (i == 0 or rest[i - 1] not in _VALUED):
            directory = arg  # index's positional path
    try:
        resolved = os.path.realpath(directory)
        return resolved if os.path.exists(os.path.join(resolved, ".git")) else None
    except (OSError, ValueError):
        return None


def start_early(
    directory: str, calls: tuple[tuple[str, ...], ...] = EARLY_CALLS
) -> dict[tuple[str, tuple[str, ...]], subprocess.Popen[bytes]]:
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C")
    started: dict[tuple[str, tuple[str, ...]], subprocess.Popen[bytes]] = {}
    for args in calls:
        try:
            started[(directory, args)] = subprocess.Popen(
                ["git", "-C", directory, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
            )
        except OSError:  # no git: the call itself will say so
            break
    return started


def main() -> int:
    argv = sys.argv[1:]
    directory = early_directory(argv)
    calls = EARLY_CALLS[:1] if argv and argv[0] in _TOPLEVEL_ONLY else EARLY_CALLS
    started = start_early(directory, calls) if directory is not None else {}
    ends_now = bool(argv) and argv[0] in _ENDS_NOW
    if ends_now:
        # Imports make tens of thousands of objects that live as long as the
        # process and hold no garbage: no collection during them, and none
        # after walks them again (``gc.freeze``: a process that ends without
        # teardown never needs them collected). A command collects its own
        # garbage, but `index`: its run turns the collector off anyway
        # (index/cascade.py ``index_repository``), and left off, no pass
        # after the run walks what the run made (celery HEAD~10 -> HEAD:
        # 12-14 ms).
        gc.disable()
    _cache_code()
    _sqlite_without_statistics()
    from cartog_ci import cli, git

    if ends_now:
        gc.freeze()
        if argv[0] not in _UNCOLLECTED:
            gc.set_threshold(*_THRESHOLDS)
            gc.enable()
    git.adopt(started)
    if ends_now and argv[0] in _UNCOLLECTED:  # nothing a run made is freed before the end (``exit_now``)
        from cartog_ci.index import cascade

        cascade.keep_to_exit()
    code = cli.main(argv)
    if ends_now:
        exit_now(code)
    return code


def _sqlite_without_statistics() -> None:
    """SQLite without its memory statistics (``SQLITE_CONFIG_MEMSTATUS``),
    which nothing here reads: counting them takes a mutex around each of its
    allocations (a warm Django 5.1 -> 5.1.4 HEAD~10 report: 816,718 mutex
    enters; 2,169M -> 2,156M instructions). Set before the first
    connection, as SQLite allows it (the library shut down, then started
    again); the tests' ``cli.main`` keeps SQLite's defaults."""
    import apsw

    try:
        apsw.shutdown()
        apsw.config(apsw.SQLITE_CONFIG_MEMSTATUS, 0)
    except apsw.Error:  # a connection open already (a library's): as it is
        pass
    apsw.initialize()


def _cache_code() -> None:
    """The functions of the dataclasses the imports make, and the regular
    expressions they compile, compiled in an earlier run (``codecache``),
    saved at exit when this run compiled any."""
    import atexit

    from cartog_ci import codecache
    from cartog_ci.config import home

    # the patterns first: making the dataclasses' cache imports modules that compile some
    atexit.register(codecache.install_patterns(home()).save)
    atexit.register(codecache.install(home()).save)


def exit_now(code: int) -> None:
    """End the process as the interpreter would, without its teardown:
    freeing every object of an index run one by one, and collecting them,
    took 10-25 ms after a django one-file run (1-2 ms this way). What
    finalisation runs first still runs: non-daemon threads are joined and
    the threading exit hooks run (a process pool is shut down), then the
    ``atexit`` functions; the output is flushed. Every file and database
    the command writes is closed by then (``with`` blocks)."""
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)  # CPython's first step of finalisation
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more to say
            pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
