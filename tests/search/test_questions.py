"""Questions about behaviour, asked the way people write them (docs/search.md):
a real repository in tmp_path with its implementation, its tests, an example
under docs/ and a changelog, indexed into each backend (the SQLite file,
PostgreSQL) and embedded with the real ONNX model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.search import context, modalities
from cartog_ci.search.intent import classify
from cartog_ci.search.multimodal import KIND_FACTOR, WEIGHTS, MultimodalOptions, MultimodalResult, search
from cartog_ci.search.rerank import BlendReranker
from cartog_ci.search.roles import asked_roles, role_of
from cartog_ci import workspace
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, database, index, init_repo, open_store, write

# every test on each backend: the module's index is built once per backend
pytestmark = pytest.mark.usefixtures("module_database")

DATES_PY = '''\
"""Date helpers."""
import datetime


def parse_iso_date(text):
    """Parse an ISO 8601 date string such as 2024-01-31 into a date."""
    year, month, day = (int(part) for part in text.split("-"))
    return datetime.date(year, month, day)


def format_iso_date(value):
    """Format a date as an ISO 8601 string."""
    return value.strftime("%Y-%m-%d")


class DateRange:
    """A range of dates, both ends included."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def days(self):
        """The number of days in the range."""
        return (self.end - self.start).days + 1

    def contains(self, day):
        """Whether the day lies in the range."""
        return self.start <= day <= self.end
'''
TEST_DATES_PY = '''\
import datetime

from dates import parse_iso_date


def test_parse_iso_date_parses_an_iso_8601_date_string_into_a_date():
    """Parsing an ISO 8601 date string gives the date."""
    assert parse_iso_date("2024-01-31") == datetime.date(2024, 1, 31)
'''
EXAMPLE_PY = '''\
from dates import parse_iso_date


def example_parse_iso_date_string():
    """Example: parse an ISO 8601 date string into a date and print it."""
    print(parse_iso_date("2024-01-31"))
