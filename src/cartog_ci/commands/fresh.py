"""The index brought up to date before a query answers (`refs`, `export`),
as `report` does: an answer from before the last edits would be wrong
without a word. ``--no-refresh`` answers from the index as it is."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from cartog_ci import workspace
from cartog_ci.commands.progress import Meter, Steps
from cartog_ci.errors import CartogError, IndexBusy
from cartog_ci.index.refresh import refresh
from cartog_ci.store.sqlite import read_only_reason

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def add_refresh_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-refresh",
        action="store_true",
        help="answer from the index as it is (default: bring it up to date first, as report does)",
    )


def _say(message: str) -> None:
    sys.stderr.write(f"cartog-ci: {message}\n")


@contextmanager
def fresh_store(ws: workspace.Workspace, *, no_refresh: bool) -> Iterator[Store]:
    """The store, up to date with the work tree unless ``no_refresh``. An
    index that cannot be written (read-only) or is being written by another
    process (busy past busy_timeout_ms) answers as it is, saying so."""
    read_only = read_only_reason(ws.index_path) if ws.index_path.exists() else None
    if no_refresh or read_only:
        if read_only and not no_refresh:
            _say(f"index {ws.index_path} is read-only ({read_only}): answering from it as it is, not brought up to date")
        with workspace.open_store(ws, create=False) as store:
            yield store
        return
    denied: CartogError | None = None
    with workspace.open_store(ws, create=True) as store:
        said = len(store.notices)
        for notice in store.notices:
            _say(notice)
        steps = Steps()
        try:
            with steps.step("updating the index"):
                meter = Meter("parsing", "files", terminal=sys.stderr.isatty(), stream=steps.stream)
                refresh(ws.root, store, ws.config, embed=False, parse_count=meter)
            for notice in store.notices[said:]:  # said by the run's write (a graph kept off the branch's latest)
                _say(notice)
        except IndexBusy as exc:
            _say(f"{exc}; answering from its last committed state")
        except CartogError as exc:
            if type(exc).__name__ != "ReadOnlyRole":  # store/postgres/connection.py: psycopg is an extra
                raise
            denied = exc
        if denied is None:
            yield store
            return
    # a reader's role on a shared database: its graph as it is (the writer's run brings it up to date)
    _say(f"{denied}; answering from the graph as it is, not brought up to date")
    with workspace.open_store(ws, create=False) as store:
        yield store
