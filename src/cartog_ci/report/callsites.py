"""The call-site check (docs/report.md): for every direct caller of a
function whose signature changed, the call's arguments as written are bound
against the new signature; each call site *will break*, is *fine*, or cannot
be told (a spread, an unknown decorator, a changed type). The languages read
the calls and bind them (``languages/arguments.py``).

A function named as a value (``rows.map(format)``, ``{ onClick: handle }``)
is called where the graph cannot see: Python's index records such places
(``calls`` edges marked ``VALUE``); for JavaScript, TypeScript, Go and
Rust, whose index does not, the files that can name the function are read
here for its name as a value (``_value_places``), and each place is a call
site that cannot be told."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import languages
from cartog_ci.domain import CALLABLE_KINDS, CONSTRUCTOR_NAMES, VALUE, Edge, Symbol
from cartog_ci.domain.results import CallSite, ChangeSet, Side, SymbolChange
from cartog_ci.languages.arguments import UNKNOWN, WILL_BREAK, Call, CallCheck, calls_on_line
from cartog_ci.parse.budget import ParseTimeout, parse

if TYPE_CHECKING:  # the interface, for type checkers only
    import tree_sitter as ts

    from cartog_ci.store.base import Store

MAX_FILE_BYTES = 2_000_000
PARSE_TIMEOUT_MS = 2_000


# languages whose index records where a function is named as a value
_RECORDS_VALUES = frozenset({"python"})
# JS/TS: the parents of an identifier that does not name the function as a
# value there (a call's callee is a call site of its own; an import or
# export names a binding; a type query is a type)
_NOT_A_VALUE = frozenset(
    {"import_specifier", "export_specifier", "import_clause", "namespace_import", "type_query", "export_statement"}
)
# languages whose value places the check reads itself (``_value_places``)
_SCANNED = frozenset({"javascript", "typescript", "tsx", "go", "rust"})
_PARAMETERS = frozenset(
    {"formal_parameters", "required_parameter", "optional_parameter", "rest_pattern", "parameter", "closure_parameters"}
)
# nothing inside these names the function as a value: an import (Rust's
# `use`), a macro's tokens (`assert_eq!(parse(x), 1)` holds a call no tree shows)
_NOT_INSIDE = frozenset({"use_declaration", "token_tree", "import_declaration", "import_spec"})
# where that search stops
_STATEMENTS = frozenset({"expression_statement", "let_declaration", "function_item", "source_file", "program", "block"})


class _Trees:
    """The head's files, each read and parsed once."""

    def __init__(self, cs: ChangeSet) -> None:
        self.cs = cs
        self.trees: dict[str, ts.Node | None] = {}
        self.sources: dict[str, bytes] = {}

    def root(self, path: str) -> ts.Node | None:
        if path not in self.trees:
            self.trees[path] = self._parse(path)
        return self.trees[path]

    def _parse(self, path: str) -> ts.Node | None:
        language = languages.for_path(path)
        source = self.cs.head_sources.get(path)
        if source is None:
            try:
                file = Path(self.cs.root) / path
                source = file.read_bytes() if file.is_file() and file.stat().st_size <= MAX_FILE_BYTES else None
            except OSError:
                source = None
        if language is None or source is None:
            return None
        self.sources[path] = source
        try:
            return parse(language.syntax.grammar, source, PARSE_TIMEOUT_MS).root_node
        except (ParseTimeout, ValueError):
            return None


def check_call_sites(
    store: Store, cs: ChangeSet, change: SymbolChange, found: Sequence[Edge] = ()
) -> list[CallSite]:
    """Each direct call of the changed function, checked against its new
    signature; ``found``: calls of it the compiler tier found (docs/report.md)."""
    target = change.symbol
    if target is None or not change.signature_changed or target.kind not in CALLABLE_KINDS:
        return []
    language = languages.get(target.language)
    if language is None:
        return []
    edges = store.edges_to([target.id], ("calls",)) + list(found)
    if target.name in CONSTRUCTOR_NAMES and target.parent_id:  # `Foo(...)` calls the constructor
        edges += store.edges_to([target.parent_id], ("calls",))
    overloads = [
        s
        for s in store.symbols_in_file(target.file)
        if s.parent_id == target.parent_id and s.name == target.name and s.id != target.id
    ]
    trees = _Trees(cs)
    if target.language in _SCANNED and target.language not in _RECORDS_VALUES:
        called = {(e.file, e.line) for e in edges}
        edges += [e for e in _value_places(store, trees, target) if (e.file, e.line) not in called]
    out: list[CallSite] = []
    seen: set[tuple[str, int, str]] = set()
    for edge in sorted(edges, key=lambda e: (e.file, e.line, e.source_id)):
        key = (edge.file, edge.line, edge.source_id)
        if key in seen:
            continue
        seen.add(key)
        check = _check(trees, edge, target, change.old, overloads)
        out.append(CallSite(edge, target, check.verdict, check.reason))
    return out


