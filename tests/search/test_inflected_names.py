"""A verb's third person and a noun's plural are the word a member's name
says ("Writes a usage line …" names ``write_usage``), on both sides of the
member names list (``context.INFLECTED_NAMES``); a name said in the lead's
own number goes first, and its twin in the other number is not named
(``NUMBER_OF_THE_LEAD``: "comparison key" is ``key``, not ``keys``); and a
name's words the lead does not say are counted against the whole first
sentence (``context.UNUSED_BY_SENTENCE``). docs/search.md, "search53"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.context import singular
from cartog_ci.search.intent import classify
from cartog_ci.search.multimodal import Run
from tests.search.test_class_questions import indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("writes", "write"),
        ("Closes", "close"),
        ("adds", "add"),
        ("values", "value"),
        ("matches", "match"),
        ("boxes", "box"),
        ("classes", "class"),
        ("queries", "query"),
        ("keys", "key"),
        # not a third person or a plural
        ("class", "class"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("has", "has"),
        ("its", "its"),
        ("acquired", "acquired"),
    ],
)
def test_singular(word, expected):
    assert singular(word) == expected


def test_the_stems_compared_agree():
    # the crude stem alone cut "writes" to "writ" and "closes" to "clos", and left "adds" whole
    assert context._stem("Writes") == context._stem("write") == "write"
    assert context._stem("closes") == context._stem("close")
    assert context._stem("adds") == context._stem("add") == "add"
    # a participle is not the verb
    assert context._stem("acquired") != context._stem("acquire")


FORMATTING_PY = '''\
class HelpFormatter:
    def __init__(self):
        self.buffer = []

    def write(self, string):
        """Writes a unicode string into the internal buffer."""
        self.buffer.append(string)

    def write_usage(self, prog, args=""):
        self.write(f"Usage: {prog} {args}\\n")

    def getvalue(self):
        """Returns the buffer contents."""
        return "".join(self.buffer)


class SortedDict(dict):
    def __init__(self, key=None):
        self._key = key

    def key(self):
        return self._key

    def keys(self):
        return sorted(super().keys(), key=self._key)


class Command:
    def __init__(self, help=None, short_help=None):
        self.help = help
        self.short_help = short_help

    def get_help(self, ctx):
        return self.help or ""

    def get_short_help_str(self, limit=45):
        return self.short_help or (self.help or "")[:limit]
'''
WRITE, WRITE_USAGE = "formatting.py:method:HelpFormatter.write", "formatting.py:method:HelpFormatter.write_usage"
KEY, KEYS = "formatting.py:method:SortedDict.key", "formatting.py:method:SortedDict.keys"
GET_HELP, SHORT_HELP = "formatting.py:method:Command.get_help", "formatting.py:method:Command.get_short_help_str"


@pytest.fixture(scope="module")
def formatting_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    files = {"formatting.py": FORMATTING_PY}
    return indexed_repo(tmp_path_factory.mktemp("inflected") / "fmt", files, real_model, module_backend)


def member_names(store, model, question: str) -> list[tuple[str, int]]:
    """The member names list: (symbol ID, its shared place)."""
    run = Run(store, question, classify(question), lambda: model, 100)
    context.read_context(run)
    return [(i, run.member_tiers[i]) for i in context.members_by_name(run)]


@pytest.mark.slow
def test_a_third_person_names_the_member(formatting_repo, real_model, monkeypatch):
    question = "Writes a usage line into the buffer in the HelpFormatter instance."
    with open_store(formatting_repo) as store:
        assert member_names(store, real_model, question) == [(WRITE_USAGE, 0), (WRITE, 1)]
        monkeypatch.setattr(context, "INFLECTED_NAMES", False)
        # "writ" is no word of any name: the lead's verb names nothing
        assert member_names(store, real_model, question) == []


@pytest.mark.slow
def test_the_lead_s_number_goes_first(formatting_repo, real_model, monkeypatch):
    question = "Function used to extract comparison key from keys in the SortedDict instance."
    with open_store(formatting_repo) as store:
        # the twin in the other number is not named by the lead (NUMBER_OF_THE_LEAD) …
        assert member_names(store, real_model, question) == [(KEY, 0)]
        monkeypatch.setattr(context, "NUMBER_OF_THE_LEAD", False)
        # … without it, it comes after the one the lead says in its number
        assert member_names(store, real_model, question) == [(KEY, 0), (KEYS, 1)]
        monkeypatch.setattr(context, "INFLECTED_NAMES", False)
        # the crude stem left "keys" whole
        assert member_names(store, real_model, question) == [(KEY, 0)]


@pytest.mark.slow
def test_unsaid_words_counted_against_the_first_sentence(formatting_repo, real_model, monkeypatch):
    question = "Gets short help for the command or makes it by shortening the long help string in Command."
    with open_store(formatting_repo) as store:
        # "str" abbreviates the first sentence's "string": nothing unsaid, and more of the lead said
        assert member_names(store, real_model, question) == [(SHORT_HELP, 0), (GET_HELP, 1)]
        monkeypatch.setattr(context, "UNUSED_BY_SENTENCE", False)
        assert member_names(store, real_model, question) == [(GET_HELP, 0), (SHORT_HELP, 1)]
