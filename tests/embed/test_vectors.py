"""Vectors without numpy: a question's pooled vector (embed/pooling.py) is
numpy's bit for bit; blobs (domain/vectors.py) are the store's layout."""

from __future__ import annotations

from array import array

import numpy as np
import pytest

from cartog_ci.domain import vectors
from cartog_ci.embed import pooling
from cartog_ci.embed.base import decode_vector, encode_vector
from cartog_ci.embed.onnx import _normalise, _pool


@pytest.mark.parametrize("kind", ["mean", "cls"])
def test_a_pooled_row_is_numpys_float32_result_bit_for_bit(kind: str) -> None:
    rng = np.random.default_rng(7)
    for tokens in (1, 2, 7, 8, 9, 13, 64, 127, 128):
        # numpy's pairwise sum: under 8 values, one block (<= 128), halves above
        for dims in (3, 8, 100, 128, 129, 257, 384, 768):
            for scale in (1e-3, 1.0, 40.0):
                hidden = (rng.standard_normal((1, tokens, dims)) * scale).astype(np.float32)
                expected = _normalise(_pool(hidden, np.ones((1, tokens), dtype=np.int64), kind))[0]
                got = pooling.pooled(hidden.tobytes(), hidden.shape, kind)
                assert got.tobytes() == expected.tobytes(), (tokens, dims, scale)


def test_a_row_of_zeros_stays_zeros_as_numpy_leaves_it() -> None:
    hidden = np.zeros((1, 3, 8), dtype=np.float32)
    expected = _normalise(_pool(hidden, np.ones((1, 3), dtype=np.int64), "mean"))[0]
    assert pooling.pooled(hidden.tobytes(), hidden.shape, "mean").tobytes() == expected.tobytes()


def test_pooling_takes_one_row_of_tokens() -> None:
    with pytest.raises(ValueError, match=r"expected one row of at least one token, got shape \(2, 3, 4\)"):
        pooling.pooled(bytes(96), (2, 3, 4), "mean")


def test_blobs_are_the_stores_little_endian_float32() -> None:
    values = [0.5, -1.25, 2.0**-25, 7.0]  # exact in float32
    row = np.array(values, dtype=np.float32)
    assert vectors.to_blob(array("f", values)) == vectors.to_blob(row) == encode_vector(row)
    assert vectors.from_blob(encode_vector(row)).tolist() == decode_vector(encode_vector(row)).tolist() == values
    with pytest.raises(ValueError, match="a multiple of 4 bytes, got 5"):
        vectors.from_blob(b"12345")


def test_dot_and_norm_read_numpy_rows_and_arrays_alike() -> None:
    a, b = array("f", [3.0, 4.0]), np.array([1.0, 2.0], dtype=np.float32)
    assert vectors.dot(a, vectors.as_floats(b)) == 11.0
    assert vectors.norm(a) == 5.0
    assert vectors.as_floats(a) is a
    assert vectors.as_floats(b).tolist() == [1.0, 2.0]
