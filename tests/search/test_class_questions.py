"""Questions that name the class of the method they ask about (docs/search.md,
"What is the answer"): a real repository in tmp_path with a class and its
method, an interface, a protocol and an abstract base declaring the same
method with the same words, a test double named like the class and a
tutorial under docs_src/, indexed into each backend and embedded with the
real ONNX model. And methods of the same name in other classes:

- ``File.to_info_dict`` has no docstring; ``Parameter.to_info_dict``, an
  unrelated class's, has the question's words: "… in the File instance"
  asks for the first, and the second's votes are the first's;
- ``FileStream.tell`` has no docstring; the base method it overrides,
  ``Stream.tell``, has (what ``inspect.getdoc`` would read for it);
- ``CreateIndex.reverse`` is not ``DropIndex.reverse``: another subclass of
  the same base, whose method of the same name does the opposite."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.domain import Symbol
from cartog_ci.search.declarations import is_declaration, is_test_case, is_test_double
from cartog_ci.search.intent import classify
from cartog_ci.search.multimodal import (
    CONSTRUCTOR_FACTOR,
    CONTEXT_FACTOR,
    DECLARATION_FACTOR,
    DEMOTION,
    HELPER_FACTOR,
    KIND_FACTOR,
    MEMBER_FACTOR,
    NOWAIT_FACTOR,
    VERB_ONLY_FACTOR,
    MultimodalOptions,
    MultimodalResult,
    search,
    wanted_kinds,
)
from cartog_ci.search import context, multimodal, names
from cartog_ci.search.intent import STOPWORDS
from cartog_ci.search.names import hands_back, name_words, question_lead, says_protocol, says_special, verb_and_after
from cartog_ci.search.rerank import BlendReranker
from cartog_ci.search.roles import role_of
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, database, index, init_repo, open_store, write

pytestmark = pytest.mark.usefixtures("module_database")

LISTS_PY = '''\
"""Lists that move their items."""


class SplayList(list):
    """A list that moves the items it is asked about to the front."""

    def shift(self, item_index, dest_index=0):
        if item_index == dest_index:
            return
        item = self.pop(item_index)
        self.insert(dest_index, item)

    def swap(self, first, second):
        """Exchange two items in place."""
        self[first], self[second] = self[second], self[first]
'''
INTERFACES_PY = '''\
from zope.interface import Interface


class IShifting(Interface):
    """Something that moves its items."""

    def shift(item_index, dest_index=0):
        """Shift the item at the given index to the destination index."""
'''
PROTOCOLS_PY = '''\
from typing import Protocol


class Shifting(Protocol):
    def shift(self, item_index: int, dest_index: int = 0) -> None:
        """Shift the item at the given index to the destination index."""
        ...
'''
BASE_PY = '''\
import abc


class ShiftingBase(abc.ABC):
    @abc.abstractmethod
    def shift(self, item_index, dest_index=0):
        """Shift the item at the given index to the destination index."""

    def unimplemented_shift(self, item_index, dest_index=0):
        """Shift the item at the given index to the destination index, some day."""
        raise NotImplementedError("subclasses shift")
'''
STUB_PYI = '''\
class SplayList(list):
    def shift(self, item_index: int, dest_index: int = ...) -> None: ...
'''
TESTING_PY = '''\
class DummySplayList:
    """Stands in for a SplayList in the tests of its users."""

    def __init__(self):
        self.calls = []

    def shift(self, item_index, dest_index=0):
        """Shift the item at the given index to the destination index."""
        self.calls.append((item_index, dest_index))
'''
TUTORIAL_PY = '''\
from lists import SplayList


def shift_the_item_at_the_given_index():
    """Shift the item at the given index to the destination index of a SplayList."""
    items = SplayList([1, 2, 3])
    items.shift(2, 0)
    print(items)
'''
PARAMS_PY = '''\
class Parameter:
    """A parameter of a command."""

    def __init__(self, name):
        self.name = name

    def to_info_dict(self):
        """Gather information that could be useful for a tool generating user-facing documentation."""
        return {"name": self.name, "kind": type(self).__name__}


class File:
    """A file argument."""

    def __init__(self, mode):
        self.mode = mode

    def to_info_dict(self):
        info = {"mode": self.mode}
        return info

    def convert(self, value):
        """Open the file at the given path for reading or writing."""
        return open(value, self.mode)
'''
STREAMS_PY = '''\
class Stream:
    """A stream of bytes in memory."""

    def __init__(self, data):
        self._data = data
        self._position = 0

    def tell(self):
        """Return the current stream position."""
        return self._position

    def seek(self, position):
        """Move to the given offset of the stream."""
        self._position = min(position, len(self._data))

    def __len__(self):
        return len(self._data)

    def __enter__(self):
        return self


class FileStream(Stream):
    def __init__(self, file):
        self._file = file

    def tell(self):
        return self._file.tell()

    def read(self, size):
        """Read up to the given number of bytes from the file."""
        return self._file.read(size)
'''
OPS_PY = '''\
class Operation:
    def reverse(self):
        raise NotImplementedError


class CreateIndex(Operation):
    def __init__(self, name):
        self.name = name

    def reverse(self):
        """Return the operation that drops the index this one creates."""
        return DropIndex(self.name)


class DropIndex(Operation):
    def __init__(self, name):
        self.name = name

    def reverse(self):
        return CreateIndex(self.name)
'''
PAIRS_PY = '''\
class Pairs(dict):
    def pop(self, key, default=None):
        """Remove the key and hand its value back."""
        return super().pop(key, default)

    def popitem(self):
        return super().popitem()
'''
BAGS_PY = '''\
class Bag:
    def __init__(self):
        self._values = []

    def remove(self, value):
        """Remove the value; it must be in the bag."""
        self._values.remove(value)

    def discard(self, value):
        if value in self._values:
            self._values.remove(value)

    def clear(self):
        del self._values[:]

    def pop(self, index=-1):
        return self._values.pop(index)

    def as_list(self):
        return list(self._values)
'''
QUESTION = "Shift the item at the given index to the destination index in the SplayList instance."
ANSWER = "lists.py:method:SplayList.shift"
CLASS = "lists.py:class:SplayList"
DECLARATIONS = {
    "interfaces.py:method:IShifting.shift",
    "protocols.py:method:Shifting.shift",
    "base.py:method:ShiftingBase.shift",
    "base.py:method:ShiftingBase.unimplemented_shift",
    "lists.pyi:method:SplayList.shift",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    files = {
        "lists.py": LISTS_PY,
        "lists.pyi": STUB_PYI,
        "interfaces.py": INTERFACES_PY,
        "protocols.py": PROTOCOLS_PY,
        "base.py": BASE_PY,
        "testing.py": TESTING_PY,
        "docs_src/tutorial001.py": TUTORIAL_PY,
        "params.py": PARAMS_PY,
        "streams.py": STREAMS_PY,
        "ops.py": OPS_PY,
        "pairs.py": PAIRS_PY,
        "bags.py": BAGS_PY,
    }
    return indexed_repo(tmp_path_factory.mktemp("class-questions") / "splay", files, real_model, module_backend)


def indexed_repo(repo: Path, files: Mapping[str, str], real_model: EmbeddingModel, module_backend: str | None) -> Path:
    """A git repository at ``repo`` with these files in one commit, indexed
    and embedded with the real model (the search tests' repositories)."""
    init_repo(repo)
    write(repo, files)
    commit(repo, "files")
    with database(module_backend):
        index(repo)
        with workspace.open_store(workspace.locate(str(repo), None), create=True) as store:
            embed_pending(store, lambda: real_model, config_key="default")
    return repo


@pytest.fixture
def store(repo: Path) -> Iterator[Store]:
    with open_store(repo) as s:
        yield s


def ask(store: Store, model: EmbeddingModel, query: str) -> MultimodalResult:
    return search(
        store, query, model_factory=lambda: model, reranker=BlendReranker(), options=MultimodalOptions(limit=20)
    )


def class_factor(store: Store, model: EmbeddingModel, query: str) -> float:
    """The factor of the class SplayList in the first 50 hits (below the first 20 when it counts little)."""
    result = search(
        store, query, model_factory=lambda: model, reranker=BlendReranker(), options=MultimodalOptions(limit=50)
    )
    return factors(result)[CLASS]


def factors(result: MultimodalResult) -> dict[str, float]:
    """Each hit's factor, read back from its contributions (weight × factor / (k + rank + 1))."""
    from cartog_ci.search.context import MEMBER_NAMES_K, MEMBER_NAMES_WEIGHT, MEMBERS_WEIGHT
    from cartog_ci.search.multimodal import WEIGHTS

    weights = {**WEIGHTS[result.intent.name], "members": MEMBERS_WEIGHT, "member names": MEMBER_NAMES_WEIGHT}
    # the member names list votes with a k of its own, scaled so that its first votes as at k = 40
    ks = {"member names": MEMBER_NAMES_K or 40}
    out = {}
    for hit in result.hits:
        values = {
            round(
                source["contribution"] * (ks.get(name, 40) + source["rank"] + 1) * 41 / (ks.get(name, 40) + 1)
                / weights["semantic" if name == "rerank" else name],
                6,
            )
            for name, source in hit.sources.items()
        }
        assert len(values) == 1, (hit.symbol.id, values)
        out[hit.symbol.id] = values.pop()
    return out


@pytest.mark.slow
def test_the_method_comes_first_and_the_class_it_names_counts_as_context(store, real_model):
    result = ask(store, real_model, QUESTION)
    assert (result.intent.name, result.fusion_strategy) == ("understand_code", "weighted_rrf")
    found = [h.symbol.id for h in result.hits]
    assert found[0] == ANSWER
    got = factors(result)
    assert class_factor(store, real_model, result.query) == pytest.approx(CONTEXT_FACTOR * KIND_FACTOR)  # a verb asks for code
    assert got[ANSWER] == pytest.approx(MEMBER_FACTOR)
    # the methods of the classes named SplayList (the stub's too) by meaning: a list of their own
    members = {h.symbol.id for h in result.hits if "members" in h.sources}
    assert members == {ANSWER, "lists.py:method:SplayList.swap", "lists.pyi:method:SplayList.shift"}
    # … and by the words of their names: "Shift …" names shift, not swap
    named = {h.symbol.id: h.sources["member names"]["rank"] for h in result.hits if "member names" in h.sources}
    assert named == {ANSWER: 0, "lists.pyi:method:SplayList.shift": 0}  # the same name: one shared place
    # the methods of other classes named shift are read as SplayList's: their votes are the answer's
    assert not {"interfaces.py:method:IShifting.shift", "protocols.py:method:Shifting.shift",
                "base.py:method:ShiftingBase.shift", "testing.py:method:DummySplayList.shift"} & set(found)  # fmt: skip
    assert got["docs_src/tutorial001.py:function:shift_the_item_at_the_given_index"] == pytest.approx(DEMOTION)


@pytest.mark.slow
def test_declarations_test_doubles_and_tutorials_rank_below_the_implementation(store, real_model):
    result = ask(store, real_model, "Shift the item at the given index to the destination index.")
    found = [h.symbol.id for h in result.hits]
    got = factors(result)
    assert {"interfaces.py:method:IShifting.shift", "protocols.py:method:Shifting.shift",
            "base.py:method:ShiftingBase.shift"} <= set(got)  # fmt: skip
    for declaration in DECLARATIONS & set(got):
        assert got[declaration] == pytest.approx(DECLARATION_FACTOR)
        assert found.index(declaration) > found.index(ANSWER)
    # the test double counts as a test, the tutorial as documentation
    assert got["testing.py:method:DummySplayList.shift"] == pytest.approx(DEMOTION)
    assert got["docs_src/tutorial001.py:function:shift_the_item_at_the_given_index"] == pytest.approx(DEMOTION)


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    [
        "Shift the item at the given index to the destination index in SplayList.",
        "SplayList: Shift the item at the given index to the destination index.",
        "Shift the item at the given index to the destination index of the SplayList class.",
    ],
)
def test_every_form_of_naming_the_class_makes_it_context(store, real_model, query):
    result = ask(store, real_model, query)
    assert result.hits[0].symbol.id == ANSWER
    got = factors(result)
    assert class_factor(store, real_model, result.query) == pytest.approx(CONTEXT_FACTOR * KIND_FACTOR)  # a verb asks for code
    assert "member names" in result.hits[0].sources


