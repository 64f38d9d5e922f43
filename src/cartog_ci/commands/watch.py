"""`cartog-ci watch`: re-index once per burst of file-system events.

Events are debounced (default 5 s of quiet, docs/incremental.md) and each burst runs one
incremental index; the store is in WAL mode, so `refs`, `search` and
`report` keep reading while it writes. Ctrl-C exits cleanly (status 0).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import workspace
from cartog_ci.config import INDEX_DIR
from cartog_ci.index.refresh import refresh

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debounce", type=float, default=None, help="seconds of quiet before re-indexing (default 5)")
    parser.add_argument("--max-runs", type=int, default=0, help=argparse.SUPPRESS)  # tests: stop after N runs


def _relevant(root: Path, changes: Iterable[tuple[object, str]]) -> bool:
    for _, path in changes:
        try:
            rel = Path(path).resolve().relative_to(root)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] in (INDEX_DIR, ".git"):
            continue
        return True
    return False


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    debounce = args.debounce if args.debounce is not None else ws.config.debounce
    if debounce < 0:
        from cartog_ci.errors import CartogError

        raise CartogError("--debounce must be zero or more seconds")
    stop = threading.Event()
    runs = 0
    with workspace.open_store(ws, create=True) as store:
        try:
            index_once(ws, store, "initial")
            runs += 1

            def watching() -> None:
                sys.stderr.write(f"cartog-ci: watching {ws.root} (debounce {debounce:g} s, Ctrl-C to stop)\n")
                sys.stderr.flush()

            for events in bursts(ws.root, debounce=debounce, stop=stop, ready=watching):
                index_once(ws, store, f"{events} event(s)")
                runs += 1
                if args.max_runs and runs >= args.max_runs:
                    break
        except KeyboardInterrupt:
            pass
    return 0


def bursts(
    root: Path, *, debounce: float, stop: threading.Event, ready: Callable[[], None] | None = None
) -> Iterator[int]:
    """The number of file-system events of each burst that touches the
    repository (its index directory and .git aside), once the tree has been
    quiet for ``debounce`` seconds; ends when ``stop`` is set. ``ready`` is
    called once the watch is in place: no change after it is missed."""
    import watchfiles

    # watchfiles yields once the tree has been quiet for `step` ms, and
    # at the latest after `debounce` ms of continuous events: our
    # debounce is the quiet period, with a long cap for endless bursts.
    # It also yields (nothing) after `rust_timeout` ms without a change:
    # its first yield of any kind comes after the watch is set up, and says
    # so (saying "watching" before it would lose the edits made meanwhile).
    quiet = max(int(debounce * 1000), 50)
    for changes in watchfiles.watch(
        root, step=quiet, debounce=max(quiet * 20, 60_000), stop_event=stop,
        raise_interrupt=False, rust_timeout=READY_WITHIN_MS, yield_on_timeout=True,
    ):  # fmt: skip
        if ready is not None:
            ready()
            ready = None
        if changes and _relevant(root.resolve(), changes):
            yield len(changes)


READY_WITHIN_MS = 200


def index_once(ws: workspace.Workspace, store: Store, why: str) -> None:
    start = time.perf_counter()
    result = refresh(ws.root, store, ws.config, embed=False).index
    c = result.categories
    sys.stderr.write(
        f"cartog-ci: re-indexed ({why}): {result.parsed} file(s) parsed, +{len(c['added'])} "
        f"~{len(c['modified'])} -{len(c['removed'])} symbols in {(time.perf_counter() - start) * 1000:.0f} ms\n"
    )
    sys.stderr.flush()
