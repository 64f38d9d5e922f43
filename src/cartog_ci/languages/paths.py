"""Path-suffix lookups for the module finders of languages whose imports
name a path below some source root (Java packages under ``src/main/java``,
Ruby ``require`` under ``lib/``). Built once per symbol table and language.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cartog_ci.languages.base import Project


@dataclass
class PathIndex:
    # "b/c.java" -> every indexed file whose path ends with that suffix
    files: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # "a/b" -> every directory (holding a file of the language) ending with it
    dirs: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def path_index(table: Project, language: str) -> PathIndex:
    return table.derived(f"paths.{language}", lambda project: _path_index(project, language))  # type: ignore[return-value]


def _path_index(table: Project, language: str) -> PathIndex:
    index = PathIndex()
    dirs: set[str] = set()
    for path, lang in table.language_of_file.items():
        if lang != language:
            continue
        parts = path.split("/")
        for i in range(len(parts)):
            index.files["/".join(parts[i:])].append(path)
        dirs.add(posixpath.dirname(path))
    for directory in dirs:
        parts = directory.split("/") if directory else []
        for i in range(len(parts)):
            index.dirs["/".join(parts[i:])].append(directory)
    return index


def closest(importer: str, candidates: list[str]) -> list[str]:
    """The candidate sharing the longest directory prefix with the importer,
    else the shortest path; a tie is ambiguous (empty)."""
    unique = sorted(set(candidates))
    if len(unique) <= 1:
        return unique
    scored = sorted(((_common_prefix(importer, c), c) for c in unique), reverse=True)
    if scored[0][0] > scored[1][0]:
        return [scored[0][1]]
    shortest = min(len(c) for c in unique)
    short = [c for c in unique if len(c) == shortest]
    return short if len(short) == 1 else []


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        n += 1
    return n
