"""Edge resolution: target name -> target symbol ID, in ordered tiers (docs/languages.md).

Tiers, first hit wins, recorded in ``edges.resolution``:
same_file -> import -> same_dir -> parent_scope -> unique -> class_over_ctor.
An ambiguous edge stays unresolved: a wrong edge in an impact report is worse
than a missing one. Names bound to something outside the project (an
external import, a builtin) are marked ``external`` and never guessed.
"""

from __future__ import annotations

import itertools
import posixpath
import re
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from cartog_ci import languages
from cartog_ci.domain import CALLABLE_KINDS, CONSTRUCTOR_NAMES, FILE_QUALIFIER, TYPE_KINDS, VALUE, Edge, Symbol
from cartog_ci.index import workers
from cartog_ci.index.deps import DETACHED_CANDIDATES, key_hash, value_print
from cartog_ci.languages import ScopeRules
from cartog_ci.parse.syntax import plain_type

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

EXTERNAL = "external"
T = TypeVar("T")
# Method names so common on builtin types that a project method sharing the
# name says nothing about what ``x.name()`` calls.
_COMMON_METHODS = frozenset(
    {n for t in (list, dict, str, set, bytes, int, object, tuple) for n in dir(t)}
    | set(
        "push pop map filter reduce forEach then catch finally get set has delete add "
        "keys values entries join split slice splice concat indexOf includes find "
        "toString apply call bind emit on off once send write read close open next "
        "run start stop exec test replace match trim log error warn info debug "
        "append extend update items copy clear remove insert sort reverse count index "
        "encode decode format strip lower upper startswith endswith".split()
    )
)
MAX_HOPS = 6
# A return annotation naming the class the function is declared in.
SELF_TYPES = frozenset({"Self", "typing.Self", "typing_extensions.Self", "this"})  # TS `m(): this`
# The tiers that say what a name surely means: those a value is answered with (``Resolver._value``).
_SURE_TIERS = frozenset({"same_file", "import", "parent_scope"})
_CALL_RECEIVER = re.compile(r"([\w$]+(?:\.[\w$]+)*)\(\)")
_ITEM_OF_CALL = re.compile(r"([\w$]+(?:\.[\w$]+)*)\(\)\[\]")  # `for m in re.finditer(...)`: `m`
_CALL_CHAIN = re.compile(r"[\w$]+(?:\.[\w$]+)*\(\)(?:\.[\w$]+\(\))+")  # `z.string().min()`
# `const x = make(...)` / `const x = make<T>(...)`: a constant holding what a call gives.
_JS_CALLED = re.compile(r"(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*=\s*([\w$]+(?:\.[\w$]+)*)\s*(?:<[^()]*>)?\(")
# `const x: Type = ...` / `const x = new Type(...)`: the class of a JS/TS instance.
_JS_INSTANCE = re.compile(r"(?:const|let|var)\s+[\w$]+\s*(?::\s*([\w$.]+)\s*)?=\s*(?:new\s+([\w$.]+))?")

@dataclass
class _Binding:
    module: str
    name: str
    # a member of the module named like it (Python `from m import m`), not the module
    member: bool = False


_ABSENT = object()


