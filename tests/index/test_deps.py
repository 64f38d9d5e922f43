"""Recorded dependencies (index/deps.py, docs/incremental.md): what an
answer read, what a change changes, how the keys are stored."""

from __future__ import annotations

import gc
import weakref
import zlib
from pathlib import Path

import pytest

from cartog_ci.domain import Edge, Symbol
from cartog_ci.index.deps import Catalogue, FileDeps, binding_keys, key_hash, symbol_keys, value_print
from cartog_ci.index.resolve import resolver_for
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import assert_as_cold, commit, index, init_repo, open_store, write


def _symbol(id_: str, name: str, kind: str, file: str, parent: str | None, signature: str = "", line: int = 1) -> Symbol:
    return Symbol(id_, name, name, kind, file, line, line, 0, 0, parent, signature, "python", "h", "h")


MODULE = _symbol("a.py:module:a", "a", "module", "a.py", None)
F = _symbol("a.py:function:f", "f", "function", "a.py", MODULE.id, "def f()")


def test_a_function_added_changes_the_keys_it_can_be_found_by() -> None:
    assert symbol_keys({MODULE.id: MODULE}, {MODULE.id: MODULE, F.id: F}) == {
        ("s", F.id), ("s", None), ("p", F.id), ("p", None), ("n", "f"), ("n", None), ("q", "f"), ("q", None),
        ("c", MODULE.id, "f"), ("c", MODULE.id, None), ("o", MODULE.id, "f"), ("dn", "", "f"),
    }  # fmt: skip


def test_a_body_edit_or_a_move_changes_no_key_an_answer_reads_but_the_position() -> None:
    moved = _symbol(F.id, "f", "function", "a.py", MODULE.id, "def f()", line=7)
    assert symbol_keys({F.id: F}, {F.id: F}) == set()
    assert symbol_keys({F.id: F}, {F.id: moved}) == {("p", F.id), ("p", None)}


def test_definitions_of_one_name_change_their_order_key_only_when_their_order_changes() -> None:
    """Two `f` in one module (`@overload` stubs, a TS interface and const):
    an edit above both moves them (their positions), not their order; one
    moved below the other changes ``("o", module, "f")``."""
    first = Symbol("a.py:function:f", "f", "f", "function", "a.py", 1, 2, 0, 10, MODULE.id, "", "python", "h", "h")
    second = Symbol("a.py:function:f#2", "f", "f", "function", "a.py", 3, 4, 20, 30, MODULE.id, "", "python", "h", "h")
    old = {MODULE.id: MODULE, first.id: first, second.id: second}
    shifted = {
        MODULE.id: MODULE,
        first.id: Symbol(first.id, "f", "f", "function", "a.py", 5, 6, 40, 50, MODULE.id, "", "python", "h", "h"),
        second.id: Symbol(second.id, "f", "f", "function", "a.py", 7, 8, 60, 70, MODULE.id, "", "python", "h", "h"),
    }
    assert symbol_keys(old, shifted) == {("p", first.id), ("p", second.id), ("p", None)}
    swapped = {
        MODULE.id: MODULE,
        first.id: Symbol(first.id, "f", "f", "function", "a.py", 7, 8, 60, 70, MODULE.id, "", "python", "h", "h"),
        second.id: second,
    }
    assert symbol_keys(old, swapped) == {("p", first.id), ("p", None), ("o", MODULE.id, "f")}


def test_a_signature_changed_changes_the_symbol_and_the_names_it_is_found_by() -> None:
    typed = _symbol(F.id, "f", "function", "a.py", MODULE.id, "def f() -> int")
    assert ("s", F.id) in symbol_keys({F.id: F}, {F.id: typed})
    assert ("c", MODULE.id, "f") in symbol_keys({F.id: F}, {F.id: typed})


def test_an_import_bound_otherwise_changes_that_name_of_its_file_only() -> None:
    before = [Edge("b.py:module:b", "f", "imports", "b.py", 1, "a"), Edge("b.py:module:b", "g", "imports", "b.py", 2, "a")]
    after = [Edge("b.py:module:b", "f", "imports", "b.py", 1, "c"), Edge("b.py:module:b", "g", "imports", "b.py", 2, "a")]
    assert binding_keys("b.py", before, after) == {("b", "b.py", "f"), ("b", "b.py", None)}
    star = [*after, Edge("b.py:module:b", "*", "imports", "b.py", 3, "d")]
    assert binding_keys("b.py", after, star) == {("*", "b.py"), ("*", None)}


