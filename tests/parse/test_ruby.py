"""Ruby extraction and resolution on a real fixture repository: the exact
symbol set and the exact edge set, tier by tier.

`lib/` holds a namespace `Shop` reopened in every file (modules are kind
`trait`), a class hierarchy with a mixin, `self.` methods and constant-path
calls; `test/` holds a minitest case. Requires are star imports of files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.exact_sets import assert_edges_exact, assert_symbols_exact, edge_targets, indexed_graph

SYMBOLS = {
    ('lib/shop.rb', 'module', 'lib.shop', 1),
    ('lib/shop.rb', 'trait', 'Shop', 5),
    ('lib/shop.rb', 'constant', 'Shop.VERSION', 6),
    ('lib/shop.rb', 'method', 'Shop.checkout', 8),
    ('lib/shop/auditable.rb', 'trait', 'Shop', 1),
    ('lib/shop/auditable.rb', 'module', 'lib.shop.auditable', 1),
    ('lib/shop/auditable.rb', 'trait', 'Shop.Auditable', 3),
    ('lib/shop/auditable.rb', 'method', 'Shop.Auditable.audit', 4),
    ('lib/shop/auditable.rb', 'method', 'Shop.Auditable.log', 9),
    ('lib/shop/base.rb', 'trait', 'Shop', 1),
    ('lib/shop/base.rb', 'module', 'lib.shop.base', 1),
    ('lib/shop/base.rb', 'class', 'Shop.Base', 2),
    ('lib/shop/base.rb', 'method', 'Shop.Base.save', 3),
    ('lib/shop/base.rb', 'method', 'Shop.Base.validate', 8),
    ('lib/shop/base.rb', 'method', 'Shop.Base.persist', 12),
    ('lib/shop/order.rb', 'module', 'lib.shop.order', 1),
    ('lib/shop/order.rb', 'trait', 'Shop', 6),
    ('lib/shop/order.rb', 'class', 'Shop.Order', 8),
    ('lib/shop/order.rb', 'constant', 'Shop.Order.MAX_LINES', 11),
    ('lib/shop/order.rb', 'method', 'Shop.Order.build', 15),
    ('lib/shop/order.rb', 'method', 'Shop.Order.initialize', 19),
    ('lib/shop/order.rb', 'method', 'Shop.Order.add', 24),
    ('lib/shop/order.rb', 'method', 'Shop.Order.subtotal', 30),
    ('lib/shop/order.rb', 'method', 'Shop.Order.total', 34),
    ('lib/shop/order.rb', 'method', 'Shop.Order.save', 38),
    ('lib/shop/order.rb', 'method', 'Shop.Order.export', 43),
    ('lib/shop/pricing.rb', 'trait', 'Shop', 1),
    ('lib/shop/pricing.rb', 'module', 'lib.shop.pricing', 1),
    ('lib/shop/pricing.rb', 'trait', 'Shop.Pricing', 2),
    ('lib/shop/pricing.rb', 'class', 'Shop.Pricing.Tax', 3),
    ('lib/shop/pricing.rb', 'constant', 'Shop.Pricing.Tax.RATE', 4),
    ('lib/shop/pricing.rb', 'method', 'Shop.Pricing.Tax.apply', 6),
    ('test/order_test.rb', 'module', 'test.order_test', 1),
    ('test/order_test.rb', 'class', 'OrderTest', 4),
    ('test/order_test.rb', 'method', 'OrderTest.test_total', 5),
}
EDGES = {
    ('lib/shop.rb:module:lib.shop', 'lib/shop/order.rb:module:lib.shop.order', '*', 'imports', 'import'),
    ('lib/shop.rb:module:lib.shop', 'lib/shop/pricing.rb:module:lib.shop.pricing', '*', 'imports', 'import'),
    ('lib/shop.rb:method:Shop.checkout', 'lib/shop/order.rb:method:Shop.Order.build', 'build', 'calls', 'parent_scope'),
    ('lib/shop.rb:method:Shop.checkout', None, 'add', 'calls', None),
    ('lib/shop.rb:method:Shop.checkout', None, 'save', 'calls', None),
    ('lib/shop/auditable.rb:method:Shop.Auditable.audit', 'lib/shop/auditable.rb:method:Shop.Auditable.log', 'log', 'calls', 'parent_scope'),
    ('lib/shop/auditable.rb:method:Shop.Auditable.log', None, 'puts', 'calls', 'external'),
    ('lib/shop/base.rb:method:Shop.Base.save', 'lib/shop/base.rb:method:Shop.Base.validate', 'validate', 'calls', 'parent_scope'),
    ('lib/shop/order.rb:module:lib.shop.order', None, '*', 'imports', 'external'),
    ('lib/shop/order.rb:module:lib.shop.order', 'lib/shop/base.rb:module:lib.shop.base', '*', 'imports', 'import'),
    ('lib/shop/order.rb:module:lib.shop.order', 'lib/shop/auditable.rb:module:lib.shop.auditable', '*', 'imports', 'import'),
    ('lib/shop/order.rb:module:lib.shop.order', 'lib/shop/pricing.rb:module:lib.shop.pricing', '*', 'imports', 'import'),
    ('lib/shop/order.rb:class:Shop.Order', 'lib/shop/base.rb:class:Shop.Base', 'Base', 'inherits', 'parent_scope'),
    ('lib/shop/order.rb:class:Shop.Order', 'lib/shop/auditable.rb:trait:Shop.Auditable', 'Auditable', 'inherits', 'parent_scope'),
    ('lib/shop/order.rb:class:Shop.Order', None, 'attr_reader', 'calls', 'external'),
    ('lib/shop/order.rb:method:Shop.Order.add', None, 'ArgumentError', 'raises', 'external'),
    ('lib/shop/order.rb:method:Shop.Order.add', None, 'raise', 'calls', 'external'),
    ('lib/shop/order.rb:method:Shop.Order.add', None, 'size', 'calls', None),
    ('lib/shop/order.rb:method:Shop.Order.add', 'lib/shop/auditable.rb:method:Shop.Auditable.audit', 'audit', 'calls', 'parent_scope'),
    ('lib/shop/order.rb:method:Shop.Order.subtotal', None, 'sum', 'calls', None),
    ('lib/shop/order.rb:method:Shop.Order.total', 'lib/shop/pricing.rb:method:Shop.Pricing.Tax.apply', 'apply', 'calls', 'parent_scope'),
    ('lib/shop/order.rb:method:Shop.Order.save', 'lib/shop/base.rb:method:Shop.Base.validate', 'validate', 'calls', 'parent_scope'),
    ('lib/shop/order.rb:method:Shop.Order.export', None, 'serialize', 'calls', None),
    ('lib/shop/order.rb:method:Shop.Order.export', None, 'dump', 'calls', 'external'),
    ('test/order_test.rb:module:test.order_test', None, '*', 'imports', 'external'),
    ('test/order_test.rb:module:test.order_test', 'lib/shop.rb:module:lib.shop', '*', 'imports', 'import'),
    ('test/order_test.rb:class:OrderTest', None, 'Test', 'inherits', 'external'),
    ('test/order_test.rb:method:OrderTest.test_total', 'lib/shop/order.rb:method:Shop.Order.build', 'build', 'calls', 'unique'),
    ('test/order_test.rb:method:OrderTest.test_total', None, 'add', 'calls', None),
    ('test/order_test.rb:method:OrderTest.test_total', None, 'assert_equal', 'calls', None),
    ('test/order_test.rb:method:OrderTest.test_total', None, 'total', 'calls', None),
}


@pytest.fixture
def graph(tmp_path: Path) -> dict[str, object]:
    return indexed_graph(tmp_path, "rubyproj")


def test_ruby_symbols_exact(graph: dict[str, object]) -> None:
    assert_symbols_exact(graph, SYMBOLS)


def test_ruby_edges_exact(graph: dict[str, object]) -> None:
    assert_edges_exact(graph, EDGES)


def test_ruby_declarations(graph: dict[str, object]) -> None:
    kinds = {(s["file"], s["qualified_name"]): s["kind"] for s in graph["symbols"]}  # type: ignore[attr-defined]
    # a Ruby module is a `trait`: `module` is the one-per-file symbol
    assert kinds[("lib/shop/auditable.rb", "Shop.Auditable")] == "trait"
    assert kinds[("lib/shop/auditable.rb", "lib.shop.auditable")] == "module"
    # `def self.build` is a method of the class, qualified `Class.build`
    assert kinds[("lib/shop/order.rb", "Shop.Order.build")] == "method"
    assert kinds[("lib/shop/order.rb", "Shop.Order.MAX_LINES")] == "constant"


def test_ruby_resolution_cases(graph: dict[str, object]) -> None:
    edges = edge_targets(graph)
    order = "lib/shop/order.rb"
    # require_relative, relative to the file; `require "shop/pricing"` on the load path (lib/)
    imports = {
        (e["target_id"], e["resolution"])
        for e in graph["edges"]  # type: ignore[attr-defined]
        if e["kind"] == "imports" and e["file"] == order
    }
    assert imports == {
        ("lib/shop/base.rb:module:lib.shop.base", "import"),
        ("lib/shop/auditable.rb:module:lib.shop.auditable", "import"),
        ("lib/shop/pricing.rb:module:lib.shop.pricing", "import"),
        (None, "external"),  # require "json"
    }
    # superclass and mixin, found in the namespace `Shop` reopened in other files
    assert edges[(f"{order}:class:Shop.Order", "Base", "inherits")] == (
        "lib/shop/base.rb:class:Shop.Base", "parent_scope")
    assert edges[(f"{order}:class:Shop.Order", "Auditable", "inherits")] == (
        "lib/shop/auditable.rb:trait:Shop.Auditable", "parent_scope")
    # a call without receiver is a call on self: found through the included module
    assert edges[(f"{order}:method:Shop.Order.add", "audit", "calls")] == (
        "lib/shop/auditable.rb:method:Shop.Auditable.audit", "parent_scope")
    # self.validate -> the superclass's method
    assert edges[(f"{order}:method:Shop.Order.save", "validate", "calls")] == (
        "lib/shop/base.rb:method:Shop.Base.validate", "parent_scope")
    # constant path `Pricing::Tax.apply` from inside `module Shop`
    assert edges[(f"{order}:method:Shop.Order.total", "apply", "calls")] == (
        "lib/shop/pricing.rb:method:Shop.Pricing.Tax.apply", "parent_scope")
    # a full constant path `Shop::Order.build` from outside the namespace
    assert edges[("test/order_test.rb:method:OrderTest.test_total", "build", "calls")] == (
        f"{order}:method:Shop.Order.build", "unique")
    # a bare identifier statement that is not the last one is a call...
    assert edges[("lib/shop/base.rb:method:Shop.Base.save", "validate", "calls")] == (
        "lib/shop/base.rb:method:Shop.Base.validate", "parent_scope")
    # ...the last one may be the return value (a local variable): not an edge
    assert ("lib/shop/base.rb:method:Shop.Base.save", "persist", "calls") not in edges
    assert ("lib/shop.rb:method:Shop.checkout", "order", "calls") not in edges
    # Kernel methods and core classes are external
    assert edges[("lib/shop/auditable.rb:method:Shop.Auditable.log", "puts", "calls")] == (None, "external")
    assert edges[(f"{order}:method:Shop.Order.add", "ArgumentError", "raises")] == (None, "external")
    # a call on a local variable is not guessed from the only `def total`:
    # Ruby methods are often never `def`ined (attr_*, ActiveRecord, method_missing)
    assert edges[("test/order_test.rb:method:OrderTest.test_total", "total", "calls")] == (None, None)
    assert edges[("lib/shop.rb:method:Shop.checkout", "save", "calls")] == (None, None)
    # a call on self that nothing defines: unresolved
    assert edges[(f"{order}:method:Shop.Order.export", "serialize", "calls")] == (None, None)
    # a constant the project defines nowhere (a gem's): external, never guessed
    assert edges[(f"{order}:method:Shop.Order.export", "dump", "calls")] == (None, "external")
