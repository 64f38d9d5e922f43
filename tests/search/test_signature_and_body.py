"""What a candidate's signature and body say against a description
(docs/search.md "What is the answer"):

- a description that says its code returns a value is not answered by code
  that returns none (``context.RETURNS_BY_BODY``): the question's side
  (``context.says_returns``), the candidate's
  (``declarations.hands_back_nothing``, read from its stored text);
- the parameters a description writes as code name the method that takes
  them (``context.PARAMETERS_WRITTEN``, ``declarations.parameter_names``);

and the factors a real search gives on a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.domain import Symbol
from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.declarations import hands_back_nothing, parameter_names
from cartog_ci.search.multimodal import MEMBER_FACTOR, NO_VALUE_FACTOR, PARAMETER_FACTOR
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("Returns a list of subcommand names in the order they should appear.", True),
        ("Return the value for `key` in the Settings instance.", True),
        ("Command: Formats the usage line into a string and returns it.", True),  # "and returns"
        ("This function returns the current timestamp of a resource.", True),
        ("Get the current transaction.", True),
        ("SortedDict: Return a new sorted dict initialized from `iterable`.", True),  # after "Name: "
        ("Parses counters from the output. It takes the stderr as input and returns a dictionary.", True),
        ("Parses counters from the output. It then returns the counters.", True),
        ("Estimate the guesses of a match. Finally, it returns the minimum guesses.", True),
        # the server returns, not the code; "returns immediately" hands nothing back
        ("Puts the server into IDLE mode, where the server will return unsolicited responses.", False),
        ("Puts the server into IDLE mode. This method returns immediately.", False),
        ("Writes a usage line into the buffer in the HelpFormatter instance.", False),
        ("Closes the file. It returns nothing.", False),
        ("Sets the return code of the process.", False),
    ],
)
def test_a_question_says_its_code_returns_a_value(question, says):
    assert context.says_returns(question) is says


def _function(
    name: str, *, kind: str = "method", decorators: tuple[str, ...] = (), file: str = "lib.py", signature: str = "",
    parent: str = "Menu",
) -> Symbol:
    return Symbol(
        id=f"{file}:{kind}:{parent}.{name}", name=name, qualified_name=f"{parent}.{name}", kind=kind, file=file,
        start_line=1, end_line=9, start_byte=0, end_byte=100, parent_id=f"{file}:class:{parent}",
        signature=signature, language="python", content_hash="", subtree_hash="", decorators=decorators,
    )  # fmt: skip


HEADER = "// File: lib.py | method Menu.{name}\n"


@pytest.mark.parametrize(
    ("name", "body", "decorators", "nothing"),
    [
        # annotated
        ("format_commands", "def format_commands(self, formatter) -> None:\n    formatter.write(self.names)", (), True),
        ("list_commands", "def list_commands(self) -> t.List[str]:\n    pass", (), False),
        ("fail", "def fail(self, message: str) -> 't.NoReturn':\n    raise UsageError(message)", (), True),
        # over several lines, the lone closing bracket of a decorator left out of the stored text
        ("write_dl", '@deprecated(\n    "use write"\ndef write_dl(\n    self,\n    rows,\n) -> None:\n    self.write(rows)', (), True),
        # not annotated: its body says
        ("close", '"""Close the file."""\nif self._f is not None:\n    self._f.close()', (), True),
        ("close", 'def close(self):\n    """Return the file.\n    return it."""\n    self._f.close()\n    return', (), True),
        ("close", "def close(self):\n    self._f.close()\n    return None", (), True),
        ("names", "def names(self):\n    return sorted(self._names)", (), False),
        ("names", "def names(self):\n    x = yield\n    self.send(x)", (), False),
        # a word of a name is no statement
        ("close", "def close(self):\n    returned = self.flush()\n    self.log(returned, my_return(1))", (), True),
        ("names", "def names(self):\n    for name in self._names:\n        yield name", (), False),
        ("names", "def names(self):\n    def key(n) -> int\n    self._names.sort(key=key)", (), True),  # a nested function's signature
        ("value", "def value(self):\n    self._value", ("@property",), False),  # a property hands its value back
        ("value", "@functools.cached_property\ndef value(self):\n    self.compute()", (), False),
        # a declaration has no body to read; a text that is not a def is not judged
        ("names", 'def names(self):\n    """Return the names."""\n    raise NotImplementedError', (), False),
        ("names", 'def names(self):\n    """Return the names."""', (), False),
        ("names", "class names:\n    pass", (), False),
    ],
)
def test_a_method_hands_back_nothing_by_its_signature_or_body(name, body, decorators, nothing):
    text = HEADER.format(name=name) + body
    if body.startswith('"""'):
        text = HEADER.format(name=name) + "def close(self):\n" + body
    assert hands_back_nothing(_function(name, decorators=decorators), text) is nothing


