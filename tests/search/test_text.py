"""What is embedded per symbol (docs/search.md): one rule per test, on symbols the
real extractor yields from real source."""

from __future__ import annotations

import hashlib

import pytest

from cartog_ci.domain import SymbolText
from cartog_ci.embed.text import (
    CONTENT_BYTES,
    EMBED_BYTES,
    significant_lines,
    texts_for,
    truncate_utf8,
)
from cartog_ci.languages import extract
from tests.testing.fixtures import commit, index, init_repo, sql_rows, write

TOKENS_PY = '''\
"""Token helpers."""
# Copyright (c) 2024 ACME Corp. All rights reserved.
# SPDX-License-Identifier: MIT
import hmac
from os import path as p

LIMIT = 10


@login_required
@cache(ttl=5)
def validate_token(token: str) -> bool:

    # ------------------------------------------------
    # check the licence key before the signature
    digest = sign(token)

    # ================================================
    return hmac.compare_digest(digest, token)


class UserService:
    retries = 3

    def authenticate(self, user):
        secret = lookup(user)
        return secret

    @property
    def name(self) -> str:
        return self._name
'''


def texts_of(path: str, source: str | bytes, language: str) -> dict[str, SymbolText]:
    data = source.encode() if isinstance(source, str) else source
    extraction = extract(path, data, language)
    return {t.symbol_id: t for t in texts_for(extraction.symbols, data)}


@pytest.fixture
def tokens() -> dict[str, SymbolText]:
    return texts_of("auth/tokens.py", TOKENS_PY, "python")


def test_first_line_is_the_header_naming_file_kind_and_qualified_name(tokens):
    assert tokens["auth/tokens.py:function:validate_token"].embed_text.splitlines()[0] == (
        "// File: auth/tokens.py | function validate_token"
    )
    assert tokens["auth/tokens.py:method:UserService.authenticate"].embed_text.splitlines()[0] == (
        "// File: auth/tokens.py | method UserService.authenticate"
    )


def test_decorators_and_signature_come_right_after_the_header(tokens):
    lines = tokens["auth/tokens.py:function:validate_token"].embed_text.splitlines()
    assert lines[1:4] == ["@login_required", "@cache(ttl=5)", "def validate_token(token: str) -> bool:"]


def test_blank_lines_and_separator_comments_are_dropped_real_comments_kept(tokens):
    text = tokens["auth/tokens.py:function:validate_token"].embed_text
    assert text.splitlines()[4:] == [
        "    # check the licence key before the signature",
        "    digest = sign(token)",
        "    return hmac.compare_digest(digest, token)",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "# Copyright (c) 2024 ACME Corp. All rights reserved.",
        "// SPDX-License-Identifier: Apache-2.0",
        " * Licensed under the Apache License, Version 2.0 (the \"License\");",
        "# Licensed to the Apache Software Foundation (ASF) under one",
        "// Use of this source code is governed by a BSD-style license that can be",
        " * THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND",
        "# This program is free software under the GNU General Public License",
        "-- (c) 2019 Someone",
        "# ----------------------------------------",
        "// ========================================",
        "/* ************************************** */",
        "#########################################",
        "# ~~~ ~~~ ~~~",
        "<!-- ------------------------------------ -->",
    ],
)
def test_licence_banners_and_separators_are_formal(line):
    assert significant_lines(f"x = 1\n{line}\ny = 2") == ["x = 1", "y = 2"]


@pytest.mark.parametrize(
    "line",
    [
        "# reject a licence that has expired",
        "// the license server may be down: retry",
        "x = a - b  # not a separator",
        "total -= 1",
        "# TODO: keep this in sync with copy_tree",
    ],
)
def test_comments_and_code_that_merely_resemble_banners_are_kept(line):
    assert significant_lines(line) == [line]


@pytest.mark.parametrize(
    "line",
    [
        "# ALL RIGHTS RESERVED",
        "// Licensed TO the project",
        "# Copyright \u00a9 2020 Zo\u00eb",  # not ASCII: the phrase pattern alone decides
        "# \u00a9 Zo\u00eb",
        "# all right\u017f reserved",  # the long s, which the case-blind pattern reads as an s
    ],
)
def test_banners_in_any_case_and_beside_other_characters_are_formal(line):
    """embed/text.py ``_banner``: the words looked for first in an ASCII
    line, the phrases' pattern on any other."""
    assert significant_lines(f"x = 1\n{line}\ny = 2") == ["x = 1", "y = 2"]


@pytest.mark.parametrize(
    ("language", "path", "source", "expected"),
    [
        (
            "javascript", "src/a.js",
            "function load(url) {\n  return fetch(url).then((r) => {\n    return r.json();\n  });\n}\n",
            ["function load(url) {", "return fetch(url).then((r) => {", "  return r.json();"],
        ),
        (
            "go", "main.go",
            (
                "package main\n\nfunc Sum(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n"
                "\treturn t\n}\n"
            ),
            ["func Sum(xs []int) int {", "t := 0", "for _, x := range xs {", "\tt += x", "return t"],
        ),
        (
            "ruby", "lib/a.rb",
            "def bar(x)\n  if x\n    y\n  end\nend\n",
            ["def bar(x)", "if x", "  y"],
        ),
        (
            "python", "a.py",
            "def build():\n    return [\n        1,\n        2,\n    ]\n",
            ["def build():", "return [", "    1,", "    2,"],
        ),
    ],
)  # fmt: skip
def test_lone_closing_brackets_and_ends_are_dropped(language, path, source, expected):
    (text,) = [t for t in texts_of(path, source, language).values()]
    assert text.embed_text.splitlines()[1:] == expected


