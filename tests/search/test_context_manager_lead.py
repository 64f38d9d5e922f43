"""A lead that says the code is a context manager ("A context manager that
increases the indentation") names a kind read from the decorators: the
functions and methods that are not ``@contextmanager`` count KIND_FACTOR when
one that is is a candidate (``context.CONTEXT_MANAGER_LEAD``). docs/search.md,
"What is the answer"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import KIND_FACTOR
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("HelpFormatter: A context manager that increases the indentation.", True),
        ("This function is a context manager that saves the current working directory.", True),
        ("Helpful context manager that writes a paragraph and a heading in HelpFormatter.", True),
        ("An async context manager that holds the lock.", True),
        # a context manager is what the verb acts on, or what the code has
        ("Wrap an async context manager as a synchronous context manager via this portal.", False),
        ("Generate up to *number* (transactional) context managers in the TransactionManager instance.", False),
        ("Exit all context managers entered with `with_resource`.", False),
        ("This function saves the current working directory. It is a context manager.", False),
    ],
)
def test_a_lead_that_says_the_code_is_a_context_manager(question, says):
    assert context.context_manager_lead(question) is says


def test_the_code_that_is_not_a_context_manager_beside_one_that_is():
    indentation = _function("indentation", decorators=("@contextmanager",), parent="HelpFormatter")
    section = _function("section", decorators=("@contextlib.asynccontextmanager",), parent="HelpFormatter")
    indent = _function("indent", parent="HelpFormatter")
    cached = _function("width", decorators=("@property",), parent="HelpFormatter")
    both = {s.id: s for s in (indentation, section, indent, cached)}
    assert context.context_manager_mismatch(both) == {indent.id, cached.id}
    assert context.context_manager_mismatch({s.id: s for s in (indent, cached)}) == set()


FORMATTER_PY = '''\
from contextlib import contextmanager


class HelpFormatter:
    def __init__(self, indent_increment=2):
        self.indent_increment = indent_increment
        self.current_indent = 0

    def indent(self):
        """Increases the indentation."""
        self.current_indent += self.indent_increment

    def dedent(self):
        """Decreases the indentation."""
        self.current_indent -= self.indent_increment

    @contextmanager
    def indentation(self):
        self.indent()
        try:
            yield
        finally:
            self.dedent()
'''
INDENT, INDENTATION = "fmt.py:method:HelpFormatter.indent", "fmt.py:method:HelpFormatter.indentation"


@pytest.fixture(scope="module")
def formatter_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("managers") / "fmt", {"fmt.py": FORMATTER_PY}, real_model, module_backend)


@pytest.mark.slow
def test_a_context_manager_lead_puts_the_other_methods_down(formatter_repo, real_model, monkeypatch):
    question = "HelpFormatter: A context manager that increases the indentation."
    with open_store(formatter_repo) as store:
        got = factors(ask(store, real_model, question))
        assert got[INDENT] == pytest.approx(KIND_FACTOR)
        assert got[INDENTATION] == pytest.approx(1.0)
        monkeypatch.setattr(context, "CONTEXT_MANAGER_LEAD", False)
        assert factors(ask(store, real_model, question))[INDENT] == pytest.approx(1.0)
