"""What a file is to the project, by its path: the implementation, or code
and text around it (tests, documentation and examples, changelogs, vendored
or built code). Search ranks the implementation first for a question about
behaviour unless the question asks for the others (docs/search.md).

A path rule, no parsing: it has to run on every candidate of every search.
The repository's own ``.gitattributes`` (linguist's marks, domain/marks.py)
come before it: a file marked documentation is docs, generated code counts
as vendored (found after the project's own), and ``-linguist-documentation``
/ ``-linguist-vendored`` take back what the path says.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cartog_ci.domain.marks import DOCUMENTATION, GENERATED, META_KEY, NOT_DOCUMENTATION, NOT_VENDORED, Marks, decode

if TYPE_CHECKING:
    from cartog_ci.store.base import Store

ROLES = ("test", "docs", "changelog", "vendored")

_TEST = re.compile(
    # not testing/: alembic.testing, numpy.testing are libraries for their users' tests
    r"(^|/)(tests?|spec|specs|__tests__|testsuite)/"
    r"|(^|/)(test_[^/]*|[^/]*_tests?|conftest)\.py$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|rs|rb|exs?)$|(Test|Tests|Spec)\.(java|kt|cs|scala)$",
    re.IGNORECASE,
)
_DOCS = re.compile(
    # not scripts/ or tools/: alembic/script/ and mrjob/tools/ are the library;
    # docs_src/, doc-source/, examples_async/: the code of the documentation (fastapi's tutorials)
    r"(^|/)(docs?|documentation|examples?|samples?|demos?|tutorials?|cookbook|howto)([-_][a-z0-9]+)?/",
    re.IGNORECASE,
)
_CHANGELOG = re.compile(
    # a text file (mrjob/logs/history.py is code)
    r"(^|/)(change[-_ ]?log|changes|history|news|release[-_ ]?notes|releases|whats[-_ ]?new)"
    r"([-_][\w-]*)?(\.(md|rst|txt|markdown|adoc))?$"
    r"|(^|/)(changelog|changes|changelog\.d|newsfragments|changes\.d|release[-_ ]?notes)/",
    re.IGNORECASE,
)
_VENDORED = re.compile(
    r"(^|/)(vendor|vendors|vendored|_vendor|third_party|thirdparty|third-party|node_modules|build|dist"
    r"|archive|archives|archived|site-packages)/",
    re.IGNORECASE,
)
# Words with which a question asks for one of the roles itself.
_ASKS = {
    "test": re.compile(r"\b(tests?|testing|tested|unit\s*tests?|pytest|fixtures?|mocks?|spec|specs|conftest)\b", re.I),
    "docs": re.compile(
        r"\b(docs?|documentation|documented|examples?|samples?|demos?|tutorials?|readme|guides?|how-?to)\b",
        re.I,
    ),
    "changelog": re.compile(r"\b(change\s*log|changelog|changes|release\s+notes|history|news|what'?s\s+new)\b", re.I),
    "vendored": re.compile(
        r"\b(vendor(ed)?|third[-\s]?party|node_modules|bundled|dist|build|(auto)?generated|codegen)\b", re.I
    ),
}
_NO_MARKS: Marks = {}


def role_of(path: str, marks: Marks = _NO_MARKS) -> str:
    """``test``, ``docs``, ``changelog``, ``vendored`` or ``""`` (the
    implementation). A mark of the file (``marks``) first, then the first
    rule that fits wins, in that order: tests under docs/ are tests."""
    words = marks.get(path, frozenset()) if marks else frozenset()
    if GENERATED in words:
        return "vendored"
    if DOCUMENTATION in words:
        return "docs"
    if NOT_VENDORED not in words and _VENDORED.search(path):
        return "vendored"
    if _TEST.search(path):
        return "test"
    if _CHANGELOG.search(path):
        return "changelog"
    if NOT_DOCUMENTATION not in words and _DOCS.search(path):
        return "docs"
    return ""


def marks_of(store: Store) -> dict[str, frozenset[str]]:
    """The marks the last indexing run wrote (index/selection.py)."""
    return decode(store.get_meta(META_KEY))


def asked_roles(query: str) -> frozenset[str]:
    """The roles a question asks for by name ("the tests of …", "an example
    of …"): those are not demoted."""
    return frozenset(role for role, words in _ASKS.items() if words.search(query))
