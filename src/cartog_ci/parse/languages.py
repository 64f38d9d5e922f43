"""Registry of supported languages: grammar wheel, query file, and the few
per-language facts the generic extractor needs (which node wraps a definition,
which field holds the body, which nodes are comments)."""

from __future__ import annotations

import builtins
import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import PurePosixPath

import tree_sitter as ts


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    module: str  # grammar wheel module
    loader: str = "language"  # function in the module returning the grammar
    query: str = ""  # query file stem in parse/queries (defaults to name)
    # Node types whose range includes decorators/attributes/comments that
    # belong to the definition they wrap (Python decorated_definition).
    wrappers: tuple[str, ...] = ()
    body_fields: tuple[str, ...] = ("body",)
    comment_types: tuple[str, ...] = ("comment",)
    # Kinds a function becomes when its parent is a type.
    method_parents: frozenset[str] = field(
        default_factory=lambda: frozenset({"class", "interface", "trait", "struct", "enum"})
    )
    self_names: tuple[str, ...] = ()
    # Go, Java: every file of a directory shares one namespace (the package).
    package_is_directory: bool = False
    # Names that are always bound outside the project (builtins, globals):
    # an unqualified call to one is ``external``, never guessed.
    builtins: frozenset[str] = frozenset()
    # Regex on a method's signature whose group 1 is its receiver's name
    # (Go: `func (s *Server) Start()` -> `s.x()` is a call on the receiver).
    receiver_pattern: str = ""


JS_GLOBALS = frozenset(
    "console require Promise Object Array String Number Boolean JSON Math Date Error "
    "TypeError RangeError SyntaxError Map Set WeakMap WeakSet Symbol BigInt parseInt "
    "parseFloat setTimeout clearTimeout setInterval clearInterval queueMicrotask fetch "
    "document window globalThis process Buffer RegExp isNaN isFinite encodeURIComponent "
    "decodeURIComponent encodeURI decodeURI structuredClone Reflect Proxy Intl "
    "Uint8Array Int32Array Float64Array ArrayBuffer DataView URL URLSearchParams "
    "AbortController TextEncoder TextDecoder alert describe it test expect beforeEach "
    "afterEach beforeAll afterAll jest module exports".split()
)

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            name="python",
            extensions=(".py", ".pyi"),
            module="tree_sitter_python",
            wrappers=("decorated_definition",),
            self_names=("self", "cls"),
            builtins=frozenset(dir(builtins)),
        ),
        LanguageSpec(
            name="javascript",
            extensions=(".js", ".jsx", ".mjs", ".cjs"),
            module="tree_sitter_javascript",
            wrappers=("export_statement",),
            self_names=("this",),
            builtins=JS_GLOBALS,
        ),
        LanguageSpec(
            name="typescript",
            extensions=(".ts", ".mts", ".cts"),
            module="tree_sitter_typescript",
            loader="language_typescript",
            wrappers=("export_statement",),
            self_names=("this",),
            builtins=JS_GLOBALS,
        ),
        LanguageSpec(
            name="tsx",
            extensions=(".tsx",),
            module="tree_sitter_typescript",
            loader="language_tsx",
            query="typescript",
            wrappers=("export_statement",),
            self_names=("this",),
            builtins=JS_GLOBALS,
        ),
    )
}

_BY_EXTENSION = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}


def register(spec: LanguageSpec) -> None:
    """Add a language (used by the language modules shipped with the package)."""
    LANGUAGES[spec.name] = spec
    for ext in spec.extensions:
        _BY_EXTENSION[ext] = spec


def language_for_path(path: str) -> LanguageSpec | None:
    suffix = PurePosixPath(path).suffix.lower()
    return _BY_EXTENSION.get(suffix)


@lru_cache(maxsize=None)
def grammar(name: str) -> ts.Language:
    spec = LANGUAGES[name]
    module = importlib.import_module(spec.module)
    return ts.Language(getattr(module, spec.loader)())


@lru_cache(maxsize=None)
def query_source(name: str) -> str:
    spec = LANGUAGES[name]
    stem = spec.query or spec.name
    return resources.files("cartog_ci.parse").joinpath("queries", f"{stem}.scm").read_text("utf-8")


@lru_cache(maxsize=None)
def query(name: str) -> ts.Query:
    return ts.Query(grammar(name), query_source(name))


@lru_cache(maxsize=None)
def comment_query(name: str) -> ts.Query | None:
    spec = LANGUAGES[name]
    patterns = " ".join(f"({t}) @c" for t in spec.comment_types)
    try:
        return ts.Query(grammar(name), f"[{patterns}]" if len(spec.comment_types) > 1 else patterns)
    except (ts.QueryError, ValueError):
        return None
