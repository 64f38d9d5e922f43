"""A lead whose verb acts on "all" of something asks for the method that
does it to all: of two methods of one class whose names end in one word in
the singular and in the plural (``unregisterSynch`` / ``clearSynchs``), the
singular counts TWIN_FACTOR (``context.ALL_BY_PLURAL``). docs/search.md,
"What is the answer"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import TWIN_FACTOR
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

ONE, ALL, LIST = (
    _function("unregisterSynch", parent="TransactionManager"),
    _function("clearSynchs", parent="TransactionManager"),
    _function("registeredSynchs", parent="TransactionManager"),
)
CANDIDATES = {s.id: s for s in (ONE, ALL, LIST)}


def test_all_puts_the_singular_down():
    assert context.all_twins("Unregister all registered `ISynchronizer` objects.", CANDIDATES) == {ONE.id}
    assert context.all_twins("TransactionManager: Remove all registered objects.", CANDIDATES) == {ONE.id}


@pytest.mark.parametrize(
    "question",
    [
        "Unregister the given `ISynchronizer` object.",  # no "all"
        "Unregister a synch and all of its hooks.",  # "all" is not the verb's object
        "Unregister all synch objects.",  # the lead says the singular word
        "Unregister all the synchronizers.",  # … or a word it abbreviates
    ],
)
def test_no_all_or_the_singular_said(question):
    assert context.all_twins(question, CANDIDATES) == set()


def test_the_twins_are_of_one_class():
    other = _function("clearSynchs", parent="ThreadTransactionManager")
    assert context.all_twins("Unregister all registered objects.", {s.id: s for s in (ONE, other)}) == set()


MANAGER_PY = '''\
class TransactionManager:
    def __init__(self):
        self._synchs = []

    def registerSynch(self, synch):
        """Register an ISynchronizer."""
        self._synchs.append(synch)

    def unregisterSynch(self, synch):
        """Unregister an ISynchronizer."""
        self._synchs.remove(synch)

    def clearSynchs(self):
        self._synchs.clear()
'''
UNREGISTER, CLEAR = "txn.py:method:TransactionManager.unregisterSynch", "txn.py:method:TransactionManager.clearSynchs"


@pytest.fixture(scope="module")
def manager_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("alls") / "txn", {"txn.py": MANAGER_PY}, real_model, module_backend)


@pytest.mark.slow
def test_all_puts_the_singular_down_in_a_search(manager_repo, real_model, monkeypatch):
    question = "Unregister all registered `ISynchronizer` objects in the TransactionManager instance."
    with open_store(manager_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[UNREGISTER] == pytest.approx(TWIN_FACTOR)
        assert got[CLEAR] == pytest.approx(1.0)
        monkeypatch.setattr(context, "ALL_BY_PLURAL", False)
        assert factors(ask(store, real_model, question))[UNREGISTER] == pytest.approx(1.0)
