"""Go: packages are directories, imports are module paths (go.mod).

Go import declarations -> (import path, name, alias) triples.

A Go import binds a package, never a member, so every triple imports "the
module itself" (``name == module``) except dot imports:

- ``import "example.com/p/util"``  -> (path, path, "util")  the local name is
  the package name, guessed from the path (see ``package_name``);
- ``import u "example.com/p/util"`` -> (path, path, "u");
- ``import . "example.com/p/util"`` -> (path, "*", None)   names used bare;
- ``import _ "embed"``             -> (path, path, "_")   side effects only.

The alias is always set: the resolver's default for a module import without
alias splits a dotted Python name, which would be wrong for a Go path.

Go import path -> the files of the package directory it names.

A Go package is a directory. An import path is in the project when it starts
with the module path of a ``go.mod`` in the repository; the rest of the path
is the directory below that ``go.mod``. Paths under no project module are
the standard library or other modules: external (``vendor/`` copies count as
the project). Without any ``go.mod`` (GOPATH layouts, partial checkouts) the
longest directory that is a suffix of the path is taken, except for standard
library paths (``net/http`` is never the project's ``http/``).

The files come back in a stable order: the file named after the directory
first (``util/util.go``), then the others, tests last; the resolver takes the
first as "the package" for an import edge and searches all of them for
names (``package_is_directory``).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping, Sequence

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, TYPE_KINDS, Edge, Symbol
from cartog_ci.languages.arguments import (
    UNKNOWN,
    Call,
    CallCheck,
    Params,
    argument_nodes,
    bind,
    parameters_after,
    types_changed,
)
from cartog_ci.languages import testrunners
from cartog_ci.languages.base import (
    Language,
    Parameter,
    Project,
    ScopeRules,
    TypeGraph,
    derived_value,
    parameters,
    query_text,
    top_level_split,
    whole_signature,
)
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax

_MAJOR_VERSION = re.compile(r"v\d+")


def package_name(path: str) -> str:
    """The package name a path conventionally declares: its last element,
    skipping a major-version element (``.../v2``) and version or ``go-``
    decorations (``gopkg.in/yaml.v3`` -> ``yaml``, ``go-sqlite3`` ->
    ``sqlite3``). A guess: the package clause is authoritative, but Go code
    that departs from the convention imports such packages with an alias."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and _MAJOR_VERSION.fullmatch(parts[-1]):
        parts.pop()
    name = parts[-1] if parts else path
    name = re.sub(r"\.v\d+$", "", name)
    name = re.sub(r"^go-|[-.]go$", "", name)
    return name



def _spec(node: ts.Node) -> ImportTriple | None:
    path = _text(node.child_by_field_name("path")).strip('"`')
    if not path:
        return None
    name = node.child_by_field_name("name")
    if name is None:
        return (path, path, package_name(path))
    if name.type == "dot":
        return (path, "*", None)
    return (path, path, _text(name))


def decode(node: ts.Node) -> list[ImportTriple]:
    out: list[ImportTriple] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "import_spec":
            triple = _spec(current)
            if triple is not None:
                out.append(triple)
            continue
        stack.extend(reversed(current.named_children))
    return out


_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_CACHE_KEY = "go.modules"
# First elements of standard library import paths (go/src, Go 1.23).
_STDLIB_ROOTS = frozenset(
    "C archive bufio builtin bytes cmp compress container context crypto database debug "
    "embed encoding errors expvar flag fmt go hash html image index io iter log maps math "
    "mime net os path plugin reflect regexp runtime slices sort strconv strings structs "
    "sync syscall testing text time unicode unique unsafe weak".split()
)


def find_module(table: Project, importer: str, spec: str) -> list[str]:
    modules = _modules(table)
    for module_path, module_dir in modules:
        if spec == module_path or spec.startswith(module_path + "/"):
            rest = spec[len(module_path) :].strip("/")
            return _package(table, posixpath.join(module_dir, rest) if rest else module_dir)
    vendored = _vendored(table, importer, spec)
    if vendored or modules:
        return vendored
    if spec.split("/", 1)[0] in _STDLIB_ROOTS:
        return []  # `net/http` is never the project's `http/` directory
    return _by_suffix(table, spec)


