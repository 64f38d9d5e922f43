"""Doctests as tests to run (docs/coverage.md, "Doctests").

pytest collects a docstring's ``>>>`` examples as one item per documented
object when it runs with ``--doctest-modules``; its node ID is the file and
the object's dotted name from its module (``src/pkg/num.py::pkg.num.ordinal``),
and coverage.py records it as that context. A doctest is not a symbol of the
index: it is named ``path:doctest:pkg.num.ordinal`` (``doctest_id``), placed at
the object it documents, and run by pytest alone, by its node ID
(languages/testrunners.py ``DOCTEST``).

Two sources choose one:

- recorded coverage: the doctest's recorded run executed the changed
  function (report/coverage.py, like any test), and
- the changed function's own docstring, where the project runs doctests: its
  pytest ``addopts`` hold ``--doctest-modules``, or the recording ran a
  doctest of the same module.

Rust: ``cargo test`` runs the code blocks of a library's doc comments
(rustdoc), one test per commented item, named ``src/x.rs - x::Type::item
(line N)``; the doctest of a changed item whose ``///`` comment holds a
block rustdoc runs is a test to run, by a filter on that name
(languages/testrunners.py ``cargo_commands``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.languages.testrunners import DOCTEST, Workspace, collected_by_default, pytest_addopts, rust_library_file

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.domain.results import ChangedSymbol, CoverageUse
    from cartog_ci.store.base import Store

MARK = f":{DOCTEST}:"
# what pytest's doctest finder reaches: module-level functions and classes,
# and the members of classes (not a function defined in a function)
_DOCUMENTED = ("function", "method", "class")
# Rust items whose doc comment rustdoc tests (any item; these are the index's)
_RUST_DOCUMENTED = ("function", "method", "struct", "enum", "trait", "type", "constant", "class", "interface")
# a fenced code block's first line in a doc comment: its fence, its info string
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*?)\s*$")
# the info-string words of a block rustdoc still compiles as Rust (the
# rustdoc book, "Documentation tests"); ``ignore`` is never run, any other
# word names another language, whose block is not compiled
_RUST_WORDS = frozenset({"rust", "should_panic", "no_run", "compile_fail", "standalone_crate", "test_harness", "allow_fail"})
_RUST_WORD = re.compile(r"edition\d{4}|E\d{4}")


def doctest_id(path: str, dotted: str) -> str:
    """The ID of the doctest item ``path::dotted``."""
    return f"{path}{MARK}{dotted}"


def is_doctest_id(test_id: str) -> bool:
    return MARK in test_id


def doctest_symbol(store: Store, test_id: str) -> Symbol | None:
    """A doctest's symbol, at the object it documents (the longest
    qualified name of its file that its dotted name ends with; the module
    for a module docstring's): None when the index no longer has the file."""
    path, _, dotted = test_id.partition(MARK)
    in_file = store.symbols_in_file(path)
    module = next((s for s in in_file if s.kind == "module"), None)
    if module is None:
        return None
    owners = [s for s in in_file if s.kind != "module" and ("." + dotted).endswith("." + s.qualified_name)]
    owner = max(owners, key=lambda s: len(s.qualified_name), default=module)
    name = dotted.rpartition(".")[2]
    line = owner.start_line if owner is not module else 1
    return Symbol(test_id, name, dotted, DOCTEST, path, line, line, 0, 0, owner.id, "", module.language, "", "")


def module_name(ws: Workspace, path: str) -> str:
    """The dotted name pytest imports ``path`` as (its default import
    mode): the file's stem under the packages above it (folders holding an
    ``__init__.py``), ``pkg.num`` for ``src/pkg/num.py``."""
    folder, name = posixpath.split(path)
    stem = posixpath.splitext(name)[0]
    parts = [] if stem == "__init__" else [stem]
    while folder and "__init__.py" in ws.listing(folder):
        folder, package = posixpath.split(folder)
        parts.insert(0, package)
    return ".".join(parts)


def runs_doctests(ws: Workspace, path: str) -> bool:
    """Whether the project's pytest runs the doctests of ``path``'s module:
    ``--doctest-modules`` in the ``addopts`` nearest to it, and ``path``
    among what a plain ``pytest`` collects (its ``testpaths``)."""
    return "--doctest-modules" in pytest_addopts(ws, path) and collected_by_default(ws, path)