def test_a_cut_text_or_a_stub_is_not_judged():
    long_body = "def close(self):\n" + "    self.flush()\n" * 200
    assert hands_back_nothing(_function("close"), HEADER.format(name="close") + long_body[:2040]) is False
    short = HEADER.format(name="close") + "def close(self):\n    self.flush()"
    assert hands_back_nothing(_function("close"), short) is True
    assert hands_back_nothing(_function("close", file="lib.pyi"), short) is False
    assert hands_back_nothing(_function("close", kind="class"), short) is False


MENU_PY = '''\
"""Menus of subcommands."""


class Menu:
    def __init__(self, commands):
        self.commands = dict(commands)

    def format_commands(self, formatter) -> None:
        rows = []
        for name in self.list_commands():
            rows.append((name, self.commands[name].help))
        formatter.write_rows(rows)

    def list_commands(self):
        return sorted(self.commands)
'''
FORMAT, LIST = "menu.py:method:Menu.format_commands", "menu.py:method:Menu.list_commands"


@pytest.fixture(scope="module")
def menu_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("returned-values") / "menu", {"menu.py": MENU_PY, "shelf.py": SHELF_PY}, real_model, module_backend)


@pytest.fixture
def menu_store(menu_repo: Path) -> Iterator[Store]:
    with open_store(menu_repo) as s:
        yield s


@pytest.mark.slow
def test_code_that_returns_nothing_does_not_answer_a_description_of_a_returned_value(menu_store, real_model, monkeypatch):
    question = "Returns a list of subcommand names in the order they should appear in the Menu instance."
    got = factors(ask(menu_store, real_model, question))
    assert got[FORMAT] == pytest.approx(MEMBER_FACTOR * NO_VALUE_FACTOR)
    assert got[LIST] == pytest.approx(MEMBER_FACTOR)
    # a question that says no value comes back does not judge the bodies
    written = factors(ask(menu_store, real_model, "Write the subcommand names into the formatter in the Menu instance."))
    assert written[FORMAT] == pytest.approx(MEMBER_FACTOR)
    monkeypatch.setattr(context, "RETURNS_BY_BODY", False)
    assert factors(ask(menu_store, real_model, question))[FORMAT] == pytest.approx(MEMBER_FACTOR)


@pytest.mark.parametrize(
    ("signature", "names"),
    [
        ("def fromkeys(cls, iterable, value=None)", {"iterable", "value"}),
        ("def islice(self, start=None, stop=None, reverse=False)", {"start", "stop", "reverse"}),
        ("def difference_update(self, *iterables)", {"iterables"}),
        ("def get(self, key: t.Dict[str, t.Tuple[int, int]] = {}, *, default=(1, 2), **kw) -> t.Any", {"key", "default", "kw"}),
        ("def write_dl( self, rows: t.Sequence[t.Tuple[str, str]], col_max: int = 30, ) -> None", {"rows", "col_max"}),
        ("def keys(self)", set()),
        ("keys", set()),
    ],
)
def test_the_parameters_of_a_signature(signature, names):
    assert parameter_names(_function("f", signature=signature)) == names
    assert parameter_names(_function("f", kind="class", signature=signature)) == frozenset()


def test_the_methods_that_take_fewer_of_the_written_parameters():
    candidates = {
        s.id: s
        for s in (
            _function("islice", signature="def islice(self, start=None, stop=None, reverse=False)"),
            _function("irange", signature="def irange(self, minimum=None, maximum=None, inclusive=(True, True))"),
            _function("__iter__", signature="def __iter__(self)"),
            _function("__init__", signature="def __init__(self, start=0, stop=None)"),  # attributes, not a say
            _function("bisect", signature="def bisect(self, start)", parent="Other"),  # another class's
        )
    }
    question = "Return an iterator that slices the rows from `start` to `stop` in the Menu instance."
    assert context.fewer_parameters(question, candidates) == {"lib.py:method:Menu.irange", "lib.py:method:Menu.__iter__"}
    # a call is code the answer uses, and a question that writes no name judges nothing
    assert context.fewer_parameters("Slice the rows with `start()` in the Menu instance.", candidates) == set()
    assert context.fewer_parameters("Slice the rows from start to stop in the Menu instance.", candidates) == set()


SHELF_PY = '''\
"""Shelves of rows."""


class Shelf:
    def __init__(self, rows):
        self.rows = sorted(rows)

    def __iter__(self):
        return iter(self.rows)

    def islice(self, start, stop):
        return iter(self.rows[start:stop])
'''
ITER, ISLICE = "shelf.py:method:Shelf.__iter__", "shelf.py:method:Shelf.islice"


@pytest.mark.slow
def test_the_parameters_a_description_writes_name_the_method_that_takes_them(menu_store, real_model, monkeypatch):
    question = "Return an iterator over the rows from `start` to `stop` in the Shelf instance."
    got = factors(ask(menu_store, real_model, question))
    assert got[ITER] == pytest.approx(MEMBER_FACTOR * PARAMETER_FACTOR)
    assert got[ISLICE] == pytest.approx(MEMBER_FACTOR)
    monkeypatch.setattr(context, "PARAMETERS_WRITTEN", False)
    assert factors(ask(menu_store, real_model, question))[ITER] == pytest.approx(MEMBER_FACTOR)
