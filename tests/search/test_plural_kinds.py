"""A kind word in the plural is what the code handles, a word of a member's
name like any other ("Returns the valid methods that match …" names
``allowed_methods``): the member names list does not leave it out as a stop
word (``context.PLURAL_KINDS_NAME_MEMBERS``). docs/search.md, "What is the
answer"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from tests.search.test_class_questions import ask, indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

ROUTING_PY = '''\
class MapAdapter:
    def __init__(self, rules):
        self.rules = rules

    def match(self, path, method=None):
        """Match the path against the rules and return the endpoint and its arguments."""
        for rule in self.rules:
            if rule.path == path:
                return rule.endpoint, {}
        raise LookupError(path)

    def allowed_methods(self, path):
        return [m for rule in self.rules if rule.path == path for m in rule.methods]
'''
ALLOWED, MATCH = "routing.py:method:MapAdapter.allowed_methods", "routing.py:method:MapAdapter.match"
QUESTION = "Returns the valid methods that match for a given path in the MapAdapter instance."


@pytest.fixture(scope="module")
def routing_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("plurals") / "routing", {"routing.py": ROUTING_PY}, real_model, module_backend)


def named_order(store, model) -> list[str]:
    hits = [h for h in ask(store, model, QUESTION).hits if "member names" in h.sources]
    return [h.symbol.id for h in sorted(hits, key=lambda h: h.sources["member names"]["rank"])]


@pytest.mark.slow
def test_a_plural_kind_word_names_a_member(routing_repo, real_model, monkeypatch):
    with open_store(routing_repo) as store:
        # "methods" is the lead's third word that is not a stop word: "match" is past the lead
        # (context.MEMBER_NAME_LEAD)
        assert named_order(store, real_model) == [ALLOWED]
        monkeypatch.setattr(context, "PLURAL_KINDS_NAME_MEMBERS", False)
        assert named_order(store, real_model) == [MATCH]
