"""Shared rendering of domain objects for the query commands."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from cartog_ci import workspace
from cartog_ci.domain import Edge, Symbol
from cartog_ci.domain.visible import escape_invisible
from cartog_ci.errors import SymbolNotFound

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

T = TypeVar("T")


def edge_json(e: Edge) -> dict[str, object]:
    return {
        "source_id": e.source_id,
        "target_id": e.target_id,
        "target_name": e.target_name,
        "kind": e.kind,
        "file": e.file,
        "line": e.line,
        "resolution": e.resolution,
    }


def emit_json(data: object) -> None:
    # invisible characters as JSON escapes: the value parses the same, the
    # text shows them (they can only be inside strings)
    sys.stdout.write(escape_invisible(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")


# Control characters other than newline and tab: a file or symbol name may
# hold ESC or CR (git allows them), which would drive the terminal.
_TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def echo(line: str = "") -> None:
    sys.stdout.write(_TERMINAL_CONTROL.sub("?", escape_invisible(line)) + "\n")


def resolve_names(store: Store, name: str) -> list[Symbol]:
    """A bare name, a qualified name or a full ID; all matches when ambiguous."""
    found = store.find_symbols(name)
    if not found:
        raise SymbolNotFound(f"no symbol named {name!r} in the index (try `cartog-ci search {name}`)")
    return found


def closest_names(store: Store, name: str, *, limit: int = 5) -> list[str]:
    """Qualified names nearest to a NAME the index does not have: those it
    starts or is part of (the structural search's lookup), then the most
    similar spellings."""
    found = store.symbols(m.symbol_id for m in store.match_names(name, limit=limit))
    out = list(dict.fromkeys(s.qualified_name for s in found.values()))[:limit]
    if len(out) < limit:
        everything = store.all_symbols()
        known = {s.qualified_name for s in everything} | {s.name for s in everything}
        import difflib  # here: every query command imports this module (a search, ~3 CPU ms)

        out += [n for n in difflib.get_close_matches(name, sorted(known), n=limit, cutoff=0.6) if n not in out]
    return out[:limit]


def symbols_of_file(store: Store, path: str) -> list[Symbol]:
    """The symbols of an indexed file, first its module; an error if the index has none."""
    symbols = store.symbols_in_file(path)
    if not symbols:
        raise SymbolNotFound(f"{path} is not in the index (check the path, or run `cartog-ci index`)")
    return symbols


def for_each_named(ws: workspace.Workspace, name: str, query: Callable[[Store, Symbol], T]) -> list[tuple[Symbol, T]]:
    """``query``'s answer for each symbol that NAME names (all of them when
    ambiguous), from the index opened read-only."""
    with workspace.open_store(ws, create=False) as store:
        return [(s, query(store, s)) for s in resolve_names(store, name)]


def repo_path(text: str) -> str:
    """A FILE argument as the index stores it: ``/`` separators, no leading ``./``."""
    return text.replace("\\", "/").removeprefix("./")


def depth_arg(text: str) -> int:
    """argparse type for --depth: a whole number from 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value

