"""Recorded dependencies (docs/incremental.md, "Recorded dependencies").

The resolver notes every key its lookups read (index/resolve.py
``Recorder``): ``("c", scope ID, name)`` for a name looked up in a scope,
``("b", file, name)`` for a file's binding of a name, ``("f", path)`` for
whether a file is a module of the project, and so on (``LOOKED_TABLES``).
This module says which keys a change of the index changes, from the change
alone (``symbol_keys``, ``binding_keys``): an edge is resolved again exactly when one of the
keys its answer read changed. Nothing here knows a language: a language's
resolution is its module's and the resolver's, and what it read is what it
depends on.

Keys are stored as 24-bit hashes (``key_hash``, 3 bytes where 32 bits took
4: store/dependency_format.py): two keys with one hash only make an edge
resolve again when it need not, never the other way round (a changed key
meets another's hash once in 16.8 million per key stored).
"""

from __future__ import annotations

import ast
import hashlib
import operator
import posixpath
import re
import zlib
from collections.abc import Callable, Iterable, Mapping

from cartog_ci.domain import Edge, Symbol
from cartog_ci.store.dependency_format import FileDeps, checksum

__all__ = ["Catalogue", "FileDeps", "checksum"]

Key = tuple[object, ...]

# The key an answer reading the edge's own line notes (``Resolver._read_site``).
SITE: Key = ("site", None)
# The methods that may be declared away from their type: what the map of
# them is built from (``Resolver._detached_methods``).
DETACHED_CANDIDATES: Key = ("m", None)

_HASHES: dict[Key, int] = {}
# ``split_all``'s: key -> its hash; file -> the keys only whose change changes it
_SPLIT_HASH: dict[Key, int] = {}
_OWNED: dict[str, set[Key]] = {}