@pytest.mark.parametrize(
    ("question", "led"),
    [
        ("Shift the item at the given index.", True),
        ("SplayList: Shift the item at the given index.", True),  # an issue title's class left out
        ("This function shifts the item at the given index.", True),
        ("A splay list that moves its items to the front.", False),  # a noun phrase asks what a thing is
        ("The total number of items.", False),
        ("Function used to shift the item.", False),
    ],
)
def test_a_question_that_opens_with_a_verb(question, led):
    assert context.verb_led(question) is led


@pytest.mark.slow
def test_a_question_that_opens_with_a_verb_asks_for_code_not_a_class(store, real_model, monkeypatch):
    question = "Shift the item at the given index to the destination index."
    assert class_factor(store, real_model, question) == pytest.approx(KIND_FACTOR)
    # what a thing is: the class counts in full
    assert class_factor(store, real_model, "A splay list that moves items to new indexes.") == 1.0
    # (a "how" question is no statement: the class it names is context, and no more)
    assert class_factor(store, real_model, "How does SplayList shift items to new indexes?") == CONTEXT_FACTOR
    monkeypatch.setattr(multimodal, "VERB_ASKS_CODE", False)
    assert class_factor(store, real_model, question) == 1.0


@pytest.mark.slow
def test_a_class_whose_objects_the_code_handles_is_not_context(store, real_model):
    result = ask(store, real_model, "Move the first item of each of a collection of SplayList objects to the end.")
    got = factors(result)
    assert class_factor(store, real_model, result.query) == pytest.approx(KIND_FACTOR)  # not context; a verb asks for code
    assert not any("members" in h.sources or "member names" in h.sources for h in result.hits)


