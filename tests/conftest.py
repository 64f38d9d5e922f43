from __future__ import annotations

import pytest

# The exact-set checks assert in a helper module: rewrite its asserts too, so
# that a failure shows which tuples are missing or unexpected.
pytest.register_assert_rewrite("tests.testing.exact_sets")

from tests.testing.env import isolate_env


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to $HOME; git identity and templates are pinned."""
    isolate_env(tmp_path_factory, monkeypatch)
