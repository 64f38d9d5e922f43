"""What a method's name says, in words a question uses (docs/search.md,
"What is the answer"): ``receive_nowait`` says "receive" and "nowait";
a Python special method says what the data model makes it do, which its
name does not spell ("Return string representation of …" asks for
``__repr__``, "Remove value at `index` …" for ``__delitem__``).

A special method is named by the question's verb only, the way the data
model calls it: "Remove …" is ``__delitem__``'s, "Return the size …"
``__len__``'s, but "context" in "Finds the outermost context" is no
evidence for ``__enter__``, nor "number" in "Return number of
occurrences" for ``__len__``, nor "create" in "Create an iterator of
values" for ``__init__``. Each one has phrases: a verb, or a verb and the
first word after it (its object), and one of the next two. The verb ``RETURN`` stands for any verb
that hands a value back ("Return", "Get", "This function returns"), so
that "Return string representation" is ``__repr__`` while "Return value
for item …" is no ``__setitem__``; the object ``OWN`` stands for a word of
the method's own class's name ("Create a stream …" in ``Stream``).

The words of a special method are those the Python documentation's "Data
model" chapter uses for it; they are the language's, not a project's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from cartog_ci.store.search import words_of

_SPECIAL = re.compile(r"^__\w+__$")
RETURN = "RETURN"
OWN = "OWN"
# Verbs that hand a value back: "Return X" asks for what returns X.
RETURN_VERBS = frozenset("return get give compute produce yield build make obtain".split())
_CREATE = ("create new", "create instance", f"create {OWN}", "construct", "instantiate")
_COMPARE = ("compare",)
_DATA_MODEL: dict[str, tuple[str, ...]] = {
    "__repr__": (f"{RETURN} string", f"{RETURN} representation", f"{RETURN} repr"),
    "__str__": (f"{RETURN} string", f"{RETURN} representation", f"{RETURN} str"),
    "__format__": (f"{RETURN} formatted",),
    "__iter__": (f"{RETURN} iterator", f"{RETURN} iter", "iterate"),
    "__reversed__": (f"{RETURN} reverse", f"{RETURN} reversed"),
    "__next__": (f"{RETURN} next", "advance"),
    "__aiter__": (f"{RETURN} asynchronous",),
    "__anext__": (f"{RETURN} next",),
    "__len__": (f"{RETURN} size", f"{RETURN} length", f"{RETURN} len"),
    "__length_hint__": (f"{RETURN} estimated", "estimate"),
    "__contains__": (
        "contain",
        f"{RETURN} true element",
        f"{RETURN} true member",
        f"{RETURN} membership",
        "test membership",
        "check membership",
    ),
    "__getitem__": ("lookup", "look", "access", f"{RETURN} item", f"{RETURN} element"),
    "__setitem__": ("store", "assign", "set item"),
    "__delitem__": ("delete", "remove"),
    "__missing__": (f"{RETURN} missing", "handle missing"),
    "__add__": ("concatenate", f"{RETURN} concatenation", f"{RETURN} sum"),
    "__radd__": ("concatenate", f"{RETURN} concatenation", f"{RETURN} sum"),
    "__iadd__": ("update", "extend"),
    "__sub__": ("subtract", f"{RETURN} difference"),
    "__isub__": ("update", "subtract"),
    "__mul__": ("multiply", "repeat", f"{RETURN} product"),
    "__rmul__": ("multiply", "repeat", f"{RETURN} product"),
    "__imul__": ("update", "multiply", "repeat"),
    "__and__": (f"{RETURN} intersection",),
    "__or__": (f"{RETURN} union",),
    "__xor__": (f"{RETURN} symmetric",),
    "__eq__": ("compare", "test equality", "check equality"),
    "__ne__": _COMPARE,
    "__lt__": _COMPARE,
    "__le__": _COMPARE,
    "__gt__": _COMPARE,
    "__ge__": _COMPARE,
    "__hash__": ("hash", f"{RETURN} hash"),
    "__bool__": (f"{RETURN} truth",),
    "__call__": ("call", "invoke"),
    "__enter__": ("enter",),
    "__exit__": ("exit", "leave"),
    "__aenter__": ("enter",),
    "__aexit__": ("exit", "leave"),
    "__copy__": ("copy", f"{RETURN} copy", f"{RETURN} shallow"),
    "__deepcopy__": ("copy", f"{RETURN} deep"),
    "__new__": _CREATE + ("allocate",),
    "__init__": ("initialize", "init") + _CREATE,
    "__del__": ("finalize",),
    "__getattr__": (f"{RETURN} attribute", "lookup attribute", "look attribute"),
    "__getattribute__": (f"{RETURN} attribute", "lookup attribute", "look attribute"),
    "__setattr__": ("set attribute", "assign attribute"),
    "__delattr__": ("delete attribute", "remove attribute"),
    "__get__": (f"{RETURN} descriptor",),
    "__set__": ("set descriptor",),
    "__delete__": ("delete descriptor",),
    "__getstate__": ("pickle", f"{RETURN} state"),
    "__setstate__": ("unpickle", "restore", "set state"),
    "__reduce__": ("pickle", "reduce"),
    "__sizeof__": (f"{RETURN} memory",),
}


# Special methods that hand no value back (the data model's statements:
# ``del x[k]``, ``x[k] = v``, ``x += y`` rebinds): a question whose verb
# goes on "and return …" asks for another method ("Remove and return value
# at `index`" is ``pop``).
_NO_VALUE = frozenset(
    {"__delitem__", "__setitem__", "__delattr__", "__setattr__", "__del__", "__init__", "__set__", "__delete__"}
)


def is_special(name: str) -> bool:
    return _SPECIAL.match(name) is not None


def name_words(name: str) -> list[str]:
    """The words ``name`` says: its camel/snake parts, or for a special
    method the words of its data-model phrases (its own name's parts when
    it has none here)."""
    if is_special(name) and name in _DATA_MODEL:
        words = (w for phrase in _DATA_MODEL[name] for w in phrase.split() if w not in (RETURN, OWN))
        return list(dict.fromkeys(words))
    return words_of(name).split()


def says_special(
    name: str, verb: str, after: Sequence[str], own: Collection[str], *, hands_back: bool = False
) -> int | None:
    """Which of its phrases (0 is the data model's first wording) names the
    special method ``name`` of a class whose name has the words ``own``, by
    the question's ``verb`` and the words after it that are not stop words
    (``after``): a phrase's second word must be the first of them, its
    third one of the next two ("Return true if `value` is an element …":
    ``__contains__``); words compared by ``same_word``; None when none
    does. "Create new …" is ``__new__``'s first phrase, ``__init__``'s
    third. ``hands_back``: the question's verb goes on "and returns …"
    later in its sentence ("removes the key … and returns the value")."""
    if name in _NO_VALUE and (hands_back or (after and _returning(after[0]) in RETURN_VERBS)):
        return None  # "Remove and return …" is a pop, not ``del x[k]``
    for n, phrase in enumerate(_DATA_MODEL.get(name, ())):
        wanted, *rest = phrase.split()
        if not (verb in RETURN_VERBS if wanted == RETURN else same_word(verb, wanted)):
            continue
        if not rest:
            return n
        if not after or not (
            any(same_word(after[0], w) for w in own) if rest[0] == OWN else same_word(after[0], rest[0])
        ):
            continue
        if len(rest) == 1 or any(same_word(w, rest[1]) for w in after[1:3]):
            return n
    return None


def first_sentence(question: str) -> str:
    """The question up to its first sentence's end (".", "!" or "?" and a space)."""
    return re.split(r"(?<=[.!?])\s", question.strip(), maxsplit=1)[0]


_HANDS_BACK = re.compile(r"\band\s+(?:then\s+)?(?:returns?|gives?\s+back|yields?)\b", re.IGNORECASE)


def hands_back(question: str) -> bool:
    """Whether the question's first sentence goes on "and returns …"."""
    return _HANDS_BACK.search(first_sentence(question)) is not None


def same_word(a: str, b: str) -> bool:
    """``a`` and ``b`` are one word, inflected or not: "returns" / "return",
    "creates" / "create", "removes" / "remove", "iterators" / "iterator"."""
    return _root(a) == _root(b)


def _root(word: str) -> str:
    lowered = word.lower()
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(lowered) - len(suffix) >= 3 and lowered.endswith(suffix):
            lowered = lowered[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return lowered.rstrip("e")


def verb_and_after(words: Sequence[str], stopwords: Collection[str]) -> tuple[int, str | None, list[str]]:
    """The question's verb, its first word after "This function" or "The
    method" (lower case, a returning verb as RETURN_VERBS spells it), its
    position, and the words after it that are not stop words."""
    lowered = [w.lower() for w in words]
    start = 0
    leading = _LEADING | _ADVERBS if ADVERBS_BEFORE_VERB else _LEADING
    while start < len(lowered) and lowered[start] in leading:
        start += 1
    if start >= len(lowered):
        return start, None, []
    return start, _returning(lowered[start]), [w for w in lowered[start + 1 :] if w not in stopwords]


_LEADING = frozenset({"this", "the", "a", "function", "method", "property", "it"})
# An adverb before the verb is not the verb: "This function only closes
# the file …" does ``close``, "This function recursively updates …"
# ``update`` (``verb_and_after``). Off: the adverb is read as the verb.
ADVERBS_BEFORE_VERB = True
_ADVERBS = frozenset(
    """only also just simply first then always never merely actually optionally recursively automatically
    internally explicitly implicitly lazily safely atomically silently directly manually temporarily""".split()
)


def _returning(verb: str) -> str:
    """The verb as RETURN_VERBS lists it when it is one of them in another
    form ("returns", "gets"), else as written."""
    return next((v for v in RETURN_VERBS if same_word(verb, v)), verb)


# Methods of Python's container and I/O protocols (list, dict, set, file
# objects), by the standard library documentation's own wording of them
# ("Built-in Types", "io"): what such a method does is the language's
# meaning of its name, which the name does not spell. "Remove all items
# from the list" is ``clear``, "Remove element elem from the set if it is
# present" ``discard``, "Remove and return …" a ``pop``, "Return the
# current stream position" ``tell``. Each phrase is matched at the
# question's verb (its lead, "This function" and a leading "Name:" left
# out); ``{RETURN}`` is a verb that hands a value back.
_RETURNS = r"(?:return|get|give)s?"
_PROTOCOL_PHRASES: dict[str, tuple[str, ...]] = {
    # list.clear, dict.clear, set.clear: "Remove all items from the list."
    "clear": (r"(?:remove|delete|discard)s? all (?:the )?[\w-]+ from\b",),
    # set.discard: "Remove element elem from the set if it is present."
    "discard": (r"removes? (?!and\b).*\bif (?:it is |it's )?(?:a member|present)\b",),
    # dict.popitem: "Remove and return a (key, value) pair from the dictionary."
    "popitem": (r"removes? and returns? (?:an? |the )?(?:arbitrary )?`?\(key, ?value\)`? pair",),
    # list.pop: "Remove the item at the given position in the list, and return it."; dict.pop, set.pop
    # (a pair is ``popitem``'s)
    "pop": (
        r"removes? and returns?\b(?!.*\bpairs?\b)",
        r"removes? .*\band returns? (?:it|its value|the (?:corresponding )?value)\b",
    ),
    # del s[i]: the item at a position, not a value (list.remove: "the first item … equal to x")
    "__delitem__": (r"(?:remove|delete)s? (?:the )?(?:`\w+`|\w+) at (?:`\w+`|the given (?:index|position))",),
    # iter(d): "Return an iterator over the keys of the dictionary."
    "__iter__": (rf"{_RETURNS} an iterator over the keys\b",),
    # dict.items: "Return a new view of the dictionary's items ((key, value) pairs)."
    "items": (rf"{_RETURNS} (?:an? |the )?(?:new )?(?:iterator|view|list) of .*\(key, ?value\)`? pairs\b",),
    # dict.get: "Return the value for key if key is in the dictionary, else default."
    "get": (
        rf"{_RETURNS} the value for (?:the |a )?`?key`? if\b",
        rf"{_RETURNS} the default (?:value )?if\b",
        # "Get the value of the given key", "retrieves the value associated with the given key"
        r"(?:return|get|retrieve|fetch)(?:e?s)? the value (?:for|of|associated with) (?:the |a )?(?:given |specified )?`?key`?(?![\w`])",
    ),
    # list.append: "Add an item to the end of the list."
    "append": (r"adds? an? (?:item|value|element|object) to the end\b",),
    # list.count: "Return the number of times x appears in the list."
    "count": (rf"{_RETURNS} (?:the )?number of (?:times|occurrences)\b",),
    # str.find: "Return the lowest index … where substring sub is found … Return -1 if sub is not found."
    "find": (rf"{_RETURNS} the (?:lowest )?index\b.*(?<![\w-])-1\b",),
    # set.union / intersection / difference / symmetric_difference: "Return a new set with elements …"
    "union": (rf"{_RETURNS} (?:a )?new [\w -]+ with (?:elements|values|items) from (?:the \w+|itself) and all\b",),
    "intersection": (rf"{_RETURNS} (?:a )?new [\w -]+ with (?:elements|values|items) common to\b",),
    "difference": (rf"{_RETURNS} (?:a )?new [\w -]+ with (?:elements|values|items) in the \w+ that are not in\b",),
    "symmetric_difference": (rf"{_RETURNS} (?:a )?new [\w -]+ with (?:elements|values|items) in either\b",),
    # io.IOBase: "Return the current stream position.", "Change the stream position …",
    # "Resize the stream to the given size …", "Return the underlying file descriptor …",
    # "Return True if the stream is interactive …"
    "tell": (rf"{_RETURNS} (?:the )?current (?:stream |file )?position\b",),
    "seek": (r"changes? the (?:stream |file )?position\b",),
    "truncate": (r"resizes? the (?:stream|file)\b",),
    "fileno": (rf"{_RETURNS} the (?:underlying )?file descriptor\b",),
    "isatty": (rf"{_RETURNS} true if the (?:stream|file) is interactive\b",),
    # POSIX utilities, whose names a filesystem API's methods take (``os.mkdir``, ``pathlib.Path.rmdir``,
    # ``hdfs dfs -ls``, ``-du``): "mkdir - make directories", "rmdir - remove directories", "ls - list
    # directory contents", "du - estimate file space usage" (their manual pages' names)
    "mkdir": (r"(?:create|make)s? (?:an? |the )?(?:new )?(?:empty )?director(?:y|ies)\b",),
    "rmdir": (r"(?:remove|delete)s? (?:an? |the )?(?:empty )?director(?:y|ies)\b",),
    "ls": (r"lists? (?:all )?(?:the )?(?:files|entries|contents)\b",),
    "du": (r"(?:calculate|compute|estimate|return|get)s? the (?:total )?(?:disk )?(?:size|space|usage) of (?:the )?(?:all )?(?:files?|director(?:y|ies)|path)\b",),
}
# A name's phrases, compiled when a hit of that name is first read: all
# of them took ~4 CPU ms of every search process, most of which meets none
# of these names (docs/search.md, "Warm search latency").
_PROTOCOL: dict[str, tuple[re.Pattern[str], ...]] = {}
_LEAD = re.compile(r"^(?:[\w.]+:\s+)?[\W_]*(?:(?:this|the|a|function|method|property|it)\s+)*", re.IGNORECASE)


def question_lead(question: str) -> str:
    """The question's first sentence from its verb on: "This function",
    "The method" and a leading "Name: " (an issue title's class) left out."""
    sentence = first_sentence(question)
    return sentence[_LEAD.match(sentence).end() :]  # type: ignore[union-attr]  # the pattern matches the empty string


def says_protocol(name: str, lead: str) -> int | None:
    """Which of its phrases names the container or I/O protocol method
    ``name`` by the question's ``lead`` (``question_lead``), or None."""
    if name not in _PROTOCOL_PHRASES:
        return None
    phrases = _PROTOCOL.get(name)
    if phrases is None:
        phrases = _PROTOCOL[name] = tuple(re.compile(p, re.IGNORECASE) for p in _PROTOCOL_PHRASES[name])
    for n, phrase in enumerate(phrases):
        if phrase.match(lead):
            return n
    return None