@pytest.mark.slow
def test_a_question_that_asks_for_the_interface_or_a_class_does_not_demote_them(store, real_model):
    result = ask(store, real_model, "The interface method that shifts the item at the given index to the destination.")
    got = factors(result)
    assert got["interfaces.py:method:IShifting.shift"] == 1.0
    result = ask(store, real_model, "The class that moves the items of a list it is asked about, a SplayList.")
    got = factors(result)
    assert got[CLASS] == 1.0  # asked for a class: the one it names is a candidate, not context
    assert got[ANSWER] < 1.0  # a method, when a class was asked for


GATHER = "Gather information that could be useful for a tool generating user-facing documentation"
POSITION = "Return the current stream position"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "answer", "namesake", "otherwise", "its_answer"),
    [
        # an unrelated class's documented method of the same name
        (f"{GATHER} in the File instance.", "params.py:method:File.to_info_dict",
         "params.py:method:Parameter.to_info_dict", f"{GATHER}.", "params.py:method:Parameter.to_info_dict"),
        (f"File: {GATHER}.", "params.py:method:File.to_info_dict",
         "params.py:method:Parameter.to_info_dict", f"{GATHER}.", "params.py:method:Parameter.to_info_dict"),
        # the documented method of the base that the named class overrides
        (f"{POSITION} in the FileStream instance.", "streams.py:method:FileStream.tell",
         "streams.py:method:Stream.tell", f"{POSITION} in the Stream instance.", "streams.py:method:Stream.tell"),
    ],
)  # fmt: skip
def test_the_named_class_s_method_takes_the_votes_of_its_namesake_elsewhere(
    store, real_model, query, answer, namesake, otherwise, its_answer
):
    found = [h.symbol.id for h in ask(store, real_model, query).hits]
    assert found[0] == answer
    assert namesake not in found  # read as the named class's own: in no list of its own
    # … and without that class named, the documented one is the answer
    assert ask(store, real_model, otherwise).hits[0].symbol.id == its_answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "answer"),
    [
        (f"{GATHER} in the File instance.", "params.py:method:File.to_info_dict"),
        (f"File: {GATHER}.", "params.py:method:File.to_info_dict"),
        (f"{POSITION} in the FileStream instance.", "streams.py:method:FileStream.tell"),
    ],
)
def test_the_re_ranker_reads_the_named_class_s_method_as_its_documented_namesake(
    store, real_model, monkeypatch, query, answer
):
    # no docstring of its own: its code reads less like the question than its namesake's docstring
    def rerank_rank() -> int:
        hit = next(h for h in ask(store, real_model, query).hits if h.symbol.id == answer)
        return int(hit.sources["rerank"]["rank"])

    assert rerank_rank() == 0
    monkeypatch.setattr(context, "NAMESAKE_MEANING", False)
    assert rerank_rank() > 0


@pytest.mark.slow
def test_the_namesake_of_a_sibling_class_keeps_its_votes(store, real_model):
    # CreateIndex and DropIndex share a base: their reverse() do opposite things
    result = ask(store, real_model, "Return the operation that drops the index in the DropIndex instance.")
    found = [h.symbol.id for h in result.hits]
    assert "ops.py:method:CreateIndex.reverse" in found
    assert "members" not in next(h for h in result.hits if h.symbol.id == "ops.py:method:CreateIndex.reverse").sources


def test_the_kind_words_that_go_with_a_name_do_not_ask_for_that_kind():
    for query, kinds in (
        ("Return the loop of the Runner class.", set()),
        ("Shift the item in the SplayList instance.", set()),
        ("The class that shifts the items of a SplayList.", {"class"}),
        ("This method shifts the items of a SplayList.", {"method"}),
    ):
        assert wanted_kinds(classify(query), query) == kinds, query


@pytest.mark.slow  # the repository is embedded with the real model
def test_declarations_and_test_doubles_are_read_from_the_stored_symbols(store):
    methods = {s.id: s for path in ("lists.py", "lists.pyi", "interfaces.py", "protocols.py", "base.py", "testing.py")
               for s in store.symbols_in_file(path) if s.kind in ("method", "class")}  # fmt: skip
    texts = store.contents(list(methods))
    declared = {i for i, s in methods.items() if is_declaration(s, texts.get(i))}
    assert declared == DECLARATIONS | {"interfaces.py:class:IShifting", "protocols.py:class:Shifting"}
    doubles = {i for i, s in methods.items() if is_test_double(s)}
    assert doubles == {
        "testing.py:class:DummySplayList",
        "testing.py:method:DummySplayList.__init__",
        "testing.py:method:DummySplayList.shift",
    }


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("docs_src/tutorial001.py", "docs"),
        ("docs_src/body/tutorial002_an.py", "docs"),
        ("doc-source/conf.py", "docs"),
        ("examples_async/server.py", "docs"),
        ("pkg/docstring.py", ""),
        ("documents/model.py", ""),
    ],
)
def test_the_code_of_the_documentation_is_documentation(path, role):
    assert role_of(path) == role


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("receive_nowait", ["receive", "nowait"]),
        ("getAfterCommitHooks", ["get", "after", "commit", "hooks"]),
        ("__repr__", ["string", "representation", "repr"]),
        ("__delitem__", ["delete", "remove"]),
        ("__contains__", ["contain", "true", "element", "member", "membership", "test", "check"]),
        ("__not_in_the_data_model__", ["not", "in", "the", "data", "model"]),
    ],
)
def test_what_a_method_name_says(name, words):
    assert name_words(name) == words


@pytest.mark.slow
def test_a_name_the_question_compares_its_answer_with_is_not_the_answer(store, real_model):
    result = ask(store, real_model, "Like `seek` but returns the current position in the Stream instance.")
    got = factors(result)
    assert got["streams.py:method:Stream.seek"] == pytest.approx(CONTEXT_FACTOR)
    assert [h.symbol.id for h in result.hits][0] == "streams.py:method:Stream.tell"


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Return the offset that `seek` moved to in the Stream instance.", ["seek"]),
        ("Return the offset `seek()` moved to, and `_data` in Stream.", ["seek", "_data"]),
        ("Return the offset. Calls `seek` first.", []),  # a later sentence: the method itself at work
        ("Return the offset of the `Stream` or `stream.seek`.", []),  # a class, a dotted path
    ],
)
def test_the_names_a_first_sentence_writes_as_code(question, names):
    assert context.used_names(question) == names


