"""The root-level definition patterns of the JS/TS tags query run in a pass of
their own (``Syntax.top_level_pass``): the same symbols and edges, in the same
order, as the one query gives."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cartog_ci.languages import LANGUAGES
from cartog_ci.parse.extract import extract_rows
from cartog_ci.parse.syntax import Syntax, _patterns

# Every shape a root-level pattern matches, beside the ones that share its
# nodes: several declarators in one declaration, an exported one, object
# literals of methods, `Object.assign`, aliases, constants nested in a function.
SOURCE = b"""\
import { helper } from "./helper";
const log = debug("x"), LIMIT = 10, run = () => helper();
export const API = { create: () => log("c"), remove() { return run(); } };
export const Form = Object.assign(Root, { Header, Body: Panel });
const stringType = ZodString.create;
export const config = { retries: 3 };
const store = create(reducer), make = function () { return store; };
const Cls = class extends Base {}, KEY = "k";
let notTop = new Thing();
function outer() {
  const INNER = 1;
  const local = debug("y");
  return { local, INNER };
}
module.exports = { outer };
"""


def _one_query(syntax: Syntax) -> Syntax:
    return replace(syntax, top_level_pass=False)


@pytest.mark.parametrize("name", ["javascript", "typescript", "tsx"])
def test_the_split_query_extracts_what_the_one_query_does(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    assert syntax.top_level_pass and syntax.top_level_query is not None
    split = extract_rows("src/shapes.ts", SOURCE, syntax)
    whole = extract_rows("src/shapes.ts", SOURCE, _one_query(syntax))
    assert split == whole
    # one symbol per declaration (the first match of its node wins: `store`
    # over `make`, `Cls` over `KEY`, where the two passes' matches meet);
    # nothing of the function's body
    assert [(s.kind, s.qualified_name) for s in split[0].symbols] == [
        ("module", "src.shapes"),
        ("constant", "log"),
        ("constant", "API"),
        ("function", "API.create"),
        ("function", "API.remove"),
        ("constant", "Form"),
        ("constant", "config"),
        ("constant", "store"),
        ("class", "Cls"),
        ("function", "outer"),
    ]


def test_only_root_level_definition_patterns_move() -> None:
    syntax = LANGUAGES["typescript"].syntax
    rest, top = syntax._split_query
    moved = [p for p in _patterns(top) if p.lstrip().startswith("(")]
    assert len(moved) == syntax.top_level_query.pattern_count == 4
    for pattern in moved:
        assert pattern.lstrip("( \n").startswith("program")
        assert "@definition." in pattern and "@reference." not in pattern and "@bind" not in pattern
    # the root-level imports (`const x = y.z` aliases) stay in the tags query,
    # rooted at the declarator and kept at module level by `#top-level?`
    assert "((variable_declarator value: (object [" in rest
    assert "(program\n  [(lexical_declaration (variable_declarator value: (object [" not in rest


# The root-level reference patterns as they were, rooted at `program`: the
# patterns rooted at the declaration with `#top-level?` (parse/predicates.py)
# must give the same edges in the same order (imports are read in their order).
_ROOTED = {
    "ecmascript": [
        (
            "((variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import\n"
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement"))',
            "(program\n"
            "  [(lexical_declaration (variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import)\n"
            "   (export_statement (lexical_declaration (variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import))])",
        ),
        (
            "((variable_declarator value: [(identifier) (member_expression) @_member]) @reference.import\n"
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement")\n'
            '  (#child? @_member "_object" "object:identifier|member_expression")\n'
            '  (#child? @_member "_property" "property:property_identifier"))',
            "(program\n"
            "  [(lexical_declaration (variable_declarator value: [(identifier) (member_expression object: [(identifier) (member_expression)] property: (property_identifier))]) @reference.import)\n"
            "   (export_statement (lexical_declaration (variable_declarator value: [(identifier) (member_expression object: [(identifier) (member_expression)] property: (property_identifier))]) @reference.import))])",
        ),
        (
            "((variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import\n"
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement")\n',
            "(program\n"
            "  [(lexical_declaration (variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import)\n"
            "   (export_statement (lexical_declaration (variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import))]\n",
        ),
    ],
    "javascript": [
        (
            "((expression_statement\n"
            "  (assignment_expression\n"
            "    left: (member_expression object: (_) @_exports property: (property_identifier))\n"
            "    right: [(identifier) (call_expression)]) @reference.import) @_statement\n"
            "  (#top-level? @_statement)\n",
            "(program\n"
            "  (expression_statement\n"
            "    (assignment_expression\n"
            "      left: (member_expression object: (_) @_exports property: (property_identifier))\n"
            "      right: [(identifier) (call_expression)]) @reference.import)\n",
        ),
        (
            "([(expression_statement\n"
            "   (assignment_expression\n"
            "     left: (member_expression) @_left) @reference.import)\n"
            "  (expression_statement\n"
            "   (assignment_expression\n"
            "     right: (assignment_expression\n"
            "       left: (member_expression) @_left) @reference.import))\n"
            "  (lexical_declaration (variable_declarator\n"
            "   value: (assignment_expression\n"
            "     left: (member_expression) @_left) @reference.import))\n"
            "  (variable_declaration (variable_declarator\n"
            "   value: (assignment_expression\n"
            "     left: (member_expression) @_left) @reference.import))] @_statement\n"
            "  (#top-level? @_statement)\n"
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n',
            "(program\n"
            "  [(expression_statement\n"
            "    (assignment_expression\n"
            "      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import)\n"
            "   (expression_statement\n"
            "    (assignment_expression\n"
            "      right: (assignment_expression\n"
            "        left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import))\n"
            "   (_ (variable_declarator\n"
            "    value: (assignment_expression\n"
            "      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import))]\n",
        ),
    ],
    "typescript": [
        (
            "((expression_statement . (assignment_expression) @reference.import) @_statement\n"
            "  (#top-level? @_statement)\n"
            '  (#child? @reference.import "_module" "left:member_expression" "object:identifier")\n'
            '  (#child? @reference.import "_exports" "left:member_expression" "property:property_identifier")\n',
            "(program\n"
            "  (expression_statement\n"
            "    (assignment_expression\n"
            "      left: (member_expression\n"
            "        object: (identifier) @_module\n"
            "        property: (property_identifier) @_exports)) @reference.import)\n",
        ),
    ],
}

# Module-level shapes of those patterns beside the same shapes nested (in a
# function, a namespace, a block, an exported namespace), several declarators
# in one declaration, and the other edges of the same nodes.
NESTED = b"""\
import { get, save } from "./api";
export const api = { get, put: save }, alias = api.get;
const stringType = ZodString.create, other = stringType;
export const Drawer = Object.assign(Root, { Header, Form: ModalForm });
function inner() {
  const local = { get };
  const sub = ZodString.create;
  const Mixed = Object.assign(Root, { Header });
  module.exports = local;
  return [local, sub, Mixed];
}
namespace ns { export const inside = { get }; const deep = api.get; }
{ const block = api.put; }
if (x) { module.exports = inner; exports.p = parse; }
module.exports = api;
export = api;
"""

# CommonJS exports (javascript.scm's module-level patterns), nested too.
COMMONJS = b"""\
var app = module.exports = createApp;
exports = module.exports = X;
let other = module.exports = Y, more = module.exports = Z;
exports.p = parse;
module.exports.q = require("./q");
function f() { module.exports = Z; var b = module.exports = W; exports.r = s; }
if (x) { exports.t = u; }
"""


# (name, line, module, alias) of NESTED's imports: nothing nested is one
_MODULE_LEVEL = [
    ("get", 1, "./api", None),
    ("save", 1, "./api", None),
    ("get", 2, "<self>", "api.get"),
    ("save", 2, "<self>", "api.put"),
    ("api.get", 2, "<self>", "alias"),
    ("ZodString.create", 3, "<self>", "stringType"),
    ("stringType", 3, "<self>", "other"),
    ("Header", 4, "<self>", "Drawer.Header"),
    ("ModalForm", 4, "<self>", "Drawer.Form"),
    ("api", 15, "<self>", "default"),
]
EXPECTED_IMPORTS = {
    "javascript": _MODULE_LEVEL,  # `export = api` is TypeScript's
    "typescript": [*_MODULE_LEVEL, ("api", 16, "<self>", "default")],
    "tsx": [*_MODULE_LEVEL, ("api", 16, "<self>", "default")],
}


@pytest.mark.parametrize("name", ["javascript", "typescript", "tsx"])
def test_the_top_level_predicate_extracts_what_the_program_rooted_patterns_did(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    query = syntax.load_query()
    for group in ("ecmascript", name):
        for new, old in _ROOTED.get("typescript" if group == "tsx" else group, []):
            assert query.count(new) == 1, new
            query = query.replace(new, old)
    assert "(#top-level?" not in query
    rooted = replace(syntax, load_query=lambda: query)
    for source in (NESTED, SOURCE, COMMONJS):
        ours = extract_rows("src/nested.ts", source, syntax)
        assert ours == extract_rows("src/nested.ts", source, rooted)
    imports = [(e[1], e[4], e[5], e[6]) for e in extract_rows("src/nested.ts", NESTED, syntax)[1] if e[2] == "imports"]
    assert imports == EXPECTED_IMPORTS[name]


def test_the_pattern_cutter_keeps_every_byte() -> None:
    for language in ("javascript", "typescript", "tsx", "python", "go", "rust", "java", "ruby"):
        source = LANGUAGES[language].syntax.load_query()
        assert "".join(_patterns(source)) == source
    query = '; a comment with ( and [\n(a "x)" @b) @c\n[(d) (e)] @f\n((g) (#eq? @g ")"))\n'
    expected = ["; a comment with ( and [\n", '(a "x)" @b) @c\n', "[(d) (e)] @f\n", '((g) (#eq? @g ")"))\n']
    assert _patterns(query) == expected
