"""Python: `import a.b`, `from .x import y`, modules by dotted name."""

from __future__ import annotations

import builtins
import functools
import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

import tree_sitter as ts

from cartog_ci import config
from cartog_ci.domain import CALLABLE_KINDS, CONSTRUCTOR_NAMES, Symbol
from cartog_ci.errors import CartogError
from cartog_ci.languages.arguments import UNKNOWN, Call, CallCheck, Params, argument_nodes, bind
from cartog_ci.languages.base import (
    Language,
    Parameter,
    Project,
    ScopeRules,
    derived_value,
    has_test_attribute,
    node as node_recipe,
    parameter_list,
    parameter_shape,
    keyword_verdict,
    query_text,
)
from cartog_ci.languages import testrunners
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.languages.grammars import binding
from cartog_ci.languages.paths import closest
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax

_ROOTS_KEY = "python.roots"
_FOUND_KEY = "python.found"
_PACKAGE_FILES = ("__init__.py", "__init__.pyi")
# Decorators that leave a function called as it is defined.
_KEEP_SIGNATURE = frozenset(
    "staticmethod classmethod abstractmethod abc.abstractmethod override typing.override "
    "typing_extensions.override final typing.final cache functools.cache lru_cache "
    "functools.lru_cache wraps functools.wraps contextmanager contextlib.contextmanager "
    "asynccontextmanager contextlib.asynccontextmanager".split()
)


def _grammar() -> ts.Language:
    return ts.Language(binding("tree_sitter_python").language())


def decode(node: ts.Node) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    if node.type == "future_import_statement":
        return out
    if node.type == "import_statement":
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = _text(child.child_by_field_name("name"))
                alias = _text(child.child_by_field_name("alias")) or None
                # `import m as m` is `import m`: an alias repeating both is `from m import m`
                out.append((module, module, None if alias == module else alias))
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
            name = _text(child)
            # `from m import m`: a member named like its module, told apart
            # from `import m` by the alias (ScopeRules.member_import_repeats_alias)
            out.append((module, name, name if name == module else None))
    return out


def _compute_roots(project: Project) -> frozenset[str]:
    """Directories absolute imports are found from, for every importer: the
    repository root, ``src/``, the parent of every top-level package (a
    package whose directory is not itself in a package), and the roots the
    repository declares (``python_roots``; setuptools, hatch, poetry or pdm
    package directories in pyproject.toml / setup.cfg next to Python code)."""
    # repository paths: "/"-separated, relative (rpartition is posixpath.dirname here, 3x faster:
    # django's 2,788 files are split on every run that resolves a Python edge)
    split = [p.rpartition("/") for p, language in project.language_of_file.items() if language == "python"]
    packages = {d for d, _, name in split if name in _PACKAGE_FILES}
    roots = {""} | {up for up in (d.rpartition("/")[0] for d in packages) if up not in packages}
    if any(d == "src" or d.startswith("src/") for d, _, _ in split):
        roots.add("src")
    roots |= declared_roots(project.root, {d for d, _, _ in split})
    return frozenset(roots)


_roots = derived_value(_ROOTS_KEY, _compute_roots)


def declared_roots(repo: str, directories: set[str]) -> set[str]:
    """Roots declared in the repository: the ``python_roots`` setting, and the
    package directories of each pyproject.toml / setup.cfg found in a
    directory of Python code or above it."""
    if not repo:
        return set()
    try:
        roots = {r.strip("/") for r in config.load(Path(repo)).python_roots}
    except CartogError:
        roots = set()  # the command that loaded the configuration said so already
    seen: set[str] = set()
    for directory in directories:
        while directory not in seen:
            seen.add(directory)
            roots |= {posixpath.normpath(posixpath.join(directory, d)).strip(".") for d in _declared(repo, directory)}
            if not directory:
                break
            directory = directory.rpartition("/")[0]
    return {r for r in roots if not r.startswith("..")}


def _declared(repo: str, directory: str) -> set[str]:
    base = os.path.join(repo, directory)
    found: set[str] = set()
    pyproject = os.path.join(base, "pyproject.toml")
    if os.path.isfile(pyproject):
        found |= _pyproject_roots(pyproject)
    setup_cfg = os.path.join(base, "setup.cfg")
    if os.path.isfile(setup_cfg):
        found |= _setup_cfg_roots(setup_cfg)
    return found