def test_a_method_the_statement_writes_as_code_is_what_the_answer_uses(store, real_model, monkeypatch):
    # ``seek`` returns nothing, which "Return …" also counts (RETURNS_BY_BODY,
    # tests/search/test_signature_and_body.py): off, to read this rule alone
    monkeypatch.setattr(context, "RETURNS_BY_BODY", False)
    question = "Return the offset that `seek` moved to in the Stream instance."
    result = ask(store, real_model, question)
    assert factors(result)["streams.py:method:Stream.seek"] == pytest.approx(CONTEXT_FACTOR)
    assert factors(result)["streams.py:method:Stream.tell"] == pytest.approx(MEMBER_FACTOR)
    assert [h.symbol.id for h in result.hits][0] == "streams.py:method:Stream.tell"
    # asked how it works, the question is about it
    how = ask(store, real_model, "How does `seek` move the offset in the Stream instance?")
    assert factors(how)["streams.py:method:Stream.seek"] == pytest.approx(MEMBER_FACTOR)
    monkeypatch.setattr(context, "CODE_NAMES_USED", False)
    assert factors(ask(store, real_model, question))["streams.py:method:Stream.seek"] == pytest.approx(MEMBER_FACTOR)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Return the data. See `set_data`.", ["set_data"]),
        ("Writes the usage line. This is a low-level method called by `get_usage`.", ["get_usage"]),
        ("Formats the usage line. Calls `format_usage()` internally.", ["format_usage"]),
        ("A cached view. Use `keys` instead.", ["keys"]),
        ("Call this at the end of each request or use `make_middleware`.", ["make_middleware"]),
        ("Should be registered with `with_resource` instead.", ["with_resource"]),
        ("Transactions may start without calling `begin`. The call to `run` returns a function.", []),
        ("Use `to_info_dict` to traverse the structure. See `MultiDict`.", []),  # no cue; a class
    ],
)
def test_the_names_a_description_refers_its_reader_to(question, names):
    assert context.referenced_names(question) == names


@pytest.mark.slow
def test_a_method_the_description_refers_its_reader_to_is_not_the_answer(store, real_model, monkeypatch):
    # ``seek`` returns nothing, which "Return …" also counts (RETURNS_BY_BODY,
    # tests/search/test_signature_and_body.py): off, to read this rule alone
    monkeypatch.setattr(context, "RETURNS_BY_BODY", False)
    question = "Return the current position in the Stream instance. Calls `seek` first when it moved."
    assert context.used_names(question) == []  # a later sentence: not the first sentence's rule
    result = ask(store, real_model, question)
    assert factors(result)["streams.py:method:Stream.seek"] == pytest.approx(CONTEXT_FACTOR)
    assert factors(result)["streams.py:method:Stream.tell"] == pytest.approx(MEMBER_FACTOR)
    # the method itself at work is no reference to another one
    at_work = ask(store, real_model, "Return the current position in the Stream instance. Known without calling `seek`.")
    assert factors(at_work)["streams.py:method:Stream.seek"] == pytest.approx(MEMBER_FACTOR)
    monkeypatch.setattr(context, "REFERENCES_NOT_ANSWER", False)
    assert factors(ask(store, real_model, question))["streams.py:method:Stream.seek"] == pytest.approx(MEMBER_FACTOR)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Checks a list of URIs. It then calls the check_uri function on each URI.", ["check_uri"]),
        ("Runs when an account is created. It passes the request to the send_activation method.", ["send_activation"]),
        ("Reads the data. It calls the `readChunk()` method, then the read_chunk function.", ["readChunk", "read_chunk"]),
        ("It calls the check_uri function on each URI.", []),  # the first sentence may name what it asks about
        ("Builds the object. It calls the __init__ method of its parent.", []),  # a special method
        ("Saves the row. It calls the save method of its parent.", []),  # a word, not an identifier
        ("Checks the URIs. The check_uri helper validates each.", []),  # no "function" / "method"
    ],
)
def test_the_functions_a_description_names_in_prose_after_its_first_sentence(question, names):
    assert context.prose_callees(question) == names


@pytest.mark.slow
def test_a_function_a_later_sentence_names_in_prose_is_not_the_answer(store, real_model, monkeypatch):
    question = "Return the current position in the Stream instance. It calls the to_info_dict method when it moved."
    result = ask(store, real_model, question)
    got = factors(result)
    named = [i for i in got if i.endswith(".to_info_dict")]
    assert named and all(got[i] == pytest.approx(CONTEXT_FACTOR) for i in named)
    monkeypatch.setattr(context, "CALLEES_IN_PROSE", False)
    got = factors(ask(store, real_model, question))
    assert all(got[i] == pytest.approx(1.0) for i in named if i in got)


@pytest.mark.parametrize(
    ("question", "name", "phrase"),
    [
        ("Return string representation of sorted dict", "__repr__", 0),
        ("This function returns a string representation of the Config", "__repr__", 0),
        ("Return the size of the sorted list", "__len__", 0),
        ("Return number of occurrences of value", "__len__", None),  # "number" is no size
        ("Finds the outermost context", "__enter__", None),  # "context" is not the verb
        ("Enters the runtime context", "__enter__", 0),
        ("Return true if is an element of the sorted list", "__contains__", 1),
        ("Return true if the queue is empty", "__contains__", None),
        ("Removes the item identified by key", "__delitem__", 1),
        ("Remove and return value at `index` in sorted list", "__delitem__", None),  # a pop: del hands back nothing
        ("Return value for item identified by key", "__setitem__", None),  # returned, not stored
        ("Store item in sorted dict", "__setitem__", 0),
        ("Return a reverse iterator over the keys", "__reversed__", 0),
        ("Return a reverse iterator over the keys", "__iter__", None),
        ("Create new sorted list or sorted-key list instance", "__new__", 0),
        ("Create new sorted list or sorted-key list instance", "__init__", 2),
        ("Create a stream over the given bytes", "__init__", 4),  # a word of its class's name
        ("Create an iterator of values between minimum and maximum", "__init__", None),
    ],
)
def test_a_special_method_is_named_by_the_question_s_verb_and_its_object(question, name, phrase):
    at, verb, after = verb_and_after(question.split(), STOPWORDS)
    assert verb is not None
    assert says_special(name, verb, after, ["stream"], hands_back=hands_back(question)) == phrase


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("This function only closes the file if it was opened by the wrapper", "closes"),
        ("This function recursively updates the nested mapping", "updates"),
        ("Simply returns the value", "return"),
        ("Apply the settings to the command", "apply"),  # a verb that ends like an adverb
    ],
)
def test_an_adverb_before_the_verb_is_not_the_verb(question, verb, monkeypatch):
    assert verb_and_after(question.split(), STOPWORDS)[1] == verb
    monkeypatch.setattr(names, "ADVERBS_BEFORE_VERB", False)
    adverb = question.split()[2 if question.startswith("This function") else 0].lower()
    assert verb_and_after(question.split(), STOPWORDS)[1] == (verb if adverb == "apply" else adverb)


