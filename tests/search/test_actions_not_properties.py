"""A statement whose lead's verb does something to an object ("Increment the
semaphore value …") asks for a method, not a value read as an attribute: a
property of a class one of whose plain methods is a candidate too counts
PROPERTY_FACTOR (``context.ACTIONS_NOT_PROPERTIES``). docs/search.md, "What
is the answer"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import PROPERTY_FACTOR
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    "question",
    [
        "Increment the semaphore value in Semaphore.",
        "Decrement the semaphore value, blocking if necessary in the Semaphore instance.",
        "Response: Converts the response iterator in a list. By default this happens automatically.",
        "This function converts the stored values into a header.",
    ],
)
def test_a_verb_that_acts_on_its_object_leads(question):
    assert context.action_lead(question)


@pytest.mark.parametrize(
    "question",
    [
        # a condition, a comparison, a participle, a class's name: a value is described
        "If the response is streamed this property is `True` in the Response instance.",
        "Like `content_type`, but without parameters in the FileStorage instance.",
        "Cached reference of sorted keys view in the SortedDict instance.",
        "Request: `MultiDict` object containing all uploaded files.",
        # a verb that hands a value back or tells one may describe a property
        "Return the semaphore value in Semaphore.",
        "Check if the semaphore is locked in Semaphore.",
        # a verb without an object after it
        "Called when an attempted read receives zero bytes.",
    ],
)
def test_no_acting_verb_leads(question):
    assert not context.action_lead(question)


def test_a_property_counts_less_only_beside_a_plain_method_of_its_class():
    value = _function("value", decorators=("@property",), parent="Semaphore")
    release = _function("release", parent="Semaphore")
    init = _function("__init__", parent="Lock")
    locked = _function("locked", decorators=("@property",), parent="Lock")
    symbols = {s.id: s for s in (value, release, init, locked)}
    # Lock has a property and only a constructor beside it
    assert context.action_properties(symbols) == {value.id}


SEMAPHORE_PY = '''\
class Semaphore:
    def __init__(self, initial_value):
        self._value = initial_value

    def acquire(self):
        self._value -= 1

    def release(self):
        self._value += 1

    @property
    def value(self):
        """The current value of the semaphore."""
        return self._value
'''
VALUE, RELEASE = "sem.py:method:Semaphore.value", "sem.py:method:Semaphore.release"


@pytest.fixture(scope="module")
def semaphore_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("actions") / "sem", {"sem.py": SEMAPHORE_PY}, real_model, module_backend)


@pytest.mark.slow
def test_an_acting_verb_puts_the_property_of_its_object_down(semaphore_repo, real_model, monkeypatch):
    question = "Increment the semaphore value in Semaphore."
    with open_store(semaphore_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[VALUE] == pytest.approx(PROPERTY_FACTOR)
        assert got[RELEASE] == pytest.approx(1.0)
        assert factors(ask(store, real_model, "Return the semaphore value in Semaphore."))[VALUE] == pytest.approx(1.0)
        monkeypatch.setattr(context, "ACTIONS_NOT_PROPERTIES", False)
        assert factors(ask(store, real_model, question))[VALUE] == pytest.approx(1.0)
