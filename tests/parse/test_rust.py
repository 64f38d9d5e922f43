"""Rust extraction and resolution on a real fixture crate (Cargo.toml,
lib.rs + main.rs, modules in files, in `mod.rs` and inline): the exact
symbol set and the exact edge set, tier by tier, then the cases that make
Rust different, by name."""

from __future__ import annotations

from pathlib import Path

import tree_sitter as ts

from cartog_ci.languages import LANGUAGES, extract
from cartog_ci.languages.rust import decode
from tests.testing.exact_sets import (
    assert_edges_exact,
    assert_symbols_exact,
    edge_targets,
    indexed_graph,
)
from tests.testing.fixtures import RESOURCES

SYMBOLS = {
    ('src/lib.rs', 'module', 'src.lib', 1),
    ('src/lib.rs', 'constant', 'MAX_ITEMS', 11),
    ('src/lib.rs', 'function', 'run', 14),
    ('src/lib.rs', 'namespace', 'helpers', 30),
    ('src/lib.rs', 'function', 'helpers.shout', 31),
    ('src/lib.rs', 'namespace', 'tests', 37),
    ('src/lib.rs', 'function', 'tests.run_counts_items', 41),
    ('src/main.rs', 'module', 'src.main', 1),
    ('src/main.rs', 'function', 'main', 4),
    ('src/model/mod.rs', 'module', 'src.model', 1),
    ('src/model/mod.rs', 'struct', 'Item', 8),
    ('src/model/mod.rs', 'method', 'Item.new', 14),
    ('src/model/order.rs', 'module', 'src.model.order', 1),
    ('src/model/order.rs', 'trait', 'Priced', 5),
    ('src/model/order.rs', 'method', 'Priced.price', 6),
    ('src/model/order.rs', 'method', 'Priced.describe', 8),
    ('src/model/order.rs', 'struct', 'Order', 15),
    ('src/model/order.rs', 'method', 'Order.new', 20),
    ('src/model/order.rs', 'method', 'Order.add', 24),
    ('src/model/order.rs', 'method', 'Order.label', 28),
    ('src/model/order.rs', 'method', 'Order.total', 33),
    ('src/model/order.rs', 'method', 'Order.is_empty', 37),
    ('src/model/order.rs', 'method', 'Order.price', 43),
    ('src/report.rs', 'module', 'src.report', 1),
    ('src/report.rs', 'method', 'Order.summary', 6),
    ('src/report.rs', 'method', 'Order.count', 11),
    ('src/report.rs', 'function', 'print_summary', 16),
    ('src/store.rs', 'module', 'src.store', 1),
    ('src/store.rs', 'function', 'normalize', 4),
    ('src/store.rs', 'trait', 'Store', 8),
    ('src/store.rs', 'method', 'Store.put', 9),
    ('src/store.rs', 'struct', 'MemoryStore', 13),
    ('src/store.rs', 'method', 'MemoryStore.new', 18),
    ('src/store.rs', 'method', 'MemoryStore.put', 24),
    ('src/store.rs', 'function', 'save_all', 29),
    ('src/util.rs', 'module', 'src.util', 1),
    ('src/util.rs', 'function', 'normalize', 2),
    ('src/util.rs', 'function', 'weigh', 14),
    ('tools/xtask/src/main.rs', 'module', 'tools.xtask.src.main', 1),
    ('tools/xtask/src/main.rs', 'type', 'Weight', 2),
    ('tools/xtask/src/main.rs', 'function', 'main', 4),
}
EDGES = {
    ('src/lib.rs:module:src.lib', 'src/model/mod.rs:module:src.model', 'self::model', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/report.rs:module:src.report', 'self::report', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/store.rs:module:src.store', 'self::store', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/util.rs:module:src.util', 'self::util', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/model/mod.rs:struct:Item', 'Item', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/model/order.rs:struct:Order', 'Order', 'imports', 'import'),
    ('src/lib.rs:module:src.lib', 'src/store.rs:module:src.store', '*', 'imports', 'import'),
    ('src/lib.rs:function:run', 'src/model/order.rs:method:Order.new', 'new', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/model/order.rs:method:Order.is_empty', 'is_empty', 'calls', 'import'),  # let mut order = Ord::new()
    ('src/lib.rs:function:run', 'src/model/order.rs:method:Order.add', 'add', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/model/mod.rs:method:Item.new', 'new', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/store.rs:method:MemoryStore.new', 'new', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/store.rs:function:save_all', 'save_all', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/util.rs:function:normalize', 'normalize', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/util.rs:function:weigh', 'weigh', 'calls', 'import'),
    ('src/lib.rs:function:run', 'src/lib.rs:function:helpers.shout', 'shout', 'calls', 'same_file'),
    ('src/lib.rs:function:run', None, 'len', 'calls', None),
    ('src/lib.rs:function:run', None, 'log', 'calls', None),
    ('src/lib.rs:function:run', 'src/model/order.rs:method:Order.total', 'total', 'calls', 'import'),
    ('src/lib.rs:function:helpers.shout', None, 'String', 'references', 'external'),
    ('src/lib.rs:function:helpers.shout', 'src/util.rs:function:normalize', 'normalize', 'calls', 'import'),
    # `normalize(s).to_uppercase()` with `fn normalize(..) -> String`: std's
    ('src/lib.rs:function:helpers.shout', None, 'to_uppercase', 'calls', 'external'),
    ('src/lib.rs:module:src.lib', 'src/lib.rs:module:src.lib', '*', 'imports', 'import'),
    ('src/lib.rs:function:tests.run_counts_items', 'src/lib.rs:function:run', 'run', 'calls', 'same_file'),
    ('src/main.rs:module:src.main', 'src/model/mod.rs:struct:Item', 'Item', 'imports', 'import'),
    ('src/main.rs:module:src.main', 'src/lib.rs:function:run', 'run', 'imports', 'import'),
    ('src/main.rs:function:main', 'src/model/mod.rs:method:Item.new', 'new', 'calls', 'import'),
    ('src/main.rs:function:main', 'src/lib.rs:function:run', 'run', 'calls', 'import'),
    ('src/model/mod.rs:module:src.model', 'src/model/order.rs:module:src.model.order', 'self::order', 'imports', 'import'),
    ('src/model/mod.rs:module:src.model', 'src/model/order.rs:struct:Order', 'Order', 'imports', 'import'),
    ('src/model/mod.rs:module:src.model', 'src/model/order.rs:trait:Priced', 'Priced', 'imports', 'import'),
    ('src/model/mod.rs:struct:Item', None, 'String', 'references', 'external'),
    ('src/model/mod.rs:method:Item.new', None, 'to_string', 'calls', 'external'),
    ('src/model/mod.rs:method:Item.new', 'src/model/mod.rs:struct:Item', 'Item', 'references', 'same_file'),
    ('src/model/order.rs:module:src.model.order', 'src/model/mod.rs:struct:Item', 'Item', 'imports', 'import'),
    ('src/model/order.rs:module:src.model.order', 'src/util.rs:function:normalize', 'normalize', 'imports', 'import'),
    ('src/model/order.rs:method:Priced.describe', None, 'String', 'references', 'external'),
    ('src/model/order.rs:method:Priced.describe', 'src/model/order.rs:method:Priced.price', 'price', 'calls', 'parent_scope'),
    # `self.price()` in a provided method: what each impl runs (graph.py dispatch_edges)
    ('src/model/order.rs:method:Priced.describe', 'src/model/order.rs:method:Order.price', 'price', 'calls', 'dispatch'),
    ('src/model/order.rs:struct:Order', 'src/model/mod.rs:struct:Item', 'Item', 'references', 'import'),
    ('src/model/order.rs:struct:Order', None, 'Vec', 'references', 'external'),
    ('src/model/order.rs:method:Order.new', None, 'default', 'calls', None),
    ('src/model/order.rs:method:Order.add', 'src/model/mod.rs:struct:Item', 'Item', 'references', 'import'),
    ('src/model/order.rs:method:Order.add', None, 'push', 'calls', 'external'),  # self.items: Vec<Item>
    ('src/model/order.rs:method:Order.label', None, 'String', 'references', 'external'),
    ('src/model/order.rs:method:Order.label', None, 'collect', 'calls', None),
    ('src/model/order.rs:method:Order.label', None, 'iter', 'calls', 'external'),
    ('src/model/order.rs:method:Order.label', None, 'map', 'calls', None),
    ('src/model/order.rs:method:Order.label', 'src/util.rs:function:normalize', 'norm', 'calls', 'import'),
    ('src/model/order.rs:method:Order.label', None, 'Vec', 'references', 'external'),
    ('src/model/order.rs:method:Order.label', None, 'join', 'calls', 'external'),  # let names: Vec<String>
    ('src/model/order.rs:method:Order.total', 'src/model/order.rs:method:Order.price', 'price', 'calls', 'parent_scope'),
    ('src/model/order.rs:method:Order.is_empty', None, 'is_empty', 'calls', 'external'),
    ('src/model/order.rs:struct:Order', 'src/model/order.rs:trait:Priced', 'Priced', 'inherits', 'same_file'),
    ('src/model/order.rs:method:Order.price', None, 'iter', 'calls', 'external'),
    ('src/model/order.rs:method:Order.price', None, 'map', 'calls', None),
    ('src/model/order.rs:method:Order.price', None, 'sum', 'calls', None),
    ('src/report.rs:module:src.report', 'src/model/order.rs:struct:Order', 'Order', 'imports', 'import'),
    ('src/report.rs:method:Order.summary', None, 'String', 'references', 'external'),
    ('src/report.rs:method:Order.summary', 'src/report.rs:method:Order.count', 'count', 'calls', 'parent_scope'),
    ('src/report.rs:method:Order.count', 'src/model/order.rs:method:Order.total', 'total', 'calls', 'parent_scope'),
    ('src/report.rs:function:print_summary', 'src/model/order.rs:struct:Order', 'Order', 'references', 'import'),
    ('src/report.rs:function:print_summary', None, 'String', 'references', 'external'),
    ('src/report.rs:function:print_summary', 'src/util.rs:function:normalize', 'normalize', 'calls', 'import'),
    ('src/report.rs:function:print_summary', 'src/report.rs:method:Order.summary', 'summary', 'calls', 'import'),
    ('src/store.rs:module:src.store', 'src/model/order.rs:struct:Order', 'Order', 'imports', 'import'),
    ('src/store.rs:function:normalize', None, 'String', 'references', 'external'),
    ('src/store.rs:function:normalize', None, 'replace', 'calls', 'external'),
    ('src/store.rs:method:Store.put', None, 'String', 'references', 'external'),
    ('src/store.rs:struct:MemoryStore', None, 'Vec', 'references', 'external'),
    ('src/store.rs:method:MemoryStore.new', None, 'default', 'calls', None),
    ('src/store.rs:struct:MemoryStore', 'src/store.rs:trait:Store', 'Store', 'inherits', 'same_file'),
    ('src/store.rs:method:MemoryStore.put', None, 'String', 'references', 'external'),
    ('src/store.rs:method:MemoryStore.put', 'src/store.rs:function:normalize', 'normalize', 'calls', 'same_file'),
    ('src/store.rs:method:MemoryStore.put', None, 'push', 'calls', 'external'),
    ('src/store.rs:function:save_all', 'src/model/order.rs:struct:Order', 'Order', 'references', 'import'),
    ('src/store.rs:function:save_all', 'src/store.rs:trait:Store', 'Store', 'references', 'same_file'),
    ('src/store.rs:function:save_all', 'src/model/order.rs:method:Order.label', 'label', 'calls', 'import'),
    ('src/store.rs:function:save_all', 'src/store.rs:method:Store.put', 'put', 'calls', 'same_file'),
    ('src/store.rs:function:save_all', 'src/store.rs:method:MemoryStore.put', 'put', 'calls', 'dispatch'),
    ('src/store.rs:function:save_all', 'src/model/order.rs:method:Order.total', 'total', 'calls', 'import'),
    ('src/util.rs:function:normalize', None, 'String', 'references', 'external'),
    ('src/util.rs:function:normalize', None, 'to_lowercase', 'calls', 'external'),
    ('src/util.rs:function:normalize', None, 'trim', 'calls', 'external'),
    ('src/util.rs:function:weigh', None, 'Weight', 'references', None),
    ('tools/xtask/src/main.rs:function:main', 'tools/xtask/src/main.rs:type:Weight', 'Weight', 'references', 'same_file'),
}


def test_rust_symbols_exact(tmp_path: Path) -> None:
    assert_symbols_exact(indexed_graph(tmp_path, "rustproj"), SYMBOLS)


def test_rust_edges_exact(tmp_path: Path) -> None:
    assert_edges_exact(indexed_graph(tmp_path, "rustproj"), EDGES)


def test_rust_resolution_cases(tmp_path: Path) -> None:
    graph = indexed_graph(tmp_path, "rustproj")
    edges = edge_targets(graph)
    run = "src/lib.rs:function:run"
    # `Ord::new()` with `use crate::model::{Item, Order as Ord}` (alias in a
    # group, through model/mod.rs's `pub use order::{Order, ..}`),
    # `Item::new()`, and `MemoryStore::new()` from the glob `use store::*`
    news = {(e["target_id"], e["resolution"]) for e in graph["edges"]
            if e["source_id"] == run and e["target_name"] == "new"}
    assert news == {
        ("src/model/order.rs:method:Order.new", "import"),
        ("src/model/mod.rs:method:Item.new", "import"),
        ("src/store.rs:method:MemoryStore.new", "import"),
    }
    assert edges[("src/lib.rs:module:src.lib", "Order", "imports")] == (
        "src/model/order.rs:struct:Order", "import")
    # glob `use store::*`
    assert edges[(run, "save_all", "calls")] == ("src/store.rs:function:save_all", "import")
    # `normalize` is defined twice: `mod util;`, `use ... as norm`, `crate::`
    # and `super::` paths each pick util.rs; store.rs's own call stays local
    util = "src/util.rs:function:normalize"
    assert edges[(run, "normalize", "calls")] == (util, "import")
    assert edges[("src/model/order.rs:method:Order.label", "norm", "calls")] == (util, "import")
    assert edges[("src/lib.rs:function:helpers.shout", "normalize", "calls")] == (util, "import")
    assert edges[("src/report.rs:function:print_summary", "normalize", "calls")] == (util, "import")
    assert edges[("src/store.rs:method:MemoryStore.put", "normalize", "calls")] == (
        "src/store.rs:function:normalize", "same_file")
    # an inline module: `helpers::shout()`
    assert edges[(run, "shout", "calls")] == ("src/lib.rs:function:helpers.shout", "same_file")
    # `impl Priced for Order`: the type inherits the trait; `self.price()`
    # finds the impl's method, adopted by the struct
    assert edges[("src/model/order.rs:struct:Order", "Priced", "inherits")] == (
        "src/model/order.rs:trait:Priced", "same_file")
    assert edges[("src/model/order.rs:method:Order.total", "price", "calls")] == (
        "src/model/order.rs:method:Order.price", "parent_scope")
    # an `impl Order` block in another module: `self.total()` is Order's
    assert edges[("src/report.rs:method:Order.count", "total", "calls")] == (
        "src/model/order.rs:method:Order.total", "parent_scope")
    assert edges[("src/report.rs:method:Order.summary", "count", "calls")] == (
        "src/report.rs:method:Order.count", "parent_scope")
    # the test inside `#[cfg(test)] mod tests` (`use super::*`), and a call
    # written as a macro argument: `assert_eq!(run(), 2)`
    assert edges[("src/lib.rs:function:tests.run_counts_items", "run", "calls")] == (run, "same_file")
    # main.rs reaches the library by its crate name (Cargo.toml)
    assert edges[("src/main.rs:function:main", "run", "calls")] == (run, "import")
    # a guess stays in its Cargo package: `Weight` is defined by a macro
    # (invisible), and tools/xtask's `Weight` is another package's
    assert edges[("src/util.rs:function:weigh", "Weight", "references")] == (None, None)
    assert edges[("tools/xtask/src/main.rs:function:main", "Weight", "references")] == (
        "tools/xtask/src/main.rs:type:Weight", "same_file")
    # `is_empty` is an everyday std method: `x.is_empty()` is never guessed
    # to be the project's one `Order.is_empty`; here `order` is an `Ord::new()`
    assert edges[(run, "is_empty", "calls")] == ("src/model/order.rs:method:Order.is_empty", "import")
    # a closure is no project function; `Self::default()` is derived
    assert edges[(run, "log", "calls")] == (None, None)
    assert edges[("src/store.rs:method:MemoryStore.new", "default", "calls")] == (None, None)
    # calls on parameters go through their declared type: `store: &mut dyn
    # Store` reaches the trait's method, `order: &Order` the struct's, and
    # `key: &str` is external rather than a guess
    save_all = "src/store.rs:function:save_all"
    assert edges[(save_all, "put", "calls")] == ("src/store.rs:method:Store.put", "same_file")
    assert edges[(save_all, "total", "calls")] == ("src/model/order.rs:method:Order.total", "import")
    assert edges[("src/store.rs:function:normalize", "replace", "calls")] == (None, "external")


def test_rust_attributes_and_docs() -> None:
    source = (RESOURCES / "rustproj" / "src" / "lib.rs").read_bytes()
    symbols = {s.qualified_name: s for s in extract("src/lib.rs", source, "rust").symbols}
    assert symbols["tests"].kind == "namespace"  # "module" is the file
    assert symbols["tests"].decorators == ("#[cfg(test)]",)
    assert symbols["tests.run_counts_items"].decorators == ("#[test]",)
    assert symbols["run"].docstring == "Builds an order, stores it, returns its total."
    model = (RESOURCES / "rustproj" / "src" / "model" / "mod.rs").read_bytes()
    item = {s.qualified_name: s for s in extract("src/model/mod.rs", model, "rust").symbols}["Item"]
    # the doc comment is found across the attribute between it and the item
    assert item.decorators == ("#[derive(Debug, Clone)]",)
    assert item.docstring == "One line of an order."


def _uses(code: str) -> list[tuple[str, str, str | None]]:
    tree = ts.Parser(LANGUAGES["rust"].syntax.grammar).parse(code.encode())
    out: list[tuple[str, str, str | None]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "use_declaration" or node.type == "mod_item" and node.child_by_field_name("body") is None:
            out += decode(node)
        stack.extend(reversed(node.named_children))
    return out


def test_rust_use_decoding() -> None:
    assert _uses("use crate::a::{b, c as d, e::{self, f}};") == [
        ("crate::a", "b", None),
        ("crate::a", "c", "d"),
        ("crate::a::e", "crate::a::e", "e"),
        ("crate::a::e", "f", None),
    ]
    assert _uses("use super::x::*; use std::fmt; use ::dep::Thing as T;") == [
        ("super::x", "*", None),
        ("std", "fmt", None),
        ("dep", "Thing", "T"),
    ]
    # inside inline modules: `super` leaves them first; `mod b;` is a file a/b.rs
    assert _uses("mod tests { use super::*; use super::super::y::Z; }") == [
        ("self", "*", None),
        ("super::y", "Z", None),
    ]
    assert _uses("mod a { mod b; }") == [("self::a::b", "self::a::b", "b")]


def test_a_parameter_renamed_breaks_no_caller() -> None:
    """Rust passes arguments by position: a parameter's pattern (its name,
    `mut`) is no part of what callers see (anyhow 1.0.69 -> 1.0.95: `pub fn
    Ok<T>(t: T)` -> `(value: T)` was called breaking); its type, `&self`
    against `&mut self`, the generics and the result still are."""
    from cartog_ci.languages import signature_verdict

    def signature(source: str) -> str:
        return next(s for s in extract("src/lib.rs", source.encode(), "rust").symbols if s.kind in ("function", "method")).signature

    before = signature("pub fn ok<T>(t: T) -> Result<T, ()> {\n    Ok(t)\n}\n")
    for after, verdict in (
        ("pub fn ok<T>(value: T) -> Result<T, ()> {\n    Ok(value)\n}\n", ""),
        ("pub fn ok<T>(mut value: T) -> Result<T, ()> {\n    Ok(value)\n}\n", ""),
        ("pub fn ok<T: Clone>(value: T) -> Result<T, ()> {\n    Ok(value)\n}\n", "breaking"),
        ("pub fn ok<T>(value: &T) -> Result<&T, ()> {\n    Ok(value)\n}\n", "breaking"),
    ):
        assert signature_verdict(before, signature(after), "rust") == verdict, after
    method = "struct S;\nimpl S {\n    pub fn f(&self, (a, b): (u8, u8)) -> u8 {\n        a + b\n    }\n}\n"
    assert signature_verdict(signature(method), signature(method.replace("(a, b)", "(x, y)").replace("a + b", "x + y")), "rust") == ""
    assert signature_verdict(signature(method), signature(method.replace("&self", "&mut self")), "rust") == "breaking"


def test_a_type_written_another_way_breaks_no_caller() -> None:
    """either 1.6.1 -> 1.13.0 (Debian librust-either-dev) rewrote types
    without changing them, and each was called a breaking signature change:
    `where R: std::fmt::Debug` -> `core::fmt::Debug`, `&mut Vec<u8>` ->
    `&mut std::vec::Vec<u8>`, `Option<&Error>` -> `Option<&dyn Error>`,
    `&mut fmt::Formatter` -> `&mut fmt::Formatter<'_>`. Another type, a
    lifetime bound of a trait object, or a named lifetime still is one."""
    from cartog_ci.languages import signature_verdict

    def signature(source: str) -> str:
        return next(s for s in extract("src/lib.rs", source.encode(), "rust").symbols if s.kind in ("function", "method")).signature

    for before, after, verdict in (
        ("pub fn f<R>(r: R) -> u8 where R: std::fmt::Debug,", "pub fn f<R>(r: R) -> u8 where R: core::fmt::Debug,", ""),
        ("fn f(buf: &mut Vec<u8>) -> usize", "fn f(buf: &mut std::vec::Vec<u8>) -> usize", ""),
        ("fn f(s: alloc::string::String) -> Box<u8>", "fn f(s: String) -> ::std::boxed::Box<u8>", ""),
        ("fn f(&self) -> Option<&Error>", "fn f(&self) -> Option<&dyn Error>", ""),
        ("fn f(&self, f: &mut fmt::Formatter) -> fmt::Result", "fn f(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result", ""),
        ("fn f(x: &u8, y: Foo<'_, u8>) -> u8", "fn f(x: &'_ u8, y: Foo<u8>) -> u8", ""),
        ("fn f(x: std::fmt::Result) -> u8", "fn f(x: std::io::Result) -> u8", "breaking"),
        ("fn f(x: Vec<u8>) -> u8", "fn f(x: my::Vec<u8>) -> u8", "breaking"),
        ("fn f(x: Box<dyn Error>) -> u8", "fn f(x: Box<dyn Error + '_>) -> u8", "breaking"),
        ("fn f<'a>(x: &'a u8) -> &'a u8", "fn f<'a>(x: &'a u8) -> &'static u8", "breaking"),
    ):
        assert signature_verdict(signature(before + " {\n    0\n}\n"), signature(after + " {\n    0\n}\n"), "rust") == verdict, after
