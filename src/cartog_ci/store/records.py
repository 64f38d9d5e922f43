"""Domain objects built from stored rows without their dataclass ``__init__``.

``Symbol`` and ``Edge`` are frozen dataclasses with slots: their ``__init__``
sets each field through ``object.__setattr__`` (the frozen class forbids its
own), ~3 us a symbol, the larger part of reading every symbol for the
resolver (celery 5.4.0: 8,642 symbols). ``maker`` writes, once a process, a
function that sets the same slots through their descriptors, as
``dataclasses`` itself writes ``__init__``: the same object, in half the time.
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
    built by its ``__init__``."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    later = fields[count:]
    if (
        hasattr(cls, "__post_init__")
        or not hasattr(cls, "__slots__")
        or any(f.default is dataclasses.MISSING for f in later)
    ):
        return lambda values: cls(*values)
    names = {f"_set{k}": cls.__dict__[f.name].__set__ for k, f in enumerate(fields)}
    defaults = {f"_default{k}": f.default for k, f in enumerate(fields) if k >= count}
    body = [f"    _set{k}(o, values[{k}])" for k in range(count)]
    body += [f"    _set{k}(o, _default{k})" for k in range(count, len(fields))]
    source = "def make(values):\n    o = _new(_cls)\n" + "\n".join(body) + "\n    return o\n"
    namespace: dict[str, object] = {"_new": object.__new__, "_cls": cls, **names, **defaults}
    exec(source, namespace)  # noqa: S102 - a fixed text, as dataclasses writes __init__
    return namespace["make"]  # type: ignore[return-value]
