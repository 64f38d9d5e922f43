"""The registry of languages: one module each, one explicit dict.

The order is the order of the report's test commands. Long-tail languages
of the ``all-languages`` extra (tree-sitter-language-pack) join the dict
when a file of theirs is first met (``languages/pack.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath

from cartog_ci.domain import CALLABLE_KINDS, FileExtraction, Symbol
from cartog_ci.languages import ecmascript, go, java, markdown, pack, python, ruby, rust
from cartog_ci.languages.base import NODES, TEST_DIRS, Language, Project, ScopeRules, has_test_attribute, whole_signature
from cartog_ci.languages.testrunners import TestCommand, Workspace


def _linkable(path: str) -> bool:
    return for_path(path) is not None


LANGUAGES: dict[str, Language] = {
    language.name: language
    for language in (
        python.PYTHON,
        go.GO,
        ecmascript.JAVASCRIPT,
        ecmascript.TYPESCRIPT,
        ecmascript.TSX,
        rust.RUST,
        java.JAVA,
        ruby.RUBY,
        markdown.Markdown(
            name="markdown",
            interfaces=False,
            extensions=(".md", ".markdown"),
            syntax=markdown.MARKDOWN_SYNTAX,
            linkable=_linkable,
        ),
    )
}
SHIPPED = tuple(LANGUAGES)
_BY_EXTENSION = {ext: language for language in LANGUAGES.values() for ext in language.extensions}


def for_path(path: str) -> Language | None:
    suffix = PurePosixPath(path).suffix.lower()
    return _BY_EXTENSION.get(suffix) or _from_pack(suffix)


def extract(path: str, source: bytes, name: str, *, timeout_ms: int | None = None) -> FileExtraction:
    """One file's symbols and edges, as the language ``name`` reads it."""
    return LANGUAGES[name].extract(path, source, timeout_ms=timeout_ms)


def get(name: str) -> Language | None:
    """By name; a pack language only once a file of it was met."""
    return LANGUAGES.get(name)


# The rules of a language the process has not met (a pack language: they
# are the pack's own rules, see languages/pack.py).
DEFAULT_SCOPE = pack.SCOPE


def scope_of(name: str) -> ScopeRules:
    language = LANGUAGES.get(name)
    return language.scope if language is not None else DEFAULT_SCOPE


def is_test(symbol: Symbol) -> bool:
    language = LANGUAGES.get(symbol.language)
    if language is not None:
        return language.is_test(symbol)
    # a pack language this process has not met: the pack's rule (base.Language)
    return has_test_attribute(symbol) or symbol.kind in CALLABLE_KINDS and bool(TEST_DIRS.search(symbol.file))


def test_plan(
    tests: Sequence[Symbol],
    *,
    root: str = "",
    symbols_in_file: Callable[[str], Sequence[Symbol]] | None = None,
    exact: bool = False,
) -> list[TestCommand]:
    """Ready commands that run these tests, each with the tests it runs,
    as the project's own configuration says (languages/testrunners.py): one
    group per runner (jest runs JavaScript and TypeScript alike), in the
    registry's order. ``root`` is the repository on disk (its configuration
    is read there; "" reads none), ``symbols_in_file`` the graph's symbols
    of a file (``Store.symbols_in_file``: what a whole-file command runs);
    ``exact``: one ID per test, never a whole file or class, split into
    several commands past ``MAX_COMMAND_CHARS`` (what `cartog-ci test` runs)."""
    ws = Workspace(root, symbols_in_file, exact=exact)
    by_runner: dict[str, list[Symbol]] = {}
    for t in tests:
        language = LANGUAGES.get(t.language)
        if language is not None and language.test_runner:
            by_runner.setdefault(language.test_runner, []).append(t)
    commands: list[TestCommand] = []
    for language in list(LANGUAGES.values()):
        group = by_runner.pop(language.test_runner, None)
        if group:
            commands += language.test_commands(group, ws)
    return commands


def test_commands(
    tests: Sequence[Symbol],
    *,
    root: str = "",
    symbols_in_file: Callable[[str], Sequence[Symbol]] | None = None,
) -> list[str]:
    """The command lines of ``test_plan``."""
    return [c.command for c in test_plan(tests, root=root, symbols_in_file=symbols_in_file)]


def signature_verdict(old: str, new: str, language: str, types: Mapping[str, str] | None = None) -> str:
    """breaking | compatible | "" (callers see no change): the language says."""
    found = LANGUAGES.get(language)
    if found is not None:
        return found.signature_verdict(old, new, types)
    return "" if whole_signature(old) == whole_signature(new) else "breaking"


def type_parameters(signature: str, language: str) -> tuple[str, ...]:
    """The type parameters a signature declares, in order (the language says)."""
    found = LANGUAGES.get(language)
    return found.type_parameters(signature) if found is not None else ()


def call_shape(signature: str, language: str) -> str:
    """What callers depend on in a signature (the language says)."""
    found = LANGUAGES.get(language)
    return found.call_shape(signature) if found is not None else whole_signature(signature)


def _from_pack(suffix: str) -> Language | None:
    """A long-tail language when the pack is installed; without it the file
    is ``unsupported``, never an error. Not put in ``_BY_EXTENSION``: whether
    the pack is there is asked every time."""
    name = pack.language_for_suffix(suffix)
    language = pack.language(name) if name is not None else None
    if language is not None:
        LANGUAGES.setdefault(language.name, language)  # the resolver looks it up by name
    return language


__all__ = [
    "DEFAULT_SCOPE",
    "NODES",
    "LANGUAGES",
    "SHIPPED",
    "Language",
    "Project",
    "ScopeRules",
    "TestCommand",
    "call_shape",
    "extract",
    "for_path",
    "get",
    "is_test",
    "scope_of",
    "signature_verdict",
    "test_commands",
    "test_plan",
]