def documented_lines(text: str | bytes) -> set[int]:
    """The first lines of the functions and classes of a Python source
    whose docstring holds ``>>>`` examples (the whole docstring: the
    index keeps its first characters only)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and ">>>" in doc:
                out.add(node.decorator_list[0].lineno if node.decorator_list else node.lineno)
                out.add(node.lineno)
    return out


def _rust_block(info: str) -> bool:
    """Whether rustdoc compiles a code block with this info string."""
    for word in filter(None, re.split(r"[\s,]+", info.strip().strip("{}"))):
        if word == "ignore" or word.startswith("ignore-"):
            return False
        if word not in _RUST_WORDS and not _RUST_WORD.fullmatch(word):
            return False
    return True


def rust_doc_tested(lines: Sequence[str], line: int) -> bool:
    """Whether the outer doc comment (``///``) of the Rust item at ``line``
    holds a code block rustdoc tests (``rust_doc_blocks``)."""
    return rust_doc_blocks(lines, line) > 0


def rust_doc_blocks(lines: Sequence[str], line: int) -> int:
    """How many code blocks rustdoc tests in the outer doc comment (``///``)
    of the Rust item at ``line`` (1-based: the item's own line; its
    attributes, comments and blank lines above it are passed over): each is
    a doctest of its own. ``/** */`` comments, ``#[doc = ...]`` and indented
    code blocks are not read."""
    docs: list[str] = []
    at = line - 2
    while at >= 0:
        text = lines[at].strip()
        if text.startswith("///") and not text.startswith("////"):
            docs.append(text[3:])
        elif text and not text.startswith(("//", "#[")):
            break
        at -= 1
    fence, blocks = "", 0
    for text in reversed(docs):
        found = _FENCE.match(text)
        if found is None:
            continue
        if not fence:
            blocks += _rust_block(found.group(2))
            fence = found.group(1)
        elif found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence) and not found.group(2):
            fence = ""
    return blocks


def _rust_doctests(s: Symbol, ws: Workspace, sources: Mapping[str, bytes], lines: dict[str, list[str]]) -> list[Symbol]:
    """The doctests of a Rust item's own doc comment, when ``cargo test``
    runs them: the item is in a library's sources; one per block rustdoc
    compiles (either 1.13.0: `unwrap_left`'s two examples are two doctests,
    `Either<L,R>::unwrap_left (line 811)` and `(line 821)`), the second
    and later with ``#2``… after the first's ID."""
    if s.kind not in _RUST_DOCUMENTED or not rust_library_file(ws, s.file):
        return []
    if s.file not in lines:
        text = sources.get(s.file)
        lines[s.file] = text.decode("utf-8", "replace").splitlines() if text is not None else []
    path = s.qualified_name.replace(".", "::")
    cfg = tuple(d for d in s.decorators if d.startswith("#[cfg("))  # rustdoc sees no item its cfg leaves out
    return [
        Symbol(
            doctest_id(s.file, path) + (f"#{n}" if n > 1 else ""), s.name, path, DOCTEST, s.file, s.start_line,
            s.start_line, 0, 0, s.id, "", s.language, "", "", decorators=cfg,
        )
        for n in range(1, rust_doc_blocks(lines[s.file], s.start_line) + 1)
    ]  # fmt: skip


def own_doctests(
    changed: Sequence[ChangedSymbol], ws: Workspace, sources: Mapping[str, bytes], recorded: Iterable[str] = ()
) -> dict[str, Symbol]:
    """Doctest ID -> the doctest of a changed symbol's own docstring, for the
    changed (modified, renamed, added, or in its documentation only: an
    edited example is what the doctest checks) Python functions, methods and
    classes whose docstring holds ``>>>`` examples in ``sources`` (the head
    side's files), where the project runs doctests (``runs_doctests``, or
    a doctest of the same file among ``recorded``: the test IDs of the
    coverage recorded at the base); and Rust items whose ``///`` comment
    holds a block rustdoc tests, in a library's sources, one per block (``_rust_doctests``)."""
    recorded_files = {t.partition(MARK)[0] for t in recorded if MARK in t}
    documented: dict[str, set[int]] = {}
    rust_lines: dict[str, list[str]] = {}
    runs: dict[str, bool] = {}  # folder -> runs_doctests (its pytest configuration is the folder's)
    out: dict[str, Symbol] = {}
    for item in changed:
        s = item.change.symbol
        if s is not None and s.language == "rust" and item.change.category in ("modified", "renamed", "added", "docs"):
            out.update((t.id, t) for t in _rust_doctests(s, ws, sources, rust_lines))
            continue
        if (
            s is None
            or item.change.category not in ("modified", "renamed", "added", "docs")
            or s.language != "python"
            or s.kind not in _DOCUMENTED
            or ":function:" in (s.parent_id or "")
            or ":method:" in (s.parent_id or "")
        ):
            continue
        folder = posixpath.dirname(s.file)
        if folder not in runs:
            runs[folder] = runs_doctests(ws, s.file)
        if s.file not in recorded_files and not runs[folder]:
            continue
        if s.file not in documented:
            text = sources.get(s.file)
            documented[s.file] = documented_lines(text) if text is not None else set()
        if s.start_line not in documented[s.file]:
            continue
        module = module_name(ws, s.file)
        dotted = f"{module}.{s.qualified_name}" if module else s.qualified_name
        test_id = doctest_id(s.file, dotted)
        out[test_id] = Symbol(test_id, s.name, dotted, DOCTEST, s.file, s.start_line, s.start_line, 0, 0, s.id, "", s.language, "", "")
    return out


def recorded_doctests(store: Store, use: CoverageUse | None, changed: Sequence[ChangedSymbol]) -> set[str]:
    """The doctests the coverage recorded at the base (``use``) ran in the
    Python files of ``changed``, by ID: a project whose recording ran a
    module's doctests runs them (none without a recording)."""
    if use is None:
        return set()
    files = sorted({c.symbol.file for c in changed if c.symbol.language == "python"})
    ids = [s.id for f in files for s in store.symbols_in_file(f) if s.kind in _DOCUMENTED]
    if not ids:
        return set()
    return {t for found in store.recorded_coverage(use.commit, ids).values() for t in found.tests if MARK in t}
