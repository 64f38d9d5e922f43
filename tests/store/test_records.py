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


def test_a_made_symbol_is_frozen_and_takes_its_first_values_as_before() -> None:
    """The object made through a plain class of the same slots is the frozen
    class's: no field can be set; extra values are left and too few raise,
    as the descriptors' version read them by index."""
    values = ("a.py:class:C", "C", "C", "class", "a.py", 1, 9, 0, 80, None, "class C", "python", "c", "c", (), "", 0)
    made = maker(Symbol, 17)((*values, "extra"))
    assert made == Symbol(*values) and repr(made) == repr(Symbol(*values))  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "D"  # type: ignore[misc]
    with pytest.raises(IndexError):
        maker(Symbol, 17)(values[:16])
    assert dataclasses.replace(made, code_hash="h").code_hash == "h"


@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class _Referenced:
    a: str
    b: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    a: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Derived(_Base):
    b: int = 0


def test_a_class_laid_out_otherwise_is_made_through_its_slots() -> None:
    """A weak reference slot, or slots spread over a base class: no plain
    class of the fields' slots takes its layout; the fields are set through
    their descriptors, the same object."""
    assert maker(_Referenced, 1)(["x"]) == _Referenced("x")
    assert type(maker(_Referenced, 2)(["x", 3])) is _Referenced
    assert maker(_Derived, 1)(["x"]) == _Derived("x") and maker(_Derived, 2)(["x", 2]) == _Derived("x", 2)
