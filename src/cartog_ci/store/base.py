"""The store as the rest of the package sees it: every method the indexer,
graph queries, report, search, embedding and commands call.

``SqliteStore`` (store/sqlite.py) is the one implementation; a second
backend (PostgreSQL) implements this Protocol and nothing more. Storage
answers in domain objects (domain.py), never rows; no SQL crosses it.

Orders are part of the contract where a method states one: reports and
search results are stable because of them. Lookups by a list of IDs run
500 IDs at a time, and a stated order holds within each 500.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, Self

from cartog_ci.domain import Edge, EdgeCounts, FileState, NumberedEdge, SearchRow, Symbol, SymbolText
from cartog_ci.domain.answers import IndexStats, NameMatch
from cartog_ci.domain.results import CoverageRun, RecordedSymbol

if TYPE_CHECKING:
    from array import array

    from cartog_ci.domain.vectors import Vector


class Store(Protocol):
    # Lines to say when the index was opened (an unusable file rebuilt).
    notices: list[str]

    # -- lifetime and transactions -------------------------------------------

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic unit; nested calls are part of the outer one and roll
        back alone."""
        ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None:
        """``None`` removes the key."""
        ...

    # -- files ---------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]: ...

    def file_states_of(self, paths: Sequence[str]) -> dict[str, FileState]:
        """The stored states of these paths (those stored)."""
        ...

    def file_hashes(self) -> dict[str, tuple[str, str]]:
        """Path -> (SHA-256, status) of every stored file, by path."""
        ...

    def put_file(self, state: FileState) -> None: ...

    def delete_file(self, path: str) -> None:
        """The file with its symbols, edges and search texts."""
        ...

    def unsupported_paths(self) -> list[str]: ...

    def indexed_languages(self) -> list[str]:
        """Sorted."""
        ...

    def clear(self) -> None:
        """Every file, symbol, edge and search text (``index --force``);
        cached vectors stay."""
        ...

    def bulk_load(self) -> AbstractContextManager[None]:
        """Inside a transaction, for filling the emptied tables: their
        secondary indexes are dropped for the block and built once at its
        end (sorted, packed pages). Only whole-table reads and row-id
        lookups are cheap inside; an exception leaves the rollback of the
        transaction to restore them."""
        ...

    def deferred_writes(self) -> AbstractContextManager[Callable[[], None]]:
        """Inside a transaction, for a run that changes stored files: writes
        that a store does faster all at once (SQLite: the full-text rows)
        may wait for the end of the block, or for a call of the callable it
        gives (what waited so far); the graph's own reads inside see the
        tables as written so far (the search reads may not)."""
        ...

    def stats(self) -> IndexStats: ...

    # -- symbols -------------------------------------------------------------

    def insert_symbols(self, symbols: Iterable[Symbol]) -> None: ...

    def update_symbols(self, symbols: Iterable[Symbol]) -> None:
        """Replace by ID, keeping each stored ``in_degree``."""
        ...

    def set_positions(self, symbols: Iterable[Symbol]) -> None:
        """The lines and bytes of stored symbols, by ID; the rest stays."""
        ...

    def delete_symbols(self, ids: Iterable[str]) -> None: ...

    def symbol(self, symbol_id: str) -> Symbol | None: ...

    # -- recorded coverage (docs/coverage.md), where ``supports_coverage`` ----

    supports_coverage: bool

    def coverage_runs(self) -> list[CoverageRun]:
        """The recordings, newest import first (none where not supported)."""
        ...

    def put_coverage(
        self,
        run: CoverageRun,
        symbols: Mapping[str, str],
        hits: Iterable[tuple[str, str]],
        tests: Mapping[str, Iterable[str]],
        *,
        keep: int = ...,
    ) -> None:
        """Replace the recording of ``run.commit``: the functions and methods
        of its measured files (ID -> content hash then), (symbol ID, context)
        for each context that executed one, and the tests each context names
        (context -> test IDs; none for a context naming no known test); then
        keep the newest ``keep`` recordings."""
        ...

    def recorded_coverage(self, commit: str, ids: Sequence[str]) -> dict[str, RecordedSymbol]:
        """What the recording of ``commit`` says of these symbols, by ID
        (those of its measured files only)."""
        ...

    # -- the compiler tier's answers (docs/report.md), where ``supports_compiler_cache`` --

    supports_compiler_cache: bool

    def compiler_answers(self, tool: str, program: str, sites: Sequence[tuple[str, int, str]]) -> dict[tuple[str, int, str], str]:
        """The cached answers (JSON text) of these (file, line, name) sites
        for ``tool`` over ``program`` (none where not supported)."""
        ...

    def put_compiler_answers(self, tool: str, program: str, answers: Iterable[tuple[tuple[str, int, str], str]]) -> None:
        """Cache these answers; those of ``tool``'s other programs go."""
        ...

    def compiler_answer_count(self, tool: str) -> int:
        """The answers cached for ``tool``."""
        ...

    # -- the report's sides cache (docs/report.md), where ``supports_report_sides`` --

    supports_report_sides: bool

    def report_sides(self, side: str, keys: Mapping[str, str]) -> dict[str, str | bytes]:
        """The cached data (text or bytes, as written) of these files'
        ``side`` ('base', 'head' or 'unread'), by path: those cached with the
        key asked (path -> key); none where not supported."""
        ...

    def put_report_sides(self, side: str, rows: Iterable[tuple[str, str, str | bytes]]) -> None:
        """Cache (path, key, data) rows of ``side``, each replacing its file's."""
        ...

    # -- recorded dependencies (index/deps.py), where ``supports_dependencies`` --

    supports_dependencies: bool

    def dependencies(self, paths: Sequence[str]) -> dict[str, bytes]:
        """path -> the encoded dependencies of its edges, for those recorded."""
        ...

    def put_dependencies(
        self, items: Iterable[tuple[str, bytes, Iterable[int]]], stored: Mapping[str, set[int]] | None = None
    ) -> None:
        """Replace these files' dependencies: (path, encoded, the keys another
        file's change may change); ``stored``: those keys as stored now, for
        the files the caller decoded (the others are read)."""
        ...

    def replace_dependencies(self, items: Iterable[tuple[str, bytes, Iterable[int]]], nodes: dict[int, set[int]]) -> None:
        """Every file's dependencies (as ``put_dependencies``) and every
        node's keys (as ``put_nodes``), in place of all those stored: a run
        that resolved every edge."""
        ...

    def files_reading(self, hashes: Iterable[int]) -> set[str]:
        """The files with an edge whose answer read one of these keys."""
        ...

    def put_nodes(self, nodes: dict[int, set[int]]) -> None:
        """Replace these nodes' keys: node hash -> the hashes of the keys
        computing it read (index/resolve.py ``Recorder.node``)."""
        ...

    def nodes_reading(self, hashes: Iterable[int]) -> set[int]:
        """The nodes whose computation read one of these keys."""
        ...

    def symbols(self, ids: Iterable[str]) -> dict[str, Symbol]:
        """The ones that exist, by ID: in ID order within each ``IN_CHUNK``
        (store/tables.py) of the distinct IDs asked, taken in the order
        asked (report/reads.py answers in this order from what it read)."""
        ...

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """The module first, then by start byte, outer before inner."""
        ...

    def members_named(self, parent_id: str, name: str) -> list[Symbol]:
        """The symbols right under ``parent_id`` named ``name``, as ``symbols_in_file`` orders them."""
        ...

    def members_named_each(self, pairs: Sequence[tuple[str, str]]) -> list[Symbol]:
        """The symbols right under one of the pairs' parents named one of
        their names (those of pairs not asked too), as ``members_named``
        orders them: each pair's are its ``members_named``."""
        ...

    def all_symbols(self) -> list[Symbol]:
        """By file, start byte, outer before inner."""
        ...

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        """Symbols whose name, qualified_name or file is ``value``, in all_symbols' order."""
        ...

    def symbol_count(self) -> int: ...

    def modules(self) -> list[tuple[str, str, str]]:
        """(file, ID, language) of the module symbols, in all_symbols' order."""
        ...

    def any_module_file(self, test: Callable[[str], bool]) -> bool:
        """Whether ``test`` holds for the file of a module symbol, read until it does."""
        ...

    def detached_method_candidates(self) -> list[Symbol]:
        """Methods right under a module or namespace with a dotted qualified name."""
        ...

    def find_symbols(self, text: str) -> list[Symbol]:
        """By full ID, else qualified name, else bare name; by file and position."""
        ...

    def definitions_named(self, text: str) -> list[tuple[str, str, str]]:
        """(file, qualified name, kind) of each symbol ``find_symbols`` finds, in its order."""
        ...

    def definitions_named_each(self, texts: Sequence[str]) -> dict[str, list[tuple[str, str, str]]]:
        """``definitions_named`` of each of ``texts``, by text, read at once."""
        ...

    def match_names(self, term: str, *, limit: int = 50) -> list[NameMatch]:
        """The structural search's lookup, best tier first (the tiers of
        store/definitions.py)."""
        ...

    def method_signatures(self, language: str) -> list[str]:
        """The distinct signatures of one language's methods."""
        ...

    def callable_signatures(self, language: str, mentioning: Sequence[str]) -> list[tuple[str, str, str]]:
        """(name, file, signature) of one language's functions and methods
        whose signature holds one of ``mentioning`` (a superset: some more)."""
        ...

    def recompute_in_degree(self, ids: Iterable[str] | None = None) -> int:
        """in_degree = resolved incoming edges, of ``ids`` or of every symbol;
        how many symbols were updated."""
        ...

    # -- edges ---------------------------------------------------------------

    def insert_edges(self, edges: Iterable[Edge]) -> None: ...

    def insert_numbered_edges(self, edges: Sequence[Edge]) -> list[int] | None:
        """``insert_edges``, and the new rows' IDs in order when the store
        knows them without reading them back (None: it does not)."""
        ...

    def delete_edges_of_files(self, paths: Iterable[str]) -> None: ...

    def delete_edges(self, ids: Iterable[int]) -> None: ...

    def set_lines(self, updates: Iterable[tuple[int, int]]) -> None:
        """(edge ID, line) of edges kept where their file moved them."""
        ...

    def numbered_edges_in_file(self, path: str) -> list[NumberedEdge]:
        """The file's edges with their IDs, by line, then ID."""
        ...

    def edges_from(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        """Edges whose source is one of ``ids`` (of ``kinds`` when given), by file, line."""
        ...

    def edges_to(self, ids: Sequence[str], kinds: Sequence[str] = ()) -> list[Edge]:
        """Edges resolved to one of ``ids`` (of ``kinds`` when given), by file, line."""
        ...

    def edges_in_file(self, path: str) -> list[Edge]:
        """By line."""
        ...

    def all_edges(self) -> list[Edge]:
        """By file, line, source, kind, target name, qualifier, alias."""
        ...

    def import_edges(self) -> list[Edge]:
        """In the order they were stored."""
        ...

    def import_edges_in_file(self, path: str) -> list[Edge]:
        """One file's ``imports`` edges, in the order they were stored."""
        ...

    def bases(self) -> dict[str, list[str]]:
        """Class ID -> the IDs of its resolved bases, by file and line, then as stored."""
        ...

    def bases_of(self, class_id: str) -> list[str]:
        """One class's entry of ``bases()``."""
        ...

    def has_unknown_base(self, class_id: str) -> bool:
        """Whether the class is one of ``classes_with_unknown_bases()``."""
        ...

    def classes_with_unknown_bases(self) -> set[str]:
        """Class IDs with a base neither resolved nor known to be external."""
        ...

    def unresolved_edges_named(
        self, names: Sequence[str], *, kinds: Sequence[str] = (), aliases: bool = False
    ) -> list[Edge]:
        """Edges without a target, to one of ``names`` (or with ``aliases``
        binding one as an import alias), of ``kinds`` when given."""
        ...

    def edge_counts(self) -> EdgeCounts: ...

    # Resolution: numbered edges, in no particular order; the number goes
    # back to set_targets.

    def numbered_edges(self) -> list[NumberedEdge]: ...

    def edges_of_files(self, paths: Sequence[str]) -> list[NumberedEdge]: ...

    def numbered_edges_by_id(self, ids: Sequence[int]) -> list[NumberedEdge]:
        """These edges (those that exist), in ID order."""
        ...

    def edge_places(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """ID -> (file, kind) of these edges (those that exist), no edge built."""
        ...

    def edges_naming(self, names: Sequence[str]) -> list[NumberedEdge]:
        """To one of ``names``, or binding one as an import alias."""
        ...

    def edges_qualified_by(self, qualifiers: Sequence[str]) -> list[NumberedEdge]: ...

    def member_imports(self) -> list[NumberedEdge]:
        """Imports with a dotted target (Java `import static a.C.m`: ``C.m``),
        whose member may be inherited."""
        ...

    def edges_on_constructed_receivers(self, naming: Collection[str] | None = None) -> list[NumberedEdge]:
        """Qualified by a construction (``Foo().run()``) or a receiver holding
        one; with ``naming``, only those whose qualifier (``()`` dropped) has
        one of these dotted parts."""
        ...

    def edges_with_qualifier_parts(self, names: Collection[str]) -> list[NumberedEdge]:
        """Edges whose qualifier (``()`` dropped) has one of these dotted
        parts: ``K`` finds ``K.m()``, ``mod.K.m()``, ``K().m()``, ``mod.K.make().m()``."""
        ...

    def unresolved_imports_and_file_links(self) -> list[NumberedEdge]:
        """Imports and file links (``FILE_QUALIFIER``) with no target, not even external."""
        ...

    def set_targets(self, updates: Iterable[tuple[int, str | None, str | None]]) -> None:
        """(edge number, target ID, resolution tier) for each edge."""
        ...

    def invalidate_dangling_edges(self, targets: Iterable[str] | None = None) -> int:
        """Edges whose target no longer exists lose it (only edges to
        ``targets``, when given); how many."""
        ...

    # -- search texts and vectors --------------------------------------------

    def replace_texts(
        self,
        path: str,
        texts: Sequence[SymbolText],
        names: dict[str, str],
        *,
        search_index: bool = True,
        fresh: bool = False,
        previous_names: Mapping[str, str] | None = None,
    ) -> None:
        """The search texts of one file; ``names``: symbol ID -> name.
        ``search_index=False``: the full-text index waits for ``rebuild_search_index``;
        ``fresh``: the file has no stored texts (nothing to delete first);
        ``previous_names``: the stored symbols' names (ID -> name), with which
        a store may keep the texts that did not change."""
        ...

    def rebuild_search_index(self) -> None:
        """The full-text index again from every stored text (end of a cold run)."""
        ...

    def search_rows(self) -> list[SearchRow]:
        """Every stored text with its full-text rows, and every full-text row
        without a text (``index --verify``), by symbol ID."""
        ...

    def contents(self, ids: Sequence[str]) -> dict[str, str]: ...

    def texts_to_embed(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Symbol ID -> (text hash, text to embed), for the symbols that have a text."""
        ...

    def fts(self, expression: str, limit: int, table: str = "fts_symbols") -> list[tuple[str, float]]:
        """(symbol ID, BM25 score) best first, for an FTS5 expression over
        names, words and content (``fts_symbols``) or trigrams of the
        content (``fts_trigram``)."""
        ...

    def vector_model(self) -> tuple[str, int] | None:
        """(model ID, dimensions) the stored vectors are searched with."""
        ...

    def use_vector_model(self, model_id: str, dims: int) -> str | None:
        """Search with this model from now on; a notice when that drops another."""
        ...

    def texts_missing_vectors(
        self, model_id: str, skip_files: frozenset[str] = frozenset()
    ) -> list[tuple[str, str]]:
        """(text hash, text to embed) without a vector of this model, by
        hash; not a text found only in ``skip_files``."""
        ...

    def add_vectors(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """(text hash, little-endian float32 vector) pairs; searched by KNN
        only when ``model_id`` is the searched model, else cached by hash."""
        ...

    def prune_vectors(self) -> int:
        """Drop cached vectors no symbol uses, once they outnumber the symbols; how many."""
        ...

    def knn(self, vector: Vector, k: int) -> list[tuple[str, float]]:
        """(symbol ID, distance) of the ``k`` nearest live symbols, nearest first."""
        ...

    def vectors_for(self, ids: Sequence[str], model_id: str) -> dict[str, array[float]]: ...
