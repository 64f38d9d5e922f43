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

from cartog_ci.parse import pack


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
    # Java, Ruby: an unqualified call inside a method may name a method of
    # the enclosing type (implicit `this` / `self`); that is tried first.
    implicit_self: bool = False
    # re.sub pairs applied to a call's `@receiver` so that a receiver built
    # by a constructor reads like a call: `new Foo(a)` / `Foo.new(a)` -> `Foo(a)`.
    receiver_rewrites: tuple[tuple[str, str], ...] = ()
    # Module with its own `extract(path, source, language)`, for a format
    # that a tags query cannot describe (Markdown sections and chunks).
    extractor: str = ""
    # Whether `x.m()` on a receiver of unknown type may resolve to the only
    # method `m` of the project. Ruby: no; many methods are never `def`ined
    # (attr_accessor, ActiveRecord columns, method_missing), so the only
    # `def m` is weak evidence (measured: 1 right in 39 on a real codebase).
    unique_methods: bool = True
    # Whether an unqualified name found nowhere in scope may still resolve to
    # a name unique in the project. Go: no, such a name is in the package, a
    # dot import or a builtin, so anything else is a local (closure, parameter).
    unique_fallback: bool = True
    # Node types that hold one definition and whose preceding comment is its
    # documentation (Go `type_declaration` around a `type_spec`), climbed only
    # when the definition opens the parent's first line.
    doc_parents: tuple[str, ...] = ()
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


JS_GLOBALS = frozenset(
    "console require Promise Object Array String Number Boolean JSON Math Date Error "
    "TypeError RangeError SyntaxError Map Set WeakMap WeakSet Symbol BigInt parseInt "
    "parseFloat setTimeout clearTimeout setInterval clearInterval queueMicrotask fetch "
    "document window globalThis process Buffer RegExp isNaN isFinite encodeURIComponent "
    "decodeURIComponent encodeURI decodeURI structuredClone Reflect Proxy Intl "
    "Uint8Array Int32Array Float64Array ArrayBuffer DataView URL URLSearchParams "
    "AbortController TextEncoder TextDecoder alert describe it test expect beforeEach "
    "afterEach beforeAll afterAll jest module exports setImmediate clearImmediate "
    "global __dirname __filename Function AggregateError EvalError ReferenceError "
    "URIError WeakRef FinalizationRegistry Int8Array Int16Array Uint16Array Uint32Array "
    "Uint8ClampedArray Float32Array BigInt64Array BigUint64Array SharedArrayBuffer "
    "Atomics atob btoa requestAnimationFrame cancelAnimationFrame performance crypto "
    "navigator location localStorage sessionStorage XMLHttpRequest WebSocket Worker "
    "CustomEvent MessageChannel".split()
)
# Types from TypeScript's lib.*.d.ts: a reference to one is external unless
# the file declares or imports the name itself.
TS_GLOBALS = JS_GLOBALS | frozenset(
    "Partial Required Readonly Record Pick Omit Exclude Extract NonNullable "
    "Parameters ConstructorParameters ReturnType InstanceType Awaited ThisType "
    "Uppercase Lowercase Capitalize Uncapitalize NoInfer PropertyKey Function "
    "PromiseLike ArrayLike ReadonlyArray ReadonlyMap ReadonlySet Iterable Iterator "
    "IterableIterator AsyncIterable AsyncIterator AsyncIterableIterator Generator "
    "AsyncGenerator TemplateStringsArray PropertyDescriptor TypedPropertyDescriptor "
    "ClassDecorator MethodDecorator PropertyDecorator ParameterDecorator "
    "HTMLElement Element Node Event EventTarget KeyboardEvent MouseEvent Response "
    "Request Headers Blob File FormData Window Document NodeJS".split()
)