def test_a_verb_that_goes_on_and_returns_hands_a_value_back():
    question = "This function removes the specified key from the KeyValue instance and returns the value."
    assert hands_back(question)
    assert not hands_back("Removes the key. The caller returns the value.")  # another sentence
    at, verb, after = verb_and_after(question.split(), STOPWORDS)
    assert (at, verb) == (2, "removes")
    assert says_special("__delitem__", verb, after, [], hands_back=True) is None
    assert says_special("__delitem__", verb, after, []) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "method", "by_name"),
    [
        ("Create a stream over the given bytes in the Stream instance.", "__init__", True),  # the verb: the constructor
        ("Return new offset of the stream position in the Stream instance.", "__init__", False),  # an adjective
        ("Return the size of the data in the Stream instance.", "__len__", True),
        ("Return the number of bytes left in the Stream instance.", "__len__", False),  # "number" is no size
        ("Enter the runtime context of the Stream instance.", "__enter__", True),
        ("Find the position of the context in the Stream instance.", "__enter__", False),  # not the verb
    ],
)
def test_a_special_method_is_named_by_the_question_s_verb_only(store, real_model, query, method, by_name):
    result = ask(store, real_model, query)
    sources = next((h.sources for h in result.hits if h.symbol.id == f"streams.py:method:Stream.{method}"), {})
    assert ("member names" in sources) is by_name


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "method", "by_name"),
    [
        ("Seek to the given offset in the Stream instance.", "seek", True),  # the verb names it
        ("Record the seek offset in the Stream instance.", "seek", False),  # a verb that does something: not its object
        ("Return the seek offset in the Stream instance.", "seek", True),  # a verb that hands its object back
        ("The seek offset of the Stream instance.", "seek", True),  # a lead without a verb
        ("Function used to seek the offset in the Stream instance.", "seek", True),  # the same
    ],
)
def test_a_method_is_named_by_the_question_s_action_verb_not_its_object(store, real_model, query, method, by_name):
    result = ask(store, real_model, query)
    sources = next((h.sources for h in result.hits if h.symbol.id == f"streams.py:method:Stream.{method}"), {})
    assert ("member names" in sources) is by_name


@pytest.mark.slow
def test_a_name_that_runs_the_question_s_words_together_says_them(store, real_model):
    result = ask(store, real_model, "Pop an item from the dict in the Pairs instance.")
    named = {h.symbol.id: h.sources["member names"]["rank"] for h in result.hits if "member names" in h.sources}
    assert named == {"pairs.py:method:Pairs.popitem": 0, "pairs.py:method:Pairs.pop": 1}


@pytest.mark.parametrize(
    ("question", "name", "phrase"),
    [
        ("Remove all items from sorted dict in the SortedDict instance.", "clear", 0),
        ("SortedSet: Remove all values from sorted set.", "clear", 0),
        ("Remove all values of `iterables` from this sorted set.", "clear", None),  # not all of its own
        ("Remove `value` from sorted list if it is a member.", "discard", 0),
        ("Remove element elem from the set if it is present.", "discard", 0),
        ("Remove `value` from sorted list; `value` must be a member.", "discard", None),
        ("Remove and return value at `index` in sorted list.", "pop", 0),
        ("This function removes the specified key and returns the corresponding value.", "pop", 1),
        ("Remove and return `(key, value)` pair at `index` from sorted dict.", "pop", None),
        ("Remove and return `(key, value)` pair at `index` from sorted dict.", "popitem", 0),
        ("Remove value at `index` from sorted list.", "__delitem__", 0),
        ("Remove `value` from sorted list.", "__delitem__", None),
        ("FileReadStream: Return the current stream position.", "tell", 0),
        ("Return an iterator over the keys of the sorted dict.", "__iter__", 0),
        ("Return the index of the header in the set or return -1 if not found.", "find", 0),
        ("Return the index of the header in the set.", "find", None),
        ("Return an iterator of `(key, value)` pairs.", "items", 0),
        ("Return `(key, value)` pair at `index` in sorted dict.", "items", None),
        ("Return new sorted set with values from itself and all `iterables`.", "union", 0),
        ("Return the number of times x appears in the list.", "count", 0),
        ("The method returns the value for key if key is in the dictionary, else default.", "get", 0),
        ("This function retrieves the value associated with the given key.", "get", 2),
        ("Return value for item identified by `key` in sorted dict.", "get", None),
        # the POSIX utilities' names: their manual pages' wording
        ("Create a new directory in the local filesystem.", "mkdir", 0),
        ("Remove the empty directory at `path`.", "rmdir", 0),
        ("List all the files and directories in the given path.", "ls", 0),
        ("This function calculates the total size of files in a given path.", "du", 0),
        ("Create a new file in the directory.", "mkdir", None),
        ("List the commands of the group.", "ls", None),
        ("Remove all items from the list.", "remove", None),  # only protocol methods have phrases
    ],
)
def test_a_protocol_method_is_named_by_the_standard_library_s_wording(question, name, phrase):
    assert says_protocol(name, question_lead(question)) == phrase


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "method", "lifted"),
    [
        ("Remove all values from the bag in the Bag instance.", "clear", True),
        # its code reads "if value in"; the wording also makes ``remove`` count less (PROTOCOL_OVER_VERB)
        ("Bag: Remove `value` from the bag if it is a member.", "discard", True),
        ("Remove and return the value at `index` in Bag.", "pop", True),
    ],
)
def test_a_protocol_method_comes_before_the_method_its_verb_names(
    store, real_model, monkeypatch, query, method, lifted
):
    # "… return …" and "`index`" also count ``remove`` less (it returns nothing and takes no
    # ``index``: RETURNS_BY_BODY, PARAMETERS_WRITTEN, tests/search/test_signature_and_body.py),
    # which takes it out of the first 20: off, to read the wording alone
    monkeypatch.setattr(context, "RETURNS_BY_BODY", False)
    monkeypatch.setattr(context, "PARAMETERS_WRITTEN", False)
    result = ask(store, real_model, query)
    named = {h.symbol.id: h.sources["member names"]["rank"] for h in result.hits if "member names" in h.sources}
    assert named == {f"bags.py:method:Bag.{method}": 0, "bags.py:method:Bag.remove": 1}
    ranked = [h.symbol.id for h in result.hits]
    monkeypatch.setattr(context, "PROTOCOL_WORDING", False)
    before = [h.symbol.id for h in ask(store, real_model, query).hits]
    # ``remove`` has the question's verb in its name and its docstring; the wording lifts the answer
    answer = f"bags.py:method:Bag.{method}"
    assert (ranked.index(answer) < before.index(answer)) is lifted
    assert ranked.index(answer) <= before.index(answer)


