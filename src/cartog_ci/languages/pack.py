"""Long-tail languages from tree-sitter-language-pack (the ``all-languages``
extra): C, C++, C#, PHP, Kotlin, Swift, Scala, Lua, Dart, Elixir, R,
Solidity, OCaml, Elm, Gleam.

Only a pack that bundles its grammars is used (0.x: one compiled module per
language under ``tree_sitter_language_pack.bindings``). From 1.0 on the pack
fetches each grammar from the network the first time it is asked for it;
cartog-ci never downloads anything at run time, so such a pack counts as
absent and those files stay ``unsupported``.

The query of each language is the grammar's own tags query
(``queries/pack/<name>.scm``, see the note at the top of each file), whose
capture kinds are mapped here to ours. A pack language gets the resolver's
defaults (no language-specific scope rules).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import lru_cache
from types import ModuleType

import tree_sitter as ts

from cartog_ci.config import LANGUAGE_PACK_MODULE
from cartog_ci.languages.base import QUERIES, Language, ScopeRules
from cartog_ci.parse.syntax import Syntax

MODULE = LANGUAGE_PACK_MODULE

# Extensions that no shipped language owns -> pack language name. Left out:
# extensions that two languages share (`.m` Objective-C / MATLAB, `.cls`
# Apex / LaTeX, `.d` D / make dependency files) and grammars whose pack has
# no tags query (Bash, SQL, HTML, YAML…).
EXTENSIONS: dict[str, str] = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".cs": "csharp",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".lua": "lua",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".r": "r",
    ".sol": "solidity",
    ".ml": "ocaml",
    ".elm": "elm",
    ".gleam": "gleam",
}

# Tags kinds -> ours (docs/languages.md). A kind mapped to None is dropped: fields,
# properties, variables are no symbols here, module references no edges.
DEFINITION_KINDS: dict[str, str | None] = {
    "class": "class",
    "interface": "interface",
    "trait": "trait",
    "struct": "struct",
    "enum": "enum",
    "type": "type",
    "union": "type",
    "function": "function",
    "method": "method",
    "macro": "function",
    "constructor": "function",
    "operator": "function",
    "constant": "constant",
    "enum_variant": "constant",
    "module": "namespace",  # a module inside a file; "module" is the file
}
REFERENCE_KINDS: dict[str, str | None] = {
    "call": "call",
    "send": "call",  # C# `obj.M()`
    "function": "call",  # Elm, Gleam
    "constructor": "call",  # Gleam `Point(1, 2)`
    "implementation": "implementation",  # inherits
    "class": "type",
    "type": "type",
    "union": "type",
    "enum_variant": "type",
}
_CAPTURE = re.compile(r"@(definition|reference)\.(\w*)")
# Comment node types tried in each grammar (docstrings, comment-free hashes).
COMMENT_TYPES = ("comment", "line_comment", "block_comment", "multiline_comment", "documentation_comment")


@lru_cache(maxsize=None)
def bundled() -> ModuleType | None:
    """The installed pack if it bundles its grammars, else None (absent,
    broken, or a 1.x pack that would download them)."""
    try:
        module = importlib.import_module(MODULE)
        has_bindings = importlib.util.find_spec(f"{MODULE}.bindings") is not None
    except (ImportError, OSError, ValueError):
        return None
    return module if has_bindings and hasattr(module, "get_binding") else None


def language_for_suffix(suffix: str) -> str | None:
    """Pack language name for a file suffix, when the pack can parse it."""
    name = EXTENSIONS.get(suffix)
    return name if name is not None and bundled() is not None else None


def extensions_of(name: str) -> tuple[str, ...]:
    return tuple(ext for ext, lang in EXTENSIONS.items() if lang == name)


def binding(name: str) -> object:
    """The grammar's PyCapsule for ``tree_sitter.Language``; LookupError if
    the pack is absent or lacks it."""
    module = bundled()
    if module is None:
        raise LookupError(f"{MODULE} with bundled grammars is not installed")
    return module.get_binding(name)


@lru_cache(maxsize=None)
def tags_query(name: str) -> str:
    text = (QUERIES / "pack" / f"{name}.scm").read_text("utf-8")
    return map_captures(text)


def map_captures(text: str) -> str:
    """Rename ``@definition.<kind>`` / ``@reference.<kind>`` to our kinds; a
    dropped kind becomes ``@_<role>_<kind>``, which the extractor ignores."""

    def rename(match: re.Match[str]) -> str:
        role, kind = match.group(1), match.group(2)
        table = DEFINITION_KINDS if role == "definition" else REFERENCE_KINDS
        ours = table.get(kind)
        return f"@{role}.{ours}" if ours else f"@_{role}_{kind or 'none'}"

    return _CAPTURE.sub(rename, text)


# The resolver's defaults for a language it has no rules for: the same
# answers whether or not this process has seen such a file yet.
SCOPE = ScopeRules(self_names=("self", "cls", "this"))


@lru_cache(maxsize=None)
def language(name: str) -> Language | None:
    """The pack language ``name``, or None when the pack lacks its grammar
    or its grammar rejects the query."""
    try:
        grammar = ts.Language(binding(name))
        ts.Query(grammar, tags_query(name))
    except (LookupError, OSError, ValueError, ts.QueryError):
        return None
    syntax = Syntax(
        name=name,
        load_grammar=lambda: grammar,
        load_query=lambda: tags_query(name),
        comment_types=tuple(t for t in COMMENT_TYPES if grammar.id_for_node_kind(t, True)),
        self_names=SCOPE.self_names,
    )
    return Language(name=name, extensions=extensions_of(name), syntax=syntax, scope=SCOPE)
