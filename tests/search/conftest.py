from __future__ import annotations

import pytest

from cartog_ci.embed.base import EmbeddingModel
from tests.testing.env import converted_model_cache


@pytest.fixture(scope="session")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> EmbeddingModel:
    """The packaged (re-quantised) model, converted once a process into a
    private cache (the one each test's home starts with, tests/testing/env.py):
    the search tests that rank with real vectors."""
    from cartog_ci.embed.onnx import load_default_model

    cache = converted_model_cache(tmp_path_factory)
    with pytest.MonkeyPatch.context() as patch:  # the hashes it verifies are recorded there, not in $HOME
        patch.setenv("CARTOG_CI_HOME", str(cache))
        return load_default_model(cache)