@pytest.mark.slow
def test_a_class_named_in_words_is_context_for_its_members(store, real_model):
    result = ask(store, real_model, "Shift the item at the given index to the destination index in the splay list.")
    assert result.hits[0].symbol.id == ANSWER
    assert class_factor(store, real_model, result.query) == pytest.approx(CONTEXT_FACTOR * KIND_FACTOR)


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    [
        "A splay list that moves the items it is asked about to the front.",  # a noun phrase: what a thing is
        "Shift the item at the given index to the destination index in splay lists.",  # not its words in order
    ],
)
def test_a_class_named_in_words_is_not_context_without_a_verb_or_its_words(store, real_model, query):
    # not context (× CONTEXT_FACTOR); a question that opens with a verb asks for code all the same
    assert class_factor(store, real_model, query) == pytest.approx(KIND_FACTOR if context.verb_led(query) else 1.0)


@pytest.mark.parametrize(
    ("question", "target"),
    [
        ("Convert the `ETags` object into a python set in the ETags instance.", "set"),
        ("This function converts a DropIndexOp instance into an Index instance.", "index"),
        ("Converts the object back into an HTTP header in the Range instance.", "header"),
        ("Convert the stored values into a cache control header.", "header"),
        # a relative clause ends the noun phrase
        ("This function converts the AlterColumnOp instance into a tuple that represents the differences between the existing column and the modified column.", "tuple"),  # fmt: skip
        ("Convert the row into a dict which maps each column to its value.", "dict"),
        ("Response: Converts the response iterator in a list.", None),  # no "into" / "to"
        ("Return the values as a list.", None),  # not a conversion verb
    ],
)
def test_what_a_conversion_converts_into(question, target):
    assert context.conversion_target(question) == target


@pytest.mark.slow
def test_a_conversion_is_named_by_what_it_converts_into(store, real_model, monkeypatch):
    query = "Convert the values into a list in the Bag instance."
    result = ask(store, real_model, query)
    named = {h.symbol.id: h.sources["member names"]["rank"] for h in result.hits if "member names" in h.sources}
    assert named == {"bags.py:method:Bag.as_list": 0}
    monkeypatch.setattr(context, "CONVERSION_NAMES", False)
    before = ask(store, real_model, query)
    assert all("member names" not in h.sources for h in before.hits)


HEADERS_PY = '''\
class Authorization:
    """An Authorization header: its type and its parameters."""

    def __init__(self, auth_type, data=None):
        self.type = auth_type
        self.parameters = data or {}

    @classmethod
    def from_header(cls, value):
        """Parse an Authorization header value into an object."""
        auth_type, _, rest = value.partition(" ")
        return cls(auth_type.lower(), {"token": rest})

    def to_header(self):
        """Produce an Authorization header value from this object."""
        return f"{self.type.title()} {self.parameters.get('token', '')}"


class Request:
    """An HTTP request: its method, its path and its headers."""

    def __init__(self, method, path, headers):
        self.method = method
        self.path = path
        self.headers = headers

    def authorization(self):
        value = self.headers.get("Authorization")
        return Authorization.from_header(value) if value else None

    def content_length(self):
        """The body's length in bytes, from the Content-Length header."""
        return int(self.headers.get("Content-Length", 0))
'''
SORTED_BAG_PY = '''\
class SortedBag:
    """A bag that keeps its values sorted and finds them by position."""

    def __init__(self, values=()):
        """Keep the given values sorted in the bag, to look them up by position."""
        self._values = sorted(values)

    def __getitem__(self, index):
        return self._values[index]

    def add(self, value):
        """Add a value to the bag, keeping the values sorted."""
        self._values.append(value)
        self._values.sort()
'''
BAG_INIT = "sorted_bag.py:method:SortedBag.__init__"
# test cases a library ships for its users' backends, outside any test path
BAG_TESTING_PY = '''\
from sorted_bag import SortedBag


class BaseTestBag:
    def test_add_keeps_the_values_sorted(self):
        bag = SortedBag([3, 1])
        bag.add(2)
        assert [bag[0], bag[1], bag[2]] == [1, 2, 3]
'''
CHANNEL_PY = '''\
import collections


class Channel:
    def __init__(self):
        self._items = collections.deque()

    async def receive(self):
        while not self._items:
            await self.wait_for_sender()
        return self._items.popleft()

    def receive_nowait(self):
        """Receive the next item if one is ready, without waiting for a sender."""
        if not self._items:
            raise LookupError("no item is ready")
        return self._items.popleft()

    async def wait_for_sender(self):
        """Wait until a sender has put an item in the channel."""
'''
SETTINGS_PY = '''\
class Settings(dict):
    def get(self, key, default=None):
        return super().get(key, default)

    def value_of(self, key):
        """Return the value of the setting named key, converted to its type."""
        return self.types[key](self[key])
'''
ROWS_PY = '''\
class Rows:
    def __init__(self, rows):
        self._rows = sorted(rows)

    def islice(self, start=None, stop=None, reverse=False):
        rows = self._islice(start or 0, len(self._rows) if stop is None else stop)
        return reversed(rows) if reverse else iter(rows)

    def _islice(self, start, stop):
        """Return an iterator that slices the sorted rows from start to stop."""
        return self._rows[start:stop]

    def _check(self):
        assert self._rows == sorted(self._rows)
'''
COMMANDS_PY = '''\
class Commands:
    def __init__(self):
        self._commands = {}

    def lookup_command(self, name):
        """Look up the registered subcommand by its name and return it, or None."""
        return self._commands.get(name)

    def find(self, name):
        return self._commands[name] if name in self._commands else None
'''
TABLES_PY = '''\
class DropTable:
    def __init__(self, name):
        self.name = name

    @classmethod
    def from_table(cls, table):
        return cls(table.name)

    def drop_table(self, table):
        """Create the statement that drops the given table instance."""
        return f"DROP TABLE {table.name}"
'''
RECEIVE, RECEIVE_NOWAIT = "channel.py:method:Channel.receive", "channel.py:method:Channel.receive_nowait"
TEST_CASE = "bags/testing.py:method:BaseTestBag.test_add_keeps_the_values_sorted"


@pytest.fixture(scope="module")
def methods_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("method-questions") / "http", {"headers.py": HEADERS_PY, "sorted_bag.py": SORTED_BAG_PY, "bags/testing.py": BAG_TESTING_PY, "channel.py": CHANNEL_PY, "settings.py": SETTINGS_PY, "rows.py": ROWS_PY, "commands.py": COMMANDS_PY, "tables.py": TABLES_PY}, real_model, module_backend)


