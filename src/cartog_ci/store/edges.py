"""Edge tables of the store: what the indexer writes and resolves, and what
graph queries, the report and search read.

Edges are indexed both ways (``edges_source``, ``edges_target``) and by
file and target name (migration m001). Numbered edges carry their row id:
resolution reads them and gives the id back to ``set_targets``. In SQLite
``edges`` is a view over compact rows (m008) and the writes are
store/edge_rows.py's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from sys import intern
from typing import cast

from cartog_ci.domain import FILE_QUALIFIER, Edge, EdgeCounts, NumberedEdge
from cartog_ci.store.records import maker
from cartog_ci.store.tables import Tables, chunks

_EDGE_COLUMNS = "source_id, target_name, kind, file, line, qualifier, alias, target_id, resolution"


def _edge(row: Sequence[object]) -> Edge:
    """One object for each text the rows repeat (a source, a kind, a file,
    a tier: store/symbols.py symbol_of), not one a row."""
    source, name, kind, file, line, qualifier, alias, target, resolution = row
    # no typing.cast: a function call each at run time, 9 an edge
    return _make_edge((
        intern(source), name, intern(kind), intern(file), line,  # type: ignore[call-overload]
        qualifier, alias, target, None if resolution is None else intern(resolution),  # type: ignore[call-overload]
    ))  # fmt: skip


_make_edge = maker(Edge, 9)  # Edge(*values), without its __init__ (store/records.py)


def _edge_row(e: Edge) -> tuple[object, ...]:
    return (
        e.source_id, e.target_name, e.kind, e.file, e.line,
        e.qualifier, e.alias, e.target_id, e.resolution,
    )  # fmt: skip


class EdgeTables(Tables):
    """A part of both stores: the edges table on its connection, in SQL that
    SQLite and PostgreSQL both run (store/tables.py)."""

    # -- writes --------------------------------------------------------------

    def insert_edges(self, edges: Iterable[Edge]) -> None:
        self.db.executemany(
            f"INSERT INTO edges ({_EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (_edge_row(e) for e in edges),
        )

    def insert_numbered_edges(self, edges: Sequence[Edge]) -> list[int] | None:
        """``insert_edges``, and the new rows' IDs in order when the store
        knows them without reading them back (None: it does not)."""
        self.insert_edges(edges)
        return None

    def delete_edges_of_files(self, paths: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM edges WHERE file = ?", ((p,) for p in paths))

    def delete_edges(self, ids: Iterable[int]) -> None:
        for chunk in chunks(list(ids)):
            self.db.execute(f"DELETE FROM edges WHERE id IN ({','.join('?' * len(chunk))})", chunk)

    def set_lines(self, updates: Iterable[tuple[int, int]]) -> None:
        """(edge ID, line): an edge kept where its file moved it."""
        self.db.executemany("UPDATE edges SET line = ? WHERE id = ?", ((line, i) for i, line in updates))

    def set_targets(self, updates: Iterable[tuple[int, str | None, str | None]]) -> None:
        self.db.executemany(
            "UPDATE edges SET target_id = ?, resolution = ? WHERE id = ?",
            ((target, resolution, edge_id) for edge_id, target, resolution in updates),
        )

    def invalidate_dangling_edges(self, targets: Iterable[str] | None = None) -> int:
        """Phase 1: edges whose target no longer exists lose their target;
        with ``targets``, only the edges to those (the symbols a run removed:
        found through the target index, not by a scan of every edge)."""
        return self.update_rows(
            "UPDATE edges SET target_id = NULL, resolution = NULL WHERE target_id IS NOT NULL "
            "AND target_id NOT IN (SELECT id FROM symbols) AND",
            "target_id",
            targets,
        )

    # -- reads ---------------------------------------------------------------

    def edges_from(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        return self._edges_by("source_id", ids, kinds)

    def edges_to(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        return self._edges_by("target_id", ids, kinds)

    def _edges_by(self, column: str, ids: Sequence[str], kinds: Sequence[str]) -> list[Edge]:
        out: list[Edge] = []
        kind_sql = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT {_EDGE_COLUMNS} FROM edges WHERE {column} IN ({marks}){kind_sql} "
                "ORDER BY file, line, id",
                (*chunk, *kinds),
            )
            out.extend(_edge(r) for r in rows)
        return out

    def edges_in_file(self, path: str) -> list[Edge]:
        rows = self.db.execute(
            f"SELECT {_EDGE_COLUMNS} FROM edges WHERE file = ? ORDER BY line, id", (path,)
        )
        return [_edge(r) for r in rows]

    def all_edges(self) -> list[Edge]:
        rows = self.db.execute(
            f"SELECT {_EDGE_COLUMNS} FROM edges ORDER BY file, line, source_id, kind, target_name, "
            "qualifier NULLS FIRST, alias NULLS FIRST, id"
        )
        return [_edge(r) for r in rows]

    def import_edges(self) -> list[Edge]:
        """Every ``imports`` edge, in the order they were stored."""
        rows = self.db.execute(f"SELECT {_EDGE_COLUMNS} FROM edges WHERE kind = 'imports' ORDER BY id")
        return [_edge(r) for r in rows]

    def import_edges_in_file(self, path: str) -> list[Edge]:
        """The file's ``imports`` edges, in the order they were stored."""
        rows = self.db.execute(
            f"SELECT {_EDGE_COLUMNS} FROM edges WHERE file = ? AND kind = 'imports' ORDER BY id", (path,)
        )
        return [_edge(r) for r in rows]

    def bases(self) -> dict[str, list[str]]:
        """Class ID -> the IDs its resolved ``inherits`` edges point to, in
        (file, line, edge) order."""
        out: dict[str, list[str]] = {}
        rows = self.db.execute(
            "SELECT source_id, target_id FROM edges WHERE kind = 'inherits' AND target_id IS NOT NULL "
            "ORDER BY file, line, id"
        )
        for source, target in rows:
            out.setdefault(str(source), []).append(str(target))
        return out

    def bases_of(self, class_id: str) -> list[str]:
        rows = self.db.execute(
            "SELECT target_id FROM edges WHERE source_id = ? AND kind = 'inherits' AND target_id IS NOT NULL "
            "ORDER BY file, line, id",
            (class_id,),
        )
        return [str(r[0]) for r in rows]

    def has_unknown_base(self, class_id: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM edges WHERE source_id = ? AND kind = 'inherits' AND target_id IS NULL "
            "AND resolution IS NULL LIMIT 1",
            (class_id,),
        ).fetchone()
        return row is not None

    def classes_with_unknown_bases(self) -> set[str]:
        """Class IDs with a base that is neither in the project nor known to
        be outside it (an ambiguous or unresolvable name)."""
        rows = self.db.execute(
            "SELECT DISTINCT source_id FROM edges WHERE kind = 'inherits' AND target_id IS NULL AND resolution IS NULL"
        )
        return {str(r[0]) for r in rows}

    def unresolved_edges_named(
        self, names: Sequence[str], *, kinds: Sequence[str] = (), aliases: bool = False
    ) -> list[Edge]:
        """Edges without a target whose target name is one of ``names`` (or,
        with ``aliases``, that bind one as an import alias), of ``kinds``
        when given."""
        kind_sql = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
        out: list[Edge] = []
        for chunk in chunks(list(names)):
            marks = ",".join("?" * len(chunk))
            named = f"target_name IN ({marks}) OR alias IN ({marks})" if aliases else f"target_name IN ({marks})"
            params = (*chunk, *chunk) if aliases else chunk
            rows = self.db.execute(
                f"SELECT {_EDGE_COLUMNS} FROM edges WHERE target_id IS NULL AND ({named}){kind_sql} ORDER BY id",
                (*params, *kinds),
            )
            out.extend(_edge(r) for r in rows)
        return out

    def edge_counts(self) -> EdgeCounts:
        total, unresolved = cast(
            "tuple[int, int]",
            self.db.execute(
                "SELECT count(*), count(CASE WHEN target_id IS NULL AND resolution IS NULL THEN 1 END) "
                "FROM edges WHERE kind != 'imports'"
            ).fetchone(),
        )
        return EdgeCounts(int(total), int(unresolved))

    # -- to re-resolve: numbered, in no particular order ---------------------

    def numbered_edges(self) -> list[NumberedEdge]:
        """Every edge (a full resolution run)."""
        return self._numbered("TRUE")

    def numbered_edges_in_file(self, path: str) -> list[NumberedEdge]:
        """``edges_in_file`` with their IDs, in the same (line, id) order."""
        rows = self.db.execute(f"SELECT id, {_EDGE_COLUMNS} FROM edges WHERE file = ? ORDER BY line, id", (path,))
        return [(int(r[0]), _edge(r[1:])) for r in rows]

    def numbered_edges_by_id(self, ids: Sequence[int]) -> list[NumberedEdge]:
        """These edges (those that exist), in ID order."""
        return sorted(self._numbered_in("id IN ({marks})", ids))  # type: ignore[arg-type]

    def edge_places(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """ID -> (file, kind) of these edges (those that exist), no edge built:
        which of the rows an answer reached are bases (index/cascade.py
        ``_Revisit.reach``: zod HEAD~10 -> HEAD reads some thousand rows for
        its few inherits edges)."""
        out: dict[int, tuple[str, str]] = {}
        for chunk in chunks(list(ids)):
            rows = self.db.execute(f"SELECT id, file, kind FROM edges WHERE id IN ({','.join('?' * len(chunk))})", chunk)
            out.update((int(r[0]), (str(r[1]), str(r[2]))) for r in rows)
        return out

    def edges_of_files(self, paths: Sequence[str]) -> list[NumberedEdge]:
        return self._numbered_in("file IN ({marks})", paths)

    def edges_naming(self, names: Sequence[str]) -> list[NumberedEdge]:
        """Edges to one of ``names``, or that bind one as an import alias."""
        return self._numbered_in("target_name IN ({marks}) OR alias IN ({marks})", names, repeat=2)

    def edges_qualified_by(self, qualifiers: Sequence[str]) -> list[NumberedEdge]:
        return self._numbered_in("qualifier IN ({marks})", qualifiers)

    def member_imports(self) -> list[NumberedEdge]:
        return self._numbered("kind = 'imports' AND target_name LIKE '%.%'")

    def edges_on_constructed_receivers(self, naming: Collection[str] | None = None) -> list[NumberedEdge]:
        """Calls on an object built in place (``Foo().run()``) or held from
        one; with ``naming``, those whose qualifier has one of these dotted
        parts (``to_unicode()`` for ``to_unicode``, ``mod.f()`` for ``mod``
        or ``f``): the qualifiers are read first, whole edges only for those."""
        if naming is None:
            return self._numbered("qualifier LIKE '%()'")
        wanted = set(naming)
        # each distinct qualifier once (django: 19k such edges, 3k qualifiers)
        qualifiers = [
            str(qualifier)
            for (qualifier,) in self.db.execute("SELECT DISTINCT qualifier FROM edges WHERE qualifier LIKE '%()'")
            if not wanted.isdisjoint(str(qualifier).removesuffix("()").split("."))
        ]
        return self._numbered_in("qualifier IN ({marks})", qualifiers)

    def edges_with_qualifier_parts(self, names: Collection[str]) -> list[NumberedEdge]:
        """Edges whose qualifier (``()`` dropped) has one of ``names`` as a
        dotted part: each distinct qualifier read once, then the edges of
        those that have one."""
        wanted = set(names)
        if not wanted:
            return []
        qualifiers = [
            str(qualifier)
            for (qualifier,) in self.db.execute("SELECT DISTINCT qualifier FROM edges WHERE qualifier IS NOT NULL")
            if not wanted.isdisjoint(str(qualifier).replace("()", "").split("."))
        ]
        return self._numbered_in("qualifier IN ({marks})", qualifiers)

    def unresolved_imports_and_file_links(self) -> list[NumberedEdge]:
        """Imports and file links (Markdown) left unresolved, not even external."""
        return self._numbered(
            "target_id IS NULL AND resolution IS NULL AND (kind = 'imports' OR qualifier = ?)", (FILE_QUALIFIER,)
        )

    def _numbered_in(self, where: str, values: Sequence[str], *, repeat: int = 1) -> list[NumberedEdge]:
        """``where`` with ``{marks}`` placeholders, run on chunks of ``values``."""
        out: list[NumberedEdge] = []
        for chunk in chunks(list(values)):
            out += self._numbered(where.format(marks=",".join("?" * len(chunk))), chunk * repeat)
        return out

    def _numbered(self, where: str, params: Sequence[object] = ()) -> list[NumberedEdge]:
        rows = self.db.execute(f"SELECT id, {_EDGE_COLUMNS} FROM edges WHERE {where} ORDER BY id", params)
        return [(int(r[0]), _edge(r[1:])) for r in rows]
