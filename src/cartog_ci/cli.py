"""Command line: parse arguments, dispatch, turn errors into exit codes.

Expected problems -> one line on stderr, exit 2. Unexpected -> one line plus
a log file with version, platform and traceback, exit 3. Ctrl-C -> 130.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

import apsw

from cartog_ci import __version__
from cartog_ci.config import home
from cartog_ci.domain.visible import one_line
from cartog_ci.errors import CartogError, DamagedIndex

# name -> (module under cartog_ci.commands, help)
COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("index", "bring the index up to date (incremental)"),
    "watch": ("watch", "re-index on file changes (debounced)"),
    "stats": ("stats", "what the index holds"),
    "outline": ("outline", "symbols of a file"),
    "refs": ("refs", "who references a symbol"),
    "callees": ("callees", "what a symbol calls"),
    "impact": ("impact", "what a change to a symbol can reach"),
    "hierarchy": ("hierarchy", "bases and subclasses of a class"),
    "deps": ("deps", "imports of a file and who imports it"),
    "export": ("export", "the whole graph as JSON"),
    "search": ("search", "find code by what it does (keyword + semantic, fused)"),
    "models": ("models", "embedding models available and where they come from"),
    "report": ("report", "impact report of a change: changed symbols, callers, broken references, tests"),
    "hook": ("hook", "what the pre-commit hook runs: the staged change's report, failing on what will break"),
    "test": ("test", "run the tests the report selects for a change, with the project's own runners"),
    "coverage": ("coverage", "import recorded coverage (which tests executed which functions) into the index"),
    "comment": ("comment", "create or update the one PR comment that carries the report"),
    "mcp": ("mcp", "serve the graph, the search and the report to coding agents (MCP over stdio)"),
    "prune": ("prune", "drop old branch graphs from a shared PostgreSQL database"),
}


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line too (argparse would print the whole usage)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """Every subcommand is listed; only the one being run is imported (its
    module defines its arguments), which keeps start-up short for hooks."""
    parser = _Parser(
        prog="cartog-ci", description="What a code change touches and what it can break."
    )
    parser.add_argument("--version", action="version", version=f"cartog-ci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        if chosen in COMMANDS and name != chosen:
            continue  # a parser of its own is ~0.3 ms: only the listing (--help, a wrong name) needs them all
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        if name != chosen:
            continue
        cmd.add_argument("--repo", help="repository root (default: the current directory's)")
        cmd.add_argument("--index", help="index file (default: <repo>/.cartog-ci/index.db; env CARTOG_CI_INDEX)")
        cmd.add_argument("--json", action="store_true", help="machine-readable output")
        module = importlib.import_module(f"cartog_ci.commands.{module_name}")
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def _log_crash(argv: Sequence[str]) -> str:
    import platform  # here: a run that does not crash needs neither (~3 ms at start-up)
    import traceback

    logs = home() / "logs"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        path = logs / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(
            f"cartog-ci {__version__}\npython {sys.version}\nplatform {platform.platform()}\n"
            f"argv {list(argv)}\n\n{traceback.format_exc()}"
        )
        return str(path)
    except OSError:
        return "(could not write a log file)"


# The commands that bring the index up to date themselves.
_WRITERS = frozenset({"index", "report", "hook", "watch"})


def _rebuild_and_rerun(args: argparse.Namespace, reason: str) -> int:
    """A damaged index, met by any command: moved aside (its bytes kept),
    rebuilt, and the command run again, with one notice."""
    from cartog_ci import workspace
    from cartog_ci.index.refresh import refresh
    from cartog_ci.store.sqlite import move_aside, read_only_error, read_only_reason

    ws = workspace.locate(getattr(args, "path", None) or args.repo, args.index)
    read_only = read_only_reason(ws.index_path)
    if read_only:
        raise read_only_error(ws.index_path, f"{read_only}; it is damaged ({reason}) and cannot be rebuilt there")
    sys.stderr.write(f"cartog-ci: {move_aside(ws.index_path, reason)}\n")
    if args.command not in _WRITERS:
        with workspace.open_store(ws, create=True) as store:
            refresh(ws.root, store, ws.config, embed=False)
    return int(args._module.run(args))


def _damage_behind(args: argparse.Namespace, exc: Exception) -> str | None:
    """Why the command's SQLite index is damaged, if damage explains ``exc``
    (store/checksum.py ``behind_error``)."""
    from cartog_ci import workspace
    from cartog_ci.store import checksum

    try:
        ws = workspace.locate(getattr(args, "path", None) or getattr(args, "repo", None), getattr(args, "index", None))
        if ws.database_url:
            return None
        return checksum.behind_error(ws.index_path, exc)
    except (CartogError, OSError, apsw.Error):
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        try:
            return int(args._module.run(args))
        except DamagedIndex as exc:
            return _rebuild_and_rerun(args, exc.reason)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            # the cheap checks on open passed, but a page the command read is damaged
            return _rebuild_and_rerun(args, str(exc))
        except CartogError:
            raise
        except Exception as exc:  # undecodable or impossible data: damage, when the file says so
            reason = _damage_behind(args, exc)
            if reason is None:
                raise
            return _rebuild_and_rerun(args, reason)
    except CartogError as exc:
        # a path or a name from the repository may be in it: no control
        # character reaches the terminal, invisible ones show as \u202e
        sys.stderr.write(f"cartog-ci: {one_line(str(exc))}\n")
        return 2
    except (apsw.CorruptError, apsw.NotADBError) as exc:  # damaged again, right after the rebuild
        sys.stderr.write(
            f"cartog-ci: the index is damaged ({exc}): run `cartog-ci index --force` to check and rebuild it\n"
        )
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("cartog-ci: interrupted\n")
        return 130
    except BrokenPipeError:
        # stdout closed early (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        log = _log_crash(args_list)
        sys.stderr.write(f"cartog-ci: unexpected error ({type(exc).__name__}: {exc}); details in {log}\n")
        return 3


if __name__ == "__main__":
    sys.exit(main())
