"""`cartog-ci hierarchy CLASS`: bases and subclasses."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cartog_ci import graph, workspace
from cartog_ci.commands.output import echo, emit_json, resolve_names
from cartog_ci.domain import TYPE_KINDS, Symbol
from cartog_ci.errors import CartogError

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="class name, qualified name or full symbol ID")


def types_named(store: Store, name: str) -> list[Symbol]:
    """The types NAME names; an error that says what it names instead."""
    named = resolve_names(store, name)
    types = [s for s in named if s.kind in TYPE_KINDS]
    if not types:
        kinds = " and ".join(sorted({f"{'an' if s.kind[0] in 'aeiou' else 'a'} {s.kind}" for s in named}))
        raise CartogError(
            f"{name!r} is {kinds}, not a class: hierarchy shows the bases and subclasses of types "
            f"(classes, interfaces, traits, structs, enums); try `cartog-ci refs {name}`"
        )
    return types


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    with workspace.open_store(ws, create=False) as store:
        found = [graph.hierarchy(store, s) for s in types_named(store, args.name)]
    if args.json:
        emit_json(
            [
                {
                    "symbol": h.symbol.id,
                    "bases": [{"id": s.id, "depth": d} for d, s in h.bases],
                    "unresolved_bases": list(h.unresolved_bases),
                    "subclasses": [{"id": s.id, "depth": d} for d, s in h.subclasses],
                }
                for h in found
            ]
        )
        return 0
    for h in found:
        echo(h.symbol.id)
        for d, s in h.bases:
            echo(f"  {'  ' * (d - 1)}^ {s.id}")
        for name in h.unresolved_bases:
            echo(f"  ^ {name} (outside the project)")
        for d, s in h.subclasses:
            echo(f"  {'  ' * (d - 1)}v {s.id}")
    return 0
