"""Rust: `use` paths and `mod` declarations, modules as files (rustc layout).

Imports: Rust ``use`` declarations and ``mod name;`` -> (path, name, alias) triples.

Paths keep Rust syntax (``crate::a::b``); the module finder maps them to
files. Groups and globs flatten:

- ``use crate::a::{b, c as d, e::f};`` -> (crate::a, b, None),
  (crate::a, c, d), (crate::a::e, f, None);
- ``use super::x::*;``                  -> (super::x, *, None);
- ``use crate::a::{self};`` / ``use a;`` -> (crate::a, crate::a, a): the
  module itself, bound under its last segment;
- ``mod util;``                          -> (self::util, self::util, util):
  a module declaration binds its name to the file that holds it (inside
  ``mod a { mod b; }`` the path is ``self::a::b``: the file is ``a/b.rs``).

Bindings are per file, so paths written inside an inline ``mod m { ... }``
are rewritten to the file's level: each leading ``super`` first leaves one
enclosing inline module (``use super::*`` in ``mod tests`` is the file
itself). ``self::`` inside an inline module is read at the file's level too:
items of inline modules are not reachable through the finder, so such a
path stays unresolved rather than wrong.

Module lookup: Rust module path (``crate::a::b``, ``super::x``, ``self::m``, ``dep::y``)
-> the file that holds that module.

The file layout follows rustc (2018 edition paths):

- the crate root is ``lib.rs`` / ``main.rs``, found in the file's directory
  or above; files with none above (``tests/it.rs``, ``examples/x.rs``,
  ``build.rs``) and ``src/bin/*.rs`` are crate roots of their own;
- module ``m`` declared in a crate root or a ``mod.rs`` lives in
  ``<dir>/m.rs`` or ``<dir>/m/mod.rs``; declared in ``x.rs``, it lives in
  ``<dir>/x/m.rs`` or ``<dir>/x/m/mod.rs``;
- a path that does not start with ``crate``/``self``/``super`` names a child
  module of the importer, else a crate: a crate of this repository (the
  ``[package] name`` of the ``Cargo.toml`` next to ``src/lib.rs``, dashes as
  underscores) maps to its ``lib.rs``; any other crate (``std``, a
  dependency) is external.

``#[path = "..."]`` attributes and ``[lib] path`` are not followed.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence

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
    has_test_attribute,
    node as node_recipe,
    query_text,
    top_level_split,
    whole_signature,
)
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax

_PATH_NODES = frozenset({"identifier", "scoped_identifier", "crate", "self", "super", "metavariable"})



def _segments(node: ts.Node | None) -> list[str]:
    """``a::b::c`` -> [a, b, c]; a leading ``::`` (extern crate) is dropped."""
    if node is None:
        return []
    if node.type == "scoped_identifier":
        path = _segments(node.child_by_field_name("path"))
        return path + [_text(node.child_by_field_name("name"))]
    return [_text(node)]


def _enclosing_mods(node: ts.Node) -> list[str]:
    """Names of the inline modules around ``node``, outermost first."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item":
            names.insert(0, _text(parent.child_by_field_name("name")))
        parent = parent.parent
    return names


def _lift(segments: list[str], depth: int) -> list[str]:
    """Rewrite a path written ``depth`` inline modules deep to file level."""
    if depth == 0 or not segments or segments[0] != "super":
        return segments
    supers = 0
    while supers < len(segments) and segments[supers] == "super":
        supers += 1
    if supers <= depth:
        return ["self"] + segments[supers:]
    return ["super"] * (supers - depth) + segments[supers:]


def _triple(segments: list[str], alias: str | None) -> ImportTriple | None:
    segments = [s for s in segments if s]
    if not segments:
        return None
    if segments[-1] == "self":  # `a::{self}`: the module itself
        segments = segments[:-1]
        if not segments:
            return None
        module = "::".join(segments)
        return (module, module, alias or segments[-1])
    if len(segments) == 1:  # `use foo;`: a crate or a module, itself
        return (segments[0], segments[0], alias or segments[0])
    return ("::".join(segments[:-1]), segments[-1], alias)


