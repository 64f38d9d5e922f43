"""What a symbol is beside its file's role (search/roles.py): a declaration
without a body, or a test double named like the class it stands in for.
Search ranks both below the implementation for a question about behaviour,
unless the question asks for them (docs/search.md).

Read from what the index already holds for each candidate: the symbol's
name, decorators, signature and file, and its stored search text (the
significant lines of its source, ``embed/text.py``). No parsing.

- a **declaration** is a method or function whose body is nothing but a
  docstring, ``...``, ``pass``, ``raise NotImplementedError`` or ``return
  NotImplemented`` (zope ``I…`` interfaces, ``Protocol`` members, abstract
  methods, stubs), one decorated ``@abstractmethod`` / ``@overload``, one of
  a ``.pyi`` stub file, or a class that is a ``Protocol`` or a zope
  ``Interface``;
- a **test double** is a class whose name starts with ``Dummy``, ``Fake``,
  ``Mock``, ``Stub`` or ``Spy`` before a capital (``DummyRequest``), and its
  members, wherever it lives (``pyramid/testing.py`` is the library);
- a method or function **hands no value back** when its signature says
  ``-> None``, or, without a return annotation, when its body (docstring
  left out; a nested function's body is not in the stored text, only its
  signature) has no ``return`` with a value other than ``None`` and no
  ``yield``; a property hands its value back. Read only when the whole
  text is stored: a cut one may hide its ``return``;
- its **parameters** are the names of its signature's parameters (``*args``
  as ``args``), ``self`` and ``cls`` left out.
"""

from __future__ import annotations

import re

from cartog_ci.domain import Symbol
from cartog_ci.parse.syntax import python_parameters

_ABSTRACT = re.compile(
    r"^@(?:[\w.]*\.)?(?:abstractmethod|abstractproperty|abstractclassmethod|abstractstaticmethod|overload)\b"
)
_STUB_LINE = re.compile(r"^(?:\.\.\.|pass|raise\s+NotImplementedError\b.*|return\s+NotImplemented)\s*;?$")
_ONE_LINE_STUB = re.compile(r":\s*(?:\.\.\.|pass)\s*$")
_DEF = re.compile(r"^(?:async\s+)?def\s")
_QUOTES = re.compile(r"^[rRbBuUfF]{0,2}(\"\"\"|'''|\"|')")
_DECLARING_BASES = re.compile(r"\(\s*(?:.*[\s,(])?(?:[\w.]*\.)?(?:Protocol|Interface)\b")
_DOUBLE = re.compile(r"(?:^|\.)(?:Dummy|Fake|Mock|Stub|Spy)[A-Z_]")
# The stored text is cut at 2048 bytes: a long docstring can hide the body.
_CUT = 2000
# Words with which a question asks for declarations.
ASKS_DECLARATION = re.compile(
    r"\b(?:interfaces?|abstract|protocols?|declar\w*|stubs?|overloads?|signatures?)\b", re.IGNORECASE
)
ASKS_DOUBLE = re.compile(r"\b(?:dummy|dummies|fakes?|mocks?|stubs?|test\s+doubles?|spy|spies)\b", re.IGNORECASE)


def is_test_double(symbol: Symbol) -> bool:
    return symbol.kind in ("class", "method", "function") and _DOUBLE.search(symbol.qualified_name) is not None


# A test case by the discovery conventions of unittest and pytest: a
# ``test_…`` method of a class named for tests (``PermissionTest``,
# ``BaseTestStorage``, ``TestParser``), wherever its file is: a library's
# ``testing.py`` ships test cases for its users' backends (kinto), which no
# path rule (search/roles.py) can tell from a library for tests.
_TEST_CASE = re.compile(r"(?:^|\.)\w*Test\w*\.test_\w*$")


def is_test_case(symbol: Symbol) -> bool:
    return symbol.kind == "method" and _TEST_CASE.search(symbol.qualified_name) is not None


def is_declaration(symbol: Symbol, content: str | None) -> bool:
    """``symbol`` declares without implementing (module docstring above)."""
    if symbol.language != "python":
        return False
    if symbol.kind == "class":
        return _DECLARING_BASES.search(symbol.signature) is not None
    if symbol.kind not in ("method", "function"):
        return False
    if symbol.file.endswith(".pyi") or any(_ABSTRACT.match(d) for d in symbol.decorators):
        return True
    if not content or len(content.encode()) >= _CUT:
        return False
    return _bodyless(content.splitlines())


