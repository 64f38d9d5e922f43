"""JavaScript extraction and resolution on a real fixture repository (CommonJS
and ESM side by side, JSX): the exact symbol set and the exact edge set."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.languages import LANGUAGES, call_shape, extract, signature_verdict
from tests.testing.exact_sets import (
    assert_edges_exact,
    assert_symbols_exact,
    edge_targets_by_line,
    indexed_graph,
)
from tests.testing.fixtures import RESOURCES

SYMBOLS = {
    ('lib/logger.js', 'module', 'lib.logger', 1),
    ('lib/logger.js', 'function', 'Logger', 3),
    ('lib/logger.js', 'method', 'Logger.log', 7),
    ('lib/logger.js', 'method', 'Logger.info', 11),
    ('lib/shapes.js', 'module', 'lib.shapes', 1),
    ('lib/shapes.js', 'class', 'Shape', 4),
    ('lib/shapes.js', 'method', 'Shape.constructor', 5),
    ('lib/shapes.js', 'method', 'Shape.area', 9),
    ('lib/shapes.js', 'method', 'Shape.describe', 13),
    ('lib/shapes.js', 'class', 'Circle', 18),
    ('lib/shapes.js', 'method', 'Circle.constructor', 19),
    ('lib/shapes.js', 'method', 'Circle.area', 24),
    ('lib/shapes.js', 'constant', 'UNIT', 29),
    ('lib/shapes.js', 'function', 'makeCircle', 31),
    ('lib/util.js', 'function', 'pad', 1),
    ('lib/util.js', 'module', 'lib.util', 1),
    ('lib/util.js', 'function', 'clamp', 5),
    ('src/button.jsx', 'function', 'Button', 1),
    ('src/button.jsx', 'module', 'src.button', 1),
    ('src/config.mjs', 'module', 'src.config', 1),
    ('src/greet.mjs', 'module', 'src.greet', 1),
    ('src/greet.mjs', 'constant', 'DEFAULT_NAME', 3),
    ('src/greet.mjs', 'function', 'greet', 8),
    ('src/greet.mjs', 'function', 'shout', 12),
    ('src/main.js', 'module', 'src.main', 1),
    ('src/main.js', 'constant', 'logger', 5),
    ('src/main.js', 'function', 'run', 7),
    ('src/widget.jsx', 'module', 'src.widget', 1),
    ('src/widget.jsx', 'function', 'Widget', 6),
    ('src/widget.jsx', 'function', 'Widget.onClick', 7),
}
EDGES = {
('lib/logger.js:module:lib.logger', 'lib/util.js:module:lib.util', 'default', 'imports', 'import'),
    ('lib/logger.js:method:Logger.log', None, 'log', 'calls', 'external'),
    ('lib/logger.js:method:Logger.log', 'lib/util.js:function:pad', 'pad', 'calls', 'import'),
    ('lib/logger.js:method:Logger.info', 'lib/logger.js:method:Logger.log', 'log', 'calls', 'parent_scope'),
    ('lib/logger.js:module:lib.logger', 'lib/logger.js:function:Logger', 'Logger', 'imports', 'import'),
    ('lib/shapes.js:method:Shape.describe', 'lib/shapes.js:method:Shape.area', 'area', 'calls', 'parent_scope'),
    ('lib/shapes.js:class:Circle', 'lib/shapes.js:class:Shape', 'Shape', 'inherits', 'same_file'),
    ('lib/shapes.js:function:makeCircle', 'lib/shapes.js:class:Circle', 'Circle', 'calls', 'same_file'),
    ('lib/util.js:function:clamp', None, 'max', 'calls', 'external'),
    ('lib/util.js:function:clamp', None, 'min', 'calls', 'external'),
    ('src/button.jsx:module:src.button', 'src/button.jsx:function:Button', 'Button', 'imports', 'import'),
    ('src/greet.mjs:module:src.greet', 'lib/util.js:function:clamp', 'clamp', 'imports', 'import'),
    ('src/greet.mjs:module:src.greet', 'src/greet.mjs:function:greet', 'greet', 'imports', 'import'),
    ('src/greet.mjs:function:shout', 'lib/util.js:function:clamp', 'clamp', 'calls', 'import'),
    ('src/greet.mjs:function:shout', 'src/greet.mjs:function:greet', 'greet', 'calls', 'same_file'),
    ('src/greet.mjs:function:shout', None, 'repeat', 'calls', None),
    ('src/greet.mjs:function:shout', None, 'toUpperCase', 'calls', None),
    ('src/main.js:module:src.main', 'lib/shapes.js:class:Circle', 'Circle', 'imports', 'import'),
    ('src/main.js:module:src.main', 'lib/shapes.js:function:makeCircle', 'makeCircle', 'imports', 'import'),
    ('src/main.js:module:src.main', 'lib/logger.js:function:Logger', 'default', 'imports', 'import'),
    ('src/main.js:module:src.main', 'lib/shapes.js:module:lib.shapes', 'default', 'imports', 'import'),
    ('src/main.js:constant:logger', 'lib/logger.js:function:Logger', 'Logger', 'calls', 'import'),
    ('src/main.js:function:run', 'lib/shapes.js:function:makeCircle', 'make', 'calls', 'import'),
    ('src/main.js:function:run', 'lib/shapes.js:method:Shape.describe', 'describe', 'calls', 'unique'),
    ('src/main.js:function:run', None, 'log', 'calls', None),
    ('src/main.js:function:run', None, 'area', 'calls', None),
    ('src/main.js:function:run', None, 'log', 'calls', None),
    ('src/main.js:function:run', 'lib/shapes.js:function:makeCircle', 'make', 'calls', 'import'),
    ('src/main.js:function:run', 'lib/shapes.js:class:Shape', 'Shape', 'calls', 'import'),
    ('src/main.js:module:src.main', 'src/main.js:function:run', 'run', 'imports', 'import'),
    ('src/widget.jsx:module:src.widget', None, 'default', 'imports', 'external'),
    ('src/widget.jsx:module:src.widget', 'src/button.jsx:function:Button', 'default', 'imports', 'import'),
    ('src/widget.jsx:module:src.widget', 'src/config.mjs:module:src.config', 'default', 'imports', 'import'),
    ('src/widget.jsx:module:src.widget', 'src/greet.mjs:function:greet', 'default', 'imports', 'import'),
    ('src/widget.jsx:module:src.widget', 'src/greet.mjs:function:shout', 'shout', 'imports', 'import'),
    ('src/widget.jsx:module:src.widget', 'src/widget.jsx:function:Widget', 'Widget', 'imports', 'import'),
    ('src/widget.jsx:function:Widget.onClick', 'src/greet.mjs:function:shout', 'yell', 'calls', 'import'),
    ('src/widget.jsx:function:Widget', 'src/button.jsx:function:Button', 'Button', 'calls', 'import'),
    ('src/widget.jsx:function:Widget', 'src/greet.mjs:function:greet', 'greet', 'calls', 'import'),
}


def test_javascript_symbols_exact(tmp_path: Path) -> None:
    assert_symbols_exact(indexed_graph(tmp_path, "jsproj"), SYMBOLS)


def test_javascript_edges_exact(tmp_path: Path) -> None:
    assert_edges_exact(indexed_graph(tmp_path, "jsproj"), EDGES)


def test_javascript_resolution_cases(tmp_path: Path) -> None:
    edges = edge_targets_by_line(indexed_graph(tmp_path, "jsproj"))
    # CommonJS: `const { makeCircle: make } = require(...)`, destructured and renamed
    assert edges[("src/main.js:function:run", "make", "calls", 8)] == (
        "lib/shapes.js:function:makeCircle", "import")
    # `module.exports = Logger` is the default that `require` returns; the
    # module-level `const logger = new Logger()` is a symbol that calls it
    assert edges[("src/main.js:constant:logger", "Logger", "calls", 5)] == (
        "lib/logger.js:function:Logger", "import")
    # `module.exports = { Shape, ... }`: the module object, then its member
    assert edges[("src/main.js:function:run", "Shape", "calls", 11)] == (
        "lib/shapes.js:class:Shape", "import")
    # `exports.pad = function` is a top-level function of util.js
    assert edges[("lib/logger.js:method:Logger.log", "pad", "calls", 8)] == (
        "lib/util.js:function:pad", "import")
    # ESM: default import of `export default function greet`, aliased named import
    assert edges[("src/widget.jsx:function:Widget", "greet", "calls", 8)] == (
        "src/greet.mjs:function:greet", "import")
    assert edges[("src/widget.jsx:function:Widget.onClick", "yell", "calls", 7)] == (
        "src/greet.mjs:function:shout", "import")
    # `export default Button;` names a const arrow function; `<Button />` calls it
    assert edges[("src/widget.jsx:function:Widget", "Button", "calls", 8)] == (
        "src/button.jsx:function:Button", "import")
    # an anonymous default (`export default {...}`) is the module itself
    assert edges[("src/widget.jsx:module:src.widget", "default", "imports", 3)] == (
        "src/config.mjs:module:src.config", "import")
    # `this.area()` in a class, `this.log()` in a prototype method
    assert edges[("lib/shapes.js:method:Shape.describe", "area", "calls", 14)] == (
        "lib/shapes.js:method:Shape.area", "parent_scope")
    assert edges[("lib/logger.js:method:Logger.info", "log", "calls", 12)] == (
        "lib/logger.js:method:Logger.log", "parent_scope")
    # `area` is defined by Shape and Circle: on an unknown object it stays unresolved
    assert edges[("src/main.js:function:run", "area", "calls", 10)] == (None, None)
    # a bare specifier is outside the project
    assert edges[("src/widget.jsx:module:src.widget", "default", "imports", 1)] == (None, "external")


def test_javascript_ranges_and_docstrings() -> None:
    path = "src/greet.mjs"
    source = (RESOURCES / "jsproj" / path).read_bytes()
    symbols = {s.qualified_name: s for s in extract(path, source, "javascript").symbols}
    greet = symbols["greet"]
    # `export default` belongs to the function; the JSDoc above it is its docstring
    assert source[greet.start_byte :].startswith(b"export default function greet")
    assert greet.docstring == "Say hello."
    assert symbols["DEFAULT_NAME"].kind == "constant"
    path = "lib/shapes.js"
    source = (RESOURCES / "jsproj" / path).read_bytes()
    shape = next(s for s in extract(path, source, "javascript").symbols if s.name == "Shape")
    assert shape.docstring == "A shape knows its area."
    assert shape.signature == "class Shape"


def test_javascript_fixture_parses_cleanly() -> None:
    for file in sorted((RESOURCES / "jsproj").rglob("*.*js*")):
        rel = file.relative_to(RESOURCES / "jsproj").as_posix()
        assert extract(rel, file.read_bytes(), "javascript").error == "", rel


# --- parameters, read from the syntax tree (languages/esparams.py) ----------

PARAMETERS_JS = """\
function withDefault(cb = (a, b) => a + b, c) {}
function shapes({ a, b = (x) => x }, [c, d] = [], ...rest) {}
const lone = async x => x;
const expr = function named(a, b) { return a; };
exports.load = function (path, options = {}) {};
Store.prototype.get = function (key, fallback) {};
const api = {
  put: (key, value, done = () => {}) => done(),
  del(key) {},
};
class Store {
  constructor(db, name = "main") {}
  *entries(from, to) {}
  static of(...pairs) {}
}
"""


def _parameter_lists(source: str) -> dict[str, list[tuple[str, str, bool]]]:
    language = LANGUAGES["javascript"]
    out = {}
    for symbol in extract("lib/params.js", source.encode(), "javascript").symbols:
        if symbol.kind in ("function", "method"):
            read = language.parameters(symbol.signature)  # type: ignore[attr-defined]
            assert read is not None, symbol.signature
            out[symbol.qualified_name] = [(p.name, p.kind, p.default) for p in read.parameters]
    return out


def test_javascript_parameters_exact() -> None:
    assert _parameter_lists(PARAMETERS_JS) == {
        # an arrow function as a default hides nothing after it
        "withDefault": [("cb", "positional", True), ("c", "positional", False)],
        "shapes": [("{a,b=(x)=>x}", "positional", False), ("[c,d]", "positional", True), ("rest", "variadic", True)],
        "lone": [("x", "positional", False)],
        "expr": [("a", "positional", False), ("b", "positional", False)],
        "load": [("path", "positional", False), ("options", "positional", True)],
        "Store.get": [("key", "positional", False), ("fallback", "positional", False)],
        "api.put": [("key", "positional", False), ("value", "positional", False), ("done", "positional", True)],
        "api.del": [("key", "positional", False)],
        "Store.constructor": [("db", "positional", False), ("name", "positional", True)],
        "Store.entries": [("from", "positional", False), ("to", "positional", False)],
        "Store.of": [("pairs", "variadic", True)],
    }


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        # JavaScript checks no arity: a parameter added after a callback is compatible
        ("function f(cb = (a, b) => a)", "function f(cb = (a, b) => a, c)", "compatible"),
        ("function f(cb = (a, b) => a, c)", "function f(cb = (a, b) => a)", "compatible"),
        ("function f(cb = (a, b) => a, c)", "function f(cb = (x, y) => x, c)", ""),
        ("function f(cb = (a, b) => a, c)", "function f(c, cb = (a, b) => a, d)", "breaking"),
        ("const f = (a, b) =>", "const f = (a,\n  b) =>", ""),
    ],
)
def test_javascript_signature_verdicts(old: str, new: str, verdict: str) -> None:
    assert signature_verdict(old, new, "javascript") == verdict


def test_javascript_call_shape_names_every_parameter() -> None:
    assert call_shape("function f(cb = (a, b) => a, { c }, ...rest)", "javascript") == "cb=,{c},...rest="