def _walk(node: ts.Node, base: list[str], depth: int, out: list[ImportTriple]) -> None:
    kind = node.type
    triple: ImportTriple | None = None
    if kind in _PATH_NODES:
        triple = _triple(_lift(base + _segments(node), depth), None)
    elif kind == "use_as_clause":
        alias = _text(node.child_by_field_name("alias")) or None
        triple = _triple(_lift(base + _segments(node.child_by_field_name("path")), depth), alias)
    elif kind == "use_wildcard":
        path = next((c for c in node.named_children if c.type in _PATH_NODES), None)
        segments = _lift(base + _segments(path), depth)
        if segments:
            triple = ("::".join(segments), "*", None)
    elif kind == "scoped_use_list":
        prefix = base + _segments(node.child_by_field_name("path"))
        listing = node.child_by_field_name("list")
        if listing is not None:
            _walk(listing, prefix, depth, out)
    elif kind == "use_list":
        for child in node.named_children:
            _walk(child, base, depth, out)
    if triple is not None:
        out.append(triple)


def decode(node: ts.Node) -> list[ImportTriple]:
    enclosing = _enclosing_mods(node)
    if node.type == "mod_item":
        name = _text(node.child_by_field_name("name"))
        path = "::".join(["self", *enclosing, name])
        return [(path, path, name)] if name else []
    if node.type != "use_declaration":
        return []
    argument = node.child_by_field_name("argument")
    out: list[ImportTriple] = []
    if argument is not None:
        _walk(argument, [], len(enclosing), out)
    return out


_ROOT_FILES = ("lib.rs", "main.rs")
_CACHE_KEY = "rust.crates"
_ROOTS_KEY = "rust.roots"
_PACKAGES_KEY = "rust.packages"


def find_module(table: Project, importer: str, spec: str) -> list[str]:
    segments = [s for s in spec.split("::") if s]
    if not segments:
        return []
    first = segments[0]
    base: str | None
    if spec.startswith("::"):  # `::dep::x`: always a crate
        base, rest = _crates(table).get(first), segments[1:]
    elif first == "crate":
        base, rest = crate_root(table, importer), segments[1:]
    elif first == "self":
        base, rest = importer, segments[1:]
    elif first == "super":
        base, rest = importer, segments
        while rest and rest[0] == "super" and base is not None:
            base, rest = _parent(table, base), rest[1:]
    else:
        base, rest = _child(table, importer, first), segments[1:]
        if base is None and _top_level(table, importer, first):
            return [importer]  # an inline module or an item of this file
        if base is None:
            base = _crates(table).get(first)
    if base is None:
        return []
    return _walk_modules(table, base, rest)


def may_guess(table: Project, source: Symbol, candidate: Symbol, *, bare: bool) -> bool:
    """Whether a name-only guess from ``source`` may land on ``candidate``.

    An item of another package is reached only through a path or a `use`,
    both followed before any guess, so a guess stays in the package (the
    `c_int` of one vendored crate is not another's). A bare name is never a
    method: those need `self.` or `Type::`.
    """
    if bare and candidate.kind == "method":
        return False
    return package(table, source.file) == package(table, candidate.file)


def package(table: Project, path: str) -> str:
    """The Cargo package a file belongs to: the nearest directory above it
    with a Cargo.toml, or, without the repository root, the directory that
    holds the crate's `src/`, `tests/`, `examples/`, `benches/`."""
    return str(table.remember(_PACKAGES_KEY, posixpath.dirname(path)))


@node_recipe(_PACKAGES_KEY)
def _package(table: Project, directory: str) -> str:
    """The package of the files of ``directory`` (``package``)."""
    if table.root:
        current = directory
        while True:
            table.reads_file(posixpath.join(current, "Cargo.toml") if current else "Cargo.toml")
            if os.path.isfile(os.path.join(table.root, current, "Cargo.toml")):
                return current
            if not current:
                break
            current = posixpath.dirname(current)
    directory = _root_directory(table, directory)
    parts = directory.split("/")
    for marker in ("src", "tests", "examples", "benches"):
        if marker in parts:
            return "/".join(parts[: len(parts) - 1 - parts[::-1].index(marker)])
    return directory


def _root_directory(table: Project, directory: str) -> str:
    """The directory of the crate root of a file of ``directory`` that is no
    root itself (``_crate_root``): a root's is its own directory too."""
    if posixpath.basename(directory) == "bin" and posixpath.basename(posixpath.dirname(directory)) == "src":
        return directory
    current = directory
    while True:
        if any(posixpath.join(current, name) in table.module_of_file for name in _ROOT_FILES):
            return current
        if not current:
            return directory
        current = posixpath.dirname(current)