# ``return`` with a value or ``yield``; led by a literal, which ``re`` finds
# fast (a pattern led by ``^`` is tried at every position of the text)
_GIVES_VALUE = re.compile(r"(?:return\b(?![ \t]*(?:None)?[ \t]*;?[ \t]*(?:#.*)?$)|yield\b)", re.MULTILINE)
_ANNOTATED = re.compile(r"\)\s*->\s*(.+?)\s*:$")
_VALUE_DECORATORS = re.compile(r"^[ \t]*@(?:[\w.]*\.)?(?:property|cached_property|\w+\.getter)\b", re.MULTILINE)
_DEF_LINE = re.compile(r"^[ \t]*(?:async\s+)?def\s", re.MULTILINE)
_LINE_END_COLON = re.compile(r":[ \t]*$", re.MULTILINE)


def hands_back_nothing(symbol: Symbol, content: str | None) -> bool:
    """``symbol`` is a Python method or function whose whole stored text
    shows that it returns no value (module docstring above). A declaration
    (``is_declaration``) is not judged: it has no body to read. A few
    regular expressions over the text, no loop over its lines unless it
    has no ``return`` with a value: it is asked of each candidate."""
    if symbol.language != "python" or symbol.kind not in ("method", "function"):
        return False
    if symbol.file.endswith(".pyi") or not content or len(content.encode()) >= _CUT:
        return False
    if any(_VALUE_DECORATORS.match(d) for d in symbol.decorators):
        return False
    # the decorators, whose lone closing brackets the stored text leaves out, then the signature
    at = _DEF_LINE.search(content)
    if at is None or _VALUE_DECORATORS.search(content, 0, at.start()):
        return False
    colon = _LINE_END_COLON.search(content, at.start())
    if colon is None:
        return False
    annotated = _ANNOTATED.search(" ".join(content[at.start() : colon.end()].split()))
    if annotated:
        return annotated.group(1).strip("'\"").rsplit(".", 1)[-1] in ("None", "NoReturn", "Never")
    after = _docstring_end(content, colon.end())
    if any(_statement(content, m.start()) for m in _GIVES_VALUE.finditer(content, after)):
        return False  # the usual case, decided without splitting the lines
    body = _without_docstring([line.strip() for line in content[colon.end() :].splitlines() if line.strip()])
    if not body or all(_STUB_LINE.match(line) for line in body):
        return False  # a declaration: nothing to read
    return True


def _statement(content: str, at: int) -> bool:
    """Whether ``return`` / ``yield`` at ``at`` opens a statement (only
    white space before it on its line), or ``yield`` is an expression's
    (``x = yield``); not a word of a name (``returned``, ``my_return``)."""
    if at > 0 and (content[at - 1].isalnum() or content[at - 1] == "_"):
        return False
    start = content.rfind("\n", 0, at) + 1
    return content.startswith("yield", at) or not content[start:at].strip()


_OPENING_QUOTES = re.compile(r"\s*[rRbBuUfF]{0,2}(\"\"\"|\'\'\'|\"|\')")


def _docstring_end(content: str, at: int) -> int:
    """Where the docstring that opens the body at ``at`` ends (``at`` when
    there is none; the text's end when it is not closed)."""
    opening = _OPENING_QUOTES.match(content, at)
    if opening is None:
        return at
    closing = content.find(opening.group(1), opening.end())
    return len(content) if closing < 0 else closing + len(opening.group(1))


def parameter_names(symbol: Symbol) -> frozenset[str]:
    """The parameters of a Python method's or function's signature
    (``def f(self, key, *values, default=None)``: key, values, default)."""
    if symbol.language != "python" or symbol.kind not in ("method", "function"):
        return frozenset()
    return frozenset(python_parameters(symbol.signature)) - {"self", "cls"}


def _bodyless(lines: list[str]) -> bool:
    code = [line.strip() for line in lines if line.strip() and not line.startswith("// File:")]
    while code and code[0].startswith("@"):
        code.pop(0)
    if not code or not _DEF.match(code[0]):
        return False
    # the signature, over as many lines as it takes
    while code and not code[0].endswith(":"):
        if _ONE_LINE_STUB.search(code[0]):
            return True
        code.pop(0)
    if not code:
        return False
    code.pop(0)
    code = _without_docstring(code)
    return all(_STUB_LINE.match(line) for line in code)


def _without_docstring(code: list[str]) -> list[str]:
    if not code:
        return code
    opening = _QUOTES.match(code[0])
    if opening is None:
        return code
    quote = opening.group(1)
    rest = code[0][opening.end() :]
    if quote in rest:  # closed on its first line
        return code[1:]
    for n, line in enumerate(code[1:], start=1):
        if quote in line:
            return code[n + 1 :]
    return []
