"""What a method's name says, in words a question uses (docs/search.md,
"What is the answer"): ``receive_nowait`` says "receive" and "nowait";
a Python special method says what the data model makes it do, which its
name does not spell ("Return string representation of …" asks for
``__repr__``, "Remove value at `index` …" for ``__delitem__``).

The words of a special method are those the Python documentation's "Data
model" chapter uses for it; they are the language's, not a project's.
"""

from __future__ import annotations

import re

from cartog_ci.store.search import words_of

_SPECIAL = re.compile(r"^__\w+__$")
_DATA_MODEL: dict[str, str] = {
    "__repr__": "string representation repr",
    "__str__": "string representation str",
    "__format__": "format string",
    "__iter__": "iterator iterate iter",
    "__reversed__": "reverse reversed iterator",
    "__next__": "next item iterator",
    "__aiter__": "asynchronous iterator iterate",
    "__anext__": "next item asynchronous iterator",
    "__len__": "size length number len",
    "__length_hint__": "estimated length",
    "__contains__": "contains membership member element",
    "__getitem__": "get item lookup index",
    "__setitem__": "set store item assign",
    "__delitem__": "delete remove item",
    "__missing__": "missing key",
    "__add__": "add concatenate",
    "__radd__": "add concatenate",
    "__iadd__": "update extend add",
    "__sub__": "subtract difference",
    "__isub__": "update subtract difference",
    "__mul__": "multiply copies repeat",
    "__rmul__": "multiply copies repeat",
    "__imul__": "update multiply copies repeat",
    "__and__": "intersection",
    "__or__": "union",
    "__xor__": "symmetric difference",
    "__eq__": "equal equality compare",
    "__ne__": "equal compare",
    "__lt__": "less compare",
    "__le__": "less equal compare",
    "__gt__": "greater compare",
    "__ge__": "greater equal compare",
    "__hash__": "hash",
    "__bool__": "true false empty",
    "__call__": "call invoke",
    "__enter__": "enter context",
    "__exit__": "exit context close",
    "__aenter__": "enter asynchronous context",
    "__aexit__": "exit asynchronous context close",
    "__copy__": "copy shallow",
    "__deepcopy__": "copy deep",
    "__new__": "create new",
    "__init__": "initialize create new",
    "__del__": "finalize",
    "__getattr__": "get attribute",
    "__getattribute__": "get attribute",
    "__setattr__": "set attribute",
    "__delattr__": "delete attribute",
    "__get__": "get descriptor",
    "__set__": "set descriptor",
    "__delete__": "delete descriptor",
    "__getstate__": "pickle state",
    "__setstate__": "pickle state restore",
    "__reduce__": "pickle",
    "__sizeof__": "size memory",
}


def is_special(name: str) -> bool:
    return _SPECIAL.match(name) is not None


def name_words(name: str) -> list[str]:
    """The words ``name`` says: its camel/snake parts, or for a special
    method the words of its data-model role (its own name's parts when it
    has none here)."""
    if is_special(name) and name in _DATA_MODEL:
        return _DATA_MODEL[name].split()
    return words_of(name).split()
