"""Java module lookup: a dotted import spec is a class file or a package
directory, found under whatever source root holds it (``src/main/java``,
``src/test/java``, a module of a multi-module build)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartog_ci.index.paths import closest, path_index

if TYPE_CHECKING:
    from cartog_ci.index.resolve import SymbolTable


def find(table: SymbolTable, importer: str, spec: str) -> list[str]:
    """``a.b.Foo`` -> ``[…/a/b/Foo.java]``; ``a.b`` -> one file of each
    directory ``…/a/b`` (a package may be split between main and test): the
    resolver's top-level lookup in a file spans its whole directory."""
    rel = spec.replace(".", "/")
    if not rel or rel.startswith("/"):
        return []
    index = path_index(table, "java")
    files = index.files.get(f"{rel}.java", [])
    if files:
        return closest(importer, files)
    found = []
    for directory in index.dirs.get(rel, []):
        files = sorted(f for f in table.files_by_dir.get(directory, []) if table.language_of_file.get(f) == "java")
        found += files[:1]
    return sorted(found)