def _value_places(store: Store, trees: _Trees, target: Symbol) -> list[Edge]:
    """Where a JS/TS, Go or Rust function is named as a value, as ``calls``
    edges marked ``VALUE`` from the innermost symbol there. JS/TS and Rust:
    in its own file by its name (a JS method: ``this.name``; a Rust one:
    ``Type::name`` in its file, its type's, those importing the type), in a
    file that imports it by the name the import binds, or as ``ns.name``
    under a JS namespace import. Go: in the files of its package by its
    name, in a file that imports the package as ``pkg.Name``. Not followed:
    a name re-exported and imported under it elsewhere, a method value of
    Go, a local that shadows the name."""
    method = target.kind == "method"
    own = store.symbols_in_file(target.file)
    # path -> (bare names, qualifiers of ``qualifier.name``)
    names: dict[str, tuple[set[str], set[str]]] = {}
    if target.language == "go":
        if method:
            return []
        folder = posixpath.dirname(target.file)
        package = [(f, i) for f, i, language in store.modules() if language == "go" and posixpath.dirname(f) == folder]
        for path, _ in package:
            names[path] = ({target.name}, set())
        for e in store.edges_to([i for _, i in package], ("imports",)):
            names.setdefault(e.file, (set(), set()))[1].add(e.alias or e.target_name.rpartition("/")[2])
    elif method and target.language == "rust":
        # `Version::parse` (or `Self::parse`) where the type is named: its
        # file, the method's, those importing the type
        owner = store.symbols([target.parent_id]).get(target.parent_id) if target.parent_id else None
        if owner is None or owner.kind == "module":
            return []
        names[target.file] = (set(), {owner.name, "Self"})
        names.setdefault(owner.file, (set(), set()))[1].update({owner.name, "Self"})
        for e in store.edges_to([owner.id], ("imports",)):
            names.setdefault(e.file, (set(), set()))[1].add(e.alias or owner.name)
    elif method:
        names[target.file] = (set(), {"this"})
    else:
        names[target.file] = ({target.name}, set())
        for e in store.edges_to([target.id], ("imports",)):
            names.setdefault(e.file, (set(), set()))[0].add(e.alias or e.target_name)
        # `import * as fmt from './fmt'`: `fmt.format` (a function of the file's top level)
        module = next((s for s in own if s.kind == "module"), None)
        if target.language in _SCANNED - {"rust"} and module is not None and target.parent_id == module.id:
            for e in store.edges_to([module.id], ("imports",)):
                if e.target_name == "*" and e.alias:
                    names.setdefault(e.file, (set(), set()))[1].add(e.alias)
    # in its own file, where its name means it: a nested function's (or a
    # method's) within its parent (a bundle defines many `addManyMutably`)
    parent = next((s for s in own if s.id == target.parent_id and s.kind != "module"), None)
    out: list[Edge] = []
    for path, (bare, qualifiers) in sorted(names.items()):
        root = trees.root(path)
        source = trees.sources.get(path)
        if root is None or source is None:
            continue
        lines = sorted({n.start_point[0] + 1 for n in _named_as_value(root, source, bare, qualifiers, target.name)})
        if path == target.file and parent is not None and parent.start_line <= target.start_line <= parent.end_line:
            lines = [line for line in lines if parent.start_line <= line <= parent.end_line]
        if not lines:
            continue
        symbols = own if path == target.file else store.symbols_in_file(path)
        symbols = [s for s in symbols if s.id != target.id]
        for line in lines:
            around = [s for s in symbols if s.start_line <= line <= s.end_line]
            source_id = min(around, key=lambda s: s.end_line - s.start_line).id if around else f"{path}:module"
            qualifier = "this" if method and target.language != "rust" else None
            out.append(Edge(source_id, target.name, "calls", path, line, qualifier, VALUE, target.id))
    return out


