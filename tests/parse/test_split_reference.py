"""How a reference's text splits into (qualifier, name): parse/extract.py
``split_reference``, whose callee name is read from the end of the text
(``_last_ident``) and whose parentheses are matched a parenthesis at a time
(``_closing``). The expected pairs are those of the character-by-character
reading these replaced (a `$` is both a name's character and no word
character: the name runs on over the `$` that follow it)."""

from __future__ import annotations

import re

import pytest

from cartog_ci.parse.extract import _closing, _last_ident, split_reference

CASES = [
    ("foo(a).bar", ("foo()", "bar")),
    ("z.string(a).trim().min(2).parse", ("z.string().trim().min()", "parse")),
    ("f(x)$", ("<expr>", "x")),
    ("a[0].b$", ("<expr>", "b$")),
    ("x.y$$]", ("<expr>", "y$$")),
    ("$", (None, "$")),
    ("$()", ("<expr>", "$")),
    ("()", ("<expr>", "()")),
    ("new Foo(a, (b)).run", ("Foo()", "run")),
    ("g(h(1)).k.m", ("<expr>", "m")),
    ("f((a).b)).c", ("<expr>", "c")),
    ("café().thé", ("café()", "thé")),
    ("(a as Foo).m", ("Foo()", "m")),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_split_reference(text: str, expected: tuple[str | None, str]) -> None:
    assert split_reference.__wrapped__(text, True) == expected  # type: ignore[attr-defined]


LAST_IDENT = re.compile(r"([\w$]+)\W*$")


@pytest.mark.parametrize("text", ["a", "ab.c", "a$b$ ", "x.y$$]", "f(é)", "$", "$ $", " . ", "", "a$.$", "_1 (", "ab\n"])
def test_last_ident_is_the_rightmost_name_the_search_finds(text: str) -> None:
    found = LAST_IDENT.search(text)
    assert _last_ident(text) == (found.group(1) if found else text)


@pytest.mark.parametrize(
    ("text", "start", "expected"),
    [("f(a(b)c).d", 1, 7), ("f(a", 1, -1), ("f)", 1, -1), ("ab", 1, 1), ("ab", 2, -1), ("(()", 0, -1), ("())", 0, 1)],
)
def test_closing(text: str, start: int, expected: int) -> None:
    assert _closing(text, start) == expected
