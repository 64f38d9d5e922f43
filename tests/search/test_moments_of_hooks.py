"""Of two hooks named for the moment they run (``pre_X`` / ``post_X``,
``addBeforeXHook`` / ``addAfterXHook``), the moment a description's first
sentence says picks one (docs/search.md "What is the answer",
``context.MOMENTS_OF_HOOKS``): the candidates' side
(``context.wrong_moment``) and the factors a real search gives on a real
index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.search import context
from cartog_ci.search.multimodal import MOMENT_FACTOR
from cartog_ci.store.base import Store
from tests.search.test_class_questions import ask, factors, indexed_repo
from tests.search.test_signature_and_body import _function
from tests.testing.fixtures import open_store

pytestmark = pytest.mark.usefixtures("module_database")

CANDIDATES = {
    s.id: s
    for s in (
        _function("pre_refresh_callback"),
        _function("post_refresh_callback"),
        _function("addBeforeAbortHook"),
        _function("addAfterAbortHook"),
        _function("addAfterCommitHook"),  # its twin is not a candidate
        _function("post_save", parent="Other"),  # another class's
        _function("pre_save", parent="Third"),
        _function("posted"),  # not a moment's word
        _function("before_request", kind="class"),
    )
}


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        ("This function is a callback method that is called before refreshing the token.", {"post_refresh_callback", "addAfterAbortHook"}),  # fmt: skip
        ("Register a hook to call after the transaction is aborted. It runs before the next one.", {"pre_refresh_callback", "addBeforeAbortHook"}),  # fmt: skip
        # the first sentence says both moments, or none
        ("Register a hook to call before or after the transaction is aborted.", set()),
        ("Register a hook to call when the transaction is aborted. It is called before the abort.", set()),
    ],
)
def test_the_hook_of_the_other_moment(question, wrong):
    assert context.wrong_moment(question, CANDIDATES) == {f"lib.py:method:Menu.{name}" for name in wrong}


HOOKS_PY = '''\
"""Hooks around a token refresh."""


class TokenStore:
    def __init__(self, path):
        self.path = path
        self.token = None

    def pre_refresh(self, authorizer):
        """Load the refresh token from the file."""
        with open(self.path) as f:
            authorizer.refresh_token = f.read()

    def post_refresh(self, authorizer):
        """Save the refresh token to the file."""
        with open(self.path, "w") as f:
            f.write(authorizer.refresh_token)
'''
PRE, POST = "hooks.py:method:TokenStore.pre_refresh", "hooks.py:method:TokenStore.post_refresh"


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory, real_model: EmbeddingModel, module_backend: str | None) -> Path:
    return indexed_repo(tmp_path_factory.mktemp("moments") / "hooks", {"hooks.py": HOOKS_PY}, real_model, module_backend)


@pytest.fixture
def hooks_store(hooks_repo: Path) -> Iterator[Store]:
    with open_store(hooks_repo) as s:
        yield s


@pytest.mark.slow
def test_the_moment_a_description_says_picks_the_hook(hooks_store, real_model, monkeypatch):
    question = "This function is a callback that is called before the token is refreshed. It handles the token file."
    got = factors(ask(hooks_store, real_model, question))
    assert got[POST] == pytest.approx(MOMENT_FACTOR)
    assert got[PRE] == pytest.approx(1.0)
    monkeypatch.setattr(context, "MOMENTS_OF_HOOKS", False)
    assert factors(ask(hooks_store, real_model, question))[POST] == pytest.approx(1.0)
