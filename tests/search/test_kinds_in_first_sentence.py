"""The kinds a statement about behaviour asks for are those its first
sentence names, or its opening "This function" / "This method" names
(``multimodal.KINDS_IN_FIRST_SENTENCE``), and none by the kind words of one
that opens with a verb (``multimodal.VERB_OBJECTS_ASK_NO_KIND``)
(docs/search.md, the kind factor): the question's side (``wanted_kinds``)
and the factors a real search gives on a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import multimodal
from cartog_ci.search.intent import classify
from cartog_ci.search.multimodal import KIND_FACTOR, wanted_kinds
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    ("question", "kinds", "all_sentences", "verb_objects"),
    [
        # a later sentence's kind word is what the code uses
        ("This function returns the schema. It first calls the parent class's method.", {"function", "method"}, {"class", "function", "method"}, {"function", "method"}),  # fmt: skip
        ("The function that returns the schema. It first calls the parent class's method.", {"function", "method"}, {"class", "function", "method"}, {"function", "method"}),  # fmt: skip
        # the opening "This function" says the kind, whatever kind words follow in its sentence
        ("This function is a class method that gets or creates a data directory.", {"function", "method"}, {"class", "function", "method"}, {"function", "method"}),  # fmt: skip
        ("This function returns the worker class based on the configuration settings.", {"function", "method"}, {"class", "function", "method"}, {"function", "method"}),  # fmt: skip
        ("This method shifts the items of a SplayList.", {"method"}, {"method"}, {"method"}),
        ("Parser: the method that reads a line. It calls the helper function.", {"method"}, {"function", "method"}, {"method"}),  # fmt: skip
        # a statement that opens with a verb: its kind words are what the verb acts on
        ("Check if the given argument is an instance of a specified class.", set(), set(), {"class"}),
        ("Connect to a database. It creates an instance of the appropriate database class.", set(), set(), set()),
        ("Return the exception class that is raised in a task if it's cancelled.", set(), set(), {"class"}),
        # a noun phrase's own kind words still ask
        ("The class that shifts the items of a SplayList. Each item moves by one.", {"class"}, {"class"}, {"class"}),
        ("A class which holds the items of a SplayList.", {"class"}, {"class"}, {"class"}),
    ],
)
def test_the_kinds_a_statement_asks_for(question, kinds, all_sentences, verb_objects, monkeypatch):
    assert wanted_kinds(classify(question), question) == kinds
    with monkeypatch.context() as patch:
        patch.setattr(multimodal, "KINDS_IN_FIRST_SENTENCE", False)
        assert wanted_kinds(classify(question), question) == all_sentences
    monkeypatch.setattr(multimodal, "VERB_OBJECTS_ASK_NO_KIND", False)
    assert wanted_kinds(classify(question), question) == verb_objects


DB_PY = '''\
"""Connections to databases."""


class Database:
    """A database connection, made from the connection parameters of a URL."""

    def __init__(self, host, port, name):
        self.host, self.port, self.name = host, port, name


def connect(url, **params):
    host, _, rest = url.partition(":")
    port, _, name = rest.partition("/")
    params.update(host=host, port=int(port), name=name)
    return Database(**params)
'''
CONNECT, DATABASE = "db.py:function:connect", "db.py:class:Database"


@pytest.fixture(scope="module")
def db_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("kinds") / "db", {"db.py": DB_PY}, real_model, module_backend)


@pytest.fixture
def db_store(db_repo: Path) -> Iterator[Store]:
    with open_store(db_repo) as s:
        yield s


@pytest.mark.slow
def test_a_kind_word_of_a_later_sentence_asks_for_no_kind(db_store, real_model, monkeypatch):
    question = (
        "This function connects to a database using the given URL and connection parameters. "
        "It parses the URL and creates an instance of the appropriate database class."
    )
    got = factors(ask(db_store, real_model, question))
    assert got[CONNECT] == pytest.approx(1.0)
    assert got[DATABASE] == pytest.approx(KIND_FACTOR)  # "This function" asks for a function or a method
    monkeypatch.setattr(multimodal, "KINDS_IN_FIRST_SENTENCE", False)
    off = factors(ask(db_store, real_model, question))
    assert off[CONNECT] == pytest.approx(1.0)
    assert off[DATABASE] == pytest.approx(1.0)


@pytest.mark.slow
def test_a_kind_word_after_a_verb_asks_for_no_kind(db_store, real_model, monkeypatch):
    question = "Connect to a database using the given URL and the appropriate database class."
    got = factors(ask(db_store, real_model, question))
    assert got[CONNECT] == pytest.approx(1.0)
    assert got[DATABASE] == pytest.approx(KIND_FACTOR)  # a statement that opens with a verb asks for code that does
    monkeypatch.setattr(multimodal, "VERB_OBJECTS_ASK_NO_KIND", False)
    off = factors(ask(db_store, real_model, question))
    assert off[CONNECT] == pytest.approx(KIND_FACTOR)
    assert off[DATABASE] == pytest.approx(1.0)