# java.lang (imported implicitly) and `var`: a reference to one is external.
JAVA_BUILTINS = frozenset(
    "Object String Integer Long Short Byte Double Float Boolean Character Number Void "
    "Math StrictMath System Thread Runnable Iterable Comparable CharSequence Cloneable "
    "AutoCloseable Class ClassLoader Enum Record Process ProcessBuilder Runtime "
    "StringBuilder StringBuffer ThreadLocal StackTraceElement Throwable Exception Error "
    "RuntimeException IllegalArgumentException IllegalStateException NullPointerException "
    "UnsupportedOperationException IndexOutOfBoundsException ArrayIndexOutOfBoundsException "
    "StringIndexOutOfBoundsException ArithmeticException ClassCastException "
    "NumberFormatException CloneNotSupportedException InterruptedException "
    "ClassNotFoundException SecurityException ReflectiveOperationException AssertionError "
    "OutOfMemoryError StackOverflowError LinkageError Override Deprecated SuppressWarnings "
    "FunctionalInterface SafeVarargs var".split()
)
# Kernel / Module methods, core classes, and the two test frameworks whose
# base classes test files inherit from: bound outside any project.
RUBY_BUILTINS = frozenset(
    "puts print p pp require require_relative load raise fail lambda proc loop catch "
    "throw format sprintf printf gets rand srand sleep exit exit! abort at_exit binding "
    "block_given? caller eval exec system warn freeze frozen? dup clone tap then "
    "attr_accessor attr_reader attr_writer include extend prepend private public "
    "protected module_function private_constant define_method alias_method "
    "instance_variable_get instance_variable_set respond_to? send public_send is_a? "
    "kind_of? instance_of? nil? Integer Float String Array Hash Rational Complex "
    "Object BasicObject Module Class Kernel Comparable Enumerable Enumerator Exception "
    "StandardError ArgumentError RuntimeError TypeError NameError NoMethodError KeyError "
    "IndexError StopIteration NotImplementedError ZeroDivisionError IOError EOFError "
    "ScriptError LoadError SystemExit Interrupt FrozenError RangeError Errno Struct Set "
    "Time Dir File IO Math Process Proc Method Symbol NilClass TrueClass FalseClass "
    "Numeric Regexp MatchData Range ObjectSpace GC Signal Thread Mutex Queue Fiber "
    "Encoding Marshal Data ENV ARGV STDOUT STDERR STDIN Minitest RSpec "
    # standard library modules a script requires by name
    "JSON YAML Psych Pathname FileUtils Tempfile Tmpdir URI Net Open3 Shellwords "
    "Digest SecureRandom Base64 OpenStruct Logger Date DateTime ERB Etc Benchmark "
    "Timeout Socket StringIO CSV Zlib OptionParser Forwardable Singleton".split()
)
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
    "dedup retain first last set replace swap as_deref".split()
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
            query="javascript+ecmascript",
            wrappers=("export_statement",),
            self_names=("this",),
            builtins=JS_GLOBALS,
        ),
        LanguageSpec(
            name="typescript",
            extensions=(".ts", ".mts", ".cts"),
            module="tree_sitter_typescript",
            loader="language_typescript",
            query="typescript+ecmascript",
            wrappers=("export_statement", "ambient_declaration"),
            self_names=("this",),
            builtins=TS_GLOBALS,
        ),
        LanguageSpec(
            name="tsx",
            extensions=(".tsx",),
            module="tree_sitter_typescript",
            loader="language_tsx",
            query="typescript+ecmascript",
            wrappers=("export_statement", "ambient_declaration"),
            self_names=("this",),
            builtins=TS_GLOBALS,
        ),
        LanguageSpec(
            name="java",
            extensions=(".java",),
            module="tree_sitter_java",
            comment_types=("line_comment", "block_comment"),
            self_names=("this",),
            package_is_directory=True,
            builtins=JAVA_BUILTINS,
            implicit_self=True,
            receiver_rewrites=((r"^new\s+([\w$.]+)\s*(?:<[^()]*>)?\s*\(", r"\1("),),
            # `Type name` in a parameter list; lookaheads put the name in group 1
            parameter_pattern=(
                r"[(,]\s*(?:final\s+|@[\w.]+(?:\([^()]*\))?\s+)*"
                r"(?=[\w.$]+(?:<[^()]*?>)?(?:\[\])*(?:\.\.\.)?\s+(\w+)\s*[,)])(?=([\w$]+(?:\.[\w$]+)*))"
            ),
        ),
        LanguageSpec(
            name="ruby",
            extensions=(".rb", ".rake", ".gemspec"),
            module="tree_sitter_ruby",
            self_names=("self",),
            builtins=RUBY_BUILTINS,
            implicit_self=True,
            receiver_rewrites=((r"\.new\b(?![?!=])", ""),),
            unique_methods=False,
        ),
        LanguageSpec(
            name="markdown",
            extensions=(".md", ".markdown"),
            module="tree_sitter_markdown",
            comment_types=(),
            extractor="cartog_ci.parse.markdown",
        ),
        LanguageSpec(
            name="go",
            extensions=(".go",),
            module="tree_sitter_go",
            # `type MultiError []error` has methods too
            method_parents=frozenset({"interface", "struct", "type"}),
            package_is_directory=True,
            builtins=GO_BUILTINS,
            receiver_pattern=r"func\s*\(\s*(\w+)\s+[*\w\[]",
            unique_fallback=False,
            doc_parents=("type_declaration", "const_declaration"),
            parameter_pattern=r"[(,]\s*(\w+)\s+\*?(\w+(?:\.\w+)?)(?=\s*[,)])",
            common_methods=GO_COMMON_METHODS,
        ),
        LanguageSpec(
            name="rust",
            extensions=(".rs",),
            module="tree_sitter_rust",
            comment_types=("line_comment", "block_comment"),
            method_parents=frozenset({"trait", "struct", "enum", "type"}),
            self_names=("self", "Self"),
            builtins=RUST_BUILTINS,
            qualifier_paths=True,
            common_methods=RUST_COMMON_METHODS,
            parameter_pattern=r"[(,]\s*(?:mut\s+)?(\w+)\s*:\s*(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?(?:dyn\s+|impl\s+)?((?:\w+::)*\w+)",
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
    return _BY_EXTENSION.get(suffix) or _pack_language(suffix)


def _pack_language(suffix: str) -> LanguageSpec | None:
    """A long-tail language of the ``all-languages`` extra, when installed;
    without it the file is ``unsupported``, never an error. Not put in
    ``_BY_EXTENSION``: whether the pack is there is asked every time."""
    name = pack.language_for_suffix(suffix)
    spec = _pack_spec(name) if name is not None else None
    if spec is not None:
        LANGUAGES.setdefault(spec.name, spec)  # extract() and the resolver look it up by name
    return spec


@lru_cache(maxsize=None)
def _pack_spec(name: str) -> LanguageSpec | None:
    try:
        language = ts.Language(pack.binding(name))
        ts.Query(language, pack.tags_query(name))
    except (LookupError, OSError, ValueError, ts.QueryError):
        return None  # a grammar the pack lacks, or a query its grammar rejects
    return LanguageSpec(
        name=name,
        extensions=pack.extensions_of(name),
        module=pack.MODULE,
        loader="get_binding",
        query=f"pack/{name}",
        comment_types=tuple(t for t in pack.COMMENT_TYPES if language.id_for_node_kind(t, True)),
        # the resolver's defaults for a language it has no spec for: the same
        # answers whether or not this process has seen such a file yet
        self_names=("self", "cls", "this"),
    )


@lru_cache(maxsize=None)
def grammar(name: str) -> ts.Language:
    spec = LANGUAGES[name]
    if spec.module == pack.MODULE:
        return ts.Language(pack.binding(name))
    module = importlib.import_module(spec.module)
    return ts.Language(getattr(module, spec.loader)())


@lru_cache(maxsize=None)
def query_source(name: str) -> str:
    spec = LANGUAGES[name]
    if spec.module == pack.MODULE:
        return pack.tags_query(name)
    # `query` may name several files, joined with "+" (shared patterns last)
    stems = (spec.query or spec.name).split("+")
    folder = resources.files("cartog_ci.parse").joinpath("queries")
    return "\n".join(folder.joinpath(f"{stem}.scm").read_text("utf-8") for stem in stems)


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
