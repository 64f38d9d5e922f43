"""A word of a method's name that abbreviates a word of the question's lead
names the method in the member names list (``context.ABBREVIATED_NAMES``,
docs/search.md "What is the answer"): ``get_app_iter`` for "Returns the
application iterator …"; so does a name's word that is the head of a
compound the lead writes (``context.COMPOUND_HEADS``): ``list_commands``
for "Returns a list of subcommand names …". On a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

RESPONSE_PY = '''\
"""A WSGI response."""


class Response:
    def __init__(self, body, status=200):
        self.body = body
        self.status = status

    def get_app_iter(self, environ):
        """Return the body as an iterable for the server."""
        if environ.get("REQUEST_METHOD") == "HEAD":
            return ()
        return [self.body]

    def get_wsgi_response(self, environ):
        """Return the body iterable, the status and the headers."""
        return self.get_app_iter(environ), f"{self.status} OK", []

    def for_each(self, callback):
        """Call ``callback`` on each part of the body."""
        for part in [self.body]:
            callback(part)


class Group:
    def __init__(self, commands):
        self.commands = dict(commands)

    def get_command(self, name):
        """The command of that name, or None."""
        return self.commands.get(name)

    def list_commands(self):
        """The names of the commands, sorted."""
        return sorted(self.commands)


class Client:
    def __init__(self, sock):
        self.sock = sock

    def connect(self, address):
        """Open the socket to ``address``."""
        self.sock.connect(address)

    def close(self):
        """Close the socket."""
        self.sock.close()
'''
APP_ITER = "response.py:method:Response.get_app_iter"
FOR_EACH = "response.py:method:Response.for_each"
LIST_COMMANDS, GET_COMMAND = "response.py:method:Group.list_commands", "response.py:method:Group.get_command"
CONNECT = "response.py:method:Client.connect"


@pytest.fixture(scope="module")
def response_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("abbreviated") / "response", {"response.py": RESPONSE_PY}, real_model, module_backend)


@pytest.fixture
def response_store(response_repo: Path) -> Iterator[Store]:
    with open_store(response_repo) as s:
        yield s


def _member_names(store: Store, model: EmbeddingModel, question: str) -> dict[str, int]:
    result = ask(store, model, question)
    return {h.symbol.id: h.sources["member names"]["rank"] for h in result.hits if "member names" in h.sources}


@pytest.mark.slow
def test_a_name_that_abbreviates_the_lead_s_words_says_them(response_store, real_model, monkeypatch):
    question = "Returns the application iterator for the given environ in the Response instance."
    assert _member_names(response_store, real_model, question).get(APP_ITER) == 0
    monkeypatch.setattr(context, "ABBREVIATED_NAMES", False)
    assert APP_ITER not in _member_names(response_store, real_model, question)


@pytest.mark.slow
def test_a_function_word_abbreviates_nothing(response_store, real_model):
    # "for" starts "Formats", but it is no abbreviation of it
    assert FOR_EACH not in _member_names(response_store, real_model, "Formats the body in the Response instance.")


@pytest.mark.slow
def test_a_name_s_word_that_is_the_head_of_a_compound_of_the_lead_says_it(response_store, real_model, monkeypatch):
    question = "Returns a list of subcommand names in the order they should appear in the Group instance."
    named = _member_names(response_store, real_model, question)
    assert (named.get(LIST_COMMANDS), named.get(GET_COMMAND)) == (0, 1)
    monkeypatch.setattr(context, "COMPOUND_HEADS", False)
    named = _member_names(response_store, real_model, question)
    assert LIST_COMMANDS not in named
    assert GET_COMMAND not in named


@pytest.mark.slow
def test_a_negating_prefix_makes_no_compound(response_store, real_model):
    # "disconnect" is no kind of connect
    assert CONNECT not in _member_names(response_store, real_model, "Disconnects the socket in the Client instance.")
