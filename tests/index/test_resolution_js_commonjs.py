"""CommonJS modules (issue 29, npm qs / minimist / resolve against the
TypeScript language service): `module.exports = function` is a symbol named
by the function, else by the file; `module.exports = { … }` object members
(renamed, shorthand, `require`d); `require('../')` is the package's `main`.
Each: the exact set of call edges, negatives included, then an edit indexed
incrementally, equal to a cold build."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import Call, call_rows, edited_calls, indexed_files, symbol_rows
from tests.testing.fixtures import exported

# -- qs's shape: anonymous exported functions, an object of them, `require('../')`

PARSE = (
    "'use strict';\n"
    "var utils = require('./utils');\n"
    "\n"
    "var parseKeys = function (key) {\n"  # 4
    "    return utils.merge(key);\n"  # 5
    "};\n"
    "\n"
    "module.exports = function (str, opts) {\n"  # 8
    "    return parseKeys(str);\n"  # 9
    "};\n"
)
STRINGIFY = (
    "'use strict';\n"
    "\n"
    "var stringify = function stringify(obj) {\n"  # 3: the file's name is taken
    "    return String(obj);\n"
    "};\n"
    "\n"
    "module.exports = function (object) {\n"  # 7
    "    return stringify(object);\n"  # 8: the variable, not the export
    "};\n"
)
UTILS = "exports.merge = function (a) {\n    return a;\n};\nmodule.exports.compact = function (a) {\n    return a;\n};\n"
INDEX = (
    "'use strict';\n"
    "var parse = require('./parse');\n"
    "var stringify = require('./stringify');\n"
    "\n"
    "module.exports = {\n"
    "    parse: parse,\n"
    "    encode: stringify,\n"  # 7
    "    stringify,\n"
    "    utils: require('./utils')\n"
    "};\n"
)
TEST = (
    "var qs = require('../');\n"
    "var parse = require('../lib/parse');\n"
    "const { stringify } = require('..');\n"
    "\n"
    "qs.parse('a=b');\n"  # 5
    "qs.encode({});\n"  # 6
    "qs.stringify({});\n"  # 7
    "qs.utils.merge({});\n"  # 8
    "parse('c=d');\n"  # 9
    "require('../lib/utils').compact([]);\n"  # 10
    "stringify({});\n"  # 11
    "qs.missing();\n"  # 12: no such member
)
QS = {
    "package.json": '{ "name": "qsish", "main": "lib/index.js" }\n',
    "lib/parse.js": PARSE,
    "lib/stringify.js": STRINGIFY,
    "lib/utils.js": UTILS,
    "lib/index.js": INDEX,
    "test/parse.js": TEST,
}
P, S, U, T = "lib/parse.js", "lib/stringify.js", "lib/utils.js", "test/parse.js"
OWN = {
    (P, 5, "merge", f"{U}:function:merge", "import"),
    (P, 9, "parseKeys", f"{P}:function:parseKeys", "same_file"),
    (S, 4, "String", None, "external"),
    (S, 8, "stringify", f"{S}:function:stringify", "same_file"),
}


def _test_calls(parse: str, encode: str) -> set[Call]:
    """test/parse.js's calls, given what `qs.parse` and `qs.encode` are."""
    return {
        (T, 5, "parse", parse, "import"),
        (T, 6, "encode", encode, "import"),
        (T, 7, "stringify", f"{S}:function:exports", "import"),
        (T, 8, "merge", f"{U}:function:merge", "import"),
        (T, 9, "parse", parse, "import"),
        (T, 10, "compact", f"{U}:function:compact", "import"),
        (T, 11, "stringify", f"{S}:function:exports", "import"),
        (T, 12, "missing", None, None),
    }


def test_an_anonymous_exported_function_is_named_by_its_file_and_reached_through_the_package(tmp_path: Path) -> None:
    repo = indexed_files(tmp_path, QS)
    graph = exported(repo)
    functions = {row for row in symbol_rows(graph) if row[0] in (P, S) and row[1] == "function"}
    assert functions == {
        (P, "function", "parseKeys", 4),
        (P, "function", "parse", 8),
        (S, "function", "stringify", 3),
        (S, "function", "exports", 7),  # `stringify` is the variable's
    }
    assert call_rows(graph) == OWN | _test_calls(f"{P}:function:parse", f"{S}:function:exports")


