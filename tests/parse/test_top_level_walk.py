"""TypeScript's root-level patterns are matched by a walk of the root's
children (``Syntax.top_level_walk``), not by compiling and running their
query: the same matches in the same order, and the same symbols and edges."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cartog_ci.languages import LANGUAGES
from cartog_ci.parse import budget
from cartog_ci.parse.extract import extract_rows
from cartog_ci.parse.syntax import Syntax

# Every shape of the four patterns, and the ones beside them that they must
# not match: `let`, a destructured name, a `require`, a call of a call, a
# function value, an exported `declare const`, constants nested in a function.
SOURCE = b"""\
import { helper } from "./helper";
const log = debug("x"), LIMIT = 10, run = () => helper();
export const API = { create: () => log("c"), remove() { return run(); } };
export const Form = Object.assign(Root, { Header, Body: Panel });
const stringType = ZodString.create, client = api.create(), settings = { a: 1 };
export const config = { retries: 3 }, VERSION = "1" as const;
const store = create(reducer), make = function () { return store; };
const Cls = class extends Base {}, KEY = "k";
const LRU = require("./lru"), MAKE = make()(), _MAX_SIZE: number = 2 ** 10;
const ONE = one!, TWO = two satisfies Two, THREE = (3), FOUR = await four, made = new Made();
const { A, B } = pair, [C] = list, lower = `t`, Mixed = -1, REG = /x/;
let notConst = new Thing(), NOT_CONST = 1;
export let exportedLet = 1;
export declare const DECLARED: number;
export const { destructured } = source, exportedMade = factory(), exportedFn = () => 1;
export default class Main {}
function outer() {
  const INNER = 1;
  const local = debug("y");
  return { local, INNER };
}
const bad = ;
const UNFINISHED =
"""


def _query(syntax: Syntax) -> Syntax:
    return replace(syntax, top_level_walk=None)


def _ranges(found: list[tuple[int, dict]]) -> list[tuple[int, list[tuple[str, list[tuple[int, int]]]]]]:
    return [(p, sorted((k, [n.byte_range for n in v]) for k, v in c.items())) for p, c in found]


@pytest.mark.parametrize("name", ["typescript", "tsx"])
def test_the_walk_matches_what_the_query_does(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    assert syntax.top_level_walk is not None
    queried = _query(syntax)
    root = budget.parse(syntax.grammar, SOURCE).root_node
    expected = budget.matches(
        queried.top_level_query, root, max_start_depth=0, source=SOURCE, checks=queried.top_level_predicates
    )
    walked = syntax.top_level_walk(root, SOURCE)
    assert _ranges(walked) == _ranges(expected)
    assert sorted({p for p, _ in walked}) == [0, 1, 2, 3]
    names = [(p, SOURCE[c["name"][0].start_byte : c["name"][0].end_byte].decode()) for p, c in walked]
    assert names == [
        (3, "log"), (0, "LIMIT"), (1, "API"), (1, "Form"), (2, "client"), (2, "settings"), (1, "config"),
        (1, "VERSION"), (3, "store"), (0, "KEY"), (0, "LRU"), (0, "MAKE"), (0, "_MAX_SIZE"), (0, "ONE"),
        (0, "TWO"), (0, "THREE"), (0, "FOUR"), (2, "made"), (0, "REG"), (1, "exportedMade"),
    ]  # fmt: skip


@pytest.mark.parametrize("name", ["typescript", "tsx"])
def test_the_walked_pass_extracts_what_the_query_did(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    walked = extract_rows("src/shapes.ts", SOURCE, syntax)
    assert walked == extract_rows("src/shapes.ts", SOURCE, _query(syntax))
    assert len(walked[0].symbols) > 10


@pytest.mark.parametrize("name", ["javascript", "typescript", "tsx"])
def test_the_patterns_captures_and_names_read_from_the_source_are_the_query_s(name: str) -> None:
    # JavaScript's pass is not walked; its patterns set names (`<file>`)
    syntax = _query(LANGUAGES[name].syntax)
    read = replace(syntax, top_level_walk=lambda root, source: [])
    assert read.top_level_captures == syntax.top_level_captures
    assert read.top_level_names == syntax.top_level_names
    assert "top_level_query" not in read.__dict__
    if name == "javascript":
        assert "<file>" in read.top_level_names