def test_an_answer_reads_the_keys_of_what_it_looked_up_misses_included() -> None:
    """`f()` in b.py, f imported from a: the binding, the module the import
    finds (a node), the name a.py exports (a node). `h()`, imported from a
    module no file holds: external, with the paths probed for it, which a
    file appearing there would change."""
    b_module = _symbol("b.py:module:b", "b", "module", "b.py", None)
    g = _symbol("b.py:function:g", "g", "function", "b.py", b_module.id)
    imports = [Edge(b_module.id, "f", "imports", "b.py", 1, "a"), Edge(b_module.id, "h", "imports", "b.py", 2, "gone")]
    resolver = resolver_for([MODULE, F, b_module, g], imports, root="", record=True)
    resolver.set_hierarchy({})  # a call is resolved once the bases are known
    target, tier, keys = resolver.resolve_recorded(Edge(g.id, "f", "calls", "b.py", 4))
    assert (target, tier) == (F.id, "import")
    assert keys == {
        ("s", g.id), ("s", b_module.id), ("c", g.id, "f"), ("c", b_module.id, "f"), ("b", "b.py", "f"),
        ("M", "resolver.modules", ("b.py", "a")), ("M", "export", ("a.py", "f", 0)),
    }  # fmt: skip
    assert resolver.resolve_recorded(Edge(g.id, "h", "calls", "b.py", 5))[:2] == (None, "external")
    assert resolver.rec is not None
    assert resolver.rec.nodes[("M", "python.found", "gone")] == {
        ("f", "gone.py"), ("f", "gone.pyi"), ("f", "gone/__init__.py"), ("f", "gone/__init__.pyi"), ("k", "python.roots"),
    }  # fmt: skip
    assert resolver.rec.nodes[("M", "export", ("a.py", "f", 0))] == {("c", MODULE.id, "f"), ("f", "a.py"), ("s", F.id)}


def test_stored_keys_go_with_the_rows_they_were_recorded_for() -> None:
    rows = [(3, Edge("b.py:function:g", "f", "calls", "b.py", 4)), (9, Edge("b.py:function:g", "h", "calls", "b.py", 5))]
    deps = FileDeps()
    deps.record(3, (key_hash(("c", "x", "f")), key_hash(("n", "f"))), (key_hash(("n", "f")),))
    blob = deps.encode(rows)
    back = FileDeps.decode(blob, rows)
    assert back is not None
    assert back.by_row == {3: (key_hash(("c", "x", "f")), key_hash(("n", "f"))), 9: None}  # 9: not recorded
    assert back.outside == {key_hash(("n", "f"))}
    renamed = [rows[0], (9, Edge("b.py:function:g", "k", "calls", "b.py", 5))]
    assert FileDeps.decode(blob, renamed) is None  # other rows: not theirs
    assert FileDeps.decode(b"damaged", rows) is None


def test_a_file_whose_stored_keys_are_damaged_is_resolved_whole(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "a.py": "def f():\n    pass\n",
        "b.py": "from a import f\n\n\ndef g():\n    f()\n",
    })  # fmt: skip
    commit(repo, "initial")
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        store.db.execute("UPDATE dep_files SET deps = x'00'")
    write(repo, {"a.py": "def f():\n    pass\n\n\ndef f2():\n    pass\n", "b.py": "from a import f2 as f\n\n\ndef g():\n    f()\n"})
    result = index(repo)
    assert result.edges_resolved == 2  # b's import and call: its old keys unreadable, a's have no edge
    assert_as_cold(repo, tmp_path)


_SELF_IMPORT = {
    "package.json": '{"name": "lib", "version": "1.0.0", "exports": {"./sub": "./src/sub.ts"}}\n',
    "src/sub.ts": "export function sub(): number {\n  return 1;\n}\n",
    "src/other.ts": "export function sub(): number {\n  return 2;\n}\n",
    "test/a.test.ts": 'import { sub } from "lib/sub";\n\nexport function check(): number {\n  return sub();\n}\n',
}