def test_editing_the_exported_function_and_the_index_object_equals_a_cold_build(tmp_path: Path) -> None:
    repo = indexed_files(tmp_path, QS)
    edit = {
        P: PARSE.replace("module.exports = function (str", "module.exports = function parseQuery (str"),
        "lib/index.js": INDEX.replace("    encode: stringify,\n", "    encode: parse,\n"),
    }
    after = edited_calls(repo, tmp_path, edit)
    assert after == OWN | _test_calls(f"{P}:function:parseQuery", f"{P}:function:parseQuery")
    edit = {"package.json": '{ "name": "qsish", "main": "lib/parse.js" }\n'}  # `require('../')` is now parse
    moved = edited_calls(repo, tmp_path, edit)
    assert {row for row in moved if row[0] == T and row[1] in (5, 6, 11)} == {
        (T, 5, "parse", None, None),
        (T, 6, "encode", None, None),
        (T, 11, "stringify", None, None),
    }


# -- named and class exports, a re-exported module, and what is no export ----

NAMED = {
    "index.js": "module.exports = require('./lib/async');\n",
    "lib/async.js": "module.exports = function resolve(x, cb) {\n    return cb(x);\n};\n",
    "lib/runner.js": "module.exports = class Runner {\n    run() {\n        return 1;\n    }\n};\n",
    "lib/anon.js": "module.exports = class {\n    go() {}\n};\n",
    "lib/setup.js": (
        "function setup() {\n    module.exports = function () {\n        return 2;\n    };\n}\nsetup();\n"
    ),
    "lib/esm.mjs": "export default function () {\n    return 3;\n}\n",
    "lib/home.js": "function homedir() {}\nmodule.exports = homedir;\n",
    "lib/api.js": (
        "function homedir() {}\nfunction same() {}\n"
        "exports.home = homedir;\nexports.same = same;\nmodule.exports.Run = require('./runner');\n"
    ),
    "lib/express.js": "exports = module.exports = createApplication;\n\nfunction createApplication() {}\n",
    "lib/router/index.js": "var proto = module.exports = function (options) {\n    return options;\n};\n",
    "test/all.js": (
        "var resolve = require('..');\n"
        "var Runner = require('../lib/runner');\n"
        "var Anon = require('../lib/anon');\n"
        "var setup = require('../lib/setup');\n"
        "import esm from '../lib/esm.mjs';\n"
        "\n"
        "resolve(1, function () {});\n"  # 7
        "new Runner().run();\n"  # 8
        "new Anon();\n"  # 9
        "setup();\n"  # 10
        "esm();\n"  # 11
        "var home = require('../lib/home');\n"
        "var api = require('../lib/api');\n"
        "home();\n"  # 14
        "api.home();\n"  # 15
        "api.same();\n"  # 16
        "new api.Run();\n"  # 17
        "var express = require('../lib/express');\n"
        "var Router = require('../lib/router');\n"
        "var merge = require('../lib/api').home;\n"
        "express();\n"  # 21
        "new Router({});\n"  # 22
        "merge();\n"  # 23
    ),
}


