"""Of two methods of one class whose names are one word apart (past their
first word), the word a description's first sentence says picks one
(``context.TWINS_BY_WORD``); of two whose names are one's words and more,
the object of a statement's verb picks the longer one
(``context.TWIN_BY_OBJECT``); an ``X_async`` variant beside ``X`` counts
less for a first sentence that does not say async
(``context.ASYNC_BY_WORDS``); a twin whose name holds a word the
description says only to rule it out ("without …", "ignoring …") counts
less (``context.NEGATED_WORDS``); of two whose names differ in the number
of their last word, the number the first sentence says picks one
(``context.NUMBER_TWINS``); a special method beside its public namesake
(``__copy__`` / ``copy``) counts less (``context.PROTOCOL_TWINS``). docs/search.md "What is the answer": the
candidates' side (``context.unsaid_twins``, ``context.unasked_async``) and
the factors a real search gives on a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import ASYNC_FACTOR, TWIN_FACTOR
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

CANDIDATES = {
    s.id: s
    for s in (
        _function("get_usage"),
        _function("get_help"),
        _function("format_usage"),  # its first word differs: a verb
        _function("accept_xhtml"),
        _function("accept_html"),
        _function("accept_charsets"),
        _function("addAfterCommitHook"),
        _function("addAfterAbortHook"),
        _function("contains_weak"),
        _function("contains_raw"),
        _function("render"),
        _function("render_async"),
        _function("generate_async"),  # its ``generate`` is not a candidate
        _function("async_send"),
        _function("send"),
    )
}


def _ids(names: set[str]) -> set[str]:
    return {f"lib.py:method:Menu.{name}" for name in names}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("Formats the usage line into a string and returns it. Calls `format_usage` internally.", {"get_help"}),
        ("Menu: True if this object accepts XHTML.", {"accept_html", "accept_charsets"}),
        ("List of encodings this client accepts. For charsets have a look at `accept_charset`.", set()),
        ("Register a hook to call after a transaction commit attempt. It may abort.", {"addAfterAbortHook"}),
        # "weak" is said (the one said need not be the answer: the sentence names it)
        ("Check if an etag is part of the set ignoring weak tags.", {"contains_raw"}),
        # both words said, or neither: no evidence
        ("Return the usage and the help text.", set()),
        ("Return the text shown to the user.", set()),
        # the twin's word only as code, or in a later sentence
        ("Return the text of `get_help`. The help is long.", set()),
        # inflected forms are one word
        ("This function returns the charset of the request.", {"accept_html", "accept_xhtml"}),
    ],
)
def test_the_twin_whose_word_is_not_said(question, wrong):
    assert context.unsaid_twins(question, CANDIDATES) == _ids(wrong)


def test_a_twin_of_another_class_or_kind_is_none():
    candidates = {
        s.id: s
        for s in (
            _function("get_usage", parent="Other"),
            _function("get_help"),  # Menu's: another class
            _function("get_help", kind="class", parent="Other"),  # Other's, but not a method
        )
    }
    assert context.unsaid_twins("Return the usage line.", candidates) == set()


OBJECT_TWINS = {
    s.id: s
    for s in (
        _function("write"),
        _function("write_usage"),
        _function("write_dl"),
        _function("pop"),
        _function("popitem"),
        _function("copy"),
        _function("deepcopy"),
        _function("best"),
        _function("best_match"),
        _function("checkpoint"),
        _function("checkpoint_if_cancelled"),
        _function("addItem"),  # camel case: its words are add, item
        _function("add"),
        _function("close", parent="Other"),  # another class's
        _function("close_file"),
    )
}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("HelpFormatter: Writes a usage line into the buffer.", {"write"}),
        ("Pop an item from the dict in the MultiDict instance.", {"pop", "add"}),  # ``add`` beside ``addItem``
        ("MultiDict: Return a deep copy of this object.", {"copy"}),
        ("This function writes the `usage` line.", set()),  # the object written as code is a name
        ("Add an item to the list.", {"add", "pop"}),  # ``popitem`` holds the item too
        ("Close the file.", set()),  # Other.close is no twin of Menu.close_file
        # no object of a verb: a noun phrase, or the twin's word elsewhere
        ("The best match as value.", set()),
        ("Check if the task has been cancelled, and allow rescheduling.", set()),
        ("Writes the buffer; the usage line comes first.", set()),
    ],
)
def test_the_twin_named_by_the_verb_alone(question, wrong):
    assert context.verb_alone_twins(question, OBJECT_TWINS) == _ids(wrong)


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("This method renders a template with the given context. It can also render asynchronously.", {"render_async", "async_send"}),  # fmt: skip
        ("This method renders a template asynchronously.", set()),
        ("Send the message; await the reply.", set()),
        ("Return a coroutine that renders the template.", set()),
        ("Send an async message.", set()),
    ],
)
def test_the_async_variant_the_first_sentence_does_not_ask_for(question, wrong):
    assert context.unasked_async(question, CANDIDATES) == _ids(wrong)


NEGATED = {
    s.id: s
    for s in (
        _function("contains"),
        _function("contains_weak"),
        _function("is_weak"),
        _function("shutdown"),
        _function("logout"),
        _function("acquire_on_behalf_of"),  # "on": a function word, never ruled out
        _function("available_tokens"),
        _function("extend"),
        _function("weak_ref", parent="Other"),  # alone in its class: no twin to prefer
    )
}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("Check if an etag is part of the set ignoring weak tags.", {"contains_weak", "is_weak"}),
        ("Close the connection. Do so without a logout first.", {"logout"}),
        ("Close the connection without logging out.", set()),  # "logging" is not ``logout``'s word
        ("Closes the connection rather than the logout, unlike `logout`.", {"logout"}),
        ("Close it; instead of a logout, drop the socket.", {"logout"}),
        # "one" is "on" to ``same_word``; a function word of a name is never ruled out
        ("Acquire a token without waiting for one to become available.", {"available_tokens"}),
        # said outside the clause too: not ruled out
        ("Extend the list. Replace existing keys instead of extending.", set()),
        ("Weak tags are kept; check the set without weak tags.", set()),
        # a clause ends at a comma: "weak" after it is said
        ("Check the set without a logout, weak tags included.", {"logout"}),
        # a name written as code is not the description's word
        ("Check the set without `contains_weak`.", set()),
        ("Check the set and log out.", set()),
    ],
)
def test_the_twin_whose_word_a_clause_rules_out(question, wrong):
    assert context.negated_twins(question, NEGATED) == _ids(wrong)


def test_a_foil_alone_in_its_class_is_none():
    candidates = {s.id: s for s in (_function("contains_weak"), _function("is_weak"))}
    assert context.negated_twins("Check the set ignoring weak tags.", candidates) == set()


NUMBERED = {
    s.id: s
    for s in (
        _function("suffix"),
        _function("suffixes"),
        _function("get_revision"),
        _function("get_revisions"),
        _function("check_entry"),
        _function("check_entries"),  # y -> ies
        _function("box"),
        _function("boxes"),  # + es
        _function("stem", parent="Other"),
        _function("stems"),  # Menu's: another class's twin is none
    )
}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("This function returns a list of any suffixes in the name.", {"suffix"}),
        ("Menu: Return the suffix of a file name. It checks the suffixes.", {"suffixes"}),  # the first sentence
        ("This function retrieves a specific revision by its id.", {"get_revisions"}),
        ("Check every entries of the table.", {"check_entry"}),
        ("Pack the boxes.", {"box"}),
        # both numbers said, or neither: no evidence
        ("Return the suffix and all suffixes.", set()),
        ("Return the name.", set()),
        # a capitalised word past the first is a name; code is a name
        ("This function returns a tuple of Revision instances.", set()),
        ("Return the value of `suffix`.", set()),
        ("Return the stems of the word.", set()),
    ],
)
def test_the_twin_in_the_other_number(question, wrong):
    assert context.number_twins(question, NUMBERED) == _ids(wrong)


FORMATTER_PY = '''\
"""Help and usage of a command."""


class Command:
    def __init__(self, name, params):
        self.name = name
        self.params = params

    def get_usage(self, ctx):
        """Formats the usage line into a string and returns it."""
        return f"Usage: {self.name} " + " ".join(p.name for p in self.params)

    def get_help(self, ctx):
        """Formats the help into a string and returns it."""
        return f"{self.name}: " + "; ".join(p.help for p in self.params)

    def render(self, ctx):
        """Render the command's page as a string."""
        return self.get_usage(ctx) + "\\n" + self.get_help(ctx)

    def write(self, out, text):
        """Append ``text`` to ``out``."""
        out.append(text)

    def write_usage(self, out):
        """Append the usage line to ``out``."""
        self.write(out, self.get_usage(None))

    async def render_async(self, ctx):
        """Render the command's page as a string, awaiting nothing."""
        return self.render(ctx)
