"""A base that a later sentence names owns what the first sentence's class
inherits from it, but a method that class defines again is its own
override: the base's is read as its namesake, its places go to the override
(``context.OVERRIDES_OF_BASES``, ``context.namesake_alias``). docs/search.md,
"What is the answer"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from tests.search.test_class_questions import ask, indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

DICTS_PY = '''\
class MultiDict(dict):
    def getlist(self, key, type=None):
        """Return the list of items for a given key. If that key is not in the
        `MultiDict`, the return value will be an empty list."""
        try:
            return list(dict.__getitem__(self, key))
        except KeyError:
            return []

    def setlist(self, key, new_list):
        """Remove the old values for a key and add new ones."""
        dict.__setitem__(self, key, list(new_list))


class CombinedMultiDict(MultiDict):
    def __init__(self, dicts=None):
        super().__init__()
        self.dicts = list(dicts or ())

    def getlist(self, key, type=None):
        rv = []
        for d in self.dicts:
            rv.extend(d.getlist(key, type))
        return rv

    def to_dict(self, flat=True):
        """Return the contents as regular dict."""
        return {}
'''
BASE, OVERRIDE = "dicts.py:method:MultiDict.getlist", "dicts.py:method:CombinedMultiDict.getlist"
QUESTION = (
    "CombinedMultiDict: Return the list of items for a given key. "
    "If that key is not in the `MultiDict`, the return value will be an empty list."
)


@pytest.fixture(scope="module")
def dicts_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("overrides") / "dicts", {"dicts.py": DICTS_PY}, real_model, module_backend)


@pytest.mark.slow
def test_the_base_s_method_is_read_as_the_override_s(dicts_repo, real_model, monkeypatch):
    with open_store(dicts_repo) as store:
        ids = [h.symbol.id for h in ask(store, real_model, QUESTION).hits]
        assert ids[0] == OVERRIDE
        assert BASE not in ids
        monkeypatch.setattr(context, "OVERRIDES_OF_BASES", False)
        off = [h.symbol.id for h in ask(store, real_model, QUESTION).hits]
        assert off.index(BASE) < off.index(OVERRIDE)