@pytest.fixture
def methods_store(methods_repo: Path) -> Iterator[Store]:
    with open_store(methods_repo) as s:
        yield s


@pytest.mark.parametrize(
    ("question", "unasked"),
    [
        ("Lookup value at `index` in sorted bag in the SortedBag instance.", True),
        ("SortedBag: Add a value to the bag.", True),
        ("Create new sorted bag in the SortedBag instance.", False),  # the data model's words for a constructor
        ("Create a bag of sorted values in the SortedBag instance.", False),  # "create" and its own class's word
        ("This function initializes the bag with the given values.", False),
        ("Construct the bag from the given values.", False),
        ("Create an iterator over the values in the SortedBag instance.", True),  # not what it makes
    ],
)
def test_a_constructor_is_asked_for_by_the_question_s_verb_only(methods_store, question, unasked):
    init = methods_store.symbols([BAG_INIT])[BAG_INIT]
    assert context.unasked_constructor(question, init) is unasked
    add = methods_store.symbols(["sorted_bag.py:method:SortedBag.add"])["sorted_bag.py:method:SortedBag.add"]
    assert context.unasked_constructor(question, add) is False  # not a constructor


@pytest.mark.slow
def test_a_constructor_counts_less_unless_the_question_s_verb_names_it(methods_store, real_model, monkeypatch):
    question = "Lookup value at `index` in sorted bag in the SortedBag instance."
    result = ask(methods_store, real_model, question)
    assert factors(result)[BAG_INIT] == pytest.approx(CONSTRUCTOR_FACTOR)
    assert result.hits[0].symbol.id == "sorted_bag.py:method:SortedBag.__getitem__"
    # named by the question's verb, it counts in full
    assert factors(ask(methods_store, real_model, "Create new sorted bag in the SortedBag instance."))[BAG_INIT] == 1.0
    # … as in a question that does not open with a verb
    assert factors(ask(methods_store, real_model, "The values of the SortedBag instance, sorted."))[BAG_INIT] == 1.0
    monkeypatch.setattr(multimodal, "CONSTRUCTOR_BY_VERB", False)
    assert factors(ask(methods_store, real_model, question))[BAG_INIT] == 1.0


@pytest.mark.parametrize(
    ("question", "name", "made"),
    [
        ("Request: The `Authorization` header parsed into an `Authorization` object.", "Authorization", True),
        ("Request: The `Authorization` header parsed into an `Authorization` object.", "Request", False),
        ("Response: The `Content-Range` header as a `ContentRange` object.", "ContentRange", True),
        ("Return a new `MapAdapter` with the details specified to the call in the Map instance.", "MapAdapter", True),
        ("Return a new `MapAdapter` with the details specified to the call in the Map instance.", "Map", False),
        ("Request: `MultiDict` object containing all uploaded files.", "MultiDict", True),
        ("This function creates a DropIndexOp instance based on the given index.", "DropIndexOp", True),
        ("Shift the item at the given index in the SplayList instance.", "SplayList", False),
        ("SplayList: Shift the item at the given index.", "SplayList", False),
        ("Shift the item at the given index of the SplayList class.", "SplayList", False),
    ],
)
def test_a_class_named_as_what_the_answer_makes(question, name, made):
    assert context._names_product(question, name) is made


@pytest.mark.slow
def test_a_class_the_answer_makes_is_not_context_beside_the_class_it_belongs_to(methods_store, real_model, monkeypatch):
    question = "Request: The `Authorization` header parsed into an `Authorization` object."
    authorization = "headers.py:class:Authorization"
    result = ask(methods_store, real_model, question)
    assert factors(result)["headers.py:class:Request"] == pytest.approx(CONTEXT_FACTOR)
    assert factors(result).get(authorization, 1.0) == 1.0
    members = {h.symbol.id for h in result.hits if "members" in h.sources}
    assert members and all(i.startswith("headers.py:method:Request.") for i in members)
    # the only class named, what is made stays context: "This function creates a DropIndexOp instance …"
    alone = ask(methods_store, real_model, "Parse an Authorization header value into an `Authorization` object.")
    assert factors(alone)[authorization] == pytest.approx(CONTEXT_FACTOR * KIND_FACTOR)
    monkeypatch.setattr(context, "PRODUCTS_NOT_CONTEXT", False)
    before = ask(methods_store, real_model, question)
    assert factors(before)[authorization] == pytest.approx(CONTEXT_FACTOR)


@pytest.mark.parametrize(
    ("qualified_name", "kind", "case"),
    [
        ("BaseTestBag.test_add_keeps_the_values_sorted", "method", True),
        ("PermissionTest.test_principals_is_empty", "method", True),
        ("TestParser.test_empty", "method", True),
        ("Database.test_connection", "method", False),  # an API that tests something, not a test case
        ("test_connection", "function", False),
        ("BaseTestBag.setUp", "method", False),
    ],
)
def test_a_test_case_by_its_name(qualified_name, kind, case):
    parent = f"lib.py:class:{qualified_name.rsplit('.', 1)[0]}" if "." in qualified_name else None
    symbol = Symbol(
        id=f"lib.py:{kind}:{qualified_name}", name=qualified_name.rsplit(".", 1)[-1], qualified_name=qualified_name,
        kind=kind, file="lib.py", start_line=1, end_line=2, start_byte=0, end_byte=10, parent_id=parent,
        signature="", language="python", content_hash="", subtree_hash="",
    )  # fmt: skip
    assert is_test_case(symbol) is case


@pytest.mark.slow
def test_a_test_case_outside_the_test_paths_counts_as_a_test(methods_store, real_model, monkeypatch):
    question = "Add a value to the bag, keeping the values sorted."
    assert role_of("bags/testing.py") == ""  # a library for tests, by its path
    result = ask(methods_store, real_model, question)
    assert factors(result)[TEST_CASE] == pytest.approx(DEMOTION)
    # … unless the question asks about tests
    assert factors(ask(methods_store, real_model, "The test that adds a value to the bag."))[TEST_CASE] == 1.0
    monkeypatch.setattr(multimodal, "TEST_CASES", False)
    assert factors(ask(methods_store, real_model, question))[TEST_CASE] == 1.0


@pytest.mark.slow
def test_a_method_that_does_not_wait_is_asked_for_by_saying_so(methods_store, real_model, monkeypatch):
    result = ask(methods_store, real_model, "Receive the next item in the Channel instance.")
    got = factors(result)
    assert (got[RECEIVE], got[RECEIVE_NOWAIT]) == (1.0, pytest.approx(NOWAIT_FACTOR))
    assert result.hits[0].symbol.id == RECEIVE
    result = ask(methods_store, real_model, "Receive the next item without blocking in the Channel instance.")
    got = factors(result)
    assert (got[RECEIVE], got[RECEIVE_NOWAIT]) == (pytest.approx(NOWAIT_FACTOR), 1.0)
    assert result.hits[0].symbol.id == RECEIVE_NOWAIT
    monkeypatch.setattr(multimodal, "NOWAIT_BY_WORDS", False)
    got = factors(ask(methods_store, real_model, "Receive the next item in the Channel instance."))
    assert (got[RECEIVE], got[RECEIVE_NOWAIT]) == (1.0, 1.0)