def test_a_resolver_and_its_tables_are_freed_without_the_cyclic_collector() -> None:
    """An index run disables the cyclic GC (index/cascade.py): a cycle
    through the table (a recipe holding it or the resolver) would keep every
    table alive until the collector's first pass after the run, which then
    walks them all. Freed by reference counts alone, the table is gone as
    soon as the resolver is dropped, after computing a node of the resolver
    (``resolver.modules``) and one of a language (``python.found``)."""
    b_module = _symbol("b.py:module:b", "b", "module", "b.py", None)
    g = _symbol("b.py:function:g", "g", "function", "b.py", b_module.id)
    imports = [Edge(b_module.id, "f", "imports", "b.py", 1, "a"), Edge(b_module.id, "h", "imports", "b.py", 2, "gone")]
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        resolver = resolver_for([MODULE, F, b_module, g], imports, root="", record=True)
        resolver.set_hierarchy({})
        assert resolver.resolve_recorded(Edge(g.id, "f", "calls", "b.py", 4))[:2] == (F.id, "import")
        assert resolver.resolve_recorded(Edge(g.id, "h", "calls", "b.py", 5))[:2] == (None, "external")
        assert {"resolver.modules", "python.found"} <= set(resolver.t.memos)
        table = weakref.ref(resolver.t)
        del resolver
        assert table() is None
    finally:
        if was_enabled:
            gc.enable()


def _call_target(repo: Path) -> str | None:
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        rows = store.db.execute("SELECT target_id FROM edges WHERE kind = 'calls' AND target_name = 'sub'").fetchall()
    assert len(rows) == 1
    return rows[0][0]


def test_a_node_computed_again_to_the_same_value_changes_nothing_through_it(tmp_path: Path) -> None:
    """The module `lib/sub` names is found through package.json (a node that
    read it). A version bump changes the manifest, not the module found: the
    node is computed again, its value compared, and no answer that read it
    is resolved again; a change of `exports` does change it."""
    repo = init_repo(tmp_path / "repo")
    write(repo, _SELF_IMPORT)
    commit(repo, "initial")
    index(repo)
    assert _call_target(repo) == "src/sub.ts:function:sub"
    write(repo, {"package.json": _SELF_IMPORT["package.json"].replace("1.0.0", "1.0.1")})
    assert index(repo).edges_resolved == 0
    assert_as_cold(repo, tmp_path)
    write(repo, {"package.json": _SELF_IMPORT["package.json"].replace("./src/sub.ts", "./src/other.ts")})
    assert index(repo).edges_resolved == 2  # the import and the call that read the module found
    assert _call_target(repo) == "src/other.ts:function:sub"
    assert_as_cold(repo, tmp_path)


def _meta(catalogue: Catalogue) -> dict[str, str]:
    """What ``save`` writes, as the meta table would hold it."""
    meta: dict[str, str] = {}

    def write(key: str, value: str | None) -> None:
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value

    catalogue.save(write)
    return meta


def test_the_catalogue_of_nodes_round_trips_and_damage_reads_as_nothing_known() -> None:
    node = ("M", "resolver.modules", ("b.py", "a"))
    stored = Catalogue({repr(node): "123", repr(("X", 1)): "1"})
    meta = _meta(stored)
    assert meta[Catalogue.META] == "1" and set(meta) == {"dep_nodes", "dep_nodes.0"}
    back = Catalogue(read=meta.get)
    assert back.entries == {repr(node): "123", repr(("X", 1)): "1"}
    assert back.under(key_hash(node)) == [(("resolver.modules", ("b.py", "a")), "123")]
    assert back.under(key_hash(("X", 1))) == [(None, "1")] and back.under(8) == []  # unreadable, unknown: changed
    assert Catalogue(read={**meta, "dep_nodes.0": "!!not base64"}.get).entries == {}  # a damaged part
    assert Catalogue(read={}.get).entries == {} and Catalogue(read={"dep_nodes": "x"}.get).entries == {}
    assert value_print({"b": 1, "a": [1, 2]}) == value_print({"a": [1, 2], "b": 1})  # a dict's order is no change


