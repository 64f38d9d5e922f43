from __future__ import annotations

import pytest

from cartog_ci.embed.base import EmbeddingModel


@pytest.fixture(scope="session")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> EmbeddingModel:
    """The packaged (re-quantised) model, converted once a session into a
    private cache: the search tests that rank with real vectors."""
    from cartog_ci.embed.onnx import load_default_model

    return load_default_model(tmp_path_factory.mktemp("model-cache"))