def test_children_stand_in_their_parent_by_their_signature_line_only(tokens):
    lines = tokens["auth/tokens.py:class:UserService"].embed_text.splitlines()
    assert lines == [
        "// File: auth/tokens.py | class UserService",
        "class UserService:",
        "retries = 3",
        "def authenticate(self, user)",
        # The signature, not the decorator: `@property` says nothing.
        "def name(self) -> str",
    ]


def test_a_childs_body_edit_leaves_its_parents_text_alone_a_signature_edit_does_not(tokens):
    body = texts_of("auth/tokens.py", TOKENS_PY.replace("return secret", "return secret or None"), "python")
    signature = texts_of("auth/tokens.py", TOKENS_PY.replace("(self, user)", "(self, user, realm)"), "python")
    parent, child = "auth/tokens.py:class:UserService", "auth/tokens.py:method:UserService.authenticate"
    assert body[parent].text_hash == tokens[parent].text_hash
    assert body[child].text_hash != tokens[child].text_hash
    assert signature[parent].text_hash != tokens[parent].text_hash


def test_attributes_outside_the_items_range_are_kept():
    # Rust attributes precede the item; docs/search.md names `#[derive(Debug)]`.
    source = "#[derive(Debug, Clone)]\npub struct Point {\n    x: i32,\n}\n"
    (text,) = texts_of("src/geo.rs", source, "rust").values()
    assert text.embed_text.splitlines()[:3] == [
        "// File: src/geo.rs | struct Point", "#[derive(Debug, Clone)]", "pub struct Point {",
    ]  # fmt: skip


def test_modules_constants_imports_and_variables_are_not_embedded(tokens):
    assert sorted(tokens) == [
        "auth/tokens.py:class:UserService",
        "auth/tokens.py:function:validate_token",
        "auth/tokens.py:method:UserService.authenticate",
        "auth/tokens.py:method:UserService.name",
    ]


def test_the_index_stores_no_text_for_modules_and_constants(tmp_path):
    repo = init_repo(tmp_path / "repo")
    write(repo, {"auth/tokens.py": TOKENS_PY})
    commit(repo)
    index(repo)
    from cartog_ci.store.sqlite import SqliteStore

    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        kinds = {str(k) for (k,) in sql_rows(store,
            "SELECT DISTINCT s.kind FROM symbols s JOIN chunks c ON c.symbol_id = s.id"
        )}  # fmt: skip
        all_kinds = {str(k) for (k,) in sql_rows(store, "SELECT DISTINCT kind FROM symbols")}
    assert {"module", "constant"} <= all_kinds
    assert kinds == {"function", "class", "method"}


def long_function(body_line: str, lines: int = 200) -> str:
    return "def big():\n" + "".join(f"    {body_line}  # {i}\n" for i in range(lines))


def test_embed_text_is_at_most_800_bytes_and_content_at_most_2048():
    (text,) = texts_of("big.py", long_function("value = compute(value)"), "python").values()
    embed, content = text.embed_text.encode(), text.content.encode()
    assert EMBED_BYTES - 40 < len(embed) <= EMBED_BYTES
    assert CONTENT_BYTES - 40 < len(content) <= CONTENT_BYTES
    assert content.startswith(embed)
    # Vectors are cached by what the model reads, nothing more.
    assert text.text_hash == hashlib.sha256(embed).hexdigest()


def test_an_edit_past_the_embedded_prefix_keeps_the_vector_but_not_the_content():
    source = long_function("value = compute(value)")
    (before,) = texts_of("big.py", source, "python").values()
    (after,) = texts_of("big.py", source.replace("# 40\n", "# forty\n"), "python").values()
    assert after.text_hash == before.text_hash
    assert after.content != before.content


MULTIBYTE = "数据校验😀é€𐍈ü字😀"


def test_truncate_utf8_at_every_byte_offset_keeps_the_longest_whole_prefix():
    data = MULTIBYTE.encode()
    for limit in range(len(data) + 2):
        cut = truncate_utf8(MULTIBYTE, limit)
        assert MULTIBYTE.startswith(cut)
        assert len(cut.encode()) <= limit
        if cut != MULTIBYTE:  # the next character would not have fitted
            assert len(MULTIBYTE[: len(cut) + 1].encode()) > limit


@pytest.mark.parametrize("shift", range(8))
def test_multibyte_symbol_text_is_cut_on_a_character_boundary(shift):
    # The padding moves the 800- and 2048-byte cuts across every byte of the
    # 4-, 3- and 2-byte characters in the body.
    source = f"def f():\n    pad = '{'x' * shift}'\n" + "".join(f"    s = '{MULTIBYTE}'\n" for _ in range(120))
    (text,) = texts_of("u.py", source, "python").values()
    for value, limit in ((text.embed_text, EMBED_BYTES), (text.content, CONTENT_BYTES)):
        encoded = value.encode("utf-8")
        assert len(encoded) <= limit
        assert limit - len(encoded) < 4  # backed off one character at most
        assert "\ufffd" not in value


def test_a_long_comment_line_is_read_once_per_phrase():
    """A source map's line (a webpack bundle: one comment of 100,000
    characters) is kept or dropped as the one pattern did, a phrase found
    anywhere after the first comment mark, a word boundary seen from the
    character before it (embed/text.py ``_COMMENT_MARK``, ``_PHRASE``)."""
    data = "//# sourceMappingURL=data:application/json;base64," + "eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpb" * 3000
    assert significant_lines(f"x = 1\n{data}\ny = 2") == ["x = 1", data, "y = 2"]
    banner = "// " + "a" * 50_000 + " all rights reserved"
    assert significant_lines(f"x = 1\n{banner}\ny = 2") == ["x = 1", "y = 2"]
    glued = "//" + "a" * 50_000 + "copyright 2020"  # no word boundary before the phrase
    assert significant_lines(glued) == [glued]
    assert significant_lines("#copyright") == []