def test_the_catalogue_keeps_both_nodes_of_one_hash() -> None:
    first, second = (("M", "python.found", name) for name in _TWINS)
    back = Catalogue(read=_meta(Catalogue({repr(first): "()", repr(second): "('m.py',)"})).get)
    assert back.under(key_hash(first)) == [(("python.found", _TWINS[0]), "()"), (("python.found", _TWINS[1]), "('m.py',)")]


def test_the_catalogue_writes_only_the_parts_whose_nodes_changed() -> None:
    """Parts sized by the nodes a cold run knows (512 lines a part, a power
    of two of them); a run that computes nodes as they are writes nothing,
    and one that changes a node writes its part alone."""
    many = {repr(("M", "resolver.owned", (f"m{n}.py",))): str(n) for n in range(1500)}
    meta = _meta(Catalogue(many))
    assert meta[Catalogue.META] == "4" and len(meta) == 5
    assert Catalogue(read=meta.get).entries == many
    same = Catalogue(read=meta.get)
    same.update(dict(list(many.items())[:40]))
    assert not same.dirty and same.parts == {}  # held as they are: no part decoded
    one = repr(("M", "resolver.owned", ("m1.py",)))
    changed = Catalogue(read=meta.get)
    changed.update({one: "other"})
    written = _meta(changed)
    assert list(written) == [f"dep_nodes.{(zlib.crc32(one.encode()) & 0xFFFFFF) % 4}"]
    assert Catalogue(read={**meta, **written}.get).entries == {**many, one: "other"}
    # a line that starts like the one stored is not it
    prefix = Catalogue(read=_meta(Catalogue({one: "10", repr(("M", "resolver.owned", ("am1.py",))): "1"})).get)
    prefix.update({one: "1"})
    assert prefix.dirty
    # a cold run again with fewer nodes removes the parts past its count
    stored: dict[str, str] = dict(meta)

    def write(key: str, value: str | None) -> None:
        if value is None:
            stored.pop(key, None)
        else:
            stored[key] = value

    Catalogue({one: "1"}, read=meta.get).save(write)
    assert set(stored) == {"dep_nodes", "dep_nodes.0"} and Catalogue(read=stored.get).entries == {one: "1"}


_NESTED = {
    "a/Base.java": "package a;\n\npublic class Base {\n    public static class Inner {\n        public static void go() {}\n    }\n}\n",
    "a/Outer.java": "package a;\n\npublic class Outer extends Base {\n}\n",
    "p/X.java": "package p;\n\nimport a.Outer.Inner;\n\npublic class X {\n}\n",
    "q/Y.java": "package q;\n\nimport p.*;\n\npublic class C extends Inner {\n}\n",
    "r/W.java": "package r;\n\nimport p.*;\n\npublic class D {\n    void f() {\n        Inner.go();\n    }\n}\n",
    "s/Other.java": "package s;\n\npublic class Inner {\n    public static void go() {}\n}\n",
}