def test_named_and_class_exports_and_exports_that_are_none(tmp_path: Path) -> None:
    repo = indexed_files(tmp_path, NAMED)
    graph = exported(repo)
    t = "test/all.js"
    assert {row for row in symbol_rows(graph) if row[1] != "module"} == {
        ("lib/async.js", "function", "resolve", 1),
        ("lib/runner.js", "class", "Runner", 1),
        ("lib/runner.js", "method", "Runner.run", 2),
        ("lib/anon.js", "class", "anon", 1),
        ("lib/anon.js", "method", "anon.go", 2),
        ("lib/setup.js", "function", "setup", 1),  # its `module.exports` is no symbol
        ("lib/home.js", "function", "homedir", 1),
        ("lib/api.js", "function", "homedir", 1),
        ("lib/api.js", "function", "same", 2),
        ("lib/express.js", "function", "createApplication", 3),
        ("lib/router/index.js", "function", "router", 1),
    }
    assert call_rows(graph) == {
        ("lib/async.js", 2, "cb", None, None),
        ("lib/setup.js", 6, "setup", "lib/setup.js:function:setup", "same_file"),
        (t, 7, "resolve", "lib/async.js:function:resolve", "import"),
        (t, 8, "Runner", "lib/runner.js:class:Runner", "import"),
        (t, 8, "run", "lib/runner.js:method:Runner.run", "import"),
        (t, 9, "Anon", "lib/anon.js:class:anon", "import"),
        (t, 10, "setup", "lib/setup.js:module:lib.setup", "import"),  # the module: no export
        (t, 11, "esm", "lib/esm.mjs:module:lib.esm", "import"),  # an ES module's anonymous default, as before
        (t, 14, "home", "lib/home.js:function:homedir", "import"),
        (t, 15, "home", "lib/api.js:function:homedir", "import"),
        (t, 16, "same", "lib/api.js:function:same", "import"),
        (t, 17, "Run", "lib/runner.js:class:Runner", "import"),
        (t, 21, "express", "lib/express.js:function:createApplication", "import"),
        (t, 22, "Router", "lib/router/index.js:function:router", "import"),
        (t, 23, "merge", "lib/api.js:function:homedir", "import"),
    }


def test_a_main_that_leaves_its_directory_is_not_followed(tmp_path: Path) -> None:
    """`lib/package.json`'s `main` points back up (it would lead to `lib`
    again): `require('./lib')` is `lib/index.js`."""
    repo = indexed_files(tmp_path, {
        "package.json": '{ "name": "loop", "main": "lib" }\n',
        "lib/package.json": '{ "main": "../" }\n',
        "lib/index.js": "module.exports = function () {};\n",
        "main.js": "var lib = require('./lib');\nvar root = require('.');\nlib();\nroot();\n",
    })  # fmt: skip
    assert call_rows(exported(repo)) == {
        ("main.js", 3, "lib", "lib/index.js:function:lib", "import"),
        ("main.js", 4, "root", "lib/index.js:function:lib", "import"),
    }


def test_an_upper_case_name_bound_by_require_is_the_import_not_a_constant(tmp_path: Path) -> None:
    """semver 7.6: `const LRU = require('./internal/lrucache'); const cache =
    new LRU()` made `LRU` a constant of its own file (an UPPER_CASE name),
    which shadowed the import: `cache.get(…)` stayed unresolved and `new LRU()`
    called the constant."""
    lru = (
        "class LRUCache {\n  get (key) {\n    return key\n  }\n}\n\nmodule.exports = LRUCache\n"
    )
    use = (
        "const LRU = require('./lrucache')\n"
        "const cache = new LRU()\n"
        "\n"
        "function parse (range) {\n"  # 4
        "  return cache.get(range)\n"  # 5
        "}\n"
        "\n"
        "module.exports = parse\n"
    )
    repo = indexed_files(tmp_path, {"lib/lrucache.js": lru, "lib/range.js": use})
    graph = exported(repo)
    assert {row for row in symbol_rows(graph) if row[0] == "lib/range.js" and row[1] != "module"} == {
        ("lib/range.js", "constant", "cache", 2),
        ("lib/range.js", "function", "parse", 4),
    }
    assert call_rows(graph) == {
        ("lib/range.js", 2, "LRU", "lib/lrucache.js:class:LRUCache", "import"),
        ("lib/range.js", 5, "get", "lib/lrucache.js:method:LRUCache.get", "import"),
    }
    assert edited_calls(repo, tmp_path, {"lib/range.js": use.replace("const LRU = require('./lrucache')", "const LRU = {}")}) == {
        ("lib/range.js", 2, "LRU", "lib/range.js:constant:LRU", "same_file"),
        ("lib/range.js", 5, "get", None, None),
    }