def _text_hash(text: str) -> int:
    """``key_hash`` of the key whose ``repr`` is ``text``."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) & 0xFFFFFF


def _text_hashes(texts: list[str]) -> list[int]:
    """``_text_hash`` of each text, computed by the C functions over the list."""
    try:
        crcs = list(map(zlib.crc32, map(str.encode, texts)))  # strict UTF-8: the bytes surrogatepass gives
    except UnicodeEncodeError:  # a lone surrogate
        crcs = [zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in texts]
    return [c & 0xFFFFFF for c in crcs]


def key_hash(key: Key) -> int:
    """A stable unsigned 24-bit hash of a key (the same in every process and run)."""
    found = _HASHES.get(key)
    if found is None:
        found = _SPLIT_HASH.get(key)  # most keys a node read were an answer's too
        if found is None:
            found = _HASHES[key] = _text_hash(repr(key))
    return found


SITE_HASH = key_hash(SITE)


def split_all(items: list[tuple[set[Key], str]], symbols: Mapping[str, Symbol]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """For each (keys read by an edge of a path): the hashes of the keys,
    sorted, and of those another file's change may change (not the path's
    own, by ``_BY_SYMBOL`` and ``_BY_FILE``: ``symbols`` by ID). Each key
    is hashed once a process, the keys first met in ``items`` all at once
    (``repr`` and ``crc32`` mapped over them: one loop over each answer's
    keys, in Python, cost scrapy's cold run ~35 ms more, 42k keys met in
    26k answers); a path's own keys are a set, so that which of an
    answer's keys are its file's is one set operation (~7 keys an answer)."""
    hashes, owned = _SPLIT_HASH, _OWNED
    new = set().union(*[keys for keys, _ in items]).difference(hashes)
    if new:
        _register(list(new), symbols)
    of = hashes.__getitem__
    reads = [tuple(sorted(set(map(of, keys)))) for keys, _ in items]
    own_of = owned.get
    return [
        (read, read) if (own := own_of(path)) is None or own.isdisjoint(keys) else (read, tuple(map(of, keys - own)))
        for read, (keys, path) in zip(reads, items)
    ]


def _register(keys: list[Key], symbols: Mapping[str, Symbol]) -> None:
    """``split_all``'s hashes of keys met for the first time, and the file
    only whose change changes each, if one (``_OWNED``)."""
    hashes = _text_hashes(list(map(repr, keys)))
    owned, by_symbol, by_file = _OWNED, _BY_SYMBOL, _BY_FILE
    for k in keys:
        tag, first = k[0], k[1]
        if tag in by_symbol:
            found = symbols.get(first) if isinstance(first, str) else None
            owner = found.file if found is not None else None
        elif tag in by_file:
            owner = first if isinstance(first, str) else None
        elif tag == "L" and isinstance(first, tuple):
            owner = str(first[0])
        else:
            continue
        if owner is not None:
            mine = owned.get(owner)
            if mine is None:
                mine = owned[owner] = set()
            mine.add(k)
    _SPLIT_HASH.update(zip(keys, hashes))


# What tells the file only whose change changes a key, if one (``split_all``):
# its symbols' fields, positions and children (the symbol's file), its
# bindings and star imports (the file), its lines importing a module whole
# (``("L", (file, line))``). Kept per process: a symbol's file is part of its ID.
_BY_SYMBOL = frozenset({"s", "p", "c"})
_BY_FILE = frozenset({"b", "*"})


# -- what a change of the index changes ------------------------------------

# The fields of a symbol the resolver may read (``("s", id)``); its lines and
# bytes are ``("p", id)``, read where the order of definitions matters.
def _view(s: Symbol) -> tuple[object, ...]:
    return (s.name, s.qualified_name, s.kind, s.file, s.parent_id, s.signature, s.language, s.decorators)


def _position(s: Symbol) -> tuple[int, int, int, int]:
    return (s.start_line, s.end_line, s.start_byte, s.end_byte)


def symbol_keys(
    old: Mapping[str, Symbol], new: Mapping[str, Symbol], kinds: Mapping[str, str] | None = None
) -> set[Key]:
    """The keys a file's symbols going from ``old`` to ``new`` (by ID)
    change. ``kinds``: symbol ID -> kind, for the parents of these symbols
    (theirs are in ``old`` / ``new``: a parent is in the file)."""
    out: set[Key] = set()

    def kind_of(parent: str | None) -> str | None:
        if parent is None:
            return None
        found = new.get(parent) or old.get(parent)
        return found.kind if found is not None else (kinds or {}).get(parent)

    def whole(s: Symbol) -> None:
        # (tag, None): a read of the whole table (listed), changed by any change of it
        out.update({("s", s.id), ("s", None), ("p", s.id), ("p", None)})
        if s.kind == "module":
            directory = posixpath.dirname(s.file)
            out.update({("f", s.file), ("f", None), ("d", directory), ("d", None)})
            return
        out.update({("n", s.name), ("n", None), ("q", s.qualified_name), ("q", None)})
        out.update({("c", s.parent_id, s.name), ("c", s.parent_id, None), ("o", s.parent_id, s.name)})
        if kind_of(s.parent_id) == "module":  # a top-level name of its directory
            out.add(("dn", posixpath.dirname(s.file), s.name))
        if s.kind == "method" and kind_of(s.parent_id) in ("module", "namespace"):
            out.add(DETACHED_CANDIDATES)

    moved = False
    for i in old.keys() | new.keys():
        a, b = old.get(i), new.get(i)
        if a is None or b is None:
            whole(a or b)  # type: ignore[arg-type]
            continue
        if _view(a) != _view(b):
            whole(a)
            whole(b)
        elif _position(a) != _position(b):
            out.update({("p", i), ("p", None)})
            moved = True
    if moved:  # the order of a scope's children of one name, where it changed
        before, after = _ranks(old), _ranks(new)
        out.update(("o", *group) for group in before.keys() | after.keys() if before.get(group) != after.get(group))
    return out


def _ranks(symbols: Mapping[str, Symbol]) -> dict[tuple[str | None, str], list[str]]:
    """(parent, name) -> the IDs of its children of that name, in the order
    the resolver's table lists them (store/symbols.py ALL_ORDER), for those
    with more than one: what ``("o", parent, name)`` is the key of."""
    groups: dict[tuple[str | None, str], list[str]] = {}
    for s in sorted(symbols.values(), key=lambda s: (s.start_byte, -s.end_byte, s.id)):
        if s.kind != "module":
            groups.setdefault((s.parent_id, s.name), []).append(s.id)
    return {group: ids for group, ids in groups.items() if len(ids) > 1}


def binding_keys(path: str, old: Iterable[Edge], new: Iterable[Edge], language: str = "") -> set[Key]:
    """The keys a file's imports going from ``old`` to ``new`` change: the
    names it binds otherwise, its star imports, its lines importing a module
    whole (index/resolve.py ``SymbolTable.add_import``, which reads the
    file's ``language``)."""
    from cartog_ci.index.resolve import SymbolTable

    before, after = SymbolTable(), SymbolTable()
    for table, edges in ((before, old), (after, new)):
        table.language_of_file[path] = language
        for e in edges:
            if e.kind == "imports":
                table.add_import(e)
    out: set[Key] = set()
    a, b = before.bindings.get(path, {}), after.bindings.get(path, {})
    names = {n for n in a.keys() | b.keys() if a.get(n) != b.get(n)}
    if names:
        out.update(("b", path, n) for n in names)
        out.add(("b", path, None))
    if before.star_imports.get(path, []) != after.star_imports.get(path, []):
        out.update({("*", path), ("*", None)})
    lines = before.line_modules.keys() | after.line_modules.keys()
    changed = [("L", line) for line in lines if before.line_modules.get(line) != after.line_modules.get(line)]
    out.update(changed + [("L", None)] if changed else [])
    return out


def value_print(value: object) -> str:
    """What a node's value is kept as (index/resolve.py ``Recorder.node``),
    the same in every process for the same value: its ``repr`` when short
    (most are: a path or two, a flag), else a 128-bit digest of it; a
    dict's in sorted order (a manifest, a map). A value whose ``repr`` is
    not stable (an object's address) only makes its node look changed,
    never the other way round."""
    text = repr(_canonical(value)) if isinstance(value, dict) else repr(value)
    if len(text) <= _SHORT_VALUE:
        return text
    return "#" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_SHORT_VALUE = 120


def _catalogue_text(text: str | None) -> str | None:
    """The lines of one stored part of a catalogue as one text; None when
    it is damaged."""
    if not text:
        return ""
    import base64  # here: most runs decode no catalogue

    try:
        return zlib.decompress(base64.b64decode(text)).decode("utf-8", "surrogatepass")
    except (ValueError, zlib.error, UnicodeDecodeError):
        return None


_TAB_SPLIT = operator.methodcaller("split", "\t", 1)  # a catalogue line: key, value
# Lines per part a cold run sizes the catalogue's parts by (a power of two
# of them): Django 5.1's 29,300 nodes (3.0 MB of lines) were one text to
# decompress (15 ms) and search (8 ms) for a one-file edit that computes 12
# nodes; in 64 parts they take 0.80 MB instead of 0.44 MB (scrapy, 32
# parts: 0.18 MB instead of 0.10 MB).
_PART_LINES = 512
_MAX_PARTS = 1024


def _parts_for(lines: int) -> int:
    count = 1
    while count * _PART_LINES < lines and count < _MAX_PARTS:
        count *= 2
    return count


class Catalogue:
    """The nodes an index knows: each node's key as written (its ``repr``)
    -> its value as kept (``value_print``). Stored in parts, a node in the
    part of its hash (``_text_hash`` of its key, modulo the number of parts,
    which meta ``dep_nodes`` holds), each part one compressed text of lines
    sorted by key (meta ``dep_nodes.<part>``, none for an empty part). An
    incremental run computes a node reached by a change again from its key
    and keeps what read it when the value is the same (salsa's backdating: a
    manifest whose version changed finds the same modules). A part is read
    when a node of it is first asked for (``under``, ``update``), looked up
    in its text while every node asked for is there as it is, and written
    again only when one of its nodes changed (``save``).

    Entries are keyed by the key itself, not by its 24-bit hash: two nodes
    with one hash are both kept, and a change reaching that hash computes
    both again (``under``); the hash is changed when either value is
    (tests/index/test_deps.py, ``_TWINS``). A damaged part reads as empty,
    and without a number of parts the whole catalogue does: every node of
    it then looks changed, and the parts are written anew."""

    META = "dep_nodes"

    def __init__(self, entries: dict[str, str] | None = None, read: Callable[[str], str | None] | None = None) -> None:
        """``entries`` known whole, replacing what ``read`` (``get_meta``)
        finds stored, if given; or, without ``entries``, the catalogue
        stored, read through ``read``."""
        self.read = read
        self.texts: dict[int, str | None] = {}  # part -> its lines framed by newlines, as read
        self.parts: dict[int, dict[str, str]] = {}  # decoded: part -> key -> value
        self.dirty: set[int] = set()  # parts to write
        self.stale: range = range(0)  # parts stored past the number of parts: to remove
        self._by_hash: dict[int, dict[int, str | list[str]]] = {}  # part -> hash -> its key(s), for ``under``
        stored = read(self.META) if read is not None else None
        before = int(stored) if stored is not None and stored.isdigit() and 0 < int(stored) <= _MAX_PARTS else 0
        self.write_count = entries is not None or not before
        if entries is None and before:
            self.count = before
            return
        entries = entries or {}
        self.count = _parts_for(len(entries))
        self.stale = range(self.count, before)
        self.parts = {p: {} for p in range(self.count)}
        self.dirty = set(self.parts)
        for key, value in entries.items():
            self.parts[_text_hash(key) % self.count][key] = value

    @staticmethod
    def name(part: int) -> str:
        return f"{Catalogue.META}.{part}"

    def _framed(self, number: int) -> str | None:
        """The part's lines, a newline before and after; None when damaged."""
        if number not in self.texts:
            assert self.read is not None
            raw = _catalogue_text(self.read(self.name(number)))
            self.texts[number] = None if raw is None else f"\n{raw}\n"
        return self.texts[number]

    def part(self, number: int) -> dict[str, str]:
        found = self.parts.get(number)
        if found is None:
            framed = self._framed(number)
            lines = framed[1:-1].split("\n") if framed is not None and len(framed) > 2 else []
            try:
                found = dict(map(_TAB_SPLIT, lines))
            except ValueError:  # a line without its value: damaged
                found = {}
            self.parts[number] = found
        return found

    @property
    def entries(self) -> dict[str, str]:
        """Every node known (every part decoded)."""
        out: dict[str, str] = {}
        for number in range(self.count):
            out.update(self.part(number))
        return out

    def update(self, nodes: Mapping[str, str]) -> None:
        for key, value in nodes.items():
            number = _text_hash(key) % self.count
            part = self.parts.get(number)
            if part is None:
                framed = self._framed(number)
                if framed is not None and f"\n{key}\t{value}\n" in framed:
                    continue  # held as it is: the part not decoded
                part = self.part(number)
            if part.get(key) != value:
                part[key] = value
                self.dirty.add(number)
                self._by_hash.pop(number, None)

    def save(self, write: Callable[[str, str | None], None]) -> None:
        """The parts changed since they were read (all of a catalogue known
        whole), through ``write`` (``set_meta``: None removes a part)."""
        if self.write_count:
            write(self.META, str(self.count))
            self.write_count = False
        for number in sorted(self.dirty):
            write(self.name(number), _encoded(self.parts[number]) if self.parts[number] else None)
        for number in self.stale:
            write(self.name(number), None)
        self.dirty.clear()
        self.stale = range(0)

    def under(self, node: int) -> list[tuple[tuple[str, object] | None, str]]:
        """The nodes known by the hash ``node`` (one, but for a collision;
        none when unknown): each one's (name, argument), None when
        unreadable, and its value as kept."""
        number = node % self.count
        part = self.part(number)
        by_hash = self._by_hash.get(number)
        if by_hash is None:  # ``_text_hash`` of every key of the part, once
            by_hash = self._by_hash[number] = _hashed(list(part))
        found = by_hash.get(node)
        keys = () if found is None else (found,) if isinstance(found, str) else sorted(found)
        return [(_node_key(k), part[k]) for k in keys]


def _hashed(keys: list[str]) -> dict[int, str | list[str]]:
    """``_text_hash`` -> the key of that hash (the keys, when two share it),
    computed by the C functions over the list (celery: ~9,500 keys of the
    parts a run reads, 10 ms one by one)."""
    hashes = _text_hashes(keys)
    one: dict[int, str | list[str]] = dict(zip(hashes, keys))
    if len(one) == len(keys):
        return one
    many: dict[int, str | list[str]] = {}
    for h, k in zip(hashes, keys):
        known = many.get(h)
        many[h] = k if known is None else [*([known] if isinstance(known, str) else known), k]
    return many


def _encoded(entries: Mapping[str, str]) -> str:
    raw = "\n".join(f"{k}\t{entries[k]}" for k in sorted(entries))
    import base64

    # level 1: celery's 0.81 MB of lines in 3.8 ms, 99 KB (level 6: 10.8 ms,
    # 79 KB; level 9 took 30 ms for 60 KB on scrapy)
    return base64.b64encode(zlib.compress(raw.encode("utf-8", "surrogatepass"), 1)).decode("ascii")


def _node_key(text: str) -> tuple[str, object] | None:
    """The (name, argument) of a node's key as written, None when unreadable."""
    key = _plain_literal(text)
    if key is _NOT_PLAIN:
        try:
            key = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if not (isinstance(key, tuple) and len(key) == 3 and key[0] == "M" and isinstance(key[1], str)):
        return None
    return key[1], key[2]


_NOT_PLAIN = object()
# What ``repr`` writes of texts (without a quote, a backslash or a control
# character), integers, booleans, None and tuples of those: most nodes'
# keys (``('M', 'export', ('celery/app/trace.py', 'get_task_name', 0))``).
_PLAIN_TOKEN = re.compile(r"'([^'\\\x00-\x1f\x7f]*)'|(-?(?:0|[1-9][0-9]*))|(True|False|None)|(\()|(\))|(, ?)")
_NAMED = {"True": True, "False": False, "None": None}


def _plain_literal(text: str) -> object:
    """``ast.literal_eval(text)`` of such a text (a node's key as written),
    read by one regular expression (a fifth of the time); ``_NOT_PLAIN``
    for any other text, which ``literal_eval`` then reads."""
    stack: list[list[object]] = [[]]  # the items of each open parenthesis (the text's, first)
    commas: list[bool] = [False]  # whether each open parenthesis holds a comma
    end = 0
    expect_item = True  # after an opening parenthesis or a comma
    for m in _PLAIN_TOKEN.finditer(text):
        if m.start() != end:
            return _NOT_PLAIN
        end = m.end()
        quoted, number, named, opening, closing, comma = m.groups()
        if opening is not None:
            if not expect_item:
                return _NOT_PLAIN
            stack.append([])
            commas.append(False)
        elif closing is not None:
            if len(stack) < 2:
                return _NOT_PLAIN
            items, had_comma = stack.pop(), commas.pop()
            # ``()``, ``(a,)``, ``(a, b)``: a tuple; ``(a)``: a
            stack[-1].append(tuple(items) if had_comma or not items else items[0])
            expect_item = False
        elif comma is not None:
            if expect_item or len(stack) < 2:
                return _NOT_PLAIN
            commas[-1] = True
            expect_item = True
        else:
            if not expect_item:
                return _NOT_PLAIN
            stack[-1].append(quoted if quoted is not None else int(number) if number is not None else _NAMED[named])
            expect_item = False
    if end != len(text) or len(stack) != 1 or len(stack[0]) != 1:
        return _NOT_PLAIN
    return stack[0][0]


def fingerprint(value: object) -> str:
    """A stable digest of a derived value (sets and dicts in sorted order)."""
    return format(zlib.crc32(repr(_canonical(value)).encode("utf-8", "surrogatepass")), "08x")


def _canonical(value: object) -> object:
    if isinstance(value, dict):
        return sorted((repr(_canonical(k)), _canonical(v)) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_canonical(v)) for v in value)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return [_canonical(getattr(value, f)) for f in value.__dataclass_fields__]
    return value