def test_a_name_exported_through_a_base_is_a_node_only_once_the_bases_are_known(tmp_path: Path) -> None:
    """`Inner` reached through `p.*` is `Outer.Inner`, inherited from Base: a
    base class resolved before any base is known (q/Y.java) walks the same
    export with no hierarchy. That walk is its answer's, never the node's:
    kept as the node, an unrelated run wrote its value (none) over the
    node's, and a change of Outer's base went unseen (review of 3da6fa4)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, _NESTED)
    commit(repo, "initial")
    index(repo)
    write(repo, {"t/Z.java": "package t;\n\npublic class Z {\n}\n"})
    index(repo)
    assert_as_cold(repo, tmp_path)
    write(repo, {"a/Outer.java": "package a;\n\npublic class Outer {\n}\n"})
    index(repo)
    assert_as_cold(repo, tmp_path)


# Two module names whose nodes ("M", "python.found", name) have one CRC-32,
# and so one 24-bit key hash (found by trying random names: CRC-32 never
# confuses two names of one length that differ in fewer than 32 consecutive
# bits).
_TWINS = ("m_guszrictzu", "m_kpgfslzdni")


@pytest.mark.parametrize("appears", _TWINS)
def test_two_nodes_with_one_hash_are_both_computed_again(tmp_path: Path, appears: str) -> None:
    """a.py and b.py each import a module no file holds yet; the nodes that
    look the two names up share a hash. The module of one appears: its
    node's value changes, whichever of the two the other's reads would
    have matched, and the import and the call that read it are resolved
    again as a cold build resolves them."""
    first, second = _TWINS
    node = "python.found"
    assert key_hash(("M", node, first)) == key_hash(("M", node, second))
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "a.py": f"import {first}\n\n\ndef f():\n    {first}.g()\n",
        "b.py": f"import {second}\n\n\ndef h():\n    {second}.g()\n",
    })  # fmt: skip
    commit(repo, "initial")
    index(repo)
    write(repo, {f"{appears}.py": "def g():\n    return 1\n"})
    index(repo)
    assert_as_cold(repo, tmp_path)
    with open_store(repo) as store:
        callers = [e.source_id for e in store.edges_to([f"{appears}.py:function:g"], ("calls",))]
    assert callers == ["a.py:function:f" if appears == first else "b.py:function:h"]


def test_a_key_read_by_files_and_nodes_is_one_row_gone_when_nothing_reads_it(tmp_path: Path) -> None:
    """store/dependency_rows.py: a key's row holds the files and the nodes
    that read it and, for a node, the keys it read; hashes are 24 bits,
    packed 3 bytes each, files as steps in variable-length bytes."""
    key, node, other = key_hash(("n", "f")), key_hash(("M", "resolver.owned", ("a.py",))), key_hash(("f", "b.py"))
    assert max(key, node, other) < 1 << 24
    a, z = FileDeps(), FileDeps()
    a.record(1, (key, node), (key, node))
    z.record(2, (key,), (key,))
    with SqliteStore(tmp_path / "index.db") as store:
        store.put_dependencies([("a.py", a.encode(), a.outside), ("z" * 300 + ".py", z.encode(), z.outside)])
        store.put_nodes({node: {key, other}})
        rows = store.db.execute("SELECT key, files IS NOT NULL, nodes IS NOT NULL, reads IS NOT NULL FROM dep_keys")
        assert sorted(rows) == sorted([(key, 1, 1, 0), (node, 1, 0, 1), (other, 0, 1, 0)])
        assert store.files_reading([key]) == {"a.py", "z" * 300 + ".py"}
        assert store.files_reading([node]) == {"a.py"}
        assert store.nodes_reading([key, other]) == {node}
        store.put_nodes({node: {other}})  # it no longer reads ``key``
        assert store.nodes_reading([key]) == set()
        store.delete_dependencies(["a.py"])
        assert store.files_reading([key, node]) == {"z" * 300 + ".py"}
        store.put_nodes({node: set()})
        store.delete_dependencies(["z" * 300 + ".py"])
        assert store.db.execute("SELECT count(*) FROM dep_keys").fetchall() == [(0,)]


def test_a_run_that_resolved_every_edge_writes_the_rows_the_incremental_writes_would(tmp_path: Path) -> None:
    """``replace_dependencies`` (a cold run) builds every key's row at once:
    the same rows as ``put_dependencies`` then ``put_nodes`` write on an
    empty index, and nothing of what was stored before stays."""
    key, node, other = key_hash(("n", "f")), key_hash(("M", "resolver.owned", ("a.py",))), key_hash(("f", "b.py"))
    stale = key_hash(("n", "gone"))
    a, z = FileDeps(), FileDeps()
    a.record(1, (key, node), (key, node))
    z.record(2, (key, other), (key,))
    items = [("a.py", a.encode(), a.outside), ("z" * 300 + ".py", z.encode(), z.outside)]
    nodes = {node: {key, other}, other: set()}
    with SqliteStore(tmp_path / "rows.db") as by_rows, SqliteStore(tmp_path / "whole.db") as whole:
        by_rows.put_dependencies(items)
        by_rows.put_nodes(nodes)
        stale_deps = FileDeps()
        stale_deps.record(3, (stale,), (stale,))
        whole.put_dependencies([("old.py", stale_deps.encode(), stale_deps.outside)])
        whole.put_nodes({key_hash(("M", "resolver.owned", ("old.py",))): {stale}})
        whole.replace_dependencies(items, nodes)
        assert _dependency_rows(whole) == _dependency_rows(by_rows)
        assert whole.files_reading([stale]) == set() and whole.nodes_reading([stale]) == set()
        assert whole.files_reading([key]) == {"a.py", "z" * 300 + ".py"} and whole.nodes_reading([other]) == {node}


def _dependency_rows(store: SqliteStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Both tables, the files named by path (interned keys depend on the order texts came in)."""
    from cartog_ci.store.dependency_rows import _unpacked

    path = dict(store.db.execute("SELECT key, text FROM interned")).__getitem__
    keys = [
        (k, sorted(map(path, _unpacked("files", files))), nodes, reads)
        for k, files, nodes, reads in store.db.execute("SELECT key, files, nodes, reads FROM dep_keys ORDER BY key")
    ]
    files = sorted((path(k), bytes(deps)) for k, deps in store.db.execute("SELECT file_key, deps FROM dep_files"))
    return keys, files


