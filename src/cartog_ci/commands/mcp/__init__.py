"""`cartog-ci mcp`: the graph, the search and the impact report as tools
of a Model Context Protocol server on stdin/stdout (docs/mcp.md).

Needs the optional ``mcp`` package (``pip install 'cartog-ci[mcp]'``); the
other commands never import it.
"""

from __future__ import annotations

import argparse
import sys
import threading

from cartog_ci import workspace
from cartog_ci.commands.mcp.pages import TokenCounter
from cartog_ci.commands.fresh import add_refresh_argument
from cartog_ci.errors import CartogError, ModelUnavailable

DEFAULT_BUDGET = 4_000
BUDGET_RANGE = (200, 16_000)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--watch", action="store_true", help="also re-index in the background after file changes (debounced)"
    )
    parser.add_argument("--debounce", type=float, default=None, help="with --watch: seconds of quiet (default 5)")
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"tokens of an answer when the call does not say (default {DEFAULT_BUDGET:,})",
    )
    add_refresh_argument(parser)


def run(args: argparse.Namespace) -> int:
    low, high = BUDGET_RANGE
    if not low <= args.budget <= high:
        raise CartogError(f"--budget must be between {low:,} and {high:,} tokens")
    try:
        import anyio

        from cartog_ci.commands.mcp.server import Session, serve
    except ImportError as exc:
        raise CartogError(f"the MCP server needs the mcp package ({exc}): pip install 'cartog-ci[mcp]'") from None
    ws = workspace.locate(args.repo, args.index)
    session = Session(ws, refresh=not args.no_refresh, budget=args.budget, counter=_counter())
    stop = threading.Event()
    if args.watch:
        debounce = args.debounce if args.debounce is not None else ws.config.debounce
        if debounce < 0:
            raise CartogError("--debounce must be zero or more seconds")
        threading.Thread(target=session.watch, args=(stop, debounce), name="cartog-ci-watch", daemon=True).start()
    try:
        anyio.run(serve, session)
    finally:
        stop.set()
    return 0


def _counter() -> TokenCounter:
    from cartog_ci.embed.onnx import counting_tokenizer

    try:
        return TokenCounter(counting_tokenizer())
    except ModelUnavailable as exc:
        sys.stderr.write(f"cartog-ci: {exc}; answers are budgeted at two characters per token\n")
        return TokenCounter(None)