def crate_root(table: Project, path: str) -> str:
    return str(table.remember(_ROOTS_KEY, path))


@node_recipe(_ROOTS_KEY)
def _crate_root(table: Project, path: str) -> str:
    name = posixpath.basename(path)
    directory = posixpath.dirname(path)
    if name in _ROOT_FILES or posixpath.basename(directory) == "bin" and posixpath.basename(
        posixpath.dirname(directory)
    ) == "src":
        return path
    while True:
        for root_name in _ROOT_FILES:
            candidate = posixpath.join(directory, root_name)
            if candidate in table.module_of_file:
                return candidate
        if not directory:
            return path
        directory = posixpath.dirname(directory)


def _is_dir_owner(table: Project, path: str) -> bool:
    """True when ``path``'s child modules live in its own directory."""
    return posixpath.basename(path) == "mod.rs" or crate_root(table, path) == path


def _child_dir(table: Project, path: str) -> str:
    directory = posixpath.dirname(path)
    if _is_dir_owner(table, path):
        return directory
    stem = posixpath.basename(path)[: -len(".rs")]
    return posixpath.join(directory, stem)


def _module_file(table: Project, directory: str, name: str) -> str | None:
    for candidate in (posixpath.join(directory, f"{name}.rs"), posixpath.join(directory, name, "mod.rs")):
        if candidate in table.module_of_file:
            return candidate
    return None


def _child(table: Project, path: str, name: str) -> str | None:
    return _module_file(table, _child_dir(table, path), name)


def _parent(table: Project, path: str) -> str | None:
    root = crate_root(table, path)
    if root == path:
        return None
    directory = posixpath.dirname(path)
    if posixpath.basename(path) == "mod.rs":
        directory = posixpath.dirname(directory)
    if directory == posixpath.dirname(root):
        return root
    return _module_file(table, posixpath.dirname(directory), posixpath.basename(directory))


def _top_level(table: Project, path: str, name: str) -> bool:
    module_id = table.module_of_file.get(path)
    return module_id is not None and bool(table.children.get(module_id, {}).get(name))


def _walk_modules(table: Project, base: str, rest: list[str]) -> list[str]:
    current: str | None = base
    directory = _child_dir(table, base)
    for segment in rest:
        found = _module_file(table, directory, segment)
        if found is not None:
            current, directory = found, _child_dir(table, found)
            continue
        if current is not None and _top_level(table, current, segment):
            return [current]  # `crate::E::Variant`, an inline module: not a file
        # an inline module holding `mod x;` declarations: a directory, no file
        current, directory = None, posixpath.join(directory, segment)
    return [current] if current is not None else []


def _compute_crates(table: Project) -> dict[str, str]:
    """Crate name (as written in paths) -> its ``lib.rs``, for this repository's crates."""
    crates: dict[str, str] = {}
    for path in sorted(table.module_of_file):
        if posixpath.basename(path) != "lib.rs":
            continue
        directory = posixpath.dirname(path)
        package = posixpath.dirname(directory) if posixpath.basename(directory) == "src" else directory
        name = _package_name(table.root, package) or posixpath.basename(package)
        if name:
            crates.setdefault(name.replace("-", "_"), path)
    return crates


_crates = derived_value(_CACHE_KEY, _compute_crates)


def _package_name(root: str, package: str) -> str:
    if not root:
        return ""
    import tomllib  # here: only a Rust crate's resolution reads a manifest

    try:
        with open(os.path.join(root, package, "Cargo.toml"), "rb") as fh:
            manifest = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    lib = manifest.get("lib")
    if isinstance(lib, dict) and isinstance(lib.get("name"), str):
        return str(lib["name"])
    package_table = manifest.get("package")
    if isinstance(package_table, dict) and isinstance(package_table.get("name"), str):
        return str(package_table["name"])
    return ""