def test_rows_reading_equal_sets_of_keys_store_one_set_whoever_made_the_tuples() -> None:
    """``encode_rows`` tells the rows' sets apart by value: two equal
    tuples built apart are one set, named by both rows, in the order of
    the first row reading each."""
    rows = [(n, Edge("b.py:function:g", f"f{n}", "calls", "b.py", n)) for n in (2, 5, 7)]
    read = tuple(sorted((key_hash(("n", "f")), key_hash(("c", "x", "f")))))  # as ``split`` gives them
    apart = FileDeps()
    apart.record(2, tuple(list(read)), ())
    apart.record(5, tuple(list(read)), ())
    apart.record(7, (key_hash(("n", "h")),), ())
    shared = FileDeps({2: read, 5: read, 7: (key_hash(("n", "h")),)})
    blob = apart.encode(rows)
    assert blob == shared.encode(rows)
    back = FileDeps.decode(blob, rows)
    assert back is not None and back.decoded is not None
    ids, which, sets = back.decoded
    assert list(ids) == [2, 5, 7] and list(which) == [0, 0, 1]
    assert sets == [read, (key_hash(("n", "h")),), None]  # in the order of the first row reading each


def test_a_node_key_as_written_reads_back_as_literal_eval_reads_it() -> None:
    """``_node_key`` reads most keys with one regular expression; what it
    does not read plainly (quotes, escapes, other spacing) ``literal_eval``
    reads, so that every text reads as before."""
    import ast

    from cartog_ci.index.deps import _NOT_PLAIN, _node_key, _plain_literal

    for key in [
        ("M", "export", ("celery/app/trace.py", "get_task_name", 0)), ("M", "python.found", ("a", "b.py", True, False)),
        ("M", "x", ()), ("M", "x", (None,)), ("M", "x", ((1, -2), ("é",), "")), ("M", "x", "it's"), ("M", "x", "a\nb"),
        ("M", "x", 'say "hi"'), ("M", "x", "tab\there"), ("M", "x", 30000000000000000000),
    ]:  # fmt: skip
        assert _node_key(repr(key)) == (key[1], key[2])
    assert _plain_literal(repr(("M", "x", "it's"))) is _NOT_PLAIN  # written in double quotes: literal_eval's
    for text in ["('M', 'x', (1))", "('M', 'x', ( 1,))", "('M', 'x', (1,))", "('M', 'x', 1, )", "(1)", "()"]:
        assert _plain_literal(text) in (_NOT_PLAIN, ast.literal_eval(text))
        assert _node_key(text) == (lambda k: (k[1], k[2]) if isinstance(k, tuple) and len(k) == 3 else None)(
            ast.literal_eval(text)
        )
    # not plain (a newline within quotes, a leading zero, no parenthesis): as literal_eval reads it, if it does
    for text in ["('M', 'x', 007)", "('M', 'x', (1,,))", "('M', 'x'", "('M', 'x', 'a\nb')", "'M', 'x', 1"]:
        expected: object
        try:
            expected = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            expected = None
        found = _node_key(text)
        assert found == (None if not (isinstance(expected, tuple) and len(expected) == 3) else (expected[1], expected[2]))