# A pyproject.toml / setup.cfg without these words declares no package
# directory: not parsed (nor its parser imported, ~4 ms a run for TOML).
# A pyproject.toml's are the keys ``_pyproject_roots`` reads: setuptools'
# package-dir and packages.find.where, pdm's package-dir, and the packages
# of hatch or poetry, which a table of setuptools' names too (Django's
# ``[tool.setuptools.packages.find]`` with ``include`` alone: tomllib
# imported and the file parsed for no root, 2.8-3.8 ms of CPU in a fresh
# process, 3.6M instructions of a report).
_PYPROJECT_WORDS = (b"package-dir", b"where")
_PYPROJECT_PACKAGES = (b"hatch", b"poetry")
_SETUP_CFG_WORDS = (b"package_dir", b"where")


def _pyproject_roots(path: str) -> set[str]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return set()
    if not any(word in raw for word in _PYPROJECT_WORDS) and not (
        b"packages" in raw and any(word in raw for word in _PYPROJECT_PACKAGES)
    ):
        return set()
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    found: set[str] = set()
    setuptools = tool.get("setuptools", {}) if isinstance(tool.get("setuptools"), dict) else {}
    package_dir = setuptools.get("package-dir", {})
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        found.add(package_dir[""])
    where = _dig(setuptools, "packages", "find", "where")
    found |= {w for w in (where if isinstance(where, list) else []) if isinstance(w, str)}
    hatch = _dig(tool, "hatch", "build", "targets", "wheel", "packages")
    found |= {posixpath.dirname(p) for p in (hatch if isinstance(hatch, list) else []) if isinstance(p, str)}
    poetry = _dig(tool, "poetry", "packages")
    for entry in poetry if isinstance(poetry, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("from"), str):
            found.add(entry["from"])
    pdm = _dig(tool, "pdm", "build", "package-dir")
    if isinstance(pdm, str):
        found.add(pdm)
    return found


def _setup_cfg_roots(path: str) -> set[str]:
    try:
        with open(path, "rb") as fh:
            if not any(word in fh.read() for word in _SETUP_CFG_WORDS):
                return set()
    except OSError:
        return set()
    import configparser

    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return set()
    found: set[str] = set()
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        key, _, value = line.partition("=")
        if value and not key.strip():
            found.add(value.strip())
    where = parser.get("options.packages.find", "where", fallback="").strip()
    if where:
        found.add(where)
    return found


