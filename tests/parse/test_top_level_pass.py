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
    assert len(moved) == syntax.top_level_query.pattern_count == 6
    for pattern in moved:
        assert pattern.lstrip("( \n").startswith("program")
        assert "@definition." in pattern and "@reference." not in pattern and "@bind" not in pattern
    # the root-level imports (`const x = y.z` aliases) stay in the tags query
    assert "(program\n  [(lexical_declaration (variable_declarator value: (object [" in rest


def test_the_pattern_cutter_keeps_every_byte() -> None:
    for language in ("javascript", "typescript", "tsx", "python", "go", "rust", "java", "ruby"):
        source = LANGUAGES[language].syntax.load_query()
        assert "".join(_patterns(source)) == source
    query = '; a comment with ( and [\n(a "x)" @b) @c\n[(d) (e)] @f\n((g) (#eq? @g ")"))\n'
    expected = ["; a comment with ( and [\n", '(a "x)" @b) @c\n', "[(d) (e)] @f\n", '((g) (#eq? @g ")"))\n']
    assert _patterns(query) == expected
