"""`cartog-ci prune --older-than DAYS`: drop old branch graphs from a shared
PostgreSQL database (README, Team set-up)."""

from __future__ import annotations

import argparse

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--older-than", type=int, required=True, metavar="DAYS",
        help="drop this repository's branches not written for DAYS days (never the base branch), "
        "and the graphs of commits older than that (never a branch's latest)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    dropped, graphs = workspace.prune(ws, args.older_than)
    if args.json:
        emit_json({"dropped": dropped, "graphs_dropped": graphs})
    else:
        echo(f"dropped {len(dropped)} branch graph(s)" + (": " + ", ".join(dropped) if dropped else ""))
        if graphs != len(dropped):  # a branch's graphs of older commits, roots no graph stands on
            echo(f"dropped {graphs} graph(s) of indexed commits in all")
    return 0
