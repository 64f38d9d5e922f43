"""A question's vector from the encoder's output without numpy, as
``embed/onnx.py``'s ``_normalise(_pool(...))`` computes it with numpy, bit
for bit.

A warm ``cartog-ci search`` imported numpy only for arithmetic on one
question's vector and some fifty stored ones (~85 CPU ms of a ~300 ms
process, docs/search.md "Warm search latency"). Every float32 operation of
numpy's (the sum over the tokens, one token after the other; the division;
the squares; the sum of squares in numpy's pairwise order; the square root)
is done here in double precision and rounded to float32 (``array('f')``),
which gives the float32 result exactly: a double has more than twice
float32's precision plus two bits, so the two roundings agree for +, -, ×,
/ and square roots. tests/embed/test_vectors.py compares it with numpy on
random outputs, tests/embed/test_ort_capi.py on the model's.
"""

from __future__ import annotations

import math
from array import array
from operator import add

_ROUND = array("f", [0.0])  # a float32 register: a value stored there is rounded to float32
_BLOCK = 128  # numpy's PW_BLOCKSIZE (numpy/_core/src/umath/loops_utils.h.src)


def _f32(x: float) -> float:
    _ROUND[0] = x
    return _ROUND[0]


def _pairwise_sum(a: array[float], lo: int, n: int) -> float:
    """numpy's float32 pairwise sum of ``a[lo:lo + n]`` (``FLOAT_pairwise_sum``):
    eight partial sums in blocks of up to 128, halves above that."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res = _f32(res + a[i])
        return res
    if n <= _BLOCK:
        r = [a[lo + j] for j in range(8)]
        end = n - n % 8
        for i in range(8, end, 8):
            for j in range(8):
                r[j] = _f32(r[j] + a[lo + i + j])
        res = _f32(
            _f32(_f32(r[0] + r[1]) + _f32(r[2] + r[3])) + _f32(_f32(r[4] + r[5]) + _f32(r[6] + r[7]))
        )
        for i in range(lo + end, lo + n):
            res = _f32(res + a[i])
        return res
    half = n // 2
    half -= half % 8
    return _f32(_pairwise_sum(a, lo, half) + _pairwise_sum(a, lo + half, n - half))


def pooled(data: bytes, shape: tuple[int, ...], pooling: str) -> array[float]:
    """The unit vector of one row of an encoder's output (``data``: native
    float32, ``shape`` (1, tokens, dims), every token attended): its mean
    over the tokens (``mean``) or its first token (``cls``), divided by its
    norm, as numpy computes it in float32."""
    rows, tokens, dims = shape
    if rows != 1 or tokens < 1:
        raise ValueError(f"expected one row of at least one token, got shape {shape}")
    hidden = array("f")
    hidden.frombytes(data)
    vector = hidden[:dims]
    if pooling != "cls":
        for k in range(1, tokens):
            vector = array("f", map(add, vector, hidden[k * dims : (k + 1) * dims]))
        count = float(tokens)
        vector = array("f", [x / count for x in vector])
    squares = array("f", [x * x for x in vector])
    size = max(_f32(math.sqrt(_pairwise_sum(squares, 0, len(squares)))), _f32(1e-12))
    return array("f", [x / size for x in vector])