'''
CHANGELOG_MD = """\
# Changelog

## 1.1

- parse_iso_date parses an ISO 8601 date string into a date.
"""
QUESTION = "This function parses an ISO 8601 date string and returns the date."
IMPLEMENTATION = "dates.py:function:parse_iso_date"
AROUND = {
    "tests/test_dates.py:function:test_parse_iso_date_parses_an_iso_8601_date_string_into_a_date",
    "docs/examples/parse.py:function:example_parse_iso_date_string",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    repo = init_repo(tmp_path_factory.mktemp("questions") / "dates")
    write(
        repo,
        {
            "dates.py": DATES_PY,
            "tests/test_dates.py": TEST_DATES_PY,
            "docs/examples/parse.py": EXAMPLE_PY,
            "CHANGELOG.md": CHANGELOG_MD,
        },
    )
    commit(repo, "dates")
    with database(module_backend):
        index(repo)
        with workspace.open_store(workspace.locate(str(repo), None), create=True) as store:
            embed_pending(store, lambda: real_model, config_key="default")
    return repo


@pytest.fixture
def store(repo: Path) -> Iterator[Store]:
    with open_store(repo) as s:
        yield s


def ask(store: Store, model: EmbeddingModel, query: str, **options: object) -> MultimodalResult:
    return search(
        store,
        query,
        model_factory=lambda: model,
        reranker=BlendReranker(),
        options=MultimodalOptions(limit=20, **options),  # type: ignore[arg-type]
    )


@pytest.mark.slow
def test_the_implementation_outranks_its_test_its_example_and_the_changelog(store, real_model, monkeypatch):
    # "… and returns the date" also counts the candidates that return nothing less
    # (RETURNS_BY_BODY, tests/search/test_signature_and_body.py): off, to read the roles alone
    monkeypatch.setattr(context, "RETURNS_BY_BODY", False)
    result = ask(store, real_model, QUESTION)
    assert (result.intent.name, result.fusion_strategy) == ("understand_code", "weighted_rrf")
    assert result.modalities_run == ["semantic", "keyword", "text", "structural"]
    found = [h.symbol.id for h in result.hits]
    assert found[0] == IMPLEMENTATION
    assert AROUND <= set(found)  # found, after the implementation
    # What is not the implementation counts half, and the question names a
    # function: the class counts KIND_FACTOR.
    for hit in result.hits:
        role = 0.5 if role_of(hit.symbol.file) else 1.0
        kind = 1.0 if hit.symbol.kind in {"function", "method"} else KIND_FACTOR
        for name, source in hit.sources.items():
            weight = WEIGHTS["understand_code"]["semantic" if name == "rerank" else name]
            assert source["contribution"] == pytest.approx(weight * role * kind / (40 + source["rank"] + 1))


@pytest.mark.slow
def test_a_question_that_asks_for_tests_does_not_demote_them(store, real_model):
    query = "the tests that parse an ISO 8601 date string"
    assert asked_roles(query) == {"test"}
    result = ask(store, real_model, query)
    test_hit = next(h for h in result.hits if h.symbol.file == "tests/test_dates.py")
    example = next(h for h in result.hits if h.symbol.file == "docs/examples/parse.py")
    for hit, role in ((test_hit, 1.0), (example, 0.5)):
        for name, source in hit.sources.items():
            weight = WEIGHTS["understand_code"]["semantic" if name == "rerank" else name]
            assert source["contribution"] == pytest.approx(weight * role / (40 + source["rank"] + 1))


@pytest.mark.slow
def test_a_sibling_in_the_same_file_does_not_hide_the_answer(store, real_model):
    # One hit per file would keep only the best of dates.py's five symbols.
    result = ask(store, real_model, "This method returns the number of days in the range of dates.")
    found = [h.symbol.id for h in result.hits]
    assert found[0] == "dates.py:method:DateRange.days"
    every = {s.id for s in store.symbols_in_file("dates.py") if s.kind in {"function", "method", "class"}}
    assert len(every) == 6  # two functions, the class, three methods
    assert every <= set(found)  # all kept


@pytest.mark.slow  # the repository is embedded with the real model
def test_a_sentence_asks_bm25_for_any_of_its_words_and_their_stems(store):
    sentence = "This function returns the number of days in the range."
    assert modalities.keyword_terms(sentence) == ["returns", "number", "days", "range"]
    hits = [i for i, _ in modalities.keyword(store, sentence, classify(sentence))]
    # no symbol has every word; "returns" also finds "return" (the stem as a prefix)
    assert hits[0] == "dates.py:method:DateRange.days"
    assert "dates.py:function:parse_iso_date" in hits  # only "return" in common
    name = "DateRange days"
    assert [i for i, _ in modalities.keyword(store, name, classify(name))][0] == "dates.py:method:DateRange.days"


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("tests/test_dates.py", "test"),
        ("src/pkg/tests/helpers.py", "test"),
        ("pkg/test_cli.py", "test"),
        ("pkg/cli_test.py", "test"),
        ("conftest.py", "test"),
        ("web/app.spec.ts", "test"),
        ("alembic/testing/fixtures.py", ""),  # a library for its users' tests
        ("docs/examples/parse.py", "docs"),
        ("examples/quickstart.py", "docs"),
        ("mrjob/examples/mr_word_count.py", "docs"),
        ("CHANGELOG.md", "changelog"),
        ("CHANGES.rst", "changelog"),
        ("docs/history.rst", "changelog"),
        ("changelog.d/1234.feature.md", "changelog"),
        ("mrjob/logs/history.py", ""),  # code named history
        ("vendor/fmtlib/fmt.py", "vendored"),
        ("build/lib/pkg/x.py", "vendored"),
        ("alembic/script/revision.py", ""),
        ("pkg/tools/cli.py", ""),
        ("dates.py", ""),
    ],
)
def test_the_role_of_a_path(path, role):
    assert role_of(path) == role


def test_the_roles_a_question_asks_for():
    assert asked_roles("the tests of the date parser") == {"test"}
    assert asked_roles("an example of parsing a date") == {"docs"}
    assert asked_roles("what changed in the changelog") == {"changelog"}
    assert asked_roles("parse an ISO 8601 date string") == frozenset()
