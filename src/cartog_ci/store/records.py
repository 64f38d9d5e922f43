"""Domain objects built from stored rows without their dataclass ``__init__``.

``Symbol`` and ``Edge`` are frozen dataclasses with slots: their ``__init__``
sets each field through ``object.__setattr__`` (the frozen class forbids its
own), ~3 us a symbol, the larger part of reading every symbol for the
resolver (celery 5.4.0: 8,642 symbols). ``maker`` writes, once a process, a
function that builds the same object another way: an instance of a plain
class with the same slots (``_Twin``), whose fields are set by ordinary
attribute stores, which then becomes the frozen class (``__class__``
assignment: the two lay their instances out alike). Setting each slot
through its descriptor's ``__set__`` instead, as this module did, took
~640 ns a symbol; this way ~260 ns (Python 3.11: the store of a slot is one
specialised instruction, the descriptor's ``__set__`` a call), and the
objects are the same: the frozen class's, equal, hashed and printed alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def maker(cls: type[T], count: int) -> Callable[[Sequence[object]], T]:
    """A function of ``count`` values (the first fields, in order; the others
    take their defaults) -> ``cls(*values)``. A class with a
    ``__post_init__``, without slots, or with a default made by a factory is
    built by its ``__init__``; one whose layout a plain class of its slots
    cannot take (``_twin``) through its slots' descriptors."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    later = fields[count:]
    if (
        hasattr(cls, "__post_init__")
        or not hasattr(cls, "__slots__")
        or any(f.default is dataclasses.MISSING for f in later)
    ):
        return lambda values: cls(*values)
    defaults = {f"_default{k}": f.default for k, f in enumerate(fields) if k >= count}
    twin = _twin(cls, [f.name for f in fields])
    if twin is None:
        names = {f"_set{k}": getattr(cls, f.name).__set__ for k, f in enumerate(fields)}  # a base's slots too
        body = [f"    _set{k}(o, values[{k}])" for k in range(count)]
        body += [f"    _set{k}(o, _default{k})" for k in range(count, len(fields))]
        source = "def make(values):\n    o = _new(_cls)\n" + "\n".join(body) + "\n    return o\n"
        namespace: dict[str, object] = {"_new": object.__new__, "_cls": cls, **names, **defaults}
    else:
        # the values read by index, as the descriptors' version did: extra
        # values are left, too few raise IndexError
        body = [f"    o.{f.name} = values[{k}]" for k, f in enumerate(fields[:count])]
        body += [f"    o.{f.name} = _default{k}" for k, f in enumerate(fields) if k >= count]
        source = "def make(values):\n    o = _new(_twin)\n" + "\n".join(body) + "\n    o.__class__ = _cls\n    return o\n"
        namespace = {"_new": object.__new__, "_twin": twin, "_cls": cls, **defaults}
    exec(source, namespace)  # noqa: S102 - a fixed text, as dataclasses writes __init__
    return namespace["make"]  # type: ignore[return-value]


def _twin(cls: type, names: list[str]) -> type | None:
    """A plain class with ``cls``'s slots, whose instances may become
    ``cls``'s (CPython checks the layouts at each ``__class__``
    assignment: the same size and the same slots, in order), when ``cls``'s
    slots are its fields' and it derives from ``object`` alone; else None."""
    if cls.__bases__ != (object,) or tuple(cls.__dict__.get("__slots__", ())) != tuple(names):
        return None
    twin = type(f"_{cls.__name__}Twin", (), {"__slots__": tuple(names)})
    probe: object = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:  # another layout: a weak reference slot, another base
        return None
    return twin