def _named_as_value(root: ts.Node, source: bytes, bare: set[str], qualifiers: set[str], name: str) -> list[ts.Node]:
    """The nodes that name the function as a value: an identifier (or a JS
    object's shorthand property) with one of the ``bare`` names, or
    ``q.name`` for one of the ``qualifiers`` (``this``, a Go package), not
    a call's callee, not a definition, not an import or export. Found by
    the name's occurrences in the text (a file that imports a function
    mostly calls it: few are read in the tree)."""
    out: list[ts.Node] = []
    if bare:
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(bare))
        for found in re.finditer(rb"(?<![\w$.])(" + alternatives + rb")(?![\w$])", source):
            node = root.descendant_for_byte_range(found.start(1), found.end(1))
            if node is None or (node.start_byte, node.end_byte) != found.span(1):
                continue
            if node.type not in ("identifier", "shorthand_property_identifier"):
                continue
            if node.parent is not None and node.parent.type == "scoped_identifier":  # Rust `parse::number`
                node = node.parent
            if _is_value(node):
                out.append(node)
    if qualifiers:
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(qualifiers))
        pattern = rb"(?<![\w$.])(?:" + alternatives + rb")\s*(?:\.|::)\s*(" + re.escape(name.encode()) + rb")(?![\w$])"
        for found in re.finditer(pattern, source):
            node = root.descendant_for_byte_range(found.start(1), found.end(1))
            if node is None or (node.start_byte, node.end_byte) != found.span(1):
                continue
            parent = node.parent
            if (
                node.type in ("property_identifier", "field_identifier", "identifier")
                and parent is not None
                and parent.type in ("member_expression", "selector_expression", "scoped_identifier")
                and _is_value(parent)
            ):
                out.append(parent)
    return out


def _is_value(node: ts.Node) -> bool:
    parent = node.parent
    if parent is None or parent.type in _NOT_A_VALUE or parent.type.startswith("jsx_"):
        return False
    up: ts.Node | None = parent
    while up is not None and up.type not in _STATEMENTS:
        if up.type in _NOT_INSIDE:
            return False
        up = up.parent
    if parent.type in ("call_expression", "new_expression") and parent.child_by_field_name(
        "function" if parent.type == "call_expression" else "constructor"
    ) == node:
        return False
    # a name being defined (`function format`, `const format = …`, another
    # scope's own `format`), or a parameter's: no use of the function
    return parent.child_by_field_name("name") != node and parent.type not in _PARAMETERS


def check_new_signature(store: Store, symbol: Symbol, signature: str, *, root: Path) -> tuple[SymbolChange, list[CallSite]]:
    """A proposed signature for ``symbol``, before any edit: the verdict the
    report would give the change (breaking, compatible, "") and each direct
    call site, read from the work tree, checked against it."""
    proposed = replace(symbol, signature=signature)
    verdict = languages.signature_verdict(symbol.signature, signature, symbol.language)
    change = SymbolChange("modified", proposed, symbol, bool(verdict), signature_verdict=verdict)
    cs = ChangeSet("proposed signature", "HEAD", "", Side("worktree", None, "working tree"), root=str(root))
    return change, check_call_sites(store, cs, change)


def _check(trees: _Trees, edge: Edge, target: Symbol, old: Symbol | None, overloads: list[Symbol]) -> CallCheck:
    caller_language = languages.for_path(edge.file)
    target_language = languages.get(target.language)
    root = trees.root(edge.file)
    if root is None or caller_language is None or target_language is None:
        return CallCheck(UNKNOWN, "the calling file could not be read")
    calls: list[Call] = [c for c in calls_on_line(root, edge.line, caller_language.read_call) if c.name == edge.target_name]
    if not calls and edge.alias == VALUE:
        return CallCheck(UNKNOWN, "named as a value there (passed, stored, assigned): how it is called is not read")
    if not calls:
        return CallCheck(UNKNOWN, "no call read at that line")
    checks = [_against_both(target_language, target, old, call, overloads) for call in calls]
    verdicts = {c.verdict for c in checks}
    if len(verdicts) == 1:
        return checks[0]
    return CallCheck(UNKNOWN, "several calls of that name on the line")


def _against_both(
    language: languages.Language, target: Symbol, old: Symbol | None, call: Call, overloads: list[Symbol]
) -> CallCheck:
    """The check against the new signature; a call that did not fit the old
    one either is not this change's doing."""
    check = language.check_call(target, old, call, overloads) or CallCheck(UNKNOWN)
    if check.verdict == WILL_BREAK and old is not None:
        before = language.check_call(old, None, call, overloads)
        if before is not None and before.verdict == WILL_BREAK:
            return CallCheck(UNKNOWN, f"did not fit the old signature either ({before.reason})")
    return check