@pytest.mark.slow
def test_beside_the_standard_library_s_wording_a_method_named_by_the_verb_alone_counts_less(
    store, real_model, monkeypatch
):
    question = "Remove all values from the bag in the Bag instance."
    result = ask(store, real_model, question)
    got = factors(result)
    assert got["bags.py:method:Bag.remove"] == pytest.approx(VERB_ONLY_FACTOR)
    assert got["bags.py:method:Bag.clear"] == 1.0
    assert result.hits[0].symbol.id == "bags.py:method:Bag.clear"
    # no wording of the standard library in the question: the verb names remove
    assert factors(ask(store, real_model, "Remove the value from the bag in the Bag instance."))["bags.py:method:Bag.remove"] == 1.0
    monkeypatch.setattr(context, "PROTOCOL_OVER_VERB", False)
    assert factors(ask(store, real_model, question))["bags.py:method:Bag.remove"] == 1.0


@pytest.mark.slow
def test_beside_the_standard_library_s_wording_a_member_named_by_the_lead_s_words_counts_less(
    methods_store, real_model, monkeypatch
):
    # "Return" hands a value back: dict.get's wording names get, "value" names value_of
    question = "Return the value for `key` if `key` is in the settings, else default in the Settings instance."
    got = factors(ask(methods_store, real_model, question))
    assert got["settings.py:method:Settings.value_of"] == pytest.approx(VERB_ONLY_FACTOR)
    assert got["settings.py:method:Settings.get"] == 1.0
    monkeypatch.setattr(context, "PROTOCOL_OVER_WORDS", False)
    assert factors(ask(methods_store, real_model, question))["settings.py:method:Settings.value_of"] == 1.0


@pytest.mark.slow
def test_a_private_helper_named_after_a_public_method_is_not_the_answer(methods_store, real_model, monkeypatch):
    question = "Return an iterator that slices the sorted rows from start to stop in the Rows instance."
    result = ask(methods_store, real_model, question)
    got = factors(result)
    assert got["rows.py:method:Rows._islice"] == pytest.approx(MEMBER_FACTOR * HELPER_FACTOR)
    assert got["rows.py:method:Rows.islice"] == pytest.approx(MEMBER_FACTOR)
    assert result.hits[0].symbol.id == "rows.py:method:Rows.islice"
    # a private method named after no public one is not a helper of one
    checked = ask(methods_store, real_model, "Check that the rows are sorted in the Rows instance.")
    assert factors(checked)["rows.py:method:Rows._check"] == pytest.approx(MEMBER_FACTOR)
    # … nor is one the question writes
    named = ask(methods_store, real_model, "How does _islice slice the sorted rows in the Rows instance?")
    assert factors(named)["rows.py:method:Rows._islice"] == pytest.approx(MEMBER_FACTOR)
    monkeypatch.setattr(context, "HELPERS_BELOW_PUBLIC", False)
    off = ask(methods_store, real_model, question)
    assert factors(off)["rows.py:method:Rows._islice"] == pytest.approx(MEMBER_FACTOR)
    assert off.hits[0].symbol.id == "rows.py:method:Rows._islice"


@pytest.mark.slow
def test_a_word_of_a_question_about_the_code_base_names_a_method_in_a_statement(methods_store, real_model, monkeypatch):
    # "find" is a stop word of the intent classifier ("find the function that …"), not of a method's name
    question = "Find the registered subcommand by its name in the Commands instance."
    result = ask(methods_store, real_model, question)
    by_name = {h.symbol.id for h in result.hits if "member names" in h.sources}
    assert by_name == {"commands.py:method:Commands.find"}
    assert result.hits[0].symbol.id == "commands.py:method:Commands.find"
    monkeypatch.setattr(context, "CODE_VERBS_NAME_MEMBERS", False)
    off = ask(methods_store, real_model, question)
    assert not any("member names" in h.sources for h in off.hits)
    assert off.hits[0].symbol.id == "commands.py:method:Commands.lookup_command"


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("This function creates a DropTableOp instance based on the given table.", "table"),
        ("This function creates a CreateIndexOp instance based on the given Index object.", "index"),
        ("Request: Create a new request object based on the values provided.", "values"),
        ("Build a config from the given file in the Config instance.", "file"),
        ("Build a config from the given file that holds the settings and the defaults.", "file"),  # a relative clause
        ("Return the table the index is based on.", None),  # no creation
    ],
)
def test_what_a_creation_makes_its_instance_from(question, source):
    assert context.creation_source(question) == source


@pytest.mark.slow
def test_an_alternate_constructor_is_named_by_what_it_makes_its_instance_from(methods_store, real_model, monkeypatch):
    question = "This function creates a DropTable instance based on the given table."
    result = ask(methods_store, real_model, question)
    by_name = [h.symbol.id for h in result.hits if "member names" in h.sources]
    assert by_name == ["tables.py:method:DropTable.from_table"]
    assert result.hits[0].symbol.id == "tables.py:method:DropTable.from_table"
    monkeypatch.setattr(context, "ALTERNATE_CONSTRUCTORS", False)
    off = ask(methods_store, real_model, question)
    assert not any("member names" in h.sources for h in off.hits)
    assert off.hits[0].symbol.id != "tables.py:method:DropTable.from_table"


def read_classes(store: Store, question: str) -> tuple[set[str], set[str]]:
    """The classes a question names as context, and those whose members it asks for."""
    run = multimodal.Run(store, question, classify(question), None, 50)
    context.read_context(run)
    return set(run.context or ()), set(run.owners)


def test_a_class_named_in_a_later_sentence_is_not_the_owner_of_the_answer(store, monkeypatch):
    file, stream, file_stream = "params.py:class:File", "streams.py:class:Stream", "streams.py:class:FileStream"
    question = "Return the current position in the FileStream instance. It is read from the File it wraps."
    named, owners = read_classes(store, question)
    assert named == {file_stream, file}  # both are context: neither class is the answer
    assert owners == {file_stream}  # … the later sentence says what the code uses
    # a base of the first sentence's class, named later, still owns members the answer may inherit
    inherited = "Read bytes from the FileStream instance. The position is kept by the Stream."
    assert read_classes(store, inherited) == ({file_stream, stream}, {file_stream, stream})
    monkeypatch.setattr(context, "FIRST_SENTENCE_CONTEXT", False)
    assert read_classes(store, question) == ({file_stream, file}, {file_stream, file})
