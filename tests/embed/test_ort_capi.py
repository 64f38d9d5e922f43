"""A question's session through onnxruntime's C API (embed/ort_capi.py):
the Python module's output bit for bit, and a search process that imports
neither onnxruntime's Python module nor numpy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cartog_ci.embed import ort_capi
from cartog_ci.embed import onnx as embed_onnx
from cartog_ci.embed.base import query_vector
from cartog_ci.embed.onnx import OnnxEmbeddingModel, load_default_model, packaged_spec
from cartog_ci.errors import ModelUnavailable
from tests.testing.fixtures import commit, init_repo, write

LIBRARY = ort_capi.library_path()
needs_library = pytest.mark.skipif(LIBRARY is None, reason="onnxruntime's C library is not in its package here")

QUESTIONS = [
    "retry a task with exponential backoff when it fails",
    "Return the response downloaded for a request in the Downloader instance.",
    "x",
    "how is money rounded " * 20,  # past max_tokens: the cut row
]


def _module_output(spec: embed_onnx.ModelSpec, ids: list[int]) -> np.ndarray:
    session = embed_onnx._load_session(spec, optimise=False)
    names = {i.name for i in session.get_inputs()}
    row = np.array([ids], dtype=np.int64)
    feeds = {"input_ids": row, "attention_mask": np.ones_like(row), "token_type_ids": np.zeros_like(row)}
    return session.run([spec.output], {k: v for k, v in feeds.items() if k in names})[0]


@needs_library
@pytest.mark.parametrize("converted", [False, True], ids=["shipped", "requantized"])
def test_the_c_api_session_gives_the_python_modules_output_bit_for_bit(tmp_path: Path, converted: bool) -> None:
    spec = load_default_model(tmp_path / "cache").spec if converted else packaged_spec()
    model = OnnxEmbeddingModel(spec)
    session = ort_capi.Session(LIBRARY, spec.model_path, graph_level="none")  # type: ignore[arg-type]
    assert session.inputs == ("input_ids", "attention_mask", "token_type_ids")
    assert spec.output in session.outputs
    for question in QUESTIONS:
        ids = model._question_ids([question])[0]  # type: ignore[index]
        data, shape = session.run(ids, spec.output)
        expected = _module_output(spec, ids)
        assert shape == expected.shape == (1, len(ids), spec.dims)
        assert data == expected.tobytes()
    session.close()


@needs_library
def test_a_question_is_asked_of_the_c_api_and_gets_the_modules_vector(tmp_path: Path) -> None:
    """The model's question path takes the C API's session and pools
    without numpy (embed/pooling.py): the vector of the module's session,
    pooled by numpy, bit for bit; a question `wordpiece` cannot read goes
    to the module's session."""
    spec = load_default_model(tmp_path / "cache").spec
    asker = OnnxEmbeddingModel(spec)
    reference = OnnxEmbeddingModel(spec)
    module = embed_onnx._load_session(spec, optimise=False)
    for question in QUESTIONS:
        asked = query_vector(asker, question)
        assert isinstance(asker._query_session, ort_capi.Session)
        assert asked.tobytes() == reference._embed([question], module, 1)[0].tobytes()
    beyond_ascii = query_vector(asker, "café au lait")
    assert asker._python_query_session is not None
    assert beyond_ascii.tobytes() == reference._embed(["café au lait"], module, 1)[0].tobytes()


@needs_library
def test_a_file_the_c_api_cannot_load_is_an_unavailable_model(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    spec = embed_onnx.ModelSpec(**{**packaged_spec().__dict__, "model_path": broken, "model_sha256": None})
    with pytest.raises(ModelUnavailable, match=f"cannot load {broken}: OrtError: .+"):
        query_vector(OnnxEmbeddingModel(spec), "how is money rounded")


@pytest.mark.slow
@needs_library
def test_a_search_process_imports_neither_numpy_nor_onnxruntime(tmp_path: Path) -> None:
    """numpy and onnxruntime's Python module were ~120 CPU ms of a ~300 ms
    search (docs/search.md, "Warm search latency"): a question's vector, the
    KNN and the cosines need neither. The answer is the one of a process
    that has imported both (the vectors are compared bit for bit above)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "jobs/retry.py": "def retry_later(task, delay):\n    \"\"\"Run the task again after a delay.\"\"\"\n"
        "    return task.schedule(delay * 2)\n\n\ndef give_up(task):\n    \"\"\"Stop trying.\"\"\"\n    task.cancel()\n",
        "jobs/money.py": "class Price:\n    def rounded(self, amount):\n        \"\"\"Round to cents.\"\"\"\n"
        "        return round(amount, 2)\n",
    })  # fmt: skip
    commit(repo, "first")
    db = str(tmp_path / "i.db")
    subprocess.run([sys.executable, "-m", "cartog_ci.cli", "index", "--index", db], cwd=repo, check=True)
    loaded = "; print(sorted(m for m in ('numpy', 'onnxruntime') if m in sys.modules))"

    def search(preload: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-c", f"import sys{preload}; from cartog_ci import cli; cli.main(sys.argv[1:]){loaded}",
             "search", "retry a task later when it fails", "--index", db],
            cwd=repo, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return proc.stdout.splitlines()

    lean, heavy = search(""), search("; import numpy, onnxruntime")
    assert lean[-1] == "[]" and heavy[-1] == "['numpy', 'onnxruntime']"
    assert lean[:-1] == heavy[:-1]
    assert "jobs/retry.py:1  function retry_later" in lean[1]
