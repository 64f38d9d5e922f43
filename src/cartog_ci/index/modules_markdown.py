"""Markdown link lookup: ``[x](docs/a.md)`` is relative to the linking file,
``[x](/docs/a.md)`` to the repository root (as GitHub renders them). Only
indexed files have a module symbol to point at."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING
from urllib.parse import unquote

if TYPE_CHECKING:
    from cartog_ci.index.resolve import SymbolTable


def find(table: SymbolTable, importer: str, spec: str) -> list[str]:
    target = unquote(spec)
    if target.startswith("/"):
        path = posixpath.normpath(target.lstrip("/"))
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))
    if path == ".." or path.startswith("../"):
        return []
    return [path] if path in table.module_of_file else []