# Methods of Rust's std types and traits (Option, Result, Vec, str, slices,
# iterators, Clone/ToOwned/Into/AsRef/Borrow/Deref, Display/Debug, io, sync).
RUST_COMMON_METHODS = frozenset(
    "clone clone_from to_owned to_string into from try_into try_from as_ref as_mut as_str "
    "as_bytes as_slice as_ptr as_mut_ptr borrow borrow_mut deref deref_mut drop eq ne cmp "
    "partial_cmp hash fmt default len is_empty iter iter_mut into_iter next next_back map "
    "filter filter_map flat_map fold collect count sum product any all find position "
    "enumerate zip rev take skip chain cloned copied peekable unwrap unwrap_or "
    "unwrap_or_else unwrap_or_default expect ok err ok_or ok_or_else and_then or_else "
    "map_err is_some is_none is_ok is_err get get_mut get_unchecked get_unchecked_mut "
    "contains contains_key insert remove push push_str pop extend clear truncate split "
    "split_at starts_with ends_with trim to_lowercase to_uppercase chars bytes lines parse "
    "write write_str write_all write_fmt read read_exact read_to_string flush lock send "
    "recv join min max abs with_capacity capacity reserve sort sort_by sort_unstable "
    "dedup retain first last set replace swap as_deref start_bound end_bound contains_key".split()
)

# The Rust prelude, primitive types used as paths (`u32::from`) and the std
# crates: bound without a `use`, never a project item.
RUST_BUILTINS = frozenset(
    "Box Vec String Option Result Some None Ok Err Default Clone Copy Send Sync Sized "
    "Unpin ToString ToOwned Iterator IntoIterator DoubleEndedIterator ExactSizeIterator "
    "Extend FromIterator From Into TryFrom TryInto AsRef AsMut Fn FnMut FnOnce Drop "
    "PartialEq Eq PartialOrd Ord drop bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 "
    "i64 i128 isize f32 f64 std core alloc "
    # std macros: a macro nested in macro arguments (`assert!(format!(..))`)
    # reads as a call, the `!` being invisible to the query's anchors
    "format vec println print eprintln eprint write writeln panic assert assert_eq "
    "assert_ne debug_assert debug_assert_eq debug_assert_ne matches todo unimplemented "
    "unreachable dbg concat stringify include_str include_bytes env option_env "
    "format_args compile_error".split()
)


def implementations(types: TypeGraph, method: Symbol, interface: Symbol) -> list[str]:
    """The methods ``x.m()`` may run, ``x`` a `dyn Trait`, an `impl Trait` or
    a generic bounded by the trait that declares ``m`` (``method``): the
    ``m`` of each `impl Trait for Type` of the project that defines it (one
    that does not runs the trait's provided method, the call's own target).
    An `impl` is known through its ``inherits`` edge, which starts at the
    type when the type is defined in the file of the `impl`."""
    if interface.kind != "trait":
        return []
    found: list[str] = []
    for implementor in map(types.symbol, types.subtypes(interface.id)):
        if implementor is None or implementor.kind not in TYPE_KINDS or implementor.kind == "trait":
            continue  # a supertrait's subtrait provides no body of its own here
        own = [
            s
            for s in types.symbols_by("qualified_name", f"{implementor.qualified_name}.{method.name}")
            if s.kind == "method" and s.language == implementor.language
        ]
        if len(own) > 1:  # the same type name in several crates: the one beside the type
            own = [s for s in own if s.file == implementor.file]
        if len(own) == 1:
            found.append(own[0].id)
    return sorted(set(found))


def _written_as_trait(types: TypeGraph, call: Edge, trait: Symbol) -> bool:
    """Whether the receiver of ``call`` is written as the trait: a generic
    bounded by it (tier ``bound``), ``self`` in the trait's own provided
    methods, or a parameter of type `dyn Trait` / `impl Trait`."""
    if call.resolution == "bound":
        return True
    caller = types.symbol(call.source_id)
    if caller is None or not call.qualifier:
        return False
    if call.qualifier in _SELF_NAMES:
        return caller.parent_id == trait.id
    name = re.escape(call.qualifier)
    written = rf"\b{name}\s*:\s*[^,()]*\b(?:dyn|impl)\s+(?:\w+::)*{re.escape(trait.name)}\b"
    return re.search(written, caller.signature) is not None


_RUST_TESTS = ("#[rstest", "#[test_case", "#[async_std::test", "#[sqlx::test", "#[test_log::test")


