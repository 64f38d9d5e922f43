"""The registry of languages: one module each, one explicit mapping.

The order is the order of the report's test commands. A language's module
is imported when the language is first asked for (by name, or by the
extension of a file of it): a report on a Python project imports neither
the ECMAScript, Go, Java, Ruby nor Rust rules (their import and the
building of their classes cost a process ~10 ms; docs/report.md,
"Start-up"). Long-tail languages of the ``all-languages`` extra
(tree-sitter-language-pack) join the mapping when a file of theirs is
first met (``languages/pack.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence

from cartog_ci.domain import CALLABLE_KINDS, FileExtraction, Symbol
from cartog_ci.languages import pack
from cartog_ci.languages.base import NODES, TEST_DIRS, Language, Project, ScopeRules, has_test_attribute, whole_signature
from cartog_ci.languages.testrunners import TestCommand, Workspace


def _linkable(path: str) -> bool:
    return for_path(path) is not None


def _python() -> tuple[Language, ...]:
    from cartog_ci.languages import python

    return (python.PYTHON,)


def _go() -> tuple[Language, ...]:
    from cartog_ci.languages import go

    return (go.GO,)


def _ecmascript() -> tuple[Language, ...]:
    from cartog_ci.languages import ecmascript

    return (ecmascript.JAVASCRIPT, ecmascript.TYPESCRIPT, ecmascript.TSX)


def _rust() -> tuple[Language, ...]:
    from cartog_ci.languages import rust

    return (rust.RUST,)


def _java() -> tuple[Language, ...]:
    from cartog_ci.languages import java

    return (java.JAVA,)


def _ruby() -> tuple[Language, ...]:
    from cartog_ci.languages import ruby

    return (ruby.RUBY,)


def _markdown() -> tuple[Language, ...]:
    from cartog_ci.languages import markdown

    return (
        markdown.Markdown(
            name="markdown",
            interfaces=False,
            extensions=(".md", ".markdown"),
            syntax=markdown.MARKDOWN_SYNTAX,
            linkable=_linkable,
        ),
    )


# The shipped languages in the registry's order: (name, its extensions, the
# loader of its module's languages). The extensions are each language's own
# ``extensions``, written here so that a file's language is known before its
# module is imported (tests/parse/test_registry.py keeps them equal).
_SHIPPED: tuple[tuple[str, tuple[str, ...], Callable[[], tuple[Language, ...]]], ...] = (
    ("python", (".py", ".pyi"), _python),
    ("go", (".go",), _go),
    ("javascript", (".js", ".jsx", ".mjs", ".cjs"), _ecmascript),
    ("typescript", (".ts", ".mts", ".cts"), _ecmascript),
    ("tsx", (".tsx",), _ecmascript),
    ("rust", (".rs",), _rust),
    ("java", (".java",), _java),
    ("ruby", (".rb", ".rake", ".gemspec"), _ruby),
    ("markdown", (".md", ".markdown"), _markdown),
)


class Registry(MutableMapping[str, Language]):
    """Languages by name, in order: the shipped ones (each imported with
    its module when first asked for: a module's languages load together,
    so that a language not loaded yet shares no test runner with a loaded
    one, ``test_plan``), then the pack's as they are met."""

    def __init__(self) -> None:
        self._loaders = {name: load for name, _, load in _SHIPPED}
        self._names: list[str] = [name for name, _, _ in _SHIPPED]
        self._loaded: dict[str, Language] = {}

    def __getitem__(self, name: str) -> Language:
        found = self._loaded.get(name)
        if found is None:
            load = self._loaders.get(name)
            if load is None:
                raise KeyError(name)
            for language in load():
                self._loaded[language.name] = language
            found = self._loaded[name]
        return found

    def __setitem__(self, name: str, language: Language) -> None:
        if name not in self._loaders and name not in self._loaded:
            self._names.append(name)
        self._loaded[name] = language

    def __delitem__(self, name: str) -> None:
        if name in self._loaders:
            raise KeyError(f"{name} is shipped")
        del self._loaded[name]
        self._names.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._loaders or name in self._loaded

    def get(self, name: str, default: Language | None = None) -> Language | None:  # type: ignore[override]
        """As ``Mapping.get``, a loaded language without its two calls in
        Python (``__getitem__`` through the mixin): the resolver asks for a
        symbol's language's rules per lookup (zod, cold: 28k calls)."""
        found = self._loaded.get(name)
        if found is not None:
            return found
        try:
            return self[name]
        except KeyError:
            return default

    def loaded(self, name: str) -> Language | None:
        """The language if its module is imported already (None otherwise)."""
        return self._loaded.get(name)


LANGUAGES = Registry()
SHIPPED = tuple(name for name, _, _ in _SHIPPED)
_BY_EXTENSION = {ext: name for name, extensions, _ in _SHIPPED for ext in extensions}


def for_path(path: str) -> Language | None:
    suffix = _suffix(path)
    name = _BY_EXTENSION.get(suffix)
    return LANGUAGES[name] if name is not None else _from_pack(suffix)


def _suffix(path: str) -> str:
    """``PurePosixPath(path).suffix.lower()`` without a path object (a cold
    run asks for every file's language three times: rollup's 12,307 files,
    0.4 s of CPU through pathlib)."""
    name = path.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


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
    for name in LANGUAGES:
        # a language not loaded has no test here, nor a runner of one (Registry)
        found = LANGUAGES.loaded(name)
        group = by_runner.pop(found.test_runner, None) if found is not None else None
        if found is not None and group:
            commands += found.test_commands(group, ws)
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