def _dig(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _module_at(project: Project, directory: str, spec: str) -> str | None:
    relative = spec.replace(".", "/")
    path = f"{directory}/{relative}" if directory else relative
    for candidate in (f"{path}.py", f"{path}/__init__.py", f"{path}.pyi", f"{path}/__init__.pyi"):
        if candidate in project.module_of_file:
            return candidate
    return None


def _from_roots(project: Project, spec: str) -> tuple[str, ...]:
    """The files ``spec`` names under the import roots (asked once per spec)."""
    return cast(tuple[str, ...], project.remember(_FOUND_KEY, spec))


@node_recipe(_FOUND_KEY)
def _found(project: Project, spec: str) -> tuple[str, ...]:
    return tuple(m for m in (_module_at(project, r, spec) for r in sorted(_roots(project))) if m)


# A method that gives an instance of the class it is called on: the first
# parameter's type (`cls: Type[T]`, `self: T`) is the type it returns (a
# TypeVar: scrapy's `Scheduler.from_crawler(cls: Type[SchedulerTV], ...) ->
# SchedulerTV`); or a classmethod `from_*` with no return annotation (the
# alternate constructor: `return cls(...)`, scrapy's `from_crawler`,
# `from_settings`).
_RETURNS_OWN_CLASS = (
    r"^(?:async\s+)?def\s+\w+\s*\(\s*(?:cls|self)\s*:\s*(?:(?:typing\.)?[Tt]ype\s*\[\s*)?(\w+)\s*\]?\s*(?:,.*)?"
    r"\)\s*->\s*\1$"
    r"|^(?:async\s+)?def\s+from_\w+\s*\(\s*cls\s*[,)](?!.*->)"
)
# The names `value_items` leaves out, as the value patterns of
# queries/python.scm do: a class (capitalized), a dunder, a common builtin;
# of `a.b`, a capitalized or dunder attribute.
# (bytes patterns: read on the node's bytes, nothing decoded per item)
_NOT_A_VALUE = re.compile(rb"_*[A-Z]|__|(str|int|float|bool|bytes|dict|list|tuple|set|object|type|len|super|self|cls)$")
_NOT_AN_ATTRIBUTE_VALUE = re.compile(rb"[.](_*[A-Z][^.]*|__[^.]*)$")
# a module whose tests a runner collects (Python.is_test)
_TEST_MODULE = re.compile(r"(^|/)(test[^/]*|[^/]*_tests?)\.py$")


@functools.lru_cache(maxsize=4096)
def _in_test_module(path: str) -> bool:
    """``_TEST_MODULE`` searched once a path: each symbol of a test file
    asks it (a warm Django 5.1 -> 5.1.4 HEAD~10 report: 7,587 searches)."""
    return _TEST_MODULE.search(path) is not None


# Containers whose plain names are values; of `and`/`or` and comparisons,
# only `a.b` (a property read) is.
_HOLDS_NAMES = frozenset({"argument_list", "list", "tuple", "set"})


# A module-level constant's name (queries/python.scm before: `#match?`, a
# search of the text decoded as UTF-8)
_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def module_constants(root: ts.Node) -> list[tuple[str, ts.Node, ts.Node]]:
    """The module-level constants: an UPPER_CASE name assigned by a
    statement of the module itself (``A = 1``, ``A: int = 1``; not the
    inner names of ``A = B = 1``, not under an ERROR node)."""
    if root.type != "module":
        return []
    out = []
    for statement in root.named_children:
        if statement.type != "expression_statement":
            continue
        for node in statement.named_children:
            if node.type != "assignment":
                continue
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and _CONSTANT.search(_text(left)):
                out.append(("constant", node, left))
    return out


# Parameters that are no local name of their function (queries/python.scm
# before: `#not-match?` on the text)
_RECEIVERS = ("self", "cls")  # an identifier's text holds no newline: `^(self|cls)$` is equality
# A parameter's node -> how its name is reached: a field, or (None) every
# identifier child
_PARAMETER_NAMES = {
    "default_parameter": "name",
    "typed_default_parameter": "name",
    "typed_parameter": None,
    "list_splat_pattern": None,
    "dictionary_splat_pattern": None,
}


def parameter_names(node: ts.Node) -> list[ts.Node]:
    """A function definition's parameters (its own names, ``@local.definition``):
    a plain name, the name of `a=1`, `a: int`, `a: int = 1`, `*a`, `**a` (not
    of `*a: int`), but `self` and `cls`. (Read by kind and field ID: no type
    name built per parameter, a definition a call, 8,257 on celery 5.4.0.)"""
    functions, identifier, fields, parameters_field = _parameter_kinds()
    if node.kind_id not in functions:
        return []
    parameters = node.child_by_field_id(parameters_field)
    if parameters is None:
        return []
    out = []
    for item in parameters.named_children:
        kind = item.kind_id
        if kind in identifier:
            names: Sequence[ts.Node] = (item,)
        elif kind not in fields:
            continue
        elif (field := fields[kind]) is not None:
            name = item.child_by_field_id(field)
            if name is None or name.kind_id not in identifier:
                continue
            names = (name,)
        else:
            names = [c for c in item.named_children if c.kind_id in identifier]
        for name in names:
            # `self` and `cls` are 4 and 3 bytes: a name of another length is not read
            if name.end_byte - name.start_byte not in (3, 4) or _text(name) not in _RECEIVERS:
                out.append(name)
    return out


def _kind_ids(*names: str) -> frozenset[int]:
    """The kind IDs of these named node types in Python's grammar (every
    named kind of each name: ``kind_id`` in them is ``is_named`` and
    ``type`` in ``names``)."""
    grammar = PYTHON.syntax.grammar
    return frozenset(
        i for i in range(grammar.node_kind_count)
        if grammar.node_kind_is_named(i) and grammar.node_kind_for_id(i) in names
    )  # fmt: skip


@functools.cache
def _parameter_kinds() -> tuple[frozenset[int], frozenset[int], dict[int, int | None], int]:
    """For ``parameter_names``: the kind IDs of `function_definition` and of
    `identifier`, each ``_PARAMETER_NAMES`` kind's ID -> its name's field
    ID (None: every identifier child), and the field ID of `parameters`."""
    grammar = PYTHON.syntax.grammar
    fields: dict[int, int | None] = {}
    for kind, field in _PARAMETER_NAMES.items():
        field_id = grammar.field_id_for_name(field) if field is not None else None
        if field is not None and field_id is None:
            raise ValueError(f"no field {field!r} in Python's grammar")
        fields.update(dict.fromkeys(_kind_ids(kind), field_id))
    parameters = grammar.field_id_for_name("parameters")
    if parameters is None:
        raise ValueError("no field 'parameters' in Python's grammar")
    return _kind_ids("function_definition"), _kind_ids("identifier"), fields, parameters


def value_items(container: ts.Node, source: bytes) -> list[ts.Node]:
    """The items of a container (a `@values` capture of queries/python.scm)
    that are functions or properties named as values: ``f`` and ``self.m``
    in ``g(f, self.m)``, ``[f, g]``; ``self.ready`` in ``self.ready and x``.
    (Read by kind ID and on ``source``'s bytes: no type name or text is
    built per item, 17k containers for 103 files of celery; of `and`/`or`
    and comparisons, only the attributes are looked at.)"""
    if not container.named_child_count:  # `f()`: 15 % of scrapy 2.11.0's argument lists
        return []
    attribute, identifier, holds_names = _value_kinds()
    out = []
    if container.kind_id in holds_names:
        for item in container.named_children:
            kind = item.kind_id
            if kind in identifier:
                if not _NOT_A_VALUE.match(source, item.start_byte, item.end_byte):
                    out.append(item)
            elif kind in attribute and not _NOT_AN_ATTRIBUTE_VALUE.search(source, item.start_byte, item.end_byte):
                out.append(item)
    else:  # `and`/`or`, a comparison: `a.b` alone
        for item in container.named_children:
            if item.kind_id in attribute and not _NOT_AN_ATTRIBUTE_VALUE.search(source, item.start_byte, item.end_byte):
                out.append(item)
    return out


@functools.cache
def _value_kinds() -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """The kind IDs of `attribute`, of `identifier` and of ``_HOLDS_NAMES``
    in Python's grammar (every named kind of each name)."""
    return _kind_ids("attribute"), _kind_ids("identifier"), _kind_ids(*_HOLDS_NAMES)


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
        # from an import root, never "a file whose path ends like it": a
        # stdlib or third-party name the project does not hold is external;
        # a script's own directory (no __init__.py) is a root for it alone
        here = posixpath.dirname(importer)
        found = list(_from_roots(project, spec))
        if f"{here}/__init__.py" not in project.module_of_file and here not in _roots(project):
            own = _module_at(project, here, spec)
            found += [own] if own is not None and own not in found else []
        # the candidate rooted closest to the importer (a vendored copy); a tie is ambiguous
        return closest(importer, found)

    def owns_module(self, project: Project, importer: str, spec: str) -> bool:
        if spec.startswith("."):
            return True
        head = spec.split(".", 1)[0]
        # the top-level package is the project's: a missing submodule is ours too
        return "." in spec and any(_module_at(project, root, head) for root in _roots(project))

    def submodule(self, project: Project, package_file: str, name: str) -> str | None:
        if not package_file.endswith(("__init__.py", "__init__.pyi")):
            return None
        base = posixpath.dirname(package_file)
        for candidate in (f"{base}/{name}.py", f"{base}/{name}/__init__.py"):
            if candidate in project.module_of_file:
                return project.module_of_file[candidate]
        return None

    def binds_by_assignment(self, lines: Sequence[str], name: str, indent: int) -> bool:
        """`name = …` (or `name: T = …`) at the body's level: a class
        attribute or a module global (pyparsing 3.1.2 replaced `def
        setParseAction(self): ...` by `setParseAction = replaced_by_pep8(…)`)."""
        assigned = re.compile(rf"[ \t]{{{indent}}}{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)")
        return any(assigned.match(line) for line in lines)

    def is_test(self, symbol: Symbol) -> bool:
        """A ``test…`` function or method of a module the runners collect:
        pytest's ``test_*.py`` / ``*_test.py``, unittest's and Django's
        ``test*.py``, and ``*_tests.py``. A helper module beside the tests is
        test code, not a test to run (attrs' ``tests/typing_example.py``
        holds ``def test(cls)``, which pytest would fail on: no fixture
        ``cls``)."""
        if symbol.decorators and has_test_attribute(symbol):
            return True
        return symbol.kind in CALLABLE_KINDS and symbol.name.startswith("test") and _in_test_module(symbol.file)

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.python_commands(tests, ws, self.is_test)

    def call_shape(self, signature: str) -> str:
        return parameter_shape(signature)

    def read_call(self, node: ts.Node) -> Call | None:
        if node.type != "call":
            return None
        callee = node.child_by_field_name("function")
        if callee is None or callee.type not in ("identifier", "attribute"):
            return None
        name = callee if callee.type == "identifier" else callee.child_by_field_name("attribute")
        qualifier = "" if callee.type == "identifier" else _text(callee.child_by_field_name("object"))
        arguments = node.child_by_field_name("arguments")
        positional, keywords, spread = 0, [], False
        if arguments is not None and arguments.type == "generator_expression":
            positional = 1  # f(x for x in xs)
        for argument in argument_nodes(arguments) if arguments is not None and arguments.type == "argument_list" else []:
            if argument.type == "keyword_argument":
                keywords.append(_text(argument.child_by_field_name("name")))
            elif argument.type in ("list_splat", "dictionary_splat"):
                spread = True
            else:
                positional += 1
        line = callee.start_point[0] + 1
        return Call(_text(name), qualifier, line, positional, tuple(keywords), spread, receiver=bool(qualifier))

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """Python's own binding rules at run time (annotations are not
        checked). A decorator other than those that keep the signature may
        change how the function is called: not told."""
        if target.kind not in CALLABLE_KINDS:
            return None
        decorators = {d.lstrip("@").split("(", 1)[0].strip() for d in target.decorators}
        if decorators - _KEEP_SIGNATURE:
            return CallCheck(UNKNOWN, "a decorator may change how it is called")
        params = parameter_list(target.signature)
        if params is None:
            return None
        owner = target.qualified_name.rpartition(".")[0].rpartition(".")[2]
        through = call.qualifier.rpartition(".")[2]  # what the method is looked up on
        if target.kind != "method" or "staticmethod" in decorators:
            bound = False
        elif "classmethod" in decorators or call.name != target.name:
            bound = True  # cls is filled; `Foo(...)` calls __init__ on a new object
        elif through == owner:
            bound = False  # `Base.__init__(self, ...)`, `Foo.save(obj)`: the object is passed
        elif through[:1].isupper() and through.isidentifier():
            return CallCheck(UNKNOWN, "called through a class: the object may be passed explicitly")
        else:
            bound = True
        if bound:
            if not params or params[0].kind != "positional":
                return None
            params = params[1:]
        return bind(
            Params(
                positional=tuple(p for p in params if p.kind == "positional"),
                keyword_only=tuple(p for p in params if p.kind == "keyword"),
                variadic=any(p.kind == "variadic" for p in params),
                any_keywords=any(p.kind == "keywords" for p in params),
            ),
            call,
        )

    def signature_verdict(self, old: str, new: str, types: Mapping[str, str] | None = None) -> str:
        if self.call_shape(old) == self.call_shape(new):
            return ""
        before, after = parameter_list(old), parameter_list(new)
        if before is None or after is None:
            return "breaking"
        return keyword_verdict(_dunder_positional(before), _dunder_positional(after), names_matter=True)


def _dunder_positional(params: list[Parameter]) -> list[Parameter]:
    """PEP 484's positional-only parameters before PEP 570's ``/``: the
    leading ones named ``__x`` (not ``__x__``), which type checkers refuse by
    name (flask 3.0.3: ``decorator(__ctx, *args, **kwargs)`` became
    ``decorator(ctx, /, *args, **kwargs)``, which the report called breaking)."""
    out = list(params)
    for i, p in enumerate(out):
        if p.kind != "positional" or not p.name.startswith("__") or p.name.endswith("__"):
            break
        out[i] = replace(p, positional_only=True)
    return out


PYTHON = Python(
    name="python",
    package_files=("__init__",),
    interfaces=False,
    extensions=(".py", ".pyi"),
    syntax=Syntax(
        name="python",
        load_grammar=_grammar,
        load_query=query_text("python"),
        decode_import=decode,
        wrappers=("decorated_definition",),
        self_names=("self", "cls"),
        docstring_in_body=True,
        value_items=value_items,
        module_definitions=module_constants,
        definition_locals=parameter_names,
        overload_decorator="overload",
        assignments_shadow=True,
    ),
    scope=ScopeRules(
        self_names=("self", "cls"),
        class_self_names=("cls",),
        return_pattern=r"\)\s*->\s*(.+?)\s*$",
        returns_own_class=_RETURNS_OWN_CLASS,
        builtins=frozenset(dir(builtins)),
        submodule_imports=True,
        member_import_repeats_alias=True,
        methods_declared_apart=False,
        nested_are_local=True,
    ),
    # tests.py: Django's and many unittest projects' test module
    test_files=r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|tests\.py|conftest\.py)$",
    test_runner="pytest",
)
