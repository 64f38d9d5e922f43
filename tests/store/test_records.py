"""Domain objects built from rows without their ``__init__``
(store/records.py): the same objects the dataclass builds."""

from __future__ import annotations

import dataclasses

import pytest

from cartog_ci.domain import Edge, Symbol
from cartog_ci.store.records import maker


def test_a_symbol_and_an_edge_made_from_values_are_those_their_class_makes() -> None:
    values = ["a.py:function:f", "f", "m.f", "function", "a.py", 1, 2, 3, 4, None, "def f()", "python",
              "c" * 64, "s" * 64, ("d",), "doc", 7]  # fmt: skip
    made = maker(Symbol, 17)(values)
    assert made == Symbol(*values)  # type: ignore[arg-type]
    assert [getattr(made, f.name) for f in dataclasses.fields(Symbol)] == [*values, ""]  # the default code hash
    assert hash(made) == hash(Symbol(*values)) and type(made) is Symbol  # type: ignore[arg-type]
    edge = ("a.py:function:f", "g", "calls", "a.py", 5, "self", None, "b.py:function:g", "exact")
    assert maker(Edge, 9)(edge) == Edge(*edge) and maker(Edge, 5)(edge[:5]) == Edge(*edge[:5])  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True, slots=True)
class _Checked:
    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(self.n)


def test_a_class_that_checks_its_values_is_made_by_its_init() -> None:
    make = maker(_Checked, 1)
    assert make([3]) == _Checked(3)
    with pytest.raises(ValueError):
        make([-1])
