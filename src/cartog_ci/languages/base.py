"""What one language knows, behind one small interface.

Each supported language is a module of this package that builds one
``Language``: its file extensions, its syntax for the generic extractor
(grammar wheel, tags query, import decoder), its scope rules for the
resolver, how it finds the file an import names, which of its symbols are
tests and how to run them, and what of a signature its callers depend on.
``languages/__init__.py`` registers them all in one dict. The resolver, the
indexer and the report ask the language; none of them branches on a
language's name (docs/architecture.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, Edge, FileExtraction, Symbol
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.parse import extract as tags
from cartog_ci.parse.syntax import Syntax

QUERIES = Path(__file__).resolve().parent / "queries"  # languages/queries/<stem>.scm


T = TypeVar("T")


class Project(Protocol):
    """What module finders read of the project (the resolver's symbol table)."""

    by_id: dict[str, Symbol]
    children: dict[str, dict[str, list[str]]]
    module_of_file: dict[str, str]
    language_of_file: dict[str, str]
    files_by_dir: dict[str, list[str]]
    # The repository root, for finders that read a manifest (go.mod,
    # Cargo.toml); "" when unknown. Finders keep what they derive in caches.
    root: str
    caches: dict[str, object]

    def remember(self, name: str, arg: object) -> object:
        """The value of the node ``name`` (its recipe registered with
        ``node``) for ``arg``, kept for the run, what it read noted again at
        each use (index/resolve.py ``SymbolTable.remember``)."""
        ...

    def reads_file(self, path: str) -> None:
        """What is being computed reads this file of the repository from the
        disk (a manifest: package.json, Cargo.toml; ``path`` relative): it
        depends on it (index/resolve.py ``SymbolTable.reads_file``)."""
        ...

    def derived(self, name: str, compute: Callable[[Project], object]) -> object:
        """A value derived from the whole table and the disk, computed once a
        run (index/resolve.py ``SymbolTable.derived``): register its
        ``compute`` with ``derived_value`` so that an incremental run can
        tell whether it changed."""
        ...


class TypeGraph(Protocol):
    """What an interface's implementations are read from: the stored graph
    (graph.py ``dispatch_edges``), never the resolver's tables: dispatch is
    read off the graph when asked, so an incremental index holds nothing of
    it to keep up to date (docs/languages.md, "Receivers and dispatch")."""

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        """Symbols whose ``name`` or ``qualified_name`` is ``value``."""
        ...

    def symbol(self, symbol_id: str) -> Symbol | None: ...

    def members(self, type_id: str) -> list[Symbol]:
        """The symbols declared inside the type (an interface's methods)."""
        ...

    def bases(self, type_id: str) -> list[str]:
        """The types ``type_id`` inherits or embeds (resolved ``inherits`` edges)."""
        ...

    def subtypes(self, type_id: str) -> list[str]:
        """The symbols with a resolved ``inherits`` edge to ``type_id``."""
        ...


# name -> the recipe of a node: ``recipe(project, arg)``, a function of the
# argument and the project alone (``node``).
NODES: dict[str, Callable[[Project, Any], object]] = {}


def node(name: str) -> Callable[[Callable[[Project, Any], T]], Callable[[Project, Any], T]]:
    """Register a function of (project, argument) as the recipe of the nodes
    ``name``: ``project.remember(name, arg)`` computes each once a run and
    notes what it read, and an incremental run computes one again to tell
    whether it changed (docs/incremental.md, "Recorded dependencies")."""

    def register(recipe: Callable[[Project, Any], T]) -> Callable[[Project, Any], T]:
        NODES[name] = recipe
        return recipe

    return register


# name -> how the value is computed, for every value a language derives
# from the whole project (``derived_value``): an incremental run computes
# those it used before again and compares (index/deps.py).
DERIVED: dict[str, Callable[[Project], object]] = {}


def derived_value(name: str, compute: Callable[[Project], T]) -> Callable[[Project], T]:
    """``project.derived(name, compute)`` as a function of the project, with
    ``compute`` registered under ``name`` (``DERIVED``)."""
    DERIVED[name] = compute

    def get(project: Project) -> T:
        return cast(T, project.derived(name, compute))

    return get


@dataclass(frozen=True)
class ScopeRules:
    """How names are bound in the language: the resolver's questions."""

    # `self.m()` / `this.m()`: the names of a method's own object.
    self_names: tuple[str, ...] = ()
    # Names that are always bound outside the project (builtins, globals):
    # an unqualified call to one is ``external``, never guessed.
    builtins: frozenset[str] = frozenset()
    # Go, Java: every file of a directory shares one namespace (the package).
    package_is_directory: bool = False
    # Regex on a method's signature whose group 1 is its receiver's name
    # (Go: `func (s *Server) Start()` -> `s.x()` is a call on the receiver).
    receiver_pattern: str = ""
    # Java, Ruby: an unqualified call inside a method may name a method of
    # the enclosing type (implicit `this` / `self`); that is tried first.
    implicit_self: bool = False
    # With implicit_self: whether methods of enclosing types (not only of the
    # innermost one) are callable unqualified. Ruby: no, only `self`'s; outer
    # types give constants.
    outer_methods_visible: bool = True
    # Whether `x.m()` on a receiver of unknown type may resolve to the only
    # method `m` of the project. Ruby: no; many methods are never `def`ined
    # (attr_accessor, ActiveRecord columns, method_missing), so the only
    # `def m` is weak evidence (measured: 1 right in 39 on a real codebase).
    unique_methods: bool = True
    # Whether an unqualified name found nowhere in scope may still resolve to
    # a name unique in the project. Go: no, such a name is in the package, a
    # dot import or a builtin, so anything else is a local (closure, parameter).
    unique_fallback: bool = True
    # Whether a name-only guess must pass ``Language.may_guess`` (Rust: in the
    # same package, never a method for a bare name).
    scoped_guesses: bool = False
    # Whether a definition nested in a function is that function's own name
    # (Python): a name-only guess never lands there, from anywhere (from
    # inside the function, its scope found it before any guess).
    nested_are_local: bool = False
    # Rust: a call's qualifier may be a module path (`crate::a::f()`,
    # `super::f()`, `child::f()`), tried through the module finder before any
    # guess; `super` is then the parent module, not a base class.
    qualifier_paths: bool = False
    # Regex over a function's signature matching one parameter: group 1 its
    # name, group 2 its declared type (Go `t *testing.T`, Rust `s: &mut dyn
    # Store`). A call on a parameter is then a call on that type, not a guess.
    parameter_pattern: str = ""
    # Method names of the standard library's everyday types and interfaces
    # (Rust `to_owned`, Go `Error`): `x.name()` with x of unknown type is far
    # more likely one of those than the one project method of that name.
    common_methods: frozenset[str] = frozenset()
    # JS/TS: another file's names are seen only through an import (or as an
    # ambient .d.ts declaration): no same-directory or project-wide guess.
    imports_only: bool = False
    # JS/TS: a module without a named default export has itself as default
    # (CommonJS interop, an anonymous `export default function () {}`).
    default_is_module: bool = False
    # TS declaration merging: `interface Foo` and `const Foo` share a name; a
    # call means the value, a type reference the type.
    merged_declarations: bool = False
    # JS: `export const r = new Registry()`: `r.add()` is `Registry.add`.
    instance_constants: bool = False
    # JS: `this.m()` in `Foo.prototype.f = function () {...}` is `Foo.m`.
    prototype_methods: bool = False
    # Regex over a function's signature whose group 1 is its return
    # annotation (Python `-> Foo`): `x = f(); x.m()` is a method of that type.
    return_pattern: str = ""
    # Regex over a method's signature: it gives an instance of the class it
    # is called on (Python `def make(cls: type[T]) -> T`; an unannotated
    # `from_*` classmethod, the alternate constructor). `Sub.make()` is a Sub.
    returns_own_class: str = ""
    # Names that call the enclosing class (Python `cls(...)` in a classmethod).
    class_self_names: tuple[str, ...] = ()
    # Whether a method of a type may be declared away from it (Go in another
    # file of the package, a Rust `impl` elsewhere, a C++ `Foo::m` out of its
    # class): the resolver then reads those methods once (a scan of every
    # symbol: django 7 ms). Python: no, a method is in its class's body.
    methods_declared_apart: bool = True
    # Languages whose symbols one may guess between (JS and TS import each
    # other); "" is the language alone.
    family: str = ""
    # Whether `f().m()` on a value the extractor could not type may still
    # guess the project's only `m` (dynamic languages: yes; with declared types
    # an unknown type is most often a library's).
    guess_on_expressions: bool = True
    # Whether a later definition of a name in the same scope replaces an
    # earlier one (Python, JS/TS, Ruby: yes; Java: no, overloads coexist).
    last_definition_wins: bool = True
    # Python: a name imported from a package may be one of its modules
    # (`from pkg import sub`), also in a namespace package with no __init__.
    submodule_imports: bool = False
    # Python: an import whose alias repeats its module and its name is `from
    # m import m`, a member of m named like it (tabulate, slugify, tqdm), not
    # `import m` (the decoder writes `import m as m` as `import m`).
    member_import_repeats_alias: bool = False
    # Whether a name an import binds may be a module file of the project
    # (Python `from pkg import sub`, Rust `use crate::a::b`, Java `import
    # a.b.C`): a file appearing or changing then concerns the files importing
    # its name. JS/TS: no, `import { test } from "vitest"` names no file
    # `*.test.ts` (a namespace re-export, `export * as ka from "./ka"`, is an
    # edge naming `ka`, re-resolved by that name).
    imported_names_may_be_modules: bool = True
    # Go, Rust: a method declared at file level (`func (a Afero) ReadFile`,
    # an `impl` away from its type) is reached through its type only: it
    # binds no name of the file or package, so `ReadFile(x)` and
    # `afero.ReadFile(x)` are the function `ReadFile`, never the method.
    methods_bind_names: bool = True
    # Java: a method of an anonymous class declared inside another method
    # sees that method's parameters (`callback.onFailure()` in `new
    # Callback() { ... }`); a Rust `fn` nested in a `fn` does not.
    outer_parameters_visible: bool = False
    # Go: calling a type (`Celsius(x)`, `HandlerFunc(f)`) converts a value:
    # such an edge reaches the type with its own tier, `conversion`.
    calls_of_types_convert: bool = False
    # JS: calls that give a module (`require('./x').f()`): the member is
    # looked up in the module imported on the same line.
    module_calls: tuple[str, ...] = ()


ModuleFinder = Callable[[Project, str, str], list[str]]


def no_modules(project: Project, importer: str, spec: str) -> list[str]:
    return []


# Attributes that make a function a test in any language.
TEST_ATTRIBUTES = ("#[test]", "@Test", "#[tokio::test]", "@ParameterizedTest")
TEST_DIRS = re.compile(r"(^|/)(tests?|spec|specs|__tests__|testing)/")


# What the call-site check reads of a call and answers (report/callsites.py,
# languages/arguments.py).
WILL_BREAK = "will break"
FINE = "fine"
UNKNOWN = ""


@dataclass(frozen=True, slots=True)
class Call:
    """One call expression as written."""

    name: str  # the callee's last name (`m` of `a.b.m(...)`, `Foo` of `new Foo()`)
    qualifier: str  # what stood before it ("" for a bare name)
    line: int  # 1-based line of the callee
    positional: int
    keywords: tuple[str, ...] = ()
    spread: bool = False  # *args / **kw / ...xs / xs...: the count is not known
    receiver: bool = False  # `x.m(...)`: called on an object (or module, or class)
    constructs: bool = False  # `new Foo(...)`: a constructor call


@dataclass(frozen=True, slots=True)
class CallCheck:
    verdict: str  # WILL_BREAK | FINE | UNKNOWN
    reason: str = ""


@dataclass(frozen=True, eq=False)
class Language:
    """One language. Behaviour that differs is a method a module overrides."""

    name: str
    extensions: tuple[str, ...]
    syntax: Syntax
    scope: ScopeRules = field(default_factory=ScopeRules)
    # File names (regex on the path) that hold tests, besides tests/ dirs.
    test_files: str = ""
    # Languages sharing a runner get one command for all their tests (jest
    # runs .js and .ts alike); "" has no runner.
    test_runner: str = ""
    # Whether the language declares interfaces or traits (whose method calls
    # dispatch to implementations: graph.py); Python, Ruby, JavaScript do not.
    interfaces: bool = True
    # Go: a type satisfies an interface by its method set, not by declaring it.
    structural_interfaces: bool = False
    # File stems that stand for their directory as a module (`__init__`,
    # `index`, `mod`): the indexer revisits their importers by the directory.
    package_files: tuple[str, ...] = ()
    # Whether a file of the language may be a minified bundle (GitHub's
    # linguist asks it of JavaScript and CSS): see ``index/files.py``
    # ``minified``.
    minifiable: bool = False
    # Ruby: a method is its qualified name, whichever file defines it (a
    # class reopened, alternative implementations loaded one or the other):
    # a call the graph answered with one definition may reach another
    # (report/build.py ``same_methods``).
    reopened_methods: bool = False

    def extract(
        self,
        path: str,
        source: bytes,
        *,
        timeout_ms: int | None = None,
        edge_kinds: frozenset[str] | None = None,
        code_hashes: tags.CodeHashes = True,
    ) -> FileExtraction:
        """Symbols and edges of one file (module first); only the edges of
        ``edge_kinds`` when given; without ``code_hashes``, symbols whose
        ``code_hash`` is empty (the index stores none)."""
        return tags.extract(
            path, source, self.syntax, timeout_ms=timeout_ms, edge_kinds=edge_kinds, code_hashes=code_hashes
        )

    def compile_queries(self, edge_kinds: frozenset[str] | None = None) -> None:
        """Compile the queries ``extract`` runs for ``edge_kinds`` now, before
        a process pool forks (index/files.py): each worker would compile
        them again."""
        tags.compile_queries(self.syntax, edge_kinds)

    def extract_rows(
        self,
        path: str,
        source: bytes,
        *,
        timeout_ms: int | None = None,
        edge_kinds: frozenset[str] | None = None,
        code_hashes: tags.CodeHashes = True,
    ) -> tuple[FileExtraction, Sequence[tags.EdgeRow]]:
        """``extract``, its edges as rows of ``Edge``'s fields beside an
        extraction without edges: what a parse worker sends (index/files.py),
        with no edge object built only to be taken apart."""
        if type(self).extract is not Language.extract:  # an extractor of its own (Markdown)
            found = self.extract(path, source, timeout_ms=timeout_ms, edge_kinds=edge_kinds, code_hashes=code_hashes)
            return replace(found, edges=()), [_edge_row(e) for e in found.edges]
        return tags.extract_rows(
            path, source, self.syntax, timeout_ms=timeout_ms, edge_kinds=edge_kinds, code_hashes=code_hashes
        )

    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        """The files an import spec names, as written in ``importer``: one
        for a module, several for a package directory, none when the module
        is not the project's (external) or cannot be told apart (ambiguous)."""
        return []

    def owns_module(self, project: Project, importer: str, spec: str) -> bool:
        """Whether ``spec`` names a module of the project even when no file
        holds it (a relative path, a path under the project's own package):
        such an import is broken, not external."""
        return False

    def submodule(self, project: Project, package_file: str, name: str) -> str | None:
        """The module symbol of ``name`` as a module of the package file
        ``package_file`` (Python ``pkg/__init__.py`` exports ``pkg/sub.py``)."""
        return None

    def implementations(self, types: TypeGraph, method: Symbol, interface: Symbol, call: Edge) -> list[str]:
        """The methods ``call``, resolved to ``method`` declared by the
        interface or trait ``interface``, may run: the project's
        implementations (edges of the tier ``dispatch``, a "may call").
        None by default."""
        return []

    def type_parameters(self, signature: str) -> tuple[str, ...]:
        """The names of the type parameters a signature declares, in order
        (renamed by position, they change no call): none told by default."""
        return ()

    def bound_of(self, signature: str, type_parameter: str) -> str | None:
        """The trait or interface a generic type parameter of this signature
        is bounded by (Rust `<T: Store>` / `where T: Store`), if one."""
        return None

    def may_guess(self, project: Project, source: Symbol, candidate: Symbol, *, bare: bool) -> bool:
        """With ``scope.scoped_guesses``: whether a name-only guess from
        ``source`` may land on ``candidate``."""
        return True

    def binds_by_assignment(self, lines: Sequence[str], name: str, indent: int) -> bool:
        """Whether these lines of a scope's body (a class's, or a whole
        module) bind ``name`` by an assignment at the body's level (``indent``
        columns), where the language makes that an attribute of the scope:
        what a removed definition's callers may still reach. No by default."""
        return False

    def returns_member(self, source: bytes, function: Symbol, name: str) -> bool:
        """Whether ``function`` (its head ``source``) returns an object that
        has a member ``name``: what a definition local to it became when
        its callers reached it through the returned value. No by default."""
        return False

    def in_test_file(self, path: str) -> bool:
        return bool(TEST_DIRS.search(path) or (self.test_files and re.search(self.test_files, path)))

    def is_test(self, symbol: Symbol) -> bool:
        """A test function or method, by attribute or by its file."""
        return has_test_attribute(symbol) or symbol.kind in CALLABLE_KINDS and self.in_test_file(symbol.file)

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        """Ready commands that run these tests (all of this language's
        runner), as the project's configuration in ``ws`` says
        (languages/testrunners.py), where the language allows."""
        return []

    def call_shape(self, signature: str) -> str:
        """What callers depend on in a signature: by default all of it."""
        return whole_signature(signature)

    def signature_verdict(self, old: str, new: str, types: Mapping[str, str] | None = None) -> str:
        """``breaking``, ``compatible`` (every call that worked still works),
        or ``""`` when callers see no change. By default any change of what
        callers depend on may break them. ``types``: the named types the
        change's files define, name -> the type it is defined as."""
        return "" if self.call_shape(old) == self.call_shape(new) else "breaking"

    def read_call(self, node: ts.Node) -> Call | None:
        """The call ``node`` is, as the call-site check reads it (its callee's
        name, its arguments), or None: not a call, or a language whose calls
        are not checked."""
        return None

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """Whether ``call`` still binds against ``target``'s (new) signature;
        ``old`` is the signature before the change, ``overloads`` the other
        definitions of the name in the same scope. None: cannot be told."""
        return None


_WS = re.compile(r"\s+")
_OPEN, _CLOSE = "([{<", ")]}>"


def _edge_row(e: Edge) -> tags.EdgeRow:
    return (e.source_id, e.target_name, e.kind, e.file, e.line, e.qualifier, e.alias, e.target_id, e.resolution)


def whole_signature(signature: str) -> str:
    """The signature, white space aside."""
    return _WS.sub("", signature)


def has_test_attribute(symbol: Symbol) -> bool:
    return any(d.startswith(TEST_ATTRIBUTES) for d in symbol.decorators)


def query_text(*stems: str) -> Callable[[], str]:
    """A loader of the query files ``languages/queries/<stem>.scm`` joined
    (shared patterns last: ``javascript`` + ``ecmascript``)."""

    def load() -> str:
        # next to this module (a wheel installs files): importlib.resources
        # would cost ~3 ms of imports on every run that parses
        return "\n".join((QUERIES / f"{stem}.scm").read_text("utf-8") for stem in stems)

    return load


def top_level_split(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def parameters(signature: str, start: int | None = None) -> str | None:
    """The text inside the first balanced parentheses (those opening at
    ``start`` when given), or None."""
    start = signature.find("(") if start is None else start
    return None if start < 0 else balanced(signature, start)


def balanced(text: str, start: int, opening: str = "(", closing: str = ")") -> str | None:
    """The text inside the balanced ``opening``…``closing`` that opens at
    ``start``, or None when it never closes."""
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == opening
        depth -= text[i] == closing
        if depth == 0:
            return text[start + 1 : i]
    return None


def parameter_shape(signature: str) -> str:
    """Parameter names, order, defaults and variadics, annotations left out:
    for dynamic languages, where adding `: int` or `-> str` does not change
    how the function is called."""
    params = parameters(signature)
    if params is None:
        return _WS.sub("", signature)
    shape = []
    for param in top_level_split(params, ","):
        default = len(top_level_split(param, "=")) > 1
        name = top_level_split(top_level_split(param, "=")[0], ":")[0]
        shape.append(_WS.sub(" ", name).strip() + ("=" if default else ""))
    return ",".join(p for p in shape if p)


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # positional | variadic (*args) | keyword (after *) | keywords (**kw)
    default: bool
    annotation: str = ""  # the declared type, white space aside
    positional_only: bool = False  # before Python's `/`: never passed by name


def parameter_list(signature: str) -> list[Parameter] | None:
    """The parameters of a Python/JS-like signature: names, kinds, defaults
    (annotations dropped); None when there is no parameter list."""
    params = parameters(signature)
    return None if params is None else parse_parameters(params)


def parse_parameters(params: str) -> list[Parameter]:
    """The parameters of a Python/JS-like parameter list's text."""
    out: list[Parameter] = []
    keyword_only = False
    for raw in _lambdas_joined(top_level_split(params, ",")):
        has_default = len(top_level_split(raw, "=")) > 1
        declared = top_level_split(top_level_split(raw, "=")[0], ":")
        name = _WS.sub(" ", declared[0]).strip()
        annotation = _WS.sub("", ":".join(declared[1:]))
        name = name.removesuffix("?")  # TypeScript `x?: T`
        optional = has_default or raw.split(":")[0].strip().endswith("?")
        if name == "/":  # what came before is positional-only
            out = [replace(p, positional_only=True) if p.kind == "positional" else p for p in out]
            continue
        if not name:
            continue
        if name == "*":
            keyword_only = True
        elif name.startswith("**"):
            out.append(Parameter(name[2:], "keywords", True))
        elif name.startswith(("*", "...")):
            keyword_only = True
            out.append(Parameter(name.lstrip("*."), "variadic", True))
        else:
            out.append(Parameter(name, "keyword" if keyword_only else "positional", optional, annotation))
    return out


_LAMBDA = re.compile(r"\s*lambda\b")


def _lambdas_joined(pieces: list[str]) -> list[str]:
    """Python's ``cb=lambda a, b: a``: a lambda's own parameters are split
    off at the commas before its colon; joined back into its parameter."""
    out: list[str] = []
    for piece in pieces:
        if out and _open_lambda(out[-1]):
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def _open_lambda(raw: str) -> bool:
    """A parameter whose default is a lambda whose colon is not there yet."""
    value = top_level_split(raw, "=")
    if len(value) < 2:
        return False
    default = "=".join(value[1:])
    return bool(_LAMBDA.match(default)) and len(top_level_split(default, ":")) < 2


def keyword_verdict(old: list[Parameter], new: list[Parameter], *, names_matter: bool) -> str:
    """Whether every call valid against ``old`` is valid against ``new``:
    existing parameters kept in place (by name where calls may use names),
    a parameter gaining a default, new parameters only with a default, or
    new ``*args`` / ``**kwargs``."""
    if old == new:
        return ""
    old_positional = [p for p in old if p.kind == "positional"]
    new_positional = [p for p in new if p.kind == "positional"]
    has_variadic = any(p.kind == "variadic" for p in new)
    for i, before in enumerate(old_positional):
        if i >= len(new_positional):
            return "breaking" if not has_variadic or names_matter else "compatible"
        after = new_positional[i]
        renamed = after.name != before.name and not (before.positional_only and after.positional_only)
        if names_matter and (renamed or after.positional_only and not before.positional_only):
            return "breaking"  # a call that named it no longer binds
        if before.default and not after.default:
            return "breaking"
    if any(not p.default for p in new_positional[len(old_positional) :]):
        return "breaking"  # a new required parameter
    old_keywords = {p.name: p for p in old if p.kind == "keyword"}
    new_keywords = {p.name: p for p in new if p.kind == "keyword"}
    takes_any = any(p.kind == "keywords" for p in new)
    for name, was in old_keywords.items():
        now = new_keywords.get(name)
        if now is None and not takes_any or now is not None and was.default and not now.default:
            return "breaking"
    if any(not p.default for n, p in new_keywords.items() if n not in old_keywords):
        return "breaking"
    for kind in ("variadic", "keywords"):
        if any(p.kind == kind for p in old) and not any(p.kind == kind for p in new):
            return "breaking"
    return "compatible"
