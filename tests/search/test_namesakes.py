"""A question that names a class asks for that class's own method, even when
the words it uses are the docstring of a method of the same name elsewhere
(docs/search.md, "What is the answer"): a real repository in tmp_path, indexed
into each backend and embedded with the real ONNX model.

- ``File.to_info_dict`` has no docstring; ``Parameter.to_info_dict``, an
  unrelated class's, has the question's words: "… in the File instance"
  asks for the first, and the second's votes are the first's;
- ``FileStream.tell`` has no docstring; the base method it overrides,
  ``Stream.tell``, has (what ``inspect.getdoc`` would read for it);
- ``CreateIndex.reverse`` is not ``DropIndex.reverse``: another subclass of
  the same base, whose method of the same name does the opposite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.search.multimodal import MultimodalOptions, MultimodalResult, search
from cartog_ci.search.rerank import BlendReranker
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, database, index, init_repo, open_store, write

pytestmark = pytest.mark.usefixtures("module_database")

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


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    repo = init_repo(tmp_path_factory.mktemp("namesakes") / "cli")
    write(repo, {"params.py": PARAMS_PY, "streams.py": STREAMS_PY, "ops.py": OPS_PY})
    commit(repo, "parameters and streams")
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


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    [
        "Gather information that could be useful for a tool generating user-facing documentation in the File instance.",
        "File: Gather information that could be useful for a tool generating user-facing documentation.",
    ],
)
def test_the_named_class_s_method_takes_the_votes_of_its_namesake_elsewhere(store, real_model, query):
    result = ask(store, real_model, query)
    found = [h.symbol.id for h in result.hits]
    assert found[0] == "params.py:method:File.to_info_dict"
    # Parameter's method is read as File's: it is in no list of its own
    assert "params.py:method:Parameter.to_info_dict" not in found
    # … and without a class named, the documented one is the answer
    plain = ask(store, real_model, "Gather information that could be useful for a tool generating user-facing documentation.")
    assert plain.hits[0].symbol.id == "params.py:method:Parameter.to_info_dict"


@pytest.mark.slow
def test_an_override_takes_the_votes_of_the_documented_method_of_its_base(store, real_model):
    result = ask(store, real_model, "Return the current stream position in the FileStream instance.")
    found = [h.symbol.id for h in result.hits]
    assert found[0] == "streams.py:method:FileStream.tell"
    assert "streams.py:method:Stream.tell" not in found
    # the base named, its own method
    result = ask(store, real_model, "Return the current stream position in the Stream instance.")
    assert result.hits[0].symbol.id == "streams.py:method:Stream.tell"


@pytest.mark.slow
def test_the_namesake_of_a_sibling_class_keeps_its_votes(store, real_model):
    # CreateIndex and DropIndex share a base: their reverse() do opposite things
    result = ask(store, real_model, "Return the operation that drops the index in the DropIndex instance.")
    found = [h.symbol.id for h in result.hits]
    assert "ops.py:method:CreateIndex.reverse" in found
    assert "members" not in next(h for h in result.hits if h.symbol.id == "ops.py:method:CreateIndex.reverse").sources