_FN_NAME = re.compile(r"\bfn\s+(\w+)")
_SELF_PARAMETER = re.compile(r"(&\s*('\w+\s+)?)?(mut\s+)?self")


_STD_ROOT = re.compile(r"(?<![\w:])(?:::)?(?:std|core|alloc)::")
_PRELUDE_PATH = re.compile(r"(?<![\w:])core::(?:vec::Vec|string::String|boxed::Box|option::Option|result::Result)\b")
_DYN = re.compile(r"\bdyn\s+")
_ELIDED = re.compile(r"<\s*'_\s*>|'_\s*,\s*|(?<=&)\s*'_\s+")


def _same_types(signature: str) -> str:
    """``signature`` with each type written one way: std's, core's and
    alloc's paths of an item are one item (`std::fmt::Debug` is
    `core::fmt::Debug`), a prelude type's path is its name
    (`std::vec::Vec<u8>` is `Vec<u8>`), a trait object with or without
    `dyn` (2015's `&Error` is `&dyn Error`), and an elided lifetime written
    or not (`Formatter<'_>` is `Formatter`, `&'_ T` is `&T`): either 1.6.1
    -> 1.13.0 made those edits and each was called breaking."""
    signature = _STD_ROOT.sub("core::", signature)
    signature = _PRELUDE_PATH.sub(lambda m: m.group(0).rsplit("::", 1)[1], signature)
    return _ELIDED.sub("", _DYN.sub("", signature))


def _pattern_end(parameter: str) -> int:
    """Where a parameter's pattern ends: its first `:` outside brackets that
    is not part of a `::` path; -1 without one."""
    depth = 0
    for i, c in enumerate(parameter):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == ":" and depth == 0:
            if parameter[i + 1 : i + 2] == ":" or parameter[i - 1 : i] == ":":
                continue
            return i
    return -1