'''
USAGE, HELP = "formatter.py:method:Command.get_usage", "formatter.py:method:Command.get_help"
WRITE, WRITE_USAGE = "formatter.py:method:Command.write", "formatter.py:method:Command.write_usage"
RENDER, RENDER_ASYNC = "formatter.py:method:Command.render", "formatter.py:method:Command.render_async"


@pytest.fixture(scope="module")
def formatter_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("twins") / "formatter", {"formatter.py": FORMATTER_PY}, real_model, module_backend)


@pytest.fixture
def formatter_store(formatter_repo: Path) -> Iterator[Store]:
    with open_store(formatter_repo) as s:
        yield s


@pytest.mark.slow
def test_the_word_a_description_says_picks_the_twin(formatter_store, real_model, monkeypatch):
    question = "Command: Builds the usage line of the command as a string. It lists the parameters."
    got = factors(ask(formatter_store, real_model, question))
    assert got[HELP] == pytest.approx(TWIN_FACTOR)
    assert got[USAGE] == pytest.approx(1.0)
    monkeypatch.setattr(context, "TWINS_BY_WORD", False)
    assert factors(ask(formatter_store, real_model, question))[HELP] == pytest.approx(1.0)


@pytest.mark.slow
def test_the_async_variant_counts_less_unless_asked(formatter_store, real_model, monkeypatch):
    question = "This method renders the page of the command. It can also be awaited."
    got = factors(ask(formatter_store, real_model, question))
    assert got[RENDER_ASYNC] == pytest.approx(ASYNC_FACTOR)
    assert got[RENDER] == pytest.approx(1.0)
    asked = "This method renders the page of the command asynchronously."
    assert factors(ask(formatter_store, real_model, asked))[RENDER_ASYNC] == pytest.approx(1.0)
    monkeypatch.setattr(context, "ASYNC_BY_WORDS", False)
    assert factors(ask(formatter_store, real_model, question))[RENDER_ASYNC] == pytest.approx(1.0)


@pytest.mark.slow
def test_the_object_of_the_verb_picks_the_longer_twin(formatter_store, real_model, monkeypatch):
    question = "Command: Appends a usage line to the output list."
    got = factors(ask(formatter_store, real_model, question))
    assert got[WRITE] == pytest.approx(TWIN_FACTOR)
    assert got[WRITE_USAGE] == pytest.approx(1.0)
    monkeypatch.setattr(context, "TWIN_BY_OBJECT", False)
    assert factors(ask(formatter_store, real_model, question))[WRITE] == pytest.approx(1.0)


@pytest.mark.slow
def test_a_word_ruled_out_demotes_the_twin_it_names(formatter_store, real_model, monkeypatch):
    question = "Command: Builds the page of the command as a string. It joins the parts, without the usage line."
    got = factors(ask(formatter_store, real_model, question))
    assert got[USAGE] == pytest.approx(TWIN_FACTOR)
    assert got[WRITE_USAGE] == pytest.approx(TWIN_FACTOR)
    assert got[RENDER] == pytest.approx(1.0)
    monkeypatch.setattr(context, "NEGATED_WORDS", False)
    got = factors(ask(formatter_store, real_model, question))
    assert got[USAGE] == pytest.approx(1.0)
    assert got[WRITE_USAGE] == pytest.approx(1.0)


PROTOCOL = {
    s.id: s
    for s in (
        _function("copy"),
        _function("__copy__"),
        _function("__contains__"),  # no ``contains`` among the candidates
        _function("add"),
        _function("__add__"),  # an operator: ``+``, not ``add``
        _function("__iadd__"),
        _function("exit", parent="Other"),
        _function("__exit__"),  # Menu's; ``exit`` is Other's
    )
}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("Return a shallow copy of this object.", {"__copy__"}),
        ("Return a shallow copy of this object; `__copy__` calls it.", set()),  # its name written
        ("Add `value` to the list.", {"__copy__"}),
    ],
)
def test_the_special_method_beside_its_public_namesake(question, wrong):
    assert context.protocol_twins(question, PROTOCOL) == _ids(wrong)


INFO_PY = '''\
"""What a file's name says."""