class _OnDemand(dict):
    """A dict whose entries are read on first lookup: ``load(key)`` gives
    the value or ``_ABSENT`` (kept too, so a key is read once). Lookups
    (``get``, ``[]``, ``in``) only: what is not yet read cannot be listed."""

    def __init__(self, load: Callable[[object], object]) -> None:
        super().__init__()
        self._load = load

    def _fetch(self, key: object) -> object:
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            pass
        value = self._load(key)
        dict.__setitem__(self, key, value)
        return value

    def get(self, key: object, default: object = None) -> object:
        value = self._fetch(key)
        return default if value is _ABSENT else value

    def __getitem__(self, key: object) -> object:
        value = self._fetch(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return self._fetch(key) is not _ABSENT

    def _not_listable(self, *args: object) -> None:
        raise TypeError("an on-demand table cannot be listed")

    keys = values = items = _not_listable  # type: ignore[assignment]


class Recorder:
    """The keys the lookups of one answer read (docs/incremental.md, "Recorded
    dependencies"): ``cur`` is the open frame, a set of keys ``(tag, key)``;
    ``(tag, None)`` stands for a read of the whole table (its iteration)."""

    __slots__ = ("cur", "nodes", "prints")

    def __init__(self) -> None:
        self.cur: set[tuple[object, ...]] = set()
        # A value kept for the run and read by many answers (a module found
        # from an import, a name a module exports) is a node of its own:
        # ``("M", name, argument)`` -> the keys computing it read. An answer
        # reads the node's key, not its keys again (salsa's queries; an
        # incremental run finds the nodes a change reached, index/deps.py).
        self.nodes: dict[tuple[object, ...], set[tuple[object, ...]]] = {}
        # node -> a digest of its value: an incremental run that computes a
        # node again and finds the same digest changes nothing through it
        # (salsa's backdating, index/deps.py ``value_print``)
        self.prints: dict[tuple[object, ...], str] = {}

    def node(self, key: tuple[object, ...], compute: Callable[[], object]) -> object:
        """``compute()`` as the node ``key``: the current frame reads ``key``."""
        value, keys = self.frame(compute, merge=False)
        self.nodes.setdefault(key, set()).update(keys)
        self.prints[key] = value_print(value)
        self.cur.add(key)
        return value

    def frame(
        self, compute: Callable[[], object], *, merge: bool = True
    ) -> tuple[object, frozenset[tuple[object, ...]]]:
        """``compute()`` in a frame of its own: its value and the keys it read,
        which the outer frame reads too (``merge``; else the caller notes
        what stands for them)."""
        outer = self.cur
        self.cur = set()
        try:
            value = compute()
        finally:
            inner = self.cur
            self.cur = outer
            if merge:
                outer |= inner
        return value, frozenset(inner)


class _Looked:
    """A table of the resolver whose lookups note the key they asked,
    ``(tag, key)``, in the recorder: what an answer read is what it depends
    on, whoever wrote the rule that read it. Writes are not noted."""

    __slots__ = ("_d", "_rec", "_tag")

    def __init__(self, d: object, rec: Recorder, tag: str) -> None:
        self._d = d
        self._rec = rec
        self._tag = tag

    def get(self, key: object, default: object = None) -> object:
        self._rec.cur.add((self._tag, key))
        return self._d.get(key, default)  # type: ignore[attr-defined]

    def __getitem__(self, key: object) -> object:
        self._rec.cur.add((self._tag, key))
        return self._d[key]  # type: ignore[index]

    def __contains__(self, key: object) -> bool:
        self._rec.cur.add((self._tag, key))
        return key in self._d  # type: ignore[operator]

    def setdefault(self, key: object, default: object = None) -> object:
        self._rec.cur.add((self._tag, key))
        return self._d.setdefault(key, default)  # type: ignore[attr-defined]

    def __setitem__(self, key: object, value: object) -> None:
        self._d[key] = value  # type: ignore[index]

    def _whole(self) -> object:
        self._rec.cur.add((self._tag, None))
        return self._d

    def items(self) -> object:
        return self._whole().items()  # type: ignore[attr-defined]

    def values(self) -> object:
        return self._whole().values()  # type: ignore[attr-defined]

    def keys(self) -> object:
        return self._whole().keys()  # type: ignore[attr-defined]

    def __iter__(self) -> object:
        return iter(self._whole())  # type: ignore[call-overload]

    def __len__(self) -> int:
        return len(self._whole())  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        return bool(self._whole())


class _LookedIn(_Looked):
    """A table of tables (a scope's children by name, a file's bindings by
    name): a lookup of the outer key alone notes nothing, the inner table
    notes ``(tag, outer, name)``, and ``(tag, outer, None)`` when listed."""

    __slots__ = ("_inners",)

    def __init__(self, d: object, rec: Recorder, tag: str) -> None:
        super().__init__(d, rec, tag)
        self._inners: dict[object, _Scope] = {}  # one wrapper an inner table, made once

    def _inner(self, key: object, found: object) -> object:
        inner = self._inners.get(key)
        if inner is None or inner._d is not found:
            inner = self._inners[key] = _Scope(found, self._rec, self._tag, key)
        return inner

    def get(self, key: object, default: object = None) -> object:
        found = self._d.get(key, default)  # type: ignore[attr-defined]
        if found is None:
            self._rec.cur.add((self._tag, key, None))
            return None
        inner = self._inners.get(key)
        if inner is not None and (
            inner._d is found or found is default and found == {} and inner._d == {}  # `.get(scope, {})`: a miss
        ):
            return inner
        inner = self._inners[key] = _Scope(found, self._rec, self._tag, key)
        return inner

    def __getitem__(self, key: object) -> object:
        try:
            return self._inner(key, self._d[key])  # type: ignore[index]
        except KeyError:
            self._rec.cur.add((self._tag, key, None))
            raise

    def __contains__(self, key: object) -> bool:
        self._rec.cur.add((self._tag, key, None))
        return key in self._d  # type: ignore[operator]


class _Scope(_Looked):
    __slots__ = ("_outer",)

    def __init__(self, d: object, rec: Recorder, tag: str, outer: object) -> None:
        super().__init__(d, rec, tag)
        self._outer = outer

    def get(self, key: object, default: object = None) -> object:
        self._rec.cur.add((self._tag, self._outer, key))
        return self._d.get(key, default)  # type: ignore[attr-defined]

    def __getitem__(self, key: object) -> object:
        self._rec.cur.add((self._tag, self._outer, key))
        return self._d[key]  # type: ignore[index]

    def __contains__(self, key: object) -> bool:
        self._rec.cur.add((self._tag, self._outer, key))
        return key in self._d  # type: ignore[operator]

    def _whole(self) -> object:
        self._rec.cur.add((self._tag, self._outer, None))
        return self._d


# What each table of the symbol table is noted as (docs/incremental.md):
# the key a change of the index turns into (index/deps.py ``changed_keys``).
LOOKED_TABLES = {
    "by_id": "s",  # a symbol's fields: its kind, names, parent, signature
    "by_name": "n",
    "by_qualified": "q",
    "module_of_file": "f",  # a file is a module of the project (and its language)
    "language_of_file": "f",
    "files_by_dir": "d",
    "star_imports": "*",
    "line_modules": "L",
    "caches": "k",  # what a language derived from the whole table or the disk
}
LOOKED_IN_TABLES = {"children": "c", "bindings": "b"}
_SYMBOL_TAG, _CHILDREN_TAG = LOOKED_TABLES["by_id"], LOOKED_IN_TABLES["children"]


class SymbolSource(Protocol):
    """What an on-demand symbol table reads (the store's lookups, store/sqlite.py)."""

    def symbol(self, symbol_id: str) -> Symbol | None: ...

    def symbols_by(self, column: str, value: str) -> list[Symbol]: ...

    def modules(self) -> list[tuple[str, str, str]]: ...

    def detached_method_candidates(self) -> list[Symbol]: ...

    def import_edges_in_file(self, path: str) -> list[Edge]: ...


@dataclass
class SymbolTable:
    """Everything resolution looks up, built once per run from the store."""

    by_id: dict[str, Symbol] = field(default_factory=dict)
    by_name: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    by_qualified: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    children: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    module_of_file: dict[str, str] = field(default_factory=dict)
    language_of_file: dict[str, str] = field(default_factory=dict)
    files_by_dir: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    bindings: dict[str, dict[str, _Binding]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    star_imports: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    bases: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # The repository root, for module finders that read a manifest (go.mod,
    # Cargo.toml); "" when unknown. Finders keep what they read in ``caches``.
    root: str = ""
    caches: dict[str, object] = field(default_factory=dict)
    unknown_bases: set[str] = field(default_factory=set)  # classes with an unresolvable base
    # (file, line) -> the modules imported whole there without a name
    # (`require('./x')` in `require('./x').f()`)
    line_modules: dict[tuple[str, int], list[str]] = field(default_factory=lambda: defaultdict(list))
    # The symbols a method declared away from its type can be (all of them,
    # or the store's narrower query): see Resolver._detached_methods.
    detached_candidates: Callable[[], Iterable[Symbol]] | None = None
    # With a recorder (``record``): every lookup notes its key there.
    recorder: Recorder | None = None
    # name -> argument -> value: ``remember``
    memos: dict[str, dict[object, object]] = field(default_factory=dict)
    # name -> the node's recipe, a function of the table and its argument
    # (``remember``): the resolver's own (``Resolver._recipe``); the
    # languages' (``languages.NODES``) added on first use. None holds the
    # table or the resolver: a run disables the cyclic GC
    # (index/cascade.py ``index_repository``), and a cycle through them
    # would keep every table alive until its first pass, which then walks
    # them all (celery, HEAD~10 -> HEAD: ~49,000 objects, ~40 ms).
    recipes: dict[str, Callable[[SymbolTable, object], object]] = field(default_factory=dict)
    # name -> value: ``derived``
    derived_values: dict[str, object] = field(default_factory=dict)

    def record(self, rec: Recorder) -> None:
        """From now on, note every lookup in ``rec`` (``LOOKED_TABLES``)."""
        for name, tag in LOOKED_TABLES.items():
            setattr(self, name, _Looked(getattr(self, name), rec, tag))
        for name, tag in LOOKED_IN_TABLES.items():
            setattr(self, name, _LookedIn(getattr(self, name), rec, tag))
        self.recorder = rec

    def reads_file(self, path: str) -> None:
        """What is being computed reads this file of the repository from the
        disk (a manifest): the key ``("F", path)``, changed when the file
        changes, appears or goes (index/cascade.py)."""
        if self.recorder is not None:
            self.recorder.cur.add(("F", path))

    def remember(self, name: str, arg: object) -> object:
        """The node ``name`` of ``arg``: its recipe's value (``recipes``, else
        the languages' ``NODES``), computed once a run; with a recorder, the
        node ``("M", name, arg)`` (``Recorder.node``), which every use reads.
        A recipe is a function of its argument and the tables alone, so that
        an incremental run can compute a node again to tell whether it
        changed (index/cascade.py ``_Revisit.verify``)."""
        memo = self.memos.get(name)
        if memo is None:
            memo = self.memos[name] = {}
        hit = memo.get(arg, _ABSENT)
        rec = self.recorder
        if hit is not _ABSENT:
            if rec is not None:
                rec.cur.add(("M", name, arg))
            return hit
        recipe = self.recipes.get(name)
        if recipe is None:
            recipe = self.recipes[name] = languages.NODES[name]
        value = recipe(self, arg) if rec is None else rec.node(("M", name, arg), lambda: recipe(self, arg))
        memo[arg] = value
        return value

    def derived(self, name: str, compute: Callable[[SymbolTable], object]) -> object:
        """What a language derives from the whole table and the disk (its
        import roots, its modules' manifests), computed once: read as the
        one key ``("k", name)``, which changes only when the value does (an
        incremental run computes it again and compares: index/deps.py)."""
        found = self.derived_values.get(name, _ABSENT)
        rec = self.recorder
        if found is _ABSENT:
            found = compute(self) if rec is None else rec.frame(lambda: compute(self), merge=False)[0]
            self.derived_values[name] = found
        if rec is not None:
            rec.cur.add(("k", name))
        return found

    @classmethod
    def on_demand(cls, source: SymbolSource) -> SymbolTable:
        """The same lookups as ``build`` over every symbol, each read from
        the store when first asked: an incremental run resolves a few hundred
        edges and needs a small part of the table (docs/incremental.md).
        Only the modules (files, directories, languages) are read up front."""
        table = cls()
        modules = source.modules()
        # repository paths ("/"-separated, relative): rpartition is their
        # posixpath.dirname, 3x faster (django: 2,899 modules a report)
        table.module_of_file = {file: module_id for file, module_id, _ in modules}
        table.language_of_file = file_languages = {file: language for file, _, language in modules}
        for file, _, _ in modules:
            table.files_by_dir[file.rpartition("/")[0]].append(file)
        def load_symbol(key: object) -> object:
            found = source.symbol(str(key))
            return _ABSENT if found is None else found

        by_id: dict[str, Symbol] = _OnDemand(load_symbol)
        files_read: set[str] = set()
        imports_read: set[str] = set()

        def named(column: str) -> Callable[[object], object]:
            def load(key: object) -> object:
                found = [s for s in source.symbols_by(column, str(key)) if s.kind != "module"]
                for s in found:
                    dict.setdefault(by_id, s.id, s)
                return [s.id for s in found]

            return load

        def read_file(path: str) -> None:
            if path in files_read:
                return
            files_read.add(path)
            kids: dict[str, dict[str, list[str]]] = {}
            for s in source.symbols_by("file", path):
                dict.setdefault(by_id, s.id, s)
                if s.kind != "module" and s.parent_id is not None:
                    kids.setdefault(s.parent_id, {}).setdefault(s.name, []).append(s.id)
            for parent, names in kids.items():
                dict.__setitem__(children, parent, names)

        def load_children(key: object) -> object:
            parent = by_id.get(str(key))
            if parent is None:
                return _ABSENT
            read_file(parent.file)  # a symbol's children are in its file
            found = dict.get(children, str(key))
            return _ABSENT if found is None else found

        def read_imports(path: str) -> None:
            if path in imports_read:
                return
            imports_read.add(path)
            one = cls()
            one.language_of_file[path] = file_languages.get(path, "")  # what add_import reads
            for e in source.import_edges_in_file(path):
                one.add_import(e)
            dict.__setitem__(bindings, path, dict(one.bindings.get(path, {})))
            dict.__setitem__(star_imports, path, list(one.star_imports.get(path, [])))
            for key, modules in one.line_modules.items():
                dict.__setitem__(line_modules, key, list(modules))

        def of_file(holder: dict[object, object], file_of: Callable[[object], str]) -> Callable[[object], object]:
            def load(key: object) -> object:
                read_imports(file_of(key))
                return dict.get(holder, key, _ABSENT)

            return load

        children: dict[str, dict[str, list[str]]] = _OnDemand(load_children)
        bindings: dict[str, dict[str, _Binding]] = _OnDemand(lambda k: load_bindings(k))
        star_imports: dict[str, list[str]] = _OnDemand(lambda k: load_stars(k))
        line_modules: dict[tuple[str, int], list[str]] = _OnDemand(lambda k: load_lines(k))
        load_bindings = of_file(bindings, str)  # type: ignore[arg-type]
        load_stars = of_file(star_imports, str)  # type: ignore[arg-type]
        load_lines = of_file(line_modules, lambda key: str(key[0]))  # type: ignore[arg-type, index]
        table.by_id = by_id
        table.by_name = _OnDemand(named("name"))
        table.by_qualified = _OnDemand(named("qualified_name"))
        table.children = children
        table.bindings = bindings
        table.star_imports = star_imports
        table.line_modules = line_modules
        table.detached_candidates = source.detached_method_candidates
        return table

    @classmethod
    def shared(cls, table: SymbolTable) -> SymbolTable:
        """A table with the lookups and derived values of ``table`` (the same
        objects: what one reads, the other finds read), and its own bases,
        memos and recipes: a second resolver over the same graph (a report's
        base side resolves its classes' bases apart: report/base_graph.py)
        reads each row and each module once, not once each."""
        new = cls()
        for name in (*LOOKED_TABLES, *LOOKED_IN_TABLES, "derived_values", "detached_candidates", "root"):
            setattr(new, name, unlooked(getattr(table, name)))
        return new

    @classmethod
    def build(cls, symbols: Iterable[Symbol], import_edges: Iterable[Edge]) -> SymbolTable:
        table = cls()
        for s in symbols:
            table.by_id[s.id] = s
            if s.kind == "module":
                table.module_of_file[s.file] = s.id
                table.language_of_file[s.file] = s.language
                table.files_by_dir[posixpath.dirname(s.file)].append(s.file)
                continue
            table.by_name[s.name].append(s.id)
            table.by_qualified[s.qualified_name].append(s.id)
            if s.parent_id is not None:
                table.children[s.parent_id][s.name].append(s.id)
        for e in import_edges:
            table.add_import(e)
        return table

    def add_import(self, e: Edge) -> None:
        module = e.qualifier or ""
        if e.target_name == "*" and not e.alias:
            self.star_imports[e.file].append(module)
            return
        member = _imports_member(self.language_of_file.get(e.file, ""), e)
        if e.target_name == module and not member:  # import a.b [as x]
            if not e.alias:
                self.line_modules[(e.file, e.line)].append(module)
            local = e.alias or module.split(".")[0]
            bound = module if e.alias else module.split(".")[0]
            self.bindings[e.file][local] = _Binding(bound, module)
            if not e.alias and "." in module:
                self.bindings[e.file][module] = _Binding(module, module)
            return
        local = e.alias or e.target_name
        self.bindings[e.file][local] = _Binding(module, e.target_name, member)


def _imports_member(language: str, e: Edge) -> bool:
    """Whether an import edge that names its own module imports a member
    of it (Python `from m import m`, ``ScopeRules.member_import_repeats_alias``)."""
    return (
        e.target_name == e.qualifier == e.alias
        and _rules(language).member_import_repeats_alias
    )


class Resolver:
    def __init__(self, table: SymbolTable, *, record: bool = False) -> None:
        """``record``: note the keys each answer read (``resolve_recorded``)."""
        self.t = table
        table.recipes.update(
            {
                "resolver.owned": self._recipe(Resolver._owned_node),
                "resolver.modules": self._recipe(Resolver._modules_node),
                "resolver.js_globals": self._recipe(Resolver._js_global_node),
                "resolver.owner": self._recipe(Resolver._owner_node),
                "resolver.detached": self._recipe(Resolver._detached_node),
                "resolver.unique": self._recipe(Resolver._unique_node),
            }
        )
        self.rec: Recorder | None = None
        if record:
            self.rec = Recorder()
            table.record(self.rec)
        # the tables under the recorder's lookups (``_unqualified`` notes its reads itself)
        self._children = cast(dict[str, dict[str, list[str]]], unlooked(table.children))
        self._by_id = cast(dict[str, Symbol], unlooked(table.by_id))
        self._modules = cast(dict[str, str], unlooked(table.module_of_file))
        # the nodes a forked child recorded (``resolve_edges``): key hash -> its
        # keys' hashes; and key hash -> (the digest of its value, the key)
        self.foreign_nodes: dict[int, set[int]] = {}
        self.foreign_prints: dict[str, str] = {}
        self._site: tuple[str, int] = ("", 0)  # the file and line of the edge being resolved
        self._dir_names: dict[str, set[str]] = {}  # ``_defined_in_dir``
        # ``_export`` answers from the start of a chain, by (file, name, hops);
        # emptied when the hierarchy is set (a member is looked up in it)
        self._exports: dict[tuple[str, str, int], tuple[str, ...] | None] = {}
        # before the bases are known, the keys each of those answers read (no node)
        self._early_keys: dict[tuple[str, str, int], frozenset[tuple[object, ...]]] = {}
        self._bases_known = False
        self._site_read = False  # whether an answer depended on ``_site``
        # ``_kept``: (step, its arguments) -> its value and the keys it read;
        # emptied when the hierarchy is set, as ``_exports``
        self._steps: dict[tuple[object, ...], tuple[object, frozenset[tuple[object, ...]]]] = {}

    # -- public --------------------------------------------------------------

    def recompute(self, name: str, arg: object) -> object:
        """The node ``("M", name, arg)`` computed as this run's (kept for its
        answers), in a frame of its own: the digest of its value
        (``Recorder.prints``), None when it has no recipe or its argument
        means nothing now (index/cascade.py ``_Revisit.verify``)."""
        rec = self.rec
        assert rec is not None
        node = ("M", name, arg)
        try:
            if name == "export":  # a chain's start, kept apart (``_export``), once the bases are known
                if not self._bases_known:
                    return None
                path, exported, hops = cast(tuple[str, str, int], arg)
                rec.frame(lambda: self._export(path, exported, hops), merge=False)
            elif name in self.t.recipes or name in languages.NODES:
                rec.frame(lambda: self.t.remember(name, arg), merge=False)
            else:
                return None
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return None
        return rec.prints.get(node)  # None: it read the edge's own line, no node

    def resolve_recorded(self, edge: Edge) -> tuple[str | None, str | None, set[tuple[object, ...]]]:
        """``resolve`` and the keys the answer read (a resolver made with
        ``record``): what must change for the answer to change."""
        rec = self.rec
        assert rec is not None
        keys = rec.cur = set()
        target, tier = self.resolve(edge)
        rec.cur = set()
        return target, tier, keys

    def resolve(self, edge: Edge) -> tuple[str | None, str | None]:
        """(target_id, tier) or (None, None|'external')."""
        self._site = (edge.file, edge.line)
        if edge.kind == "imports":
            return self._resolve_import(edge)
        source = self.t.by_id.get(edge.source_id)
        if source is None:
            return None, None
        q = edge.qualifier
        if edge.alias == VALUE and edge.kind == "calls":
            return self._value(source, q, edge.target_name)
        if q == FILE_QUALIFIER:
            files = self.module_files(edge.file, edge.target_name)
            return (self.t.module_of_file[files[0]], "import") if files else (None, None)
        if q == "super" and not _has_paths(source) or q is not None and self._is_receiver(source, q):
            return self._parent_scope(source, edge.target_name, skip_own=q == "super")
        found: tuple[str | None, str | None]
        spec = _scope(source)
        if q is None and edge.kind == "calls" and edge.target_name in spec.class_self_names:
            owner = self._enclosing_type(source)  # `cls(...)` in a classmethod
            found = (owner, "parent_scope") if owner is not None else (None, None)
        elif q is None:
            found = self._unqualified(source, edge.target_name, edge.kind)
        else:
            found = self._qualified(source, q, edge.target_name)
        if edge.kind == "calls" and found[0] is not None and spec.calls_of_types_convert:
            if self.t.by_id[found[0]].kind in TYPE_KINDS:
                return found[0], "conversion"  # Go `Celsius(x)`: no call
        return self._ts_merged(found, edge.kind) if spec.merged_declarations else found

    def _value(self, source: Symbol, q: str | None, name: str) -> tuple[str | None, str | None]:
        """A function named as a value (``errback=self._on_retry``,
        ``handlers = [on_a, on_b]``, a property read): the function or method
        the name surely means (its scope, an import, ``self``/``cls``, a
        receiver of known type), never a guess by name alone; anything else
        (a local variable, an attribute holding data) is no code of the
        project: ``external``, so that it neither hedges a report nor counts
        as unresolved."""
        if q is None:
            found = self._unqualified(source, name, "references", guess=False)
        elif self._is_receiver(source, q):
            found = self._parent_scope(source, name, skip_own=False)
        else:
            found = self._qualified(source, q, name)
        target, tier = found
        if target is None or tier not in _SURE_TIERS or self.t.by_id[target].kind not in ("function", "method"):
            return None, EXTERNAL
        return found

    def _ts_merged(self, found: tuple[str | None, str | None], kind: str) -> tuple[str | None, str | None]:
        """TS declaration merging: `interface Foo` and `const Foo` / `function
        Foo` share a name. A call means the value, a type reference the type."""
        target, tier = found
        symbol = self.t.by_id.get(target) if target else None
        if symbol is None or symbol.parent_id is None:
            return found
        namesakes = self.t.children.get(symbol.parent_id, {}).get(symbol.name, [])
        if len(namesakes) < 2:
            return found
        if kind == "calls":
            side = [i for i in namesakes if self.t.by_id[i].kind not in ("interface", "type")]
        else:
            side = [i for i in namesakes if self.t.by_id[i].kind in TYPE_KINDS]
        return (side[0], tier) if len(side) == 1 else found

    def _is_receiver(self, source: Symbol, qualifier: str) -> bool:
        spec = _scope(source)
        if qualifier in spec.self_names:
            return True
        if not spec.receiver_pattern:
            return False
        method: Symbol | None = source
        while method is not None and method.kind != "method":
            method = self.t.by_id.get(method.parent_id) if method.parent_id else None
        if method is None:
            return False
        match = re.match(spec.receiver_pattern, method.signature)
        return match is not None and match.group(1) == qualifier

    def set_hierarchy(self, bases: Mapping[str, list[str]], unknown: Iterable[str] = ()) -> None:
        """class ID -> base IDs, for every class of the project; ``unknown``:
        the classes with a base that is neither in the project nor known to be
        outside it (there `super().m()` may be anything)."""
        for class_id, base_ids in bases.items():
            self.t.bases[class_id] = base_ids
        self.t.unknown_bases = set(unknown)
        self._look_up_bases()

    def set_hierarchy_on_demand(
        self, bases_of: Callable[[str], list[str]], has_unknown_base: Callable[[str], bool]
    ) -> None:
        """``set_hierarchy`` with each class's bases read when first needed."""
        self.t.bases = _OnDemand(lambda key: bases_of(str(key)) or _ABSENT)
        self.t.unknown_bases = _OnDemand(lambda key: True if has_unknown_base(str(key)) else _ABSENT)  # type: ignore[assignment]
        self._look_up_bases()

    def _look_up_bases(self) -> None:
        """Answers from now on may read the bases, each noted as ``("h", class)``
        (an inherits edge is resolved before any base is known: it reads none)."""
        self._exports.clear()
        self._early_keys.clear()
        self._steps.clear()
        self._bases_known = True
        if self.rec is not None:
            self.t.bases = _Looked(self.t.bases, self.rec, "h")  # type: ignore[assignment]
            self.t.unknown_bases = _Looked(self.t.unknown_bases, self.rec, "h")  # type: ignore[assignment]

    # -- module lookup -------------------------------------------------------

    def _owned(self, importer: str, spec: str) -> bool:
        return bool(self.t.remember("resolver.owned", (importer, spec)))

    def _recipe(self, method: Callable[[Resolver, object], T]) -> Callable[[SymbolTable, object], T]:
        """One of this resolver's nodes as the table's recipe, holding the
        resolver weakly (``SymbolTable.recipes``: no cycle)."""
        ref = weakref.ref(self)

        def recipe(_table: SymbolTable, arg: object) -> T:
            resolver = ref()
            if resolver is None:
                raise ReferenceError("the resolver of this table is gone")
            return method(resolver, arg)

        return recipe

    def _owned_node(self, arg: object) -> bool:
        importer, spec = cast(tuple[str, str], arg)
        language = languages.get(self.t.language_of_file.get(importer, ""))
        return language is not None and language.owns_module(self.t, importer, spec)

    def module_files(self, importer: str, spec: str) -> list[str]:
        """The files ``spec`` names from ``importer``: asked once per pair
        (a file imports a module once and uses it many times)."""
        return self.t.remember("resolver.modules", (importer, spec))  # type: ignore[return-value]  # no ``cast``: ~21k calls

    def _modules_node(self, arg: object) -> list[str]:
        importer, spec = cast(tuple[str, str], arg)
        language = languages.get(self.t.language_of_file.get(importer, ""))
        return language.find_module(self.t, importer, spec) if language is not None else []

    # -- name lookup ---------------------------------------------------------

    def _top(self, path: str, name: str) -> list[str]:
        """Top-level ``name`` in the file, or in its package for languages
        whose package is a directory."""
        language = self.t.language_of_file.get(path, "")
        files = [path]
        if _rules(language).package_is_directory:
            files = [
                f
                for f in self.t.files_by_dir.get(posixpath.dirname(path), [])
                if self.t.language_of_file.get(f) == language
            ]
        found: list[str] = []
        for f in files:
            module_id = self.t.module_of_file.get(f)
            if module_id is not None:
                found += self.t.children.get(module_id, {}).get(name, [])
        return self._bound_names(language, found)

    def _defined_in_dir(self, directory: str, name: str) -> bool:
        """Whether a file of the directory defines ``name`` at its top level
        (else ``_top`` of none of them finds it): read as ``("dn", directory,
        name)``, the set of names built once per directory, not per edge."""
        if self.rec is not None:
            self.rec.cur.add(("dn", directory, name))
        modules, children = self._modules, self._children
        if isinstance(children, _OnDemand):
            # read on demand (a report's merge-base graph): the definitions
            # of the name, not every file of the directory (scrapy's tests/:
            # 113 files read for one name)
            by_id = cast(dict[str, Symbol], unlooked(self.t.by_id))
            named = cast(dict[str, list[str]], unlooked(self.t.by_name)).get(name) or []
            return any(
                by_id[i].parent_id is not None
                and by_id[i].parent_id == modules.get(by_id[i].file)
                and posixpath.dirname(by_id[i].file) == directory
                for i in named
            )
        names = self._dir_names.get(directory)
        if names is None:
            names = self._dir_names[directory] = set()
            for f in cast(dict[str, list[str]], unlooked(self.t.files_by_dir)).get(directory, []):
                module_id = modules.get(f)
                if module_id is not None:
                    names.update(n for n, ids in (children.get(module_id) or {}).items() if ids)
        return name in names

    def _bound_names(self, language: str, ids: list[str]) -> list[str]:
        """The definitions a bare or module-qualified name can mean: in Go
        and Rust not a method declared at file level (it needs its type)."""
        if not ids or _rules(language).methods_bind_names:
            return ids
        return [i for i in ids if self.t.by_id[i].kind != "method"]

    def _export(
        self, path: str, name: str, hops: int = 0, seen: frozenset[str] = frozenset()
    ) -> list[str] | None:
        """``_walk_export``, remembered for chains that start here (``seen``
        empty): every file importing a name from a barrel (`export * from`,
        zod's index.ts) walked the same star imports again, 70k walks for 15k
        edges. An answer that read the edge's own line (``_effective``: the
        definition before that line) is not kept."""
        if seen:
            return self._walk_export(path, name, hops, seen)
        key = (path, name, hops)
        node = ("M", "export", key)
        rec = self.rec
        if key in self._exports:
            kept = self._exports[key]
            if rec is not None:
                if self._bases_known:
                    rec.cur.add(node)
                else:
                    rec.cur |= self._early_keys[key]
            return None if kept is None else list(kept)
        outer, self._site_read = self._site_read, False
        keys: frozenset[tuple[object, ...]] = frozenset()
        if rec is None:
            found = self._walk_export(path, name, hops, seen)
        else:
            found, keys = rec.frame(lambda: self._walk_export(path, name, hops, seen), merge=False)  # type: ignore[assignment]
        if not self._site_read:
            self._exports[key] = None if found is None else tuple(found)
            if rec is None:
                pass
            elif self._bases_known:
                rec.nodes.setdefault(node, set()).update(keys)
                rec.prints[node] = value_print(self._exports[key])
                rec.cur.add(node)
            else:
                # before the bases are known (an inherits edge's answer) the
                # value is not the node's, which may read them: no node, its
                # keys are the answer's (and kept for the next such answer)
                self._early_keys[key] = keys
                rec.cur |= keys
        elif rec is not None:  # read the edge's own line: not kept, its keys are the answer's
            rec.cur |= keys
        self._site_read = outer or self._site_read
        return found

    def _kept(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """``compute()``, a step of an answer that depends on its arguments
        (``key``), the table and whether the bases are known alone, kept for
        the next answer taking the same step, with the keys it read: that
        answer reads them again (the same keys, so the same recorded
        dependencies, whichever answer came first: what a step reads and
        finds depends on nothing an earlier answer did, the nodes it
        computes are computed once either way). Not kept when it read the
        edge's own line (``_read_site``), as ``_export``. The value is
        shared: immutable."""
        found = self._steps.get(key)
        rec = self.rec
        if found is not None:
            if rec is not None:
                rec.cur |= found[1]
            return found[0]  # type: ignore[return-value]  # (no ``cast``: a call, ~18k hits a cold run)
        outer, self._site_read = self._site_read, False
        keys: frozenset[tuple[object, ...]] = frozenset()
        try:
            if rec is None:
                value = compute()
            else:
                value, keys = rec.frame(compute)  # type: ignore[assignment]
            if not self._site_read:
                self._steps[key] = (value, keys)
        finally:
            self._site_read = outer or self._site_read
        return value

    def _walk_export(
        self, path: str, name: str, hops: int = 0, seen: frozenset[str] = frozenset()
    ) -> list[str] | None:
        """Resolve ``name`` as exported by module file ``path``.

        None means "bound to something outside the project". ``seen`` holds
        the files already on this chain of star imports: Rust globs form
        cycles (`use super::*` in a child, `use child::*` in the parent),
        which would otherwise be walked again at every hop.
        """
        if hops > MAX_HOPS:
            return []
        found = self._top(path, name)
        if found:
            if len(set(self.t.by_id[i].kind for i in found)) == 1:
                return [self._effective(found)]
            # the one type (TS `interface X` and `const X`) whatever their
            # order, else the first: only then does their order matter
            types = [i for i in found if self.t.by_id[i].kind in TYPE_KINDS]
            if len(types) == 1:
                return types
            self._read_ranks(found)
            return found[:1]
        binding = self.t.bindings.get(path, {}).get(name)
        if binding is not None:
            return self._follow(path, binding, hops + 1)
        if name == "default":
            return self._default_export(path)
        sub = self._submodule(path, name)
        if sub:
            return sub
        seen = seen | {path}
        weak: list[str] = []
        for star in self.t.star_imports.get(path, []):
            files = self.module_files(path, star)
            for f in files:
                if f in seen:
                    continue
                hit = self._export(f, name, hops + 1, seen)
                if hit and not weak and self._namespace_only(path, hit):
                    weak = hit  # another module's `export *` may define the name
                elif hit:
                    return hit
        return weak

    def _namespace_only(self, path: str, hit: list[str]) -> bool:
        """A JS/TS module found through `export *`: most often an `import * as
        parse` of that module, which `export *` does not export (zod's
        schemas.ts beside `export * from "./parse.js"`), so a definition of
        the name behind a later `export *` wins."""
        if _rules(self.t.language_of_file.get(path, "")).family != "ecmascript":
            return False
        return len(hit) == 1 and self.t.by_id[hit[0]].kind == "module"

    def _default_export(self, path: str) -> list[str]:
        module_id = self.t.module_of_file[path]
        if _rules(self.t.language_of_file.get(path, "")).default_is_module:
            # No `export default` / `module.exports = X` names one: the
            # default is the module object (CommonJS interop, anonymous
            # `export default function () {}` whose body is module code).
            return [module_id]
        tops = [i for ids in self.t.children.get(module_id, {}).values() for i in ids]
        return [module_id] if not tops else []

    def _submodule(self, path: str, name: str) -> list[str]:
        language = languages.get(self.t.language_of_file.get(path, ""))
        found = language.submodule(self.t, path, name) if language is not None else None
        return [found] if found is not None else []

    def _follow(self, importer: str, binding: _Binding, hops: int) -> list[str] | None:
        """What ``binding`` of ``importer`` names (``_walk_export``'s hop),
        kept (``_kept``): a file's names are followed from each edge that
        uses them (scrapy: 13,922 follows of 3,686 bindings, zod 9,630 of 1,224)."""
        found = self._kept(
            ("follow", importer, binding.module, binding.name, binding.member, hops),
            lambda: None if (files := self._follow_once(importer, binding, hops)) is None else tuple(files),
        )
        return None if found is None else list(found)

    def _follow_once(self, importer: str, binding: _Binding, hops: int) -> list[str] | None:
        files = self.module_files(importer, binding.module)
        if not files:
            scope = _rules(self.t.language_of_file.get(importer, ""))
            if scope.submodule_imports and not binding.module.startswith("."):
                # `from pkg import sub` where pkg is a namespace package
                sub = self.module_files(importer, f"{binding.module}.{binding.name}")
                if sub:
                    return [self.t.module_of_file[sub[0]]]
            # a module of the project that is not there (deleted, misspelt) is
            # no outside module: unresolved, so a report can call it broken
            return [] if self._owned(importer, binding.module) else None
        if binding.name == binding.module and not binding.member or binding.name == "*":
            return [self.t.module_of_file[files[0]]]
        if files[0] == importer:
            # a package importing its own submodule (`from . import sub` in
            # its __init__): the name is the submodule, not this binding again
            sub = self._submodule(importer, binding.name)
            if sub:
                return sub
        if "." in binding.name:  # a member: Java `import static a.Util.max` -> `Util.max`
            head, *members = binding.name.split(".")
            found = self._export(files[0], head, hops)
            target = found[0] if found and len(found) == 1 else None
            for member in members:
                target = self._member(target, member) if target is not None else None
            return [target] if target is not None else []
        return self._export(files[0], binding.name, hops)

    # -- tiers ---------------------------------------------------------------

    def _resolve_import(self, edge: Edge) -> tuple[str | None, str | None]:
        module = edge.qualifier or ""
        if edge.target_name == "*" and not edge.alias:
            files = self.module_files(edge.file, module)
            if files:
                return self.t.module_of_file[files[0]], "import"
            return None, None if self._owned(edge.file, module) else EXTERNAL
        member = _imports_member(self.t.language_of_file.get(edge.file, ""), edge)
        found = self._follow(edge.file, _Binding(module, edge.target_name, member), 0)
        if found is None:
            return None, EXTERNAL
        return (found[0], "import") if len(found) == 1 else (None, None)

    def _unqualified(
        self, source: Symbol, name: str, kind: str, *, guess: bool = True
    ) -> tuple[str | None, str | None]:
        # same_file: the enclosing function scopes, then the module. The
        # tables read directly, each key noted as their lookups note it
        # (``_LookedIn``, ``_Looked``): this walk makes ~40 % of a cold run's
        # lookups (scrapy: 88k of 207k)
        rec, children, by_id = self.rec, self._children, self._by_id
        scope: Symbol | None = source
        while scope is not None:
            if scope.kind not in TYPE_KINDS or scope.id == source.id and kind != "calls":
                if rec is not None:
                    rec.cur.add((_CHILDREN_TAG, scope.id, name))
                hits = children.get(scope.id, {}).get(name)
                if hits and scope.kind not in TYPE_KINDS:
                    hits = self._bound_names(scope.language, hits)
                if hits and scope.kind not in TYPE_KINDS:
                    return self._effective(hits), "same_file"
            parent = scope.parent_id
            if not parent:
                break
            if rec is not None:
                rec.cur.add((_SYMBOL_TAG, parent))
            scope = by_id.get(parent)
        spec = _scope(source)
        if spec.implicit_self or spec.scoped_guesses:
            return self._unqualified_in_file(source, name, kind, guess)
        # what follows depends on the source's file and language alone
        # (no implicit member, no guess scoped by the source): kept for the
        # file (``_kept``; scrapy's cold run: 8,304 of 13,560 asked again)
        return self._kept(
            ("name", source.file, source.language, name, kind, guess),
            lambda: self._unqualified_in_file(source, name, kind, guess),
        )

    def _unqualified_in_file(
        self, source: Symbol, name: str, kind: str, guess: bool
    ) -> tuple[str | None, str | None]:
        """``_unqualified`` of a name no scope around the source defines."""
        member = self._implicit_member(source, name, kind)
        if member is not None:
            return member, "parent_scope"
        binding = self.t.bindings.get(source.file, {}).get(name)
        if binding is not None:
            found = self._follow(source.file, binding, 0)
            if found is None:
                return None, EXTERNAL
            if len(found) == 1:
                return found[0], "import"
            return None, None
        for star in self.t.star_imports.get(source.file, []):
            for f in self.module_files(source.file, star):
                exported = self._export(f, name, 0)
                if exported and len(exported) == 1:
                    return exported[0], "import"
        if self._is_builtin(source.language, name):
            return None, EXTERNAL
        if _scope(source).imports_only:
            return self._js_global(name, kind)
        if not guess:
            return None, None
        directory = posixpath.dirname(source.file)
        same_dir: list[str] = []
        if _package_is_directory(source.language):
            if any(f != source.file for f in self.t.files_by_dir.get(directory, [])):
                # `_top` already spans the package: once, not once per file (O(n²))
                same_dir = [i for i in self._top(source.file, name) if self.t.by_id[i].file != source.file]
        elif self._defined_in_dir(directory, name):
            # the directory's files read only when one defines the name: a
            # name none defines depends on ``("dn", directory, name)`` alone,
            # not on every file coming or going there (scrapy HEAD~10 -> HEAD:
            # 1,391 edges of tests/ read the listing of tests/, which changed)
            siblings = [f for f in self.t.files_by_dir.get(directory, []) if f != source.file]
            same_dir = [i for f in siblings for i in self._top(f, name)]
        hit, tier = self._pick(same_dir, "same_dir")
        if hit or same_dir:
            return hit, tier
        spec = _scope(source)
        if not spec.unique_fallback:
            return None, None
        picked, tier = self._unique(
            source, name, types_only=kind in ("inherits", "references", "raises"), within=self._within(source, bare=True)
        )
        if picked is not None and spec.implicit_self and self.t.by_id[picked].kind == "method":
            # a bare call that is no method of `this`/`self` is inherited from
            # outside the project: another type's method is a wrong guess
            return None, None
        return picked, tier

    def _js_global(self, name: str, kind: str) -> tuple[str | None, str | None]:
        """JS/TS modules see another file's names only through an import, so
        same_dir and project-wide guesses would be wrong (a type parameter
        `Input` is not the `type Input` of some test file). Only ambient
        declarations (.d.ts) are visible everywhere."""
        return self.t.remember("resolver.js_globals", (name, kind == "calls"))  # type: ignore[return-value]

    def _js_global_node(self, arg: object) -> tuple[str | None, str | None]:
        name, calls = cast(tuple[str, bool], arg)
        candidates = [
            i
            for i in self.t.by_name.get(name, [])
            if self.t.by_id[i].file.endswith(".d.ts")
            and self.t.by_id[i].parent_id == self.t.module_of_file.get(self.t.by_id[i].file)
            and (calls or self.t.by_id[i].kind in TYPE_KINDS)
        ]
        return self._pick(candidates, "unique")

    def _qualified(
        self, source: Symbol, qualifier: str, name: str, *, parameters: bool = True
    ) -> tuple[str | None, str | None]:
        if qualifier == "<expr>":
            # a chain the extractor could not type: in a language with declared
            # types, the project's only `m` is no evidence (pflag's HasFlags is
            # not cobra's); dynamic languages have nothing better than the guess
            return self._guess_method(source, name) if _scope(source).guess_on_expressions else (None, None)
        item = _ITEM_OF_CALL.fullmatch(qualifier)
        if item is not None:  # an item of a call's value: the container's type says nothing of it
            called, tier = self._qualified_or_plain(source, item.group(1))
            if tier == EXTERNAL or called is None and not self._named_in_project(source, item.group(1)):
                return None, tier  # a library's items (`match.span()`): no name-only guess
            return self._guess_method(source, name)
        ctor = _CALL_RECEIVER.fullmatch(qualifier)
        if ctor is not None and ctor.group(1) in _scope(source).module_calls:
            return self._member_of_line_module(source, name)
        if ctor is not None:  # `Service().compute()`: a method of what was built or returned
            owner, tier = self._value_of_call(source, ctor.group(1))
            if owner is not None and self.t.by_id[owner].kind in TYPE_KINDS:
                member = self._method_in_hierarchy(owner, name)
                return (member, tier) if member else (None, None)
            returned = self._returned_function(owner, name) if owner is not None else None
            if returned is not None:
                return returned, tier
            if tier == EXTERNAL or self._unknown_type(source, ctor.group(1)):
                return None, tier
            if owner is not None and _scope(source).family == "ecmascript":
                # `keysFactory("product").detail()`: a project function whose
                # value is not typed; an object literal's member elsewhere
                # (`adminKey.detail`) is no guess for it, a class's method may be
                return self._guess_class_method(source, name)
            if owner is None and not self._named_in_project(source, ctor.group(1)):
                # `m = TZ.match(s)` … `m.groups()`: no project definition is
                # named like the callee, so the value is a library's: the
                # project's only `groups` is no evidence (as `except … as e`)
                return None, None
            return self._guess_method(source, name)
        if _CALL_CHAIN.fullmatch(qualifier) and _scope(source).family == "ecmascript":
            # `z.string().min().parse()` (languages/ecmascript.py keeps the
            # chain): a call at a time; untyped, the expression it was
            owner, tier = self._chain_type(source, qualifier)
            if owner is not None:
                member = self._method_in_hierarchy(owner, name)
                return (member, tier) if member else (None, None)
            if tier == EXTERNAL:
                return None, EXTERNAL
            return self._qualified(source, "<expr>", name)
        declared, bound = self._declared_type(source, qualifier) if parameters else (None, False)
        if declared is not None:  # `t.Run()` with `t *testing.T`: a method of that type
            if declared in _self_names(source):
                return self._parent_scope(source, name, skip_own=False)
            # the type is written outside the parameter's scope: `flag *flag.Flag`
            head, _, tail = declared.rpartition(".")
            owner, tier = self._merged_type(
                source, self._qualified(source, head, tail, parameters=False) if head
                else self._unqualified(source, tail, "references")
            )  # fmt: skip
            if owner is not None and self.t.by_id[owner].kind in TYPE_KINDS:
                member = self._method_in_hierarchy(owner, name)
                # a generic's bound is a promise, not the value's type: own tier
                return (member, "bound" if bound else tier) if member else (None, None)
            if tier == EXTERNAL:
                return None, EXTERNAL
        bindings = self.t.bindings.get(source.file, {})
        # longest bound prefix: `a.b.c.f()` with `import a.b`
        parts = qualifier.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            binding = bindings.get(head)
            if binding is None:
                continue
            found = self._follow(source.file, binding, 0)
            if found is None:
                return None, EXTERNAL
            if len(found) != 1:
                return None, None
            target = found[0]
            for part in parts[cut:] + [name]:
                member = self._member(target, part)
                if member is None:
                    return None, None
                target = member
            return target, "import"
        # `Outer::Inner.create` (Ruby, Rust paths): a unique qualified name
        by_path = [i for i in self.t.by_qualified.get(qualifier, []) if self.t.by_id[i].kind in TYPE_KINDS]
        if len(parts) > 1 and len(by_path) == 1:
            member = self._method_in_hierarchy(by_path[0], name)
            return (member, "unique") if member else (None, None)
        if len(parts) > 1:  # `Pricing::Tax.apply`, `System.out.println`: from the head
            head_id, tier = self._unqualified(source, parts[0], "references")
            if tier == EXTERNAL:
                return None, EXTERNAL
            if head_id is not None and self.t.by_id[head_id].kind in TYPE_KINDS:
                member = self._member_path(head_id, parts[1:] + [name])
                return (member, tier) if member else (None, None)
        # `Service.create()` with Service a class in scope
        if len(parts) == 1:
            owner, tier = self._unqualified(source, qualifier, "references")
            if owner is not None and self.t.by_id[owner].kind in TYPE_KINDS:
                member = self._method_in_hierarchy(owner, name)
                return (member, tier) if member else (None, None)
            if owner is not None and self.t.by_id[owner].kind == "namespace":
                member = self._member(owner, name)  # Rust `helpers::shout()`, inline mod
                return (member, tier) if member else (None, None)
            if owner is not None and tier == "same_file" and self.t.by_id[owner].kind == "constant":
                member = self._member(owner, name)  # JS/TS `const api = { get() {} }` … `api.get()`
                if member is not None:
                    return member, tier
                if _scope(source).family == "ecmascript":
                    # `const keys = { ...keysFactory(K), me: () => [] }`: not another object's `detail`
                    return self._guess_class_method(source, name)
            if tier == EXTERNAL:
                return None, EXTERNAL
        if _has_paths(source):
            path = self._module_path(source, qualifier, name)
            if path is not None:
                return path
        if self._unknown_type(source, qualifier):
            # defined nowhere in the project: a gem's, the JDK's (`Pod::UI`, `TextUtils`)
            return None, (None if self.t.by_name.get(parts[0]) else EXTERNAL)
        return self._guess_method(source, name)

    def _member_of_line_module(self, source: Symbol, name: str) -> tuple[str | None, str | None]:
        """`require('./util').pad()`: ``pad`` of the one module this line
        imports whole; a package's (`require('lodash').map()`) is external."""
        self._read_site()
        modules = set(self.t.line_modules.get(self._site, ()))
        if len(modules) != 1:
            return None, None
        module = modules.pop()
        files = self.module_files(source.file, module)
        if not files:
            return None, None if self._owned(source.file, module) else EXTERNAL
        found = self._export(files[0], name)
        if found is None:
            return None, EXTERNAL
        return (found[0], "import") if len(found) == 1 else (None, None)

    def _guess_method(self, source: Symbol, name: str) -> tuple[str | None, str | None]:
        """`x.m()`, x of unknown type: the only method `m` of the project."""
        spec = _scope(source)
        if not spec.unique_methods:
            return None, None
        if name in spec.common_methods:
            return None, None  # Rust `s.to_owned()`, Go `t.Run()`: the standard library's
        found, tier = self._unique(source, name, methods_only=True, within=self._within(source, bare=False))
        if found is not None and found == self._enclosing_callable(source):
            # `self.sock.recv()` inside `recv`: another object's method of the
            # same name (delegation); a method calls itself through `self.`
            return None, None
        return found, tier

    def _named_in_project(self, source: Symbol, callee: str) -> bool:
        """Whether any project definition of the caller's language family is
        named like the callee's last name (`match` of `TZ.match`): read
        through the recorded name-only candidates (``resolver.unique``)."""
        family = _scope(source).family or source.language
        last = callee.rpartition(".")[2]
        candidates = cast(
            tuple[tuple[str, ...], tuple[str | None, str | None]],
            self.t.remember("resolver.unique", (last, family, False, False)),
        )[0]
        return bool(candidates)

    def _guess_class_method(self, source: Symbol, name: str) -> tuple[str | None, str | None]:
        """``_guess_method`` when it finds a method of a class or interface."""
        found, tier = self._guess_method(source, name)
        parent = self.t.by_id[found].parent_id if found is not None else None
        if parent is None or self.t.by_id[parent].kind not in TYPE_KINDS:
            return None, None
        return found, tier

    def _enclosing_callable(self, source: Symbol) -> str | None:
        scope: Symbol | None = source
        while scope is not None and scope.kind not in ("function", "method"):
            scope = self.t.by_id.get(scope.parent_id) if scope.parent_id else None
        return scope.id if scope is not None else None

    def _within(self, source: Symbol, *, bare: bool) -> Callable[[Symbol], bool] | None:
        language = languages.get(source.language)
        if language is None or not language.scope.scoped_guesses:
            return None
        return lambda candidate: language.may_guess(self.t, source, candidate, bare=bare)

    def _unknown_type(self, source: Symbol, qualifier: str) -> bool:
        """Java, Ruby: a capitalized head names a type or constant. Reaching
        here, the project does not define it (`Pod::UI.puts`, `TextUtils.x`):
        a project method of the same name would be a wrong guess."""
        return _scope(source).implicit_self and qualifier[:1].isupper()

    def _declared_type(self, source: Symbol, qualifier: str) -> tuple[str | None, bool]:
        """The declared type of parameter ``qualifier`` of the function
        around ``source`` (languages with a ``parameter_pattern``), and
        whether it is the bound of a generic (`<T: Store>`: the trait)."""
        spec = _scope(source)
        if not spec.parameter_pattern or "." in qualifier:
            return None, False
        function: Symbol | None = source
        while function is not None:
            while function is not None and function.kind not in ("function", "method"):
                function = self.t.by_id.get(function.parent_id) if function.parent_id else None
            if function is None:
                return None, False
            for match in re.finditer(spec.parameter_pattern, function.signature):
                if match.group(1) == qualifier:
                    declared = match.group(2).replace("::", ".")
                    bound = self._bound(function, declared)
                    return (bound, True) if bound else (declared, False)
            if not spec.outer_parameters_visible:
                return None, False
            # Java: a method of an anonymous class sees the (effectively
            # final) parameters of the method around it
            function = self.t.by_id.get(function.parent_id) if function.parent_id else None
        return None, False

    def _bound(self, function: Symbol, type_parameter: str) -> str | None:
        """The bound of a type parameter declared by the function or by a
        type around it (Java `class Manager<T extends View>`)."""
        language = languages.get(function.language)
        scope: Symbol | None = function
        while language is not None and scope is not None and scope.kind != "module":
            if scope is function or scope.kind in TYPE_KINDS:
                bound = language.bound_of(scope.signature, type_parameter)
                if bound:
                    return bound
            scope = self.t.by_id.get(scope.parent_id) if scope.parent_id else None
        return None

    def _module_path(self, source: Symbol, qualifier: str, name: str) -> tuple[str | None, str | None] | None:
        """Rust `crate::util::f()`: the qualifier names a module file. None
        when the finder knows no such module (a local variable, a crate)."""
        files = self.module_files(source.file, qualifier.replace(".", "::"))
        if not files:
            return None
        found = self._export(files[0], name)
        return (found[0], "import") if found and len(found) == 1 else (None, None)

    def _implicit_member(self, source: Symbol, name: str, kind: str) -> str | None:
        """Java, Ruby: a bare name inside a type is first a member of that type
        or its bases (implicit `this`/`self`), then of each enclosing type,
        whose namespace may be reopened in another file (Ruby `module Shop`)."""
        spec = _scope(source)
        if not spec.implicit_self:
            return None
        scope: Symbol | None = source
        if kind == "inherits" and source.kind in TYPE_KINDS:  # `class A < B`: B is outside A
            scope = self.t.by_id.get(source.parent_id) if source.parent_id else None
        innermost = True
        while scope is not None:
            if scope.kind in TYPE_KINDS:
                hit = self._method_in_hierarchy(scope.id, name)
                # Ruby sees the methods of `self` only; outer types give constants
                if hit is not None and (
                    innermost or spec.outer_methods_visible or self.t.by_id[hit].kind not in CALLABLE_KINDS
                ):
                    return hit
                innermost = False
                same = {
                    i
                    for i in self.t.by_qualified.get(f"{scope.qualified_name}.{name}", [])
                    if self.t.by_id[i].language == source.language
                }
                if len(same) == 1:
                    return same.pop()
            scope = self.t.by_id.get(scope.parent_id) if scope.parent_id else None
        return None

    def _member_path(self, target: str, path: list[str]) -> str | None:
        """Members down a path from a type. A namespace may be reopened in
        another file (Ruby `module Shop`): its qualified name finds those."""
        found: str | None = target
        for part in path:
            symbol = self.t.by_id[found] if found is not None else None
            if symbol is None:
                return None
            found = self._member(symbol.id, part)
            if found is None and symbol.kind in TYPE_KINDS:
                same = {
                    i
                    for i in self.t.by_qualified.get(f"{symbol.qualified_name}.{part}", [])
                    if self.t.by_id[i].language == symbol.language
                }
                found = same.pop() if len(same) == 1 else None
        return found

    def _value_of_call(self, source: Symbol, callee: str) -> tuple[str | None, str | None]:
        """The type of what ``callee(...)`` gives: the class it names (or
        ``cls``), else the return annotation of the function it names (a
        factory's ``-> Self`` is its class); otherwise what the callee
        resolves to, for the caller to judge."""
        if callee in _scope(source).class_self_names:
            owner = self._enclosing_type(source)
            if owner is not None:
                return owner, "parent_scope"
        found, tier = self._qualified_or_plain(source, callee)
        target = self.t.by_id.get(found) if found is not None else None
        if target is None or target.kind not in CALLABLE_KINDS:
            return found, tier
        if _returns_own_class(target):  # `Sub.from_crawler()`: a Sub, wherever the method is
            through = self._qualified_or_plain(source, callee.rpartition(".")[0])[0] if "." in callee else None
            if through is not None and self.t.by_id[through].kind in TYPE_KINDS:
                return through, tier
        returned, outside = self._returned_type(target)
        if outside:
            return None, EXTERNAL  # `c.Flags()` gives a `*pflag.FlagSet`: its methods are the library's
        return (returned, tier) if returned is not None else (found, tier)

    def _returned_function(self, function: str, name: str) -> str | None:
        """JS/TS `const { format } = useDate()` … `format()`: the function
        ``name`` nested in the called one (a hook returns `{ format }`)."""
        called = self.t.by_id[function]
        if called.kind not in CALLABLE_KINDS or _scope(called).family != "ecmascript":
            return None
        scope = self.t.children.get(function, {})
        hits = scope.get(name)
        found = self._effective(hits) if hits else None
        if found is None:
            # `const o = { detail: (id) => ... }; return o` (a key factory): the
            # member of the one object literal the function binds that has it
            # (its return statement is not read: two such objects, no answer)
            objects = [i for ids in scope.values() for i in ids if self.t.by_id[i].kind == "constant"]
            held = [h for h in (self.t.children.get(i, {}).get(name) for i in objects) if h]
            found = self._effective(held[0]) if len(held) == 1 else None
        return found if found is not None and self.t.by_id[found].kind in CALLABLE_KINDS else None

    def _chain_type(self, source: Symbol, chain: str) -> tuple[str | None, str | None]:
        """The project type a chain of calls gives (`z.string().min()`): the
        first call's value, then each method's declared return type (`this`
        keeps the receiver's); (None, EXTERNAL) when a link gives a type from
        outside the project."""
        head, *methods = chain[:-2].split("().")
        owner, tier = self._value_of_call(source, head)
        for method in methods:
            if owner is None or self.t.by_id[owner].kind not in TYPE_KINDS:
                return None, tier if tier == EXTERNAL else None
            member = self._method_in_hierarchy(owner, method)
            target = self.t.by_id.get(member) if member is not None else None
            if target is None or target.kind not in CALLABLE_KINDS:
                return None, None
            if returned_name(target.signature, _scope(target)) == "this":
                continue
            owner, outside = self._returned_type(target)
            if outside:
                return None, EXTERNAL
        if owner is None or self.t.by_id[owner].kind not in TYPE_KINDS:
            return None, tier if tier == EXTERNAL else None
        return owner, tier

    def _returned_type(self, function: Symbol) -> tuple[str | None, bool]:
        """The project type a function's return annotation names, and whether
        it names a type outside the project instead."""
        named = returned_name(function.signature, _scope(function))
        if _returns_own_class(function):
            return self._enclosing_type(function), False
        if named is None:
            return None, False
        if named in SELF_TYPES:
            return self._enclosing_type(function), False
        owner, tier = self._merged_type(function, self._qualified_or_plain(function, named))
        if owner is not None and self.t.by_id[owner].kind in TYPE_KINDS:
            return owner, False
        return None, tier == EXTERNAL

    def _enclosing_type(self, source: Symbol) -> str | None:
        scope: Symbol | None = source
        while scope is not None and scope.kind not in TYPE_KINDS:
            scope = self.t.by_id.get(scope.parent_id) if scope.parent_id else None
        return scope.id if scope is not None else None

    def _merged_type(self, source: Symbol, found: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
        """A name read as a type: of TS `interface ZodString` and `const
        ZodString` (declaration merging), the interface."""
        return self._ts_merged(found, "references") if _scope(source).merged_declarations else found

    def _qualified_or_plain(self, source: Symbol, text: str) -> tuple[str | None, str | None]:
        if "." in text:
            head, _, tail = text.rpartition(".")
            return self._qualified(source, head, tail)
        return self._unqualified(source, text, "references")

    def _member(self, target: str, name: str) -> str | None:
        symbol = self.t.by_id[target]
        if symbol.kind == "module":
            found = self._export(symbol.file, name)
            return found[0] if found and len(found) == 1 else None
        if symbol.kind in TYPE_KINDS:
            return self._method_in_hierarchy(target, name)
        if symbol.kind == "namespace":
            hits = self.t.children.get(target, {}).get(name)
            return self._effective(hits) if hits else None
        if symbol.kind == "constant" and _scope(symbol).instance_constants:
            hits = self.t.children.get(target, {}).get(name)  # `const Api = { create() {...} }`
            if hits:
                return self._effective(hits)
            bound = self.t.bindings.get(symbol.file, {}).get(f"{symbol.name}.{name}")  # `{ create }`
            if bound is not None:
                found = self._follow(symbol.file, bound, 1)
                return found[0] if found and len(found) == 1 else None
            return self._js_instance_member(symbol, name)
        return None

    def _js_instance_member(self, constant: Symbol, name: str) -> str | None:
        """`export const registry = new Registry()` (or `const r: Registry =
        ...`): `registry.add()` is `Registry.add`, found where `r` is declared."""
        match = _JS_INSTANCE.match(constant.signature)
        class_name = match and (match.group(1) or match.group(2))
        called = _JS_CALLED.match(constant.signature) if not class_name else None
        if called is not None:
            # `export const productKeys = keysFactory("product")`: the
            # function the factory returns under that name
            made, _ = self._value_of_call(constant, called.group(1))
            if made is not None and self.t.by_id[made].kind in TYPE_KINDS:
                return self._method_in_hierarchy(made, name)
            return self._returned_function(made, name) if made is not None else None
        if not class_name:
            return None
        owner, _ = self._merged_type(constant, self._qualified_or_plain(constant, class_name))
        if owner is None or self.t.by_id[owner].kind not in TYPE_KINDS:
            return None
        return self._method_in_hierarchy(owner, name)

    def _parent_scope(self, source: Symbol, name: str, *, skip_own: bool) -> tuple[str | None, str | None]:
        cls: Symbol | None = source
        while cls is not None and cls.kind not in TYPE_KINDS:
            owner = self._owner_of_detached(cls)
            if owner is not None:
                cls = self.t.by_id[owner]
                break
            cls = self.t.by_id.get(cls.parent_id) if cls.parent_id else None
        if cls is None:
            if _scope(source).prototype_methods and not skip_own:
                return self._js_owner_method(source, name)
            return None, None
        start = self.t.bases.get(cls.id, []) if skip_own else [cls.id]
        for class_id in start:
            hit = self._method_in_hierarchy(class_id, name)
            if hit:
                return hit, "parent_scope"
        if skip_own and cls.id not in self.t.unknown_bases:
            # `super().m()` found in no project base, and every base is known:
            # `m` comes from outside (`class Headers(dict)`, or object)
            return None, EXTERNAL
        return None, None

    def _js_owner_method(self, source: Symbol, name: str) -> tuple[str | None, str | None]:
        """`this.m()` in `Foo.prototype.f = function () {...}` or `app.f =
        function () {...}` (no class around it): `Foo.m` / `app.m` of the file."""
        method: Symbol | None = source
        while method is not None and method.kind != "method":
            method = self.t.by_id.get(method.parent_id) if method.parent_id else None
        if method is None or "." not in method.qualified_name:
            return None, None
        owner = method.qualified_name.rpartition(".")[0]
        hits = [i for i in self.t.by_qualified.get(f"{owner}.{name}", []) if self.t.by_id[i].file == source.file]
        return (hits[0], "parent_scope") if len(hits) == 1 else (None, None)

    def _method_in_hierarchy(self, class_id: str, name: str) -> str | None:
        """The class, then its bases depth-first left-to-right (Python MRO for
        the common single/linear cases); kept (``_kept``: scrapy asks 7,050
        times of 2,640 pairs)."""
        return self._kept(("mro", class_id, name), lambda: self._walk_hierarchy(class_id, name))

    def _walk_hierarchy(self, class_id: str, name: str) -> str | None:
        seen: set[str] = set()
        order = [class_id]
        while order:
            current = order.pop(0)
            if current in seen:
                continue
            seen.add(current)
            hits = self.t.children.get(current, {}).get(name)
            if not hits and self._declared_apart(current):
                hits = self._detached_methods().get(current, {}).get(name)
            if hits:
                return self._effective(hits)
            order = self.t.bases.get(current, []) + order
        return None

    def _owner_of_detached(self, method: Symbol) -> str | None:
        """The type of a method declared away from it: a Go method in another
        file of the package, a Rust `impl` in another module. Its qualified
        name says the type (`Server.register`); the name is looked up from
        where the method is declared, like any type reference there."""
        if method.kind != "method" or method.parent_id is None or "." not in method.qualified_name:
            return None
        parent = self.t.by_id.get(method.parent_id)
        if parent is None or parent.kind not in ("module", "namespace"):
            return None  # a method of its type (a node each would be most of them)
        return self.t.remember("resolver.owner", method.id)  # type: ignore[return-value]

    def _owner_node(self, arg: object) -> str | None:
        method = self.t.by_id.get(cast(str, arg))
        if method is None:
            return None
        parent = self.t.by_id.get(method.parent_id or "")
        parts = method.qualified_name.split(".")
        # only a method right under a file or an inline module was named by
        # its `@owner`; any other parent is the type or a function around it
        if parent is not None and parent.kind in ("module", "namespace") and len(parts) >= 2:
            found, _ = self._unqualified(parent, parts[-2], "references")
            if found is not None and self.t.by_id[found].kind in TYPE_KINDS:
                return found
        return None

    def _declared_apart(self, type_id: str) -> bool:
        """Whether the type's language lets its methods be declared away from it."""
        found = self.t.by_id.get(type_id)
        return found is None or _scope(found).methods_declared_apart

    def _detached_methods(self) -> dict[str, dict[str, list[str]]]:
        """type ID -> name -> its methods declared away from it (built once)."""
        return self.t.remember("resolver.detached", None)  # type: ignore[return-value]

    def _detached_node(self, arg: object) -> dict[str, dict[str, list[str]]]:
        if self.rec is not None:
            self.rec.cur.add(DETACHED_CANDIDATES)  # the methods that may be declared away from their type
        found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        candidates = self.t.detached_candidates or (lambda: list(cast(dict[str, Symbol], unlooked(self.t.by_id)).values()))
        for symbol in candidates():
            owner = self._owner_of_detached(symbol)
            if owner is not None:
                found[owner][symbol.name].append(symbol.id)
        return found

    def _unique(
        self,
        source: Symbol,
        name: str,
        *,
        methods_only: bool = False,
        types_only: bool = False,
        within: Callable[[Symbol], bool] | None = None,
    ) -> tuple[str | None, str | None]:
        if methods_only and (name in _COMMON_METHODS or name.startswith("__")):
            return None, None
        family = _scope(source).family or source.language
        found: tuple[tuple[str, ...], tuple[str | None, str | None]]
        found = self.t.remember("resolver.unique", (name, family, methods_only, types_only))  # type: ignore[assignment]
        candidates, picked = found
        if within is None:
            return picked
        by_id = self.t.by_id
        return self._pick([i for i in candidates if within(by_id[i])], "unique")

    def _unique_node(self, arg: object) -> tuple[tuple[str, ...], tuple[str | None, str | None]]:
        """The project's symbols a name-only guess of ``name`` may be, in the
        caller's language family (a Java call is no C++ method), and the one
        it picks among them: computed once a name (many call sites guess
        `get`), and a node, so that an answer reads one key, not a key per
        candidate."""
        name, family, methods_only, types_only = cast(tuple[str, str, bool, bool], arg)
        by_id = self.t.by_id
        candidates = []
        for i in self.t.by_name.get(name, []):
            symbol = cast(Symbol, by_id[i])
            if (
                (_scope(symbol).family or symbol.language) == family
                and (not methods_only or self._method_like(symbol))
                and (not types_only or symbol.kind in TYPE_KINDS)
                and symbol.kind not in ("section", "constant")
                and not (_scope(symbol).nested_are_local and self._in_callable(symbol))
            ):
                candidates.append(i)
        # a .d.ts declares what code elsewhere implements (a JavaScript
        # package's typings): no call runs it while an implementation exists
        # (not an interface's member: that is one more declaration)
        if any(cast(Symbol, by_id[i]).file.endswith(".d.ts") for i in candidates):
            implemented = [i for i in candidates if self._implements(cast(Symbol, by_id[i]))]
            if implemented:
                candidates = implemented
        return tuple(candidates), self._pick(candidates, "unique")

    def _implements(self, symbol: Symbol) -> bool:
        """Whether a symbol outside a .d.ts is code, not an interface's member."""
        if symbol.file.endswith(".d.ts"):
            return False
        parent = self.t.by_id.get(symbol.parent_id) if symbol.parent_id else None
        return parent is None or parent.kind != "interface"

    def _in_callable(self, symbol: Symbol) -> bool:
        """Whether the symbol is defined inside a function or method (a
        test's helper, a local class and its methods)."""
        parent = self.t.by_id.get(symbol.parent_id) if symbol.parent_id else None
        while parent is not None and parent.kind != "module":
            if parent.kind in CALLABLE_KINDS:
                return True
            parent = self.t.by_id.get(parent.parent_id) if parent.parent_id else None
        return False

    def _method_like(self, symbol: Symbol) -> bool:
        """What `x.m()` may call when x's type is unknown: a method, or a
        function held by an object (a JS object literal's member); never a
        module-level function (`obj.arg_to_iter()` is not util.arg_to_iter)."""
        if symbol.kind != "function":
            return symbol.kind == "method"  # the parent unread: a report's base side reads it from the store
        parent = self.t.by_id.get(symbol.parent_id) if symbol.parent_id else None
        return parent is not None and parent.kind not in ("module", "function", "method")

    def _pick(self, candidates: list[str], tier: str) -> tuple[str | None, str | None]:
        unique = list(dict.fromkeys(candidates))
        if len(unique) == 1:
            return unique[0], tier
        classes = [i for i in unique if self.t.by_id[i].kind in TYPE_KINDS]
        if len(classes) == 1 and all(
            i == classes[0]
            or (self.t.by_id[i].name in CONSTRUCTOR_NAMES and self.t.by_id[i].parent_id == classes[0])
            for i in unique
        ):
            return classes[0], "class_over_ctor"
        return None, None

    def _effective(self, ids: list[str]) -> str:
        """Of several definitions of one name in one scope (in source order),
        the one a call reaches: the last where a later definition rebinds the
        name (Python: `@overload` stubs, then the implementation; TypeScript
        overload signatures, then the body; Ruby reopening), else the first.
        Seen from a line of the same file, the last one before that line (a
        test file's `class Fake` declared again in each test)."""
        if len(ids) >= 2:
            self._read_ranks(ids)
        if len(ids) < 2 or not _scope(self.t.by_id[ids[0]]).last_definition_wins:
            return ids[0]
        self._read_site()
        file, line = self._site
        local = [i for i in ids if self.t.by_id[i].file == file]
        self._read_order(local)  # the lines of those of the edge's file only: the others' order is enough
        before = [i for i in local if self.t.by_id[i].start_line <= line]
        return before[-1] if before else ids[-1]

    def _read_ranks(self, ids: list[str]) -> None:
        """The answer depends on the order of these definitions (each among
        its scope's children of its name): ``("o", parent, name)``, changed
        when that order does, not when an edit above them moves them all
        (zod HEAD~10 -> HEAD: ~3,800 edges had read where ZodString's
        interface and constant were, through a function's return type)."""
        if self.rec is not None:
            by_id = self.t.by_id
            self.rec.cur.update({("o", by_id[i].parent_id, by_id[i].name) for i in ids})

    def _read_site(self) -> None:
        """The answer depends on the edge's own line (``("site", None)``)."""
        self._site_read = True
        if self.rec is not None:
            self.rec.cur.add(("site", None))

    def _read_order(self, ids: list[str]) -> None:
        """The answer depends on where these definitions are (their order,
        their lines): ``("p", id)``."""
        if self.rec is not None:
            self.rec.cur.update(("p", i) for i in ids)

    def _is_builtin(self, language: str, name: str) -> bool:
        return name in _rules(language).builtins


# The rules of each language met (a language's rules never change; one not
# known yet, a pack language before its first file, is asked again).
_SCOPES: dict[str, ScopeRules] = {}


def _scope(symbol: Symbol) -> ScopeRules:
    rules = _SCOPES.get(symbol.language)  # ``_rules`` inline: ~90k calls resolving zod
    return rules if rules is not None else _rules(symbol.language)


def _rules(language: str) -> ScopeRules:
    rules = _SCOPES.get(language)
    if rules is None:
        rules = languages.scope_of(language)
        if languages.get(language) is not None:
            _SCOPES[language] = rules
    return rules


def returned_name(signature: str, rules: ScopeRules) -> str | None:
    """The one type a function's return annotation names (``-> Foo``,
    ``-> "mod.Foo"``), as written; None if it names none."""
    return _returned(signature, rules.return_pattern) if rules.return_pattern else None


@lru_cache(maxsize=1 << 14)
def _returned(signature: str, pattern: str) -> str | None:
    # Asked again and again of a few signatures (zod's update: 435 times of
    # 46), and TypeScript's pattern backtracks over an overload set's long
    # signature (~0.2 ms each: 8.6 ms of the update, 1.4 % of its CPU).
    match = re.search(pattern, signature)
    written = next((g for g in match.groups() if g), None) if match else None  # a pattern may have alternatives
    return plain_type(written) if written else None


def _returns_own_class(function: Symbol) -> bool:
    """Whether a method gives an instance of its class (``ScopeRules.returns_own_class``)."""
    pattern = _scope(function).returns_own_class
    return bool(pattern) and function.kind == "method" and re.search(pattern, function.signature) is not None


def _self_names(source: Symbol) -> tuple[str, ...]:
    return _scope(source).self_names


def _has_paths(source: Symbol) -> bool:
    return _scope(source).qualifier_paths


def _package_is_directory(language: str) -> bool:
    return _rules(language).package_is_directory


def unlooked(table: object) -> object:
    """The table itself, under a recorder's lookups: a read noted otherwise."""
    return table._d if isinstance(table, _Looked) else table


def resolver_for(
    symbols: Iterable[Symbol], import_edges: Iterable[Edge], *, root: str, record: bool = False
) -> Resolver:
    """A resolver over these symbols and imports; ``root`` is the repository
    (module finders read go.mod, Cargo.toml, tsconfig.json there). Give it
    the class hierarchy (``set_hierarchy``) before resolving anything but
    ``inherits`` edges: ``self.m()`` looks through the bases."""
    table = SymbolTable.build(symbols, import_edges)
    table.root = root
    return Resolver(table, record=record)


def resolver_on_demand(
    source: SymbolSource, *, root: str, record: bool = False, sharing: Resolver | None = None
) -> Resolver:
    """A resolver that reads the symbols and imports it needs from the store
    as it goes (``SymbolTable.on_demand``): the same answers as
    ``resolver_for`` over all of them, for a run that resolves few edges.
    ``sharing``: another such resolver over the same ``source``, whose
    lookups this one shares (``SymbolTable.shared``)."""
    table = SymbolTable.on_demand(source) if sharing is None else SymbolTable.shared(sharing.t)
    table.root = root
    return Resolver(table, record=record)


# One answer: (edge row ID, target, tier, the hashes of the keys it read, and
# of those another file's change may change; empty from a resolver that
# records nothing: index/deps.py ``split_all``).
Answer = tuple[int, "str | None", "str | None", tuple[int, ...], tuple[int, ...]]


def resolved_bases(resolver: Resolver, inherits: Iterable[Edge]) -> tuple[dict[str, list[str]], set[str]]:
    """class ID -> its bases in the project, in the order written; and the
    classes with a base neither in the project nor known to be outside it."""
    bases: dict[str, list[str]] = {}
    unknown: set[str] = set()
    for edge in inherits:
        target, tier = resolver.resolve(edge)
        if target:
            bases.setdefault(edge.source_id, []).append(target)
        elif tier is None:
            unknown.add(edge.source_id)
    return bases, unknown


def resolve_edges(
    resolver: Resolver,
    edges: list[tuple[int, Edge]],
    *,
    forked: bool = False,
    meanwhile: Callable[[], None] | None = None,
) -> list[Answer]:
    """Resolve inherits edges first (parent_scope needs the bases), then the
    rest. ``forked``: shared with a forked copy of this process, which
    resolves while this one runs ``meanwhile`` (store work: a cold run on 2
    cores), then both (the answers are the same, each edge's depends on the
    table only). Only for a resolver that holds its whole table: a forked
    child must never use the parent's database connection; and only with a
    core idle for the child (``workers.spare_core``): on a busy machine its
    copies of pages cost CPU for a share of the cores taken from others."""
    ordered = sorted(edges, key=lambda item: item[1].kind != "inherits")
    if (
        not forked
        or len(ordered) < FORK_THRESHOLD
        or any(e.kind == "inherits" for _, e in ordered)
        or not workers.spare_core()
    ):
        if meanwhile is not None:
            meanwhile()
        return _resolve_all(resolver, ordered)
    # The child takes chunks of edges from the front, this process from the
    # back once ``meanwhile`` is done: whoever is free helps the other (a
    # cold run's full-text tables take longer than its resolution on scrapy,
    # 0.21 s / 0.17 s, and far less on zod's TypeScript, 0.05 s / 0.15 s).
    global _FORKED
    import multiprocessing  # only here: most runs fork nothing

    context = multiprocessing.get_context("fork")
    shared = _Shared(len(ordered), context)
    _FORKED = (resolver, ordered, shared)
    try:
        with workers.pool(1, context=context) as child:
            theirs = child.submit(_resolve_forked)  # forks here: the child holds the table as it is now
            if meanwhile is not None:
                meanwhile()
            mine: list[Answer] = []
            while (taken := shared.take(front=False)) is not None:
                mine += _resolve_all(resolver, ordered[taken[0] : taken[1]])
            answers, nodes, prints = theirs.result()
            for node, keys in nodes.items():
                resolver.foreign_nodes.setdefault(node, set()).update(keys)
            resolver.foreign_prints.update(prints)
            return answers + mine
    finally:
        _FORKED = None


# Edges below which a fork costs more than it saves (~30 µs an edge on scrapy).
FORK_THRESHOLD = 4000
# Edges a side takes at a time (a few milliseconds of work).
SHARED_CHUNK = 256


class _Shared:
    """The edges left to resolve between a forked child and this process:
    [next from the front, end of what is left at the back), under a lock."""

    def __init__(self, count: int, context: BaseContext) -> None:
        self.lock = context.Lock()
        self.bounds = context.RawArray("q", [0, count])

    def take(self, *, front: bool) -> tuple[int, int] | None:
        with self.lock:
            low, high = self.bounds[0], self.bounds[1]
            if low >= high:
                return None
            if front:
                self.bounds[0] = min(low + SHARED_CHUNK, high)
                return low, self.bounds[0]
            self.bounds[1] = max(high - SHARED_CHUNK, low)
            return self.bounds[1], high


_FORKED: tuple[Resolver, list[tuple[int, Edge]], _Shared] | None = None  # what a forked child resolves


def _resolve_forked() -> tuple[list[Answer], dict[int, set[int]], dict[str, str]]:
    assert _FORKED is not None
    resolver, edges, shared = _FORKED
    # The nodes recorded before the fork are the parent's too, as they are:
    # a node is computed once a process (``SymbolTable.remember``,
    # ``Resolver._export``), never again. Only those computed here go back.
    since = (len(resolver.rec.nodes), len(resolver.rec.prints)) if resolver.rec is not None else (0, 0)
    found: list[Answer] = []
    while (taken := shared.take(front=True)) is not None:
        found += _resolve_all(resolver, edges[taken[0] : taken[1]])
    return found, hashed_nodes(resolver, since=since[0]), printed_nodes(resolver, since=since[1])


def hashed_nodes(resolver: Resolver, *, since: int = 0) -> dict[int, set[int]]:
    """The nodes the resolver recorded (``Recorder.nodes``; from the
    ``since``-th on, in the order they were first recorded) and those its
    forked child did, as hashes: node -> the keys computing it read."""
    out = {n: set(keys) for n, keys in resolver.foreign_nodes.items()}
    if resolver.rec is not None:
        for node, keys in itertools.islice(resolver.rec.nodes.items(), since, None):
            out.setdefault(key_hash(node), set()).update(map(key_hash, keys))
    return out


def printed_nodes(resolver: Resolver, *, since: int = 0) -> dict[str, str]:
    """The nodes computed this run (here and in a forked child; here, from
    the ``since``-th on): node key as written (``repr``) -> the digest of
    its value, what an incremental run computes a node again from
    (index/deps.py ``Catalogue``)."""
    out = dict(resolver.foreign_prints)
    if resolver.rec is not None:
        out.update((repr(node), p) for node, p in itertools.islice(resolver.rec.prints.items(), since, None))
    return out


def _resolve_all(resolver: Resolver, edges: list[tuple[int, Edge]]) -> list[Answer]:
    """Each edge's answer (and the keys it read, hashed ``SPLIT_BATCH``
    answers at a time: index/deps.py ``split_all``). Edges of one source with the
    same kind, name, qualifier and alias get the same answer unless it
    read the edge's own line (``_read_site``): it is computed once (44 % of
    zod's edges are distinct, 78 % of scrapy's)."""
    if resolver.rec is None:
        plain: dict[tuple[str, str, str, str | None, str | None], tuple[str | None, str | None]] = {}
        updates: list[Answer] = []
        for edge_id, edge in edges:
            key = (edge.source_id, edge.kind, edge.target_name, edge.qualifier, edge.alias)
            found = plain.get(key)
            if found is None:
                resolver._site_read = False
                found = resolver.resolve(edge)
                if not resolver._site_read:
                    plain[key] = found
            updates.append((edge_id, *found, (), ()))
        return updates
    from cartog_ci.index.deps import split_all

    symbols = unlooked(resolver.t.by_id)
    kept: dict[tuple[str, str, str, str | None, str | None], list[object]] = {}  # [target, tier, keys' hashes]
    answers: list[Answer] = []
    for start in range(0, len(edges), SPLIT_BATCH):
        read: list[tuple[set[tuple[object, ...]], str]] = []  # the keys of each answer computed, its edge's file
        computed: list[list[object]] = []  # those answers, hashed once the batch is resolved
        batch: list[tuple[int, list[object]]] = []  # (edge, its answer)
        for edge_id, edge in edges[start : start + SPLIT_BATCH]:
            key = (edge.source_id, edge.kind, edge.target_name, edge.qualifier, edge.alias)
            answer = kept.get(key)
            if answer is None:
                resolver._site_read = False
                target, tier, keys = resolver.resolve_recorded(edge)
                answer = [target, tier]
                read.append((keys, edge.file))
                computed.append(answer)
                if not resolver._site_read:
                    kept[key] = answer
            batch.append((edge_id, answer))
        for answer, hashed in zip(computed, split_all(read, symbols)):  # type: ignore[arg-type]
            answer += hashed
        answers += [(edge_id, *answer) for edge_id, answer in batch]  # type: ignore[misc]
    return answers


# Answers whose keys are hashed at once (``_resolve_all``): the keys first
# met among them in one pass, the answers' sets freed after each batch.
SPLIT_BATCH = 256