class Rust(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        return find_module(project, importer, spec)

    def owns_module(self, project: Project, importer: str, spec: str) -> bool:
        first = spec.lstrip(":").split("::", 1)[0]
        return first in ("crate", "self", "super") or first in _crates(project)

    def implementations(self, types: TypeGraph, method: Symbol, interface: Symbol, call: Edge) -> list[str]:
        if not method.signature.rstrip().endswith(";") and not _written_as_trait(types, call, interface):
            return []  # a provided method called on a concrete type runs itself (`Square::describe`)
        return implementations(types, method, interface)

    def may_guess(self, project: Project, source: Symbol, candidate: Symbol, *, bare: bool) -> bool:
        return may_guess(project, source, candidate, bare=bare)

    def call_shape(self, signature: str) -> str:
        """What callers depend on: all of the signature but the parameters'
        patterns (their names, `mut`): Rust passes arguments by position,
        so anyhow 1.0.95's `pub fn Ok<T>(t: T)` -> `pub fn Ok<T>(value: T)`
        breaks no caller, and was called breaking. Types are read as the
        same type however written (`_same_types`)."""
        signature = _same_types(signature)
        name = _FN_NAME.search(signature)
        text = parameters_after(signature, name.group(1)) if name is not None else None
        at = signature.find(f"({text})", name.end()) if name is not None and text is not None else -1
        if name is None or text is None or at < 0:
            return whole_signature(signature)
        types = []
        for piece in top_level_split(text, ","):
            piece = piece.strip()
            colon = _pattern_end(piece)
            if _SELF_PARAMETER.fullmatch(piece) or colon < 0:  # `&self`, `mut self`: as written
                types.append(re.sub(r"^mut\s+", "", piece))
            elif piece.startswith(("self", "mut self")):  # `self: Box<Self>`
                types.append("self:" + piece[colon + 1 :])
            else:
                types.append(piece[colon + 1 :])
        return whole_signature(signature[:at] + "(" + ",".join(types) + ")" + signature[at + len(text) + 2 :])

    def bound_of(self, signature: str, type_parameter: str) -> str | None:
        # `fn f<T: Store + Send>(..)` or `... where T: Store`: the first bound
        found = re.search(rf"[<,]\s*{re.escape(type_parameter)}\s*:\s*((?:\w+::)*\w+)", signature) or re.search(
            rf"\bwhere\b.*?\b{re.escape(type_parameter)}\s*:\s*((?:\w+::)*\w+)", signature
        )
        return found.group(1).replace("::", ".") if found else None

    def is_test(self, symbol: Symbol) -> bool:
        """A function cargo runs as a test: by its attribute (#[test],
        #[tokio::test] and those of common crates), wherever it is; a
        function of `tests/` without one is a helper cargo runs no test by
        (anyhow 1.0.95: `main`, `DerefBool::deref`, a test's inner `assert`
        were tests to run, names `cargo test` filters no test by)."""
        return symbol.kind in CALLABLE_KINDS and (
            has_test_attribute(symbol) or any(d.startswith(_RUST_TESTS) for d in symbol.decorators)
        )

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.cargo_commands(tests, ws)

    def read_call(self, node: ts.Node) -> Call | None:
        if node.type != "call_expression":
            return None
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "generic_function":  # f::<T>(...)
            callee = callee.child_by_field_name("function")
        if callee is None:
            return None
        name: ts.Node | None
        if callee.type == "identifier":
            name, qualifier = callee, ""
        elif callee.type == "field_expression":
            name, qualifier = callee.child_by_field_name("field"), _text(callee.child_by_field_name("value"))
        elif callee.type == "scoped_identifier":
            name, qualifier = callee.child_by_field_name("name"), _text(callee.child_by_field_name("path"))
        else:
            return None
        if name is None:
            return None
        values = [v for v in argument_nodes(node.child_by_field_name("arguments")) if v.type != "attribute_item"]
        receiver = callee.type == "field_expression"
        return Call(_text(name), qualifier, callee.start_point[0] + 1, len(values), receiver=receiver)

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """Rust checks the argument count exactly; `x.m()` fills `self`,
        `T::m(x, ...)` passes it. A changed parameter type is beyond what
        the call's text tells."""
        if target.kind not in CALLABLE_KINDS:
            return None
        params = _rust_parameters(target.signature, target.name)
        if params is None:
            return None
        takes_self = bool(params) and _SELF_PARAMETER.match(params[0]) is not None
        if call.receiver and not takes_self:
            return None  # a field holding a closure, or a trait's associated function
        filled = params[1:] if takes_self and call.receiver else params
        if old is not None:
            before = _rust_parameters(old.signature, old.name)
            if before is None:
                return None
            if types_changed(before, params, len(params)) and len(before) == len(params):
                return CallCheck(UNKNOWN, "a parameter's type changed")
        return bind(Params(tuple(Parameter(p, "positional", False) for p in filled), by_keyword=False), call)


_SELF_PARAMETER = re.compile(r"^(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?self\b")


def _rust_parameters(signature: str, name: str) -> list[str] | None:
    text = parameters_after(signature, name)
    if text is None:
        return None
    return [p.strip() for p in top_level_split(text, ",") if p.strip()]


def _grammar() -> ts.Language:
    import tree_sitter_rust

    return ts.Language(tree_sitter_rust.language())


_SELF_NAMES = ("self", "Self")
RUST = Rust(
    name="rust",
    package_files=("mod", "lib", "main"),
    extensions=(".rs",),
    syntax=Syntax(
        name="rust",
        load_grammar=_grammar,
        load_query=query_text("rust"),
        decode_import=decode,
        comment_types=("line_comment", "block_comment"),
        method_parents=frozenset({"trait", "struct", "enum", "type"}),
        self_names=_SELF_NAMES,
    ),
    scope=ScopeRules(
        self_names=_SELF_NAMES,
        builtins=RUST_BUILTINS,
        qualifier_paths=True,
        methods_bind_names=False,
        guess_on_expressions=False,
        scoped_guesses=True,
        common_methods=RUST_COMMON_METHODS,
        # `fn new() -> Self`, `fn builder() -> &mut Builder`: what a call
        # gives, for `Builder::new().m()`; a path (`-> ast::Error`) or a smart
        # pointer (`-> Box<T>`, whose methods are T's) is no answer
        return_pattern=(
            r"->\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:dyn\s+|impl\s+)?"
            r"(?!(?:Box|Rc|Arc|Cow)\b)(\w+)(?:<.*>)?\s*(?:where\b.*)?$"
        ),
        parameter_pattern=r"[(,]\s*(?:mut\s+)?(\w+)\s*:\s*(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?(?:dyn\s+|impl\s+)?((?:\w+::)*\w+)",
    ),
    test_runner="cargo",
)