def _compute_modules(table: Project) -> list[tuple[str, str]]:
    """(module path, directory) of every go.mod above a Go file, longest
    module path first (nested modules win)."""
    found: dict[str, str] = {}
    if table.root:
        seen: set[str] = set()
        for directory in _dirs(table):
            while directory not in seen:
                seen.add(directory)
                module = _read_module(os.path.join(table.root, directory, "go.mod"))
                if module:
                    found.setdefault(module, directory)
                if not directory:
                    break
                directory = posixpath.dirname(directory)
    return sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))


_modules = derived_value(_CACHE_KEY, _compute_modules)


def _read_module(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            match = _MODULE_LINE.search(fh.read(65536))
    except OSError:
        return ""
    return match.group(1).decode("utf-8", "replace") if match else ""


def _dirs(table: Project) -> set[str]:
    return {
        directory
        for directory, files in table.files_by_dir.items()
        if any(table.language_of_file.get(f) == "go" for f in files)
    }


def _package(table: Project, directory: str) -> list[str]:
    directory = posixpath.normpath(directory) if directory else ""
    directory = "" if directory == "." else directory
    files = [f for f in table.files_by_dir.get(directory, []) if table.language_of_file.get(f) == "go"]
    stem = posixpath.basename(directory)

    def order(path: str) -> tuple[bool, bool, str]:
        name = posixpath.basename(path)
        return (name.endswith("_test.go"), name != f"{stem}.go", name)

    return sorted(files, key=order)


def _vendored(table: Project, importer: str, spec: str) -> list[str]:
    directory = posixpath.dirname(importer)
    while True:
        files = _package(table, posixpath.join(directory, "vendor", spec))
        if files:
            return files
        if not directory:
            return []
        directory = posixpath.dirname(directory)


def _by_suffix(table: Project, spec: str) -> list[str]:
    candidates = [d for d in _dirs(table) if d and (spec == d or spec.endswith("/" + d))]
    if not candidates:
        return []
    longest = max(len(d) for d in candidates)
    best = [d for d in candidates if len(d) == longest]
    return _package(table, best[0]) if len(best) == 1 else []


# Predeclared Go identifiers that are called or used as types.
GO_BUILTINS = frozenset(
    "append cap clear close complex copy delete imag len make max min new panic print "
    "println real recover any bool byte comparable complex64 complex128 error float32 "
    "float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 "
    "uintptr".split()
)

# Methods of Go's standard interfaces and testing/sync/io types.
GO_COMMON_METHODS = frozenset(
    "Error String Write WriteString WriteByte Read ReadByte Close Lock Unlock RLock RUnlock "
    "Done Err Value Deadline Wait Add Len Less Swap Unwrap Is As ServeHTTP Run Fatal Fatalf "
    "Errorf Log Logf Helper Cleanup Skip Skipf Parallel FailNow Fail Print Printf Println "
    "Sprintf Fprintf Header WriteHeader Bytes Reset Load Store Encode Decode Next Scan Seek "
    "Flush Sum Format Context WithContext".split()
)


def implementations(types: TypeGraph, method: Symbol, interface: Symbol) -> list[str]:
    """The methods ``x.M()`` may run, ``x`` of the interface type that
    declares ``M`` (``method``): the ``M`` of each type of the project whose
    method set holds every method of the interface (those it embeds too),
    promoted ones included (`type Cube struct{ Square }` runs `Square.Area`).

    The method set is that of the pointer type ``*T``, which holds the
    methods of both receivers and of every embedded field: a value of ``T``
    satisfies the interface only if its value methods do, but then so does
    ``&T{}``, and which of the two flows to the call is beyond a static
    reading (a class hierarchy analysis, not a points-to one). A type that
    gets ``M`` from an embedded interface is no implementation: what runs is
    its field's value."""
    required = _interface_methods(types, interface.id, set())
    # an unexported method is satisfied only inside the interface's package
    private = any(name[:1].islower() for name in required)
    generic = _GENERIC.search(interface.signature) is not None  # `Store[T]`: `T` is any type
    found: set[str] = set()
    for candidate in _candidate_types(types, method.name):
        if private and posixpath.dirname(candidate.file) != posixpath.dirname(interface.file):
            continue
        chosen = _method_of(types, candidate, method.name)
        if chosen is None or not _concrete(types, chosen):
            continue
        if all(
            (own := _method_of(types, candidate, name)) is not None and (generic or _same_signature(declared, own))
            for name, declared in required.items()
        ):
            found.add(chosen.id)
    return sorted(found)


def _interface_methods(types: TypeGraph, interface_id: str, seen: set[str]) -> dict[str, Symbol]:
    """Name -> declaration of each method of the interface and of those it embeds."""
    if interface_id in seen:
        return {}
    seen.add(interface_id)
    methods = {s.name: s for s in types.members(interface_id) if s.kind == "method"}
    for base in types.bases(interface_id):
        for name, declared in _interface_methods(types, base, seen).items():
            methods.setdefault(name, declared)
    return methods


# `type Store[T any] interface`: a generic interface's methods use its type parameters
_GENERIC = re.compile(r"^type\s+\w+\s*\[")
# `http.File` -> `File`: a type named from another package
_QUALIFIED = re.compile(r"\b[A-Za-z_]\w*\.([A-Za-z_]\w*)")


def _same_signature(declared: Symbol, method: Symbol) -> bool:
    """Whether a method has the parameter and result types an interface
    declares (afero: `HttpFs.Open` gives an `http.File`, so `HttpFs` is no
    `Fs` whose `Open` gives a `File`). In one package the types are compared
    as written; across packages a type the implementation names through its
    package (`fs.File`) is the interface's `File`. A list that cannot be read
    is no evidence against."""
    before = _signature_types(declared.signature, declared.name)
    after = _signature_types(method.signature, method.name)
    if before is None or after is None:
        return True
    if posixpath.dirname(declared.file) != posixpath.dirname(method.file):
        before, after = [_QUALIFIED.sub(r"\1", t) for t in before], [_QUALIFIED.sub(r"\1", t) for t in after]
    return before == after


def _signature_types(signature: str, name: str) -> list[str] | None:
    """The parameter types, then ``->``, then the result types (squashed),
    of a Go method's signature; None when either list cannot be read."""
    params = go_parameter_types(signature, name)
    text = parameters_after(signature, name)
    if params is None or text is None:
        return None
    at = signature.find(f"({text})", signature.find(name))
    if at < 0:
        return None
    rest = signature[at + len(text) + 2 :].strip()
    if rest.startswith("("):
        inner = parameters(rest, 0)
        results = _list_types(inner) if inner is not None else None
    else:
        results = [rest] if rest else []
    if results is None:
        return None
    return [_squash(t) for t in params] + ["->"] + [_squash(t) for t in results]


def _candidate_types(types: TypeGraph, name: str) -> list[Symbol]:
    """The types declaring a method ``name`` (not interfaces), and those
    embedding them, at any depth."""
    owners: dict[str, Symbol] = {}
    for method in types.symbols_by("name", name):
        if method.kind != "method" or method.language != "go" or "." not in method.qualified_name:
            continue
        owner = method.qualified_name.rpartition(".")[0]
        for t in types.symbols_by("qualified_name", owner):
            same_package = posixpath.dirname(t.file) == posixpath.dirname(method.file)
            if t.kind in TYPE_KINDS and t.kind != "interface" and same_package:
                owners[t.id] = t
    frontier = list(owners.values())
    while frontier:
        current = frontier.pop()
        for sub in types.subtypes(current.id):
            found = types.symbol(sub)
            if found is not None and found.id not in owners and found.kind in TYPE_KINDS and found.kind != "interface":
                owners[found.id] = found
                frontier.append(found)
    return sorted(owners.values(), key=lambda t: t.id)


def _method_of(types: TypeGraph, owner: Symbol, name: str) -> Symbol | None:
    """The method ``name`` of ``owner``'s method set: its own (declared in
    its package), else the one promoted from the shallowest embedded field;
    two at the same depth are ambiguous (a Go compile error): none."""
    level, seen = [owner], set()
    while level:
        hits: dict[str, Symbol] = {}
        deeper: list[Symbol] = []
        for current in level:
            if current.id in seen:
                continue
            seen.add(current.id)
            own = [
                s
                for s in types.symbols_by("qualified_name", f"{current.qualified_name}.{name}")
                if s.kind == "method" and posixpath.dirname(s.file) == posixpath.dirname(current.file)
            ]
            if own:
                hits[own[0].id] = own[0]
                continue
            deeper += [b for b in map(types.symbol, types.bases(current.id)) if b is not None]
        if hits:
            return next(iter(hits.values())) if len(hits) == 1 else None
        level = deeper
    return None


def _concrete(types: TypeGraph, method: Symbol) -> bool:
    parent = types.symbol(method.parent_id) if method.parent_id else None
    return parent is None or parent.kind != "interface"


_GO_TEST_FUNCTION = re.compile(r"^(Test|Benchmark|Example|Fuzz)([^a-z]|$)")


class Go(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        return find_module(project, importer, spec)

    def owns_module(self, project: Project, importer: str, spec: str) -> bool:
        return any(spec == path or spec.startswith(path + "/") for path, _ in _modules(project))

    def implementations(self, types: TypeGraph, method: Symbol, interface: Symbol, call: Edge) -> list[str]:
        return implementations(types, method, interface)

    def is_test(self, symbol: Symbol) -> bool:
        if symbol.kind not in ("function", "method"):
            return super().is_test(symbol)
        # TestXxx, BenchmarkXxx, ExampleXxx (Xxx not lowercase: `Testify` is no
        # test); TestMain runs the package's tests, -run selects it as none
        return symbol.file.endswith("_test.go") and bool(_GO_TEST_FUNCTION.match(symbol.name)) and symbol.name != "TestMain"

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.go_commands(tests, ws)


    def call_shape(self, signature: str) -> str:
        """What callers depend on: the receiver's type, the name and type
        parameters, the parameters' and results' types in order; not their
        names (Go passes arguments by position: `func F(a int)` -> `func
        F(b int)` breaks no caller, and was called breaking)."""
        found = _FUNC_NAME.match(signature)
        text = parameters_after(signature, found.group(1)) if found is not None else None
        types = _list_types(text) if text is not None else None
        at = signature.find(f"({text})", found.end()) if found is not None and text is not None else -1
        if found is None or text is None or types is None or at < 0:
            return whole_signature(signature)
        receiver = _RECEIVER.match(signature)
        owner = _list_types(receiver.group(1)) if receiver is not None else []
        rest = signature[at + len(text) + 2 :].strip()
        if rest.startswith("(") and rest.endswith(")"):  # results, named or not
            results = _list_types(rest[1:-1])
            rest = "(" + ",".join(results) + ")" if results is not None else rest
        head = signature[found.start(1) : at]  # the name, the type parameters
        return whole_signature(f"func({','.join(owner or [])}){head}({','.join(types)}){rest}")

    def signature_verdict(self, old: str, new: str, types: Mapping[str, str] | None = None) -> str:
        """Any change of parameter or result types breaks, except a type
        written out becoming a named type defined as that same type (or the
        reverse): a value of the one is assignable to the other."""
        verdict = super().signature_verdict(old, new, types)
        name, old_name = _FUNC_NAME.match(new), _FUNC_NAME.match(old)
        if verdict != "breaking" or not types or name is None or old_name is None or old_name[1] != name[1]:
            return verdict
        before, after = go_parameter_types(old, name.group(1)), go_parameter_types(new, name.group(1))
        if before is None or after is None or len(before) != len(after):
            return verdict
        results = (_results(old, name.group(1)), _results(new, name.group(1)))
        pairs = list(zip(before, after)) + [results]
        if all(_same_type(a, b, types) for a, b in pairs):
            return "compatible"
        return verdict

    def read_call(self, node: ts.Node) -> Call | None:
        if node.type != "call_expression":
            return None
        callee = node.child_by_field_name("function")
        if callee is None or callee.type not in ("identifier", "selector_expression"):
            return None
        selector = callee.type == "selector_expression"
        name = callee.child_by_field_name("field") if selector else callee
        qualifier = _text(callee.child_by_field_name("operand")) if selector else ""
        values = argument_nodes(node.child_by_field_name("arguments"))
        # `f(xs...)`, or `f(g())` where g may return several values
        spread = any(v.type == "variadic_argument" for v in values) or (
            len(values) == 1 and values[0].type == "call_expression"
        )
        return Call(_text(name), qualifier, callee.start_point[0] + 1, len(values), (), spread, receiver=selector)

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """Go checks the argument count (a final `...T` takes any number);
        a changed parameter type is beyond what the call's text tells."""
        if target.kind not in CALLABLE_KINDS:
            return None
        owner = target.qualified_name.rpartition(".")[0]
        if target.kind == "method" and call.qualifier.rpartition(".")[2] == owner:
            return None  # a method expression `T.M(recv, ...)`
        types = go_parameter_types(target.signature, target.name)
        if types is None:
            return None
        if old is not None:
            before = go_parameter_types(old.signature, old.name)
            if before is None:
                return None
            if types_changed(before, types, call.positional) or _results(old.signature, old.name) != _results(target.signature, target.name):
                return CallCheck(UNKNOWN, "a parameter or result type changed")
        variadic = bool(types) and types[-1].startswith("...")
        required = types[:-1] if variadic else types
        return bind(
            Params(
                tuple(Parameter(f"#{i + 1}", "positional", False) for i in range(len(required))),
                variadic=variadic,
                by_keyword=False,
            ),
            call,
        )


_FUNC_NAME = re.compile(r"^func\s*(?:\([^)]*\)\s*)?(\w+)")
_RECEIVER = re.compile(r"^func\s*\(([^)]*)\)")


def _same_type(a: str, b: str, types: Mapping[str, str]) -> bool:
    a, b = _squash(a), _squash(b)
    return a == b or _squash(types.get(a, "")) == b or _squash(types.get(b, "")) == a


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


_GO_TYPE_WORDS = frozenset({"func", "chan", "map", "struct", "interface"})


def go_parameter_types(signature: str, name: str) -> list[str] | None:
    """The declared type of each parameter of a Go function or method, in
    order (`a, b int` gives two), the receiver left out; None when the list
    cannot be read."""
    text = parameters_after(signature, name)
    return None if text is None else _list_types(text)


def _list_types(text: str) -> list[str] | None:
    """The type of each entry of a Go parameter or result list's text."""
    pieces = [p.strip() for p in top_level_split(text, ",") if p.strip()]
    named = any(_named_piece(p) for p in pieces)
    if not named:
        return pieces
    types: list[str] = []
    pending = 0
    for piece in pieces:
        if _named_piece(piece):
            declared = piece.split(None, 1)[1]
            types += [declared] * (pending + 1)
            pending = 0
        else:
            pending += 1  # `a` of `a, b int`: typed by what follows
    return types if not pending else None


def _named_piece(piece: str) -> bool:
    words = piece.split(None, 1)
    return len(words) == 2 and re.fullmatch(r"[A-Za-z_]\w*", words[0]) is not None and words[0] not in _GO_TYPE_WORDS


def _results(signature: str, name: str) -> str:
    """What follows the parameter list: the result types."""
    text = parameters_after(signature, name)
    if text is None:
        return ""
    at = signature.find(f"({text})", signature.find(name))
    return re.sub(r"\s+", "", signature[at + len(text) + 2 :]) if at >= 0 else ""


def _grammar() -> ts.Language:
    import tree_sitter_go

    return ts.Language(tree_sitter_go.language())


# `type MultiError []error` has methods too
_METHOD_PARENTS = frozenset({"interface", "struct", "type"})
GO = Go(
    name="go",
    structural_interfaces=True,
    extensions=(".go",),
    syntax=Syntax(
        name="go",
        load_grammar=_grammar,
        load_query=query_text("go"),
        decode_import=decode,
        method_parents=_METHOD_PARENTS,
        doc_parents=("type_declaration", "const_declaration"),
    ),
    scope=ScopeRules(
        package_is_directory=True,
        builtins=GO_BUILTINS,
        methods_bind_names=False,
        calls_of_types_convert=True,
        receiver_pattern=r"func\s*\(\s*(\w+)\s+[*\w\[]",
        unique_fallback=False,
        guess_on_expressions=False,
        # `func NewServer() *Server`, `func Open() (*DB, error)`: what a call gives
        return_pattern=r"\)\s*(?:\(\s*)?([*]?[\w.]+)(?:\s*,[^()]*\))?\s*$",
        parameter_pattern=r"[(,]\s*(\w+)\s+\*?(\w+(?:\.\w+)?)(?=\s*[,)])",
        common_methods=GO_COMMON_METHODS,
    ),
    test_files=r"(^|/)[^/]*_test\.go$",
    test_runner="go",
)
