"""The roles a statement of several sentences asks for ("the tests of …",
"an example of …") are those its first sentence names: its later sentences
say how the code works and where it is used, and keep tests, docs,
changelogs and built code counted down (``multimodal.ROLES_IN_FIRST_SENTENCE``).
docs/search.md, "Multimodal search"."""

from __future__ import annotations

import pytest

from cartog_ci.search import multimodal
from cartog_ci.search.intent import classify
from cartog_ci.search.multimodal import demoted_roles

LATER = "Unregister all registered synchronizer objects. This exists to support test cleanup and the changes of a build."


def roles(query: str) -> frozenset[str]:
    return demoted_roles(classify(query), query)


def test_a_later_sentence_asks_for_no_role():
    assert roles(LATER) == frozenset({"test", "docs", "changelog", "vendored"})


def test_the_first_sentence_still_asks():
    assert "test" not in roles("Return the tests of the parser. They run on every commit.")
    assert "docs" not in roles("Find an example of the parser. It shows the options.")
    # a question of one sentence is its first sentence
    assert "test" not in roles("the tests of the parser")


def test_off_every_sentence_asks(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(multimodal, "ROLES_IN_FIRST_SENTENCE", False)
    assert roles(LATER) == frozenset({"docs"})
