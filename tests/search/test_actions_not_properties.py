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


# multimodal.VALUE_LEADS_ASK_NO_KIND: a lead that describes a value asks for that value, whatever its kind words


def test_a_lead_that_describes_a_value_asks_for_no_kind_by_its_kind_words(monkeypatch):
    from cartog_ci.search import multimodal
    from cartog_ci.search.intent import classify

    value = "ShellComplete: The name of the shell function defined by the completion script."
    assert multimodal.wanted_kinds(classify(value), value) == frozenset()
    asked = "The function that defines the shell completion script."  # the kind is the lead's own noun
    assert multimodal.wanted_kinds(classify(asked), asked) == frozenset({"function", "method"})
    monkeypatch.setattr(multimodal, "VALUE_LEADS_ASK_NO_KIND", False)
    assert multimodal.wanted_kinds(classify(value), value) == frozenset({"function", "method"})


COMPLETE_PY = '''\
class ShellComplete:
    def __init__(self, prog_name):
        self.prog_name = prog_name

    @property
    def func_name(self):
        safe_name = self.prog_name.replace("-", "_")
        return f"_{safe_name}_completion"

    def source(self):
        """Produce the shell script that defines the completion function."""
        return "complete -F " + self.func_name

    def get_completions(self, args, incomplete):
        """Determine the context and last complete command or parameter from the complete args."""
        return []
'''
FUNC_NAME, GET_COMPLETIONS = "complete.py:method:ShellComplete.func_name", "complete.py:method:ShellComplete.get_completions"


@pytest.fixture(scope="module")
def complete_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("values") / "complete", {"complete.py": COMPLETE_PY}, real_model, module_backend)


@pytest.mark.slow
def test_a_value_lead_with_a_kind_word_puts_the_plain_methods_down(complete_repo, real_model, monkeypatch):
    from cartog_ci.search import multimodal

    question = "ShellComplete: The name of the shell function defined by the completion script."
    with open_store(complete_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[FUNC_NAME] == pytest.approx(1.0)
        assert got[GET_COMPLETIONS] == pytest.approx(PROPERTY_FACTOR)
        monkeypatch.setattr(multimodal, "VALUE_LEADS_ASK_NO_KIND", False)
        off = factors(ask(store, real_model, question))
        # a function or method wanted: the value rule reads no question that names a kind
        assert off[FUNC_NAME] == pytest.approx(1.0)
        assert off[GET_COMPLETIONS] == pytest.approx(1.0)