def test_key_hashes_pack_into_three_bytes_each() -> None:
    from cartog_ci.store.dependency_format import pack_hashes, unpack_hashes

    hashes = [0, 1, 0xFF, 0x1234, 0xABCDEF, 0xFFFFFF]
    assert len(pack_hashes(hashes)) == 3 * len(hashes)
    assert unpack_hashes(pack_hashes(hashes)).tolist() == hashes


def _two_files_indexed(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose b.py imports and calls a.py's f, indexed: it and its index file."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def f():\n    pass\n", "b.py": "from a import f\n\n\ndef g():\n    f()\n"})
    commit(repo, "initial")
    index(repo)
    db = repo / ".cartog-ci" / "index.db"
    return repo, db


def test_an_index_recorded_in_three_tables_with_32_bit_keys_is_recorded_again(tmp_path: Path) -> None:
    """Migration m017: an index of m013's tables (key -> files, key ->
    nodes, node -> keys, 32-bit hashes) is converted on open with what it
    recorded dropped; its next run resolves every edge again, records it in
    ``dep_keys``, and equals a cold build."""
    repo, db = _two_files_indexed(tmp_path)
    with SqliteStore(db) as store:
        store.db.execute(
            "DROP TABLE dep_keys; DELETE FROM _migrations WHERE name = 'm017_dependency_keys';"
            "CREATE TABLE dep_index (key INTEGER PRIMARY KEY, files BLOB NOT NULL);"
            "CREATE TABLE dep_node_index (key INTEGER PRIMARY KEY, nodes BLOB NOT NULL);"
            "CREATE TABLE dep_nodes (node INTEGER PRIMARY KEY, keys BLOB NOT NULL);"
            "INSERT INTO dep_index VALUES (4000000000, x'01000000');"
            "INSERT INTO meta (key, value) VALUES ('deps', '1') ON CONFLICT (key) DO UPDATE SET value = '1'"
        )
    with SqliteStore(db) as store:
        tables = {str(n) for (n,) in store.db.execute("SELECT name FROM sqlite_schema WHERE name LIKE 'dep%'")}
        assert tables == {"dep_files", "dep_keys"}
        assert store.db.execute("SELECT count(*) FROM dep_files").fetchall() == [(0,)]
        assert store.get_meta("deps") is None
    write(repo, {"a.py": "def f():\n    pass\n\n\ndef f2():\n    pass\n"})
    assert index(repo).edges_resolved == 2  # every edge: b's import and call (a edits no edge)
    with SqliteStore(db) as store:
        assert store.get_meta("deps") == "3"
        assert store.db.execute("SELECT count(*) FROM dep_keys").fetchall() != [(0,)]
    assert_as_cold(repo, tmp_path)


def test_an_index_with_its_catalogue_in_one_text_is_recorded_again(tmp_path: Path) -> None:
    """DEPS_VERSION 2 kept the catalogue of nodes as one text in meta
    ``dep_nodes``: its next run resolves every edge again and stores the
    catalogue in parts, the number of parts where the text was."""
    repo, db = _two_files_indexed(tmp_path)
    with SqliteStore(db) as store:
        parts = {k: v for k, v in store.db.execute("SELECT key, value FROM meta WHERE key LIKE 'dep_nodes%'")}
        assert parts[Catalogue.META] == "1" and set(parts) == {"dep_nodes", "dep_nodes.0"}
        with store.transaction():
            store.set_meta("deps", "2")
            store.set_meta(Catalogue.META, "eJzLSM3JyVcozy/KSQEAGgQEXQ==")
            store.set_meta("dep_nodes.0", None)
    write(repo, {"a.py": "def f():\n    pass\n\n\ndef f2():\n    pass\n"})
    assert index(repo).edges_resolved == 2  # every edge: b's import and call (a edits no edge)
    with SqliteStore(db) as store:
        assert store.get_meta("deps") == "3"
        assert {k: v for k, v in store.db.execute("SELECT key, value FROM meta WHERE key LIKE 'dep_nodes%'")} == parts
    assert_as_cold(repo, tmp_path)
