"""Vectors as the store keeps them (little-endian float32 BLOBs) and the
cosines a search reads, without numpy: ``array('f')`` read as Python floats.

A search's cosines (the members list, the re-ranker) are dot products in
double precision here; numpy's float32 dot product rounded each to float32
(a candidate's score moved by less than 1e-7). Dropping numpy from a warm
``cartog-ci search`` saved ~85 of its ~300 CPU ms (docs/search.md, "Warm
search latency").
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Iterable
from operator import mul
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    import numpy as np

    #: a vector as a model or the store gives it
    Vector = Union[np.ndarray, "array[float]"]


def as_floats(vector: Vector | Iterable[float]) -> array[float]:
    """A vector as ``array('f')``, copied only when it is not one already."""
    if isinstance(vector, array) and vector.typecode == "f":
        return vector
    return array("f", (float(x) for x in vector))


def dot(a: Iterable[float], b: Iterable[float]) -> float:
    return sum(map(mul, a, b))


def norm(a: Iterable[float]) -> float:
    return math.sqrt(sum(x * x for x in a))


def to_blob(vector: Vector | Iterable[float]) -> bytes:
    """The little-endian float32 BLOB the store and sqlite-vec read."""
    floats = array("f", as_floats(vector))
    if sys.byteorder != "little":
        floats.byteswap()
    return floats.tobytes()


def from_blob(blob: bytes) -> array[float]:
    """The inverse of ``to_blob``."""
    if len(blob) % 4:
        raise ValueError(f"a float32 vector blob has a multiple of 4 bytes, got {len(blob)}")
    floats = array("f")
    floats.frombytes(blob)
    if sys.byteorder != "little":
        floats.byteswap()
    return floats
