"""Java extraction and resolution on a real fixture repository: the exact
symbol set and the exact edge set, tier by tier.

Two packages (`com.shop.model`, `com.shop.util`) plus `com.shop.legacy`
(a second `Text` with the same methods, so only the import can decide) and
`com.shop.app` (on-demand and static imports); a test class in the same
package as the model but under `src/test/java`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.exact_sets import (
    assert_edges_exact,
    assert_symbols_exact,
    edge_targets,
    indexed_repo,
    stored_symbols,
)
from tests.testing.fixtures import exported

M = "src/main/java/com/shop/"
T = "src/test/java/com/shop/"

SYMBOLS = {
    (M + 'app/Main.java', 'module', 'src.main.java.com.shop.app.Main', 1),
    (M + 'app/Main.java', 'class', 'Main', 7),
    (M + 'app/Main.java', 'method', 'Main.main', 8),
    (M + 'app/Main.java', 'method', 'Main.audit', 17),
    (M + 'legacy/Text.java', 'module', 'src.main.java.com.shop.legacy.Text', 1),
    (M + 'legacy/Text.java', 'class', 'Text', 3),
    (M + 'legacy/Text.java', 'method', 'Text.slug', 4),
    (M + 'legacy/Text.java', 'method', 'Text.normalize', 8),
    (M + 'model/Entity.java', 'module', 'src.main.java.com.shop.model.Entity', 1),
    (M + 'model/Entity.java', 'class', 'Entity', 3),
    (M + 'model/Entity.java', 'method', 'Entity.<init>', 6),
    (M + 'model/Entity.java', 'method', 'Entity.id', 10),
    (M + 'model/Entity.java', 'method', 'Entity.save', 15),
    (M + 'model/Entity.java', 'method', 'Entity.validate', 19),
    (M + 'model/Identifiable.java', 'module', 'src.main.java.com.shop.model.Identifiable', 1),
    (M + 'model/Identifiable.java', 'interface', 'Identifiable', 3),
    (M + 'model/Identifiable.java', 'method', 'Identifiable.id', 4),
    (M + 'model/Money.java', 'module', 'src.main.java.com.shop.model.Money', 1),
    (M + 'model/Money.java', 'class', 'Money', 3),
    (M + 'model/Money.java', 'method', 'Money.<init>', 4),
    (M + 'model/Money.java', 'method', 'Money.zero', 10),
    (M + 'model/Money.java', 'method', 'Money.plus', 14),
    (M + 'model/Money.java', 'method', 'Money.times', 18),
    (M + 'model/Order.java', 'module', 'src.main.java.com.shop.model.Order', 1),
    (M + 'model/Order.java', 'class', 'Order', 8),
    (M + 'model/Order.java', 'constant', 'Order.MAX_LINES', 9),
    (M + 'model/Order.java', 'method', 'Order.<init>', 13),
    (M + 'model/Order.java', 'method', 'Order.add', 17),
    (M + 'model/Order.java', 'method', 'Order.total', 24),
    (M + 'model/Order.java', 'method', 'Order.save', 32),
    (M + 'model/Order.java', 'method', 'Order.reference', 39),
    (M + 'model/Order.java', 'class', 'Order.Line', 44),
    (M + 'model/Order.java', 'method', 'Order.Line.<init>', 48),
    (M + 'model/Order.java', 'method', 'Order.Line.amount', 53),
    (M + 'model/Status.java', 'module', 'src.main.java.com.shop.model.Status', 1),
    (M + 'model/Status.java', 'enum', 'Status', 3),
    (M + 'model/Status.java', 'constant', 'Status.OPEN', 4),
    (M + 'model/Status.java', 'constant', 'Status.PAID', 5),
    (M + 'model/Status.java', 'method', 'Status.isFinal', 7),
    (M + 'util/Text.java', 'module', 'src.main.java.com.shop.util.Text', 1),
    (M + 'util/Text.java', 'class', 'Text', 3),
    (M + 'util/Text.java', 'constant', 'Text.MAX_LENGTH', 4),
    (M + 'util/Text.java', 'method', 'Text.<init>', 6),
    (M + 'util/Text.java', 'method', 'Text.slug', 9),
    (M + 'util/Text.java', 'method', 'Text.normalize', 13),
    (T + 'model/OrderTest.java', 'module', 'src.test.java.com.shop.model.OrderTest', 1),
    (T + 'model/OrderTest.java', 'class', 'OrderTest', 7),
    (T + 'model/OrderTest.java', 'method', 'OrderTest.totalAddsLines', 8),
}
EDGES = {
    (M + 'app/Main.java:module:src.main.java.com.shop.app.Main', M + 'util/Text.java:method:Text.slug', 'Text.slug', 'imports', 'import'),
    (M + 'app/Main.java:module:src.main.java.com.shop.app.Main', M + 'model/Entity.java:module:src.main.java.com.shop.model.Entity', '*', 'imports', 'import'),
    (M + 'app/Main.java:method:Main.main', None, 'String', 'references', 'external'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:class:Order', 'Order', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:class:Order', 'Order', 'references', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:class:Order.Line', 'Line', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:method:Order.add', 'add', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Money.java:method:Money.zero', 'zero', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:method:Order.save', 'save', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', None, 'println', 'calls', 'external'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Order.java:method:Order.reference', 'reference', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'util/Text.java:method:Text.slug', 'slug', 'calls', 'import'),
    (M + 'app/Main.java:method:Main.main', M + 'app/Main.java:method:Main.audit', 'audit', 'calls', 'parent_scope'),
    (M + 'app/Main.java:method:Main.main', M + 'model/Status.java:enum:Status', 'Status', 'references', 'import'),
    (M + 'app/Main.java:method:Main.audit', M + 'model/Order.java:class:Order', 'Order', 'references', 'import'),
    (M + 'app/Main.java:method:Main.audit', None, 'unknownHelper', 'calls', None),
    (M + 'legacy/Text.java:method:Text.slug', None, 'String', 'references', 'external'),
    (M + 'legacy/Text.java:method:Text.slug', None, 'String', 'references', 'external'),
    (M + 'legacy/Text.java:method:Text.normalize', None, 'String', 'references', 'external'),
    (M + 'legacy/Text.java:method:Text.normalize', None, 'String', 'references', 'external'),
    (M + 'model/Entity.java:class:Entity', M + 'model/Identifiable.java:interface:Identifiable', 'Identifiable', 'inherits', 'same_dir'),
    (M + 'model/Entity.java:class:Entity', None, 'String', 'references', 'external'),
    (M + 'model/Entity.java:method:Entity.<init>', None, 'String', 'references', 'external'),
    (M + 'model/Entity.java:method:Entity.id', None, 'Override', 'references', 'external'),
    (M + 'model/Entity.java:method:Entity.id', None, 'String', 'references', 'external'),
    (M + 'model/Entity.java:method:Entity.save', M + 'model/Entity.java:method:Entity.validate', 'validate', 'calls', 'parent_scope'),
    (M + 'model/Identifiable.java:method:Identifiable.id', None, 'String', 'references', 'external'),
    (M + 'model/Money.java:class:Money', None, 'String', 'references', 'external'),
    (M + 'model/Money.java:method:Money.<init>', None, 'IllegalArgumentException', 'calls', 'external'),
    (M + 'model/Money.java:method:Money.<init>', None, 'IllegalArgumentException', 'raises', 'external'),
    (M + 'model/Money.java:method:Money.zero', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_file'),
    (M + 'model/Money.java:method:Money.zero', M + 'model/Money.java:class:Money', 'Money', 'calls', 'same_file'),
    (M + 'model/Money.java:method:Money.plus', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_file'),
    (M + 'model/Money.java:method:Money.plus', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_file'),
    (M + 'model/Money.java:method:Money.plus', M + 'model/Money.java:class:Money', 'Money', 'calls', 'same_file'),
    (M + 'model/Money.java:method:Money.times', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_file'),
    (M + 'model/Money.java:method:Money.times', M + 'model/Money.java:class:Money', 'Money', 'calls', 'same_file'),
    (M + 'model/Order.java:module:src.main.java.com.shop.model.Order', M + 'util/Text.java:class:Text', 'Text', 'imports', 'import'),
    (M + 'model/Order.java:module:src.main.java.com.shop.model.Order', None, 'ArrayList', 'imports', 'external'),
    (M + 'model/Order.java:module:src.main.java.com.shop.model.Order', None, 'List', 'imports', 'external'),
    (M + 'model/Order.java:class:Order', M + 'model/Entity.java:class:Entity', 'Entity', 'inherits', 'same_dir'),
    (M + 'model/Order.java:class:Order', None, 'ArrayList', 'calls', 'external'),
    (M + 'model/Order.java:class:Order', M + 'model/Order.java:class:Order.Line', 'Line', 'references', 'parent_scope'),
    (M + 'model/Order.java:class:Order', None, 'List', 'references', 'external'),
    (M + 'model/Order.java:class:Order', M + 'model/Status.java:enum:Status', 'Status', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.<init>', None, 'String', 'references', 'external'),
    (M + 'model/Order.java:method:Order.<init>', M + 'model/Entity.java:method:Entity.<init>', '<init>', 'calls', 'parent_scope'),
    (M + 'model/Order.java:method:Order.add', M + 'model/Order.java:class:Order.Line', 'Line', 'references', 'parent_scope'),
    (M + 'model/Order.java:method:Order.add', None, 'size', 'calls', 'external'),
    (M + 'model/Order.java:method:Order.add', None, 'IllegalStateException', 'calls', 'external'),
    (M + 'model/Order.java:method:Order.add', None, 'IllegalStateException', 'raises', 'external'),
    (M + 'model/Order.java:method:Order.add', None, 'add', 'calls', 'external'),
    (M + 'model/Order.java:method:Order.total', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.total', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.total', M + 'model/Money.java:method:Money.zero', 'zero', 'calls', 'same_dir'),
    (M + 'model/Order.java:method:Order.total', M + 'model/Order.java:class:Order.Line', 'Line', 'references', 'parent_scope'),
    # `for (Line line : lines) line.amount()`: typed by the for-each variable
    (M + 'model/Order.java:method:Order.total', M + 'model/Order.java:method:Order.Line.amount', 'amount', 'calls', 'parent_scope'),
    (M + 'model/Order.java:method:Order.total', M + 'model/Money.java:method:Money.plus', 'plus', 'calls', 'same_dir'),
    (M + 'model/Order.java:method:Order.save', None, 'Override', 'references', 'external'),
    (M + 'model/Order.java:method:Order.save', M + 'model/Entity.java:method:Entity.validate', 'validate', 'calls', 'parent_scope'),
    (M + 'model/Order.java:method:Order.save', M + 'model/Entity.java:method:Entity.save', 'save', 'calls', 'parent_scope'),
    (M + 'model/Order.java:method:Order.reference', None, 'String', 'references', 'external'),
    (M + 'model/Order.java:method:Order.reference', M + 'model/Entity.java:method:Entity.id', 'id', 'calls', 'parent_scope'),
    (M + 'model/Order.java:method:Order.reference', M + 'util/Text.java:method:Text.slug', 'slug', 'calls', 'import'),
    (M + 'model/Order.java:class:Order.Line', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.Line.<init>', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.Line.amount', M + 'model/Money.java:class:Money', 'Money', 'references', 'same_dir'),
    (M + 'model/Order.java:method:Order.Line.amount', M + 'model/Money.java:method:Money.times', 'times', 'calls', 'same_dir'),
    (M + 'util/Text.java:method:Text.slug', None, 'String', 'references', 'external'),
    (M + 'util/Text.java:method:Text.slug', None, 'String', 'references', 'external'),
    (M + 'util/Text.java:method:Text.slug', M + 'util/Text.java:method:Text.normalize', 'normalize', 'calls', 'parent_scope'),
    (M + 'util/Text.java:method:Text.normalize', None, 'String', 'references', 'external'),
    (M + 'util/Text.java:method:Text.normalize', None, 'String', 'references', 'external'),
    (M + 'util/Text.java:method:Text.normalize', None, 'trim', 'calls', 'external'),
    (T + 'model/OrderTest.java:module:src.test.java.com.shop.model.OrderTest', None, 'Assert.assertEquals', 'imports', 'external'),
    (T + 'model/OrderTest.java:module:src.test.java.com.shop.model.OrderTest', None, 'Test', 'imports', 'external'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', None, 'Test', 'references', 'external'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Order.java:class:Order', 'Order', 'calls', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Order.java:class:Order', 'Order', 'references', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Order.java:class:Order.Line', 'Line', 'calls', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Money.java:class:Money', 'Money', 'calls', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Order.java:method:Order.add', 'add', 'calls', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Money.java:class:Money', 'Money', 'calls', 'unique'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', None, 'assertEquals', 'calls', 'external'),
    (T + 'model/OrderTest.java:method:OrderTest.totalAddsLines', M + 'model/Order.java:method:Order.total', 'total', 'calls', 'unique'),
}


# Function-scoped like every repository fixture: the autouse environment
# (git identity, isolated HOME) must be in place before the commit.
@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_repo(tmp_path, "javaproj")


@pytest.fixture
def graph(repo: Path) -> dict[str, object]:
    return exported(repo)


def test_java_symbols_exact(graph: dict[str, object]) -> None:
    assert_symbols_exact(graph, SYMBOLS)


def test_java_edges_exact(graph: dict[str, object]) -> None:
    assert_edges_exact(graph, EDGES)


def test_java_declarations(repo: Path) -> None:
    by_id = stored_symbols(repo)
    # constructors are `<init>`, so that `new Order()` can only name the class
    assert M + "model/Order.java:method:Order.<init>" in by_id
    # a record is a class; its compact constructor is `<init>` too
    assert by_id[M + "model/Money.java:class:Money"].kind == "class"
    assert M + "model/Money.java:method:Money.<init>" in by_id
    # annotations are decorators, and the declaration starts at them
    save = by_id[M + "model/Order.java:method:Order.save"]
    assert save.decorators == ("@Override",)
    assert save.start_line == 32
    assert by_id[T + "model/OrderTest.java:method:OrderTest.totalAddsLines"].decorators == ("@Test",)
    # `static final` UPPER_CASE fields are constants; other fields are not symbols
    assert by_id[M + "model/Order.java:constant:Order.MAX_LINES"].kind == "constant"
    # nested class, qualified through its outer class
    assert by_id[M + "model/Order.java:class:Order.Line"].parent_id == M + "model/Order.java:class:Order"
    # Javadoc is the docstring
    assert by_id[M + "model/Order.java:class:Order"].docstring == "An order: lines and a status."


def test_java_resolution_cases(graph: dict[str, object]) -> None:
    edges = edge_targets(graph)
    main = M + "app/Main.java:method:Main.main"
    # single-type import: `import com.shop.util.Text;` -> the class in util/Text.java,
    # not the legacy `Text` that has the same methods
    assert edges[(M + "model/Order.java:module:src.main.java.com.shop.model.Order", "Text", "imports")] == (
        M + "util/Text.java:class:Text", "import")
    assert edges[(M + "model/Order.java:method:Order.reference", "slug", "calls")] == (
        M + "util/Text.java:method:Text.slug", "import")
    # on-demand import `com.shop.model.*`: the package directory's classes
    assert edges[(main, "Order", "calls")] == (M + "model/Order.java:class:Order", "import")
    assert edges[(main, "zero", "calls")] == (M + "model/Money.java:method:Money.zero", "import")
    # static import `import static com.shop.util.Text.slug;`
    assert edges[(main, "slug", "calls")] == (M + "util/Text.java:method:Text.slug", "import")
    # same package, no import: the same directory
    assert edges[(M + "model/Order.java:class:Order", "Entity", "inherits")] == (
        M + "model/Entity.java:class:Entity", "same_dir")
    # `implements`
    assert edges[(M + "model/Entity.java:class:Entity", "Identifiable", "inherits")] == (
        M + "model/Identifiable.java:interface:Identifiable", "same_dir")
    # this.m() through the class then its superclass; super.m() skips the class
    assert edges[(M + "model/Order.java:method:Order.save", "validate", "calls")] == (
        M + "model/Entity.java:method:Entity.validate", "parent_scope")
    assert edges[(M + "model/Order.java:method:Order.save", "save", "calls")] == (
        M + "model/Entity.java:method:Entity.save", "parent_scope")
    # an unqualified call is a call on `this` (inherited `id()`)
    assert edges[(M + "model/Order.java:method:Order.reference", "id", "calls")] == (
        M + "model/Entity.java:method:Entity.id", "parent_scope")
    # `super(id)` calls the base class's constructor
    assert edges[(M + "model/Order.java:method:Order.<init>", "<init>", "calls")] == (
        M + "model/Entity.java:method:Entity.<init>", "parent_scope")
    # `new Order.Line(...)`: the nested class through its outer class
    assert edges[(main, "Line", "calls")] == (M + "model/Order.java:class:Order.Line", "import")
    # `save` is defined twice, but `order` is declared an `Order`: its own `save`
    assert edges[(main, "save", "calls")] == (M + "model/Order.java:method:Order.save", "import")
    # java.lang: `System.out.println` is external, never a project `println`
    assert edges[(main, "println", "calls")] == (None, "external")
    # nothing defines it
    assert edges[(M + "app/Main.java:method:Main.audit", "unknownHelper", "calls")] == (None, None)
    # a call on a parameter goes through its declared type (`String value`)
    assert edges[(M + "util/Text.java:method:Text.normalize", "trim", "calls")] == (None, "external")
    # `throw new X()` raises X
    assert edges[(M + "model/Order.java:method:Order.add", "IllegalStateException", "raises")] == (None, "external")
    # the test class: JUnit is external; the model class is found project-wide
    # (same package, but under src/test/java: another directory)
    test = T + "model/OrderTest.java:method:OrderTest.totalAddsLines"
    assert edges[(test, "assertEquals", "calls")] == (None, "external")
    assert edges[(test, "Order", "calls")] == (M + "model/Order.java:class:Order", "unique")
