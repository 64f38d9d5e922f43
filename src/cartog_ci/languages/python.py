"""Python: `import a.b`, `from .x import y`, modules by dotted name."""

from __future__ import annotations

import builtins
import posixpath
from collections import defaultdict
from collections.abc import Sequence

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, Symbol
from cartog_ci.languages.base import (
    MAX_TEST_IDS,
    Language,
    Project,
    ScopeRules,
    has_test_attribute,
    parameter_shape,
    query_text,
    shell_quote,
)
from cartog_ci.languages.paths import closest
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax

_MODULES_KEY = "python.modules"


def _grammar() -> ts.Language:
    import tree_sitter_python

    return ts.Language(tree_sitter_python.language())


def decode(node: ts.Node) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    if node.type == "future_import_statement":
        return out
    if node.type == "import_statement":
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = _text(child.child_by_field_name("name"))
                out.append((module, module, _text(child.child_by_field_name("alias")) or None))
            else:
                module = _text(child)
                out.append((module, module, None))
        return out
    module = _text(node.child_by_field_name("module_name")).replace(" ", "")
    if any(c.type == "wildcard_import" for c in node.children):
        return [(module, "*", None)]
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name = _text(child.child_by_field_name("name"))
            out.append((module, name, _text(child.child_by_field_name("alias")) or None))
        else:
            out.append((module, _text(child), None))
    return out


def _modules(project: Project) -> dict[str, list[str]]:
    """Dotted name -> the files that may hold it: ``a/b/c.py`` is ``a.b.c``,
    ``b.c`` and ``c`` (the import root is not known)."""
    cached = project.caches.get(_MODULES_KEY)
    if isinstance(cached, dict):
        return cached
    modules: dict[str, list[str]] = defaultdict(list)
    for path, language in project.language_of_file.items():
        if language != "python":
            continue
        stem = path[:-4] if path.endswith(".pyi") else path[:-3]
        parts = stem.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(len(parts)):
            modules[".".join(parts[i:])].append(path)
    project.caches[_MODULES_KEY] = modules
    return modules


class Python(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        if spec.startswith("."):
            level = len(spec) - len(spec.lstrip("."))
            rest = spec[level:]
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            path = posixpath.join(base, *rest.split(".")) if rest else base
            found = [
                f
                for f in (f"{path}.py", f"{path}/__init__.py", f"{path}.pyi", f"{path}/__init__.pyi")
                if f in project.module_of_file
            ]
            return found[:1]
        # the candidate rooted closest to the importer (src layouts, vendored
        # copies); a tie is ambiguous
        return closest(importer, _modules(project).get(spec, []))

    def submodule(self, project: Project, package_file: str, name: str) -> str | None:
        if not package_file.endswith(("__init__.py", "__init__.pyi")):
            return None
        base = posixpath.dirname(package_file)
        for candidate in (f"{base}/{name}.py", f"{base}/{name}/__init__.py"):
            if candidate in project.module_of_file:
                return project.module_of_file[candidate]
        return None

    def is_test(self, symbol: Symbol) -> bool:
        if has_test_attribute(symbol):
            return True
        return symbol.kind in CALLABLE_KINDS and self.in_test_file(symbol.file) and symbol.name.startswith("test")

    def test_commands(self, tests: Sequence[Symbol]) -> list[str]:
        ids = sorted({f"{t.file}::{t.qualified_name.replace('.', '::')}" for t in tests})
        if len(ids) > MAX_TEST_IDS:  # a readable command: whole files
            ids = sorted({t.file for t in tests})
        return ["pytest " + " ".join(shell_quote(i) for i in ids)] if ids else []

    def call_shape(self, signature: str) -> str:
        return parameter_shape(signature)


PYTHON = Python(
    name="python",
    extensions=(".py", ".pyi"),
    syntax=Syntax(
        name="python",
        load_grammar=_grammar,
        load_query=query_text("python"),
        decode_import=decode,
        wrappers=("decorated_definition",),
        self_names=("self", "cls"),
        docstring_in_body=True,
    ),
    scope=ScopeRules(
        self_names=("self", "cls"),
        builtins=frozenset(dir(builtins)),
        submodule_imports=True,
    ),
    test_files=r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py)$",
    test_runner="pytest",
)