class Info:
    def __init__(self, name):
        self.name = name

    def suffix(self):
        """The last dotted part of the name, or an empty string."""
        return self.suffixes()[-1] if "." in self.name else ""

    def suffixes(self):
        """Every dotted part of the name after the first."""
        return ["." + part for part in self.name.split(".")[1:]]

    def copy(self):
        """A new Info with the same name."""
        return Info(self.name)

    def __copy__(self):
        return self.copy()

    def stem(self):
        """The name without its last dotted part."""
        return self.name.rsplit(".", 1)[0]
'''
SUFFIX, SUFFIXES = "info.py:method:Info.suffix", "info.py:method:Info.suffixes"
COPY, DUNDER_COPY = "info.py:method:Info.copy", "info.py:method:Info.__copy__"


@pytest.fixture(scope="module")
def info_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("numbers") / "info", {"info.py": INFO_PY}, real_model, module_backend)


@pytest.mark.slow
def test_the_number_of_a_word_picks_the_twin(info_repo, real_model, monkeypatch):
    question = "Info: Returns a list of the suffixes of the file name. It checks if the name has a suffix."
    with open_store(info_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[SUFFIX] == pytest.approx(TWIN_FACTOR)
        assert got[SUFFIXES] == pytest.approx(1.0)
        monkeypatch.setattr(context, "NUMBER_TWINS", False)
        assert factors(ask(store, real_model, question))[SUFFIX] == pytest.approx(1.0)


@pytest.mark.slow
def test_the_special_method_counts_less_beside_its_namesake(info_repo, real_model, monkeypatch):
    question = "Info: Return a new object with the same file name."
    with open_store(info_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[DUNDER_COPY] == pytest.approx(TWIN_FACTOR)
        assert got[COPY] == pytest.approx(1.0)
        monkeypatch.setattr(context, "PROTOCOL_TWINS", False)
        assert factors(ask(store, real_model, question))[DUNDER_COPY] == pytest.approx(1.0)
