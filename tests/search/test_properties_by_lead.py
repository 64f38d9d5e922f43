"""A description that opens with a noun phrase or a predicate describes a
value: among the methods of one class, a property is its answer
(docs/search.md "What is the answer", ``context.PROPERTIES_BY_LEAD``): the
question's side (``context.property_lead``), the candidates' side
(``context.property_mismatch``, by the decorators the index holds), and the
factors a real search gives on a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import MEMBER_FACTOR, PROPERTY_FACTOR
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("The topmost item on the stack in LocalStack. If the stack is empty, `None` is returned.", True),
        ("The best match as value in the Accept instance.", True),
        ("ShellComplete: The name of the shell function defined by the completion script.", True),  # after "Name: "
        ("A mapping of the extra attributes to callables that return the corresponding values.", True),
        ("`True` if the request method carries content in the Request instance.", True),
        ("MIMEAccept: True if this object accepts XHTML.", True),
        ("Whether the stream is closed.", True),
        ("List of encodings this client accepts in the Request instance.", True),
        ("This is a dictionary which is shared with all the contexts that are nested in Context.", True),
        # a verb, or a noun phrase whose noun is code that is called
        ("Increment the semaphore value in Semaphore.", False),
        ("Return the topmost item on the stack.", False),
        ("This function returns the current timestamp of a resource.", False),
        ("The method adds a value to the stack.", False),
        ("HelpFormatter: A context manager that increases the indentation.", False),
        ("MapAdapter: A helper that returns the URL to redirect to if it finds one.", False),
        ("Function used to extract comparison key from keys in the SortedDict instance.", False),
        ("This is a helper method for the parser.", False),
        ("Check if an etag is part of the set.", False),
    ],
)
def test_a_question_that_describes_a_value(question, value):
    assert context.property_lead(question) is value


def test_the_methods_of_a_class_with_a_property_among_the_candidates():
    candidates = {
        s.id: s
        for s in (
            _function("top", decorators=("@property",)),
            _function("pop"),
            _function("push"),
            _function("__init__"),  # a constructor is not judged
            _function("size", decorators=("@functools.cached_property",), parent="Other"),
            _function("clear", parent="Other"),
            _function("peek", parent="Third"),  # no property of its class is a candidate
            _function("helper", kind="function", parent="mod"),
        )
    }
    assert context.property_mismatch(candidates) == {
        "lib.py:method:Menu.pop",
        "lib.py:method:Menu.push",
        "lib.py:method:Other.clear",
    }
    assert context.is_value_property(_function("top", decorators=("@x.getter",))) is True
    assert context.is_value_property(_function("top", decorators=("@top.setter",))) is False
    assert context.is_value_property(_function("top", decorators=("@property",), kind="function")) is False


STACK_PY = '''\
"""Stacks of items."""


class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        """Remove the topmost item from the stack and return it."""
        return self._items.pop()

    @property
    def top(self):
        return self._items[-1] if self._items else None
'''
POP, PUSH, TOP = "stack.py:method:Stack.pop", "stack.py:method:Stack.push", "stack.py:method:Stack.top"


@pytest.fixture(scope="module")
def stack_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("properties") / "stack", {"stack.py": STACK_PY}, real_model, module_backend)


@pytest.fixture
def stack_store(stack_repo: Path) -> Iterator[Store]:
    with open_store(stack_repo) as s:
        yield s


@pytest.mark.slow
def test_a_description_of_a_value_is_answered_by_a_property(stack_store, real_model, monkeypatch):
    question = "The topmost item on the stack in the Stack instance."
    got = factors(ask(stack_store, real_model, question))
    assert got[POP] == pytest.approx(MEMBER_FACTOR * PROPERTY_FACTOR)
    assert got[PUSH] == pytest.approx(MEMBER_FACTOR * PROPERTY_FACTOR)
    assert got[TOP] == pytest.approx(MEMBER_FACTOR)
    # a question that opens with a verb is no description of a value: its plain methods keep their
    # factor, and a verb that acts on its object puts the property down (context.ACTIONS_NOT_PROPERTIES)
    verb = factors(ask(stack_store, real_model, "Remove the topmost item from the stack in the Stack instance."))
    assert verb[POP] == pytest.approx(MEMBER_FACTOR)
    assert verb[TOP] == pytest.approx(MEMBER_FACTOR * PROPERTY_FACTOR)
    monkeypatch.setattr(context, "PROPERTIES_BY_LEAD", False)
    assert factors(ask(stack_store, real_model, question))[POP] == pytest.approx(MEMBER_FACTOR)
