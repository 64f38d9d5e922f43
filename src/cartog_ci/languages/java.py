"""Java: packages are directories below a source root.

Imports: Java import declarations -> (module spec, imported name, alias) triples.

- ``import a.b.Foo;``            -> ``("a.b.Foo", "Foo", None)``: the class
  (the finder maps ``a.b.Foo`` to ``…/a/b/Foo.java``);
- ``import a.b.*;``              -> ``("a.b", "*", None)``: every class of the
  package (a star import of its directory);
- ``import static a.b.Util.max;`` -> ``("a.b.Util", "Util.max", "max")``:
  the member ``max`` of class ``Util``, bound locally as ``max``;
- ``import static a.b.Util.*;``  -> ``("a.b.Util", "*", None)``;
- ``import a.b.Outer.Inner;``     -> ``("a.b.Outer", "Outer.Inner", "Inner")``:
  a nested type, a member of class ``Outer`` like a static import's.

Module lookup: Java module lookup: a dotted import spec is a class file or a package
directory, found under whatever source root holds it (``src/main/java``,
``src/test/java``, a module of a multi-module build).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import tree_sitter as ts

from cartog_ci.domain import CALLABLE_KINDS, Symbol
from cartog_ci.languages.arguments import FINE, UNKNOWN, WILL_BREAK, Call, CallCheck, argument_nodes, parameters_after
from cartog_ci.languages import testrunners
from cartog_ci.languages.base import (
    Language,
    balanced,
    Project,
    ScopeRules,
    has_test_attribute,
    parameters,
    query_text,
    top_level_split,
    whole_signature,
)
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.languages.paths import closest, path_index
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax


def decode(node: ts.Node) -> list[ImportTriple]:
    if node.type != "import_declaration":
        return []
    path = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    dotted = "".join(_text(path).split())
    if not dotted:
        return []
    is_static = any(c.type == "static" for c in node.children)
    if any(c.type == "asterisk" for c in node.children):
        return [(dotted, "*", None)]
    owner, _, member = dotted.rpartition(".")
    cls = owner.rpartition(".")[2]
    if is_static and owner:
        return [(owner, f"{cls}.{member}", member)]
    if cls[:1].isupper():
        # `import a.b.Outer.Inner;`: a nested type (packages are lower case
        # by convention), found as a member of the class file `a/b/Outer.java`
        return [(owner, f"{cls}.{member}", member)]
    return [(dotted, member, None)]


def find_module(table: Project, importer: str, spec: str) -> list[str]:
    """``a.b.Foo`` -> ``[…/a/b/Foo.java]``; ``a.b`` -> one file of each
    directory ``…/a/b`` (a package may be split between main and test): the
    resolver's top-level lookup in a file spans its whole directory."""
    rel = spec.replace(".", "/")
    if not rel or rel.startswith("/"):
        return []
    index = path_index(table, "java")
    files = index.files.get(f"{rel}.java", [])
    if files:
        return closest(importer, files)
    found = []
    for directory in index.dirs.get(rel, []):
        files = sorted(f for f in table.files_by_dir.get(directory, []) if table.language_of_file.get(f) == "java")
        found += files[:1]
    return sorted(found)


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


# Methods of the JDK's everyday types (java.lang, java.util collections and
# streams, java.io/nio, reflection, URLs): `x.size()` on a receiver of unknown
# type is far more likely one of those than the one project method of that name.
JAVA_COMMON_METHODS = frozenset(
    "size isEmpty get put putAll remove contains containsKey containsValue add addAll clear iterator "
    "hasNext next stream map filter collect forEach reduce findFirst orElse orElseThrow isPresent "
    "toString equals hashCode compareTo getClass getName getSimpleName getMessage getCause "
    "getStackTrace printStackTrace getValue getKey entrySet keySet values toArray length charAt "
    "substring startsWith endsWith indexOf trim split replace format append close read write flush "
    "toURI toURL toPath resolve normalize getParent getFileName exists getMethod getField invoke "
    "getClassLoader getResource getResources getAnnotation newInstance run start join wait notify "
    "notifyAll lock unlock".split()
)


_JUNIT5_TESTS = ("@RepeatedTest", "@TestFactory", "@TestTemplate", "@ParameterizedTest")


class Java(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        return find_module(project, importer, spec)

    def is_test(self, symbol: Symbol) -> bool:
        """A method the runner runs: annotated ``@Test`` (JUnit 4 and 5,
        TestNG) or by JUnit 5's other test annotations, or a JUnit 3
        ``test…`` method of a test file. The other methods of a test class
        are test code, not tests (commons-codec's
        `AbstractStringEncoderTest.checkEncoding`: a test to run would be
        a method name surefire matches to nothing)."""
        if has_test_attribute(symbol) or any(d.startswith(_JUNIT5_TESTS) for d in symbol.decorators):
            return True
        return symbol.kind in CALLABLE_KINDS and symbol.name.startswith("test") and self.in_test_file(symbol.file)

    def bound_of(self, signature: str, type_parameter: str) -> str | None:
        # `class Manager<T extends ReactViewGroup>`, `<V extends a.Source> void m(V v)`
        name = re.escape(type_parameter)
        found = re.search(rf"[<,]\s*{name}\s+extends\s+([\w.$]+)(\s*<[^<>]*>)?(\s*&)?", signature)
        # `T extends ViewGroup & HasScrollState`: several types, no one answer
        return found.group(1) if found and not found.group(3) else None

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.java_commands(tests, ws)


    def read_call(self, node: ts.Node) -> Call | None:
        if node.type == "method_invocation":
            name = node.child_by_field_name("name")
            receiver = node.child_by_field_name("object")
            qualifier, constructs = _text(receiver), False
        elif node.type == "object_creation_expression":
            name = _type_name(node.child_by_field_name("type"))
            receiver, qualifier, constructs = None, "", True
        else:
            return None
        if name is None:
            return None
        values = argument_nodes(node.child_by_field_name("arguments"))
        line = (receiver or name).start_point[0] + 1
        return Call(_text(name), qualifier, line, len(values), receiver=receiver is not None, constructs=constructs)

    def type_parameters(self, signature: str) -> tuple[str, ...]:
        """The type parameters a method (`public static <R> R rethrow(…)`)
        or a type (`class FailableStream<O extends Object>`) declares, in
        order (commons-lang3 3.17 renamed both: no call changed)."""
        text = _ANNOTATION.sub(" ", signature)
        declared = _TYPE_HEAD.search(text) or _METHOD_HEAD.match(text)
        if declared is None:
            return ()
        inner = _angles(text, declared.end() - 1)
        if inner is None:
            return ()
        names = (re.match(r"\s*([A-Za-z_$][\w$]*)", p) for p in top_level_split(inner, ","))
        return tuple(m.group(1) for m in names if m is not None)

    def call_shape(self, signature: str) -> str:
        """What callers of a method depend on: its modifiers, type
        parameters, return type, parameter types and throws clause; not its
        annotations, its parameters' names, nor `final` and the modifiers
        callers do not see (commons-lang3 3.17 put @Deprecated on 30 methods
        and `final` on parameters: no caller breaks)."""
        view = _callers_view(signature)
        if view is None:
            return whole_signature(_NOT_FOR_CALLERS.sub(" ", _ANNOTATION.sub(" ", signature)))
        head, types, tail = view
        return whole_signature(head + "(" + ",".join(types) + ")" + tail)

    def signature_verdict(self, old: str, new: str, types: Mapping[str, str] | None = None) -> str:
        """Breaking unless what changed only widens what callers may do:
        the access (`private` -> package -> `protected` -> `public`) and a
        type argument made a wildcard bound on itself, in a parameter's type
        or a type parameter's bound (`Comparable<T>` -> `Comparable<? super
        T>`: commons-lang3 3.17's `compare` and `Range.between`); every call
        that compiled still does ("compatible"). A return type or a throws
        clause changed stays breaking."""
        verdict = super().signature_verdict(old, new, types)
        if verdict != "breaking":
            return verdict
        before, after = _callers_view(old), _callers_view(new)
        if before is None or after is None:
            return verdict
        (head, params, tail), (head2, params2, tail2) = before, after
        access, access2 = _access(head), _access(head2)
        (bounds, rest), (bounds2, rest2) = _type_parameters_apart(head), _type_parameters_apart(head2)
        if whole_signature(_ACCESS_WORD.sub(" ", rest)) != whole_signature(_ACCESS_WORD.sub(" ", rest2)):
            return verdict
        if not _widened_type(whole_signature(bounds), whole_signature(bounds2)):
            return verdict
        if whole_signature(tail) != whole_signature(tail2) or access2 < access:
            return verdict
        if len(params) != len(params2) or not all(map(_widened_type, params, params2)):
            return verdict
        return "compatible"

    def check_call(
        self, target: Symbol, old: Symbol | None, call: Call, overloads: Sequence[Symbol]
    ) -> CallCheck | None:
        """Java picks among overloads by argument count and types: no
        overload that takes this many arguments will break the call; the
        changed one taking them with its parameter types unchanged is fine;
        anything else depends on types the call's text does not give."""
        if target.kind not in CALLABLE_KINDS:
            return None
        counts = [_arity(s) for s in (target, *overloads)]
        if any(c is None for c in counts):
            return None
        n = call.positional
        if not any(_takes(c, n) for c in counts if c is not None):
            return CallCheck(WILL_BREAK, f"no overload takes {n} argument(s)")
        own = _parameters(target)
        before = _parameters(old) if old is not None else own
        if own is not None and before is not None and _takes(_arity(target), n) and own[:n] == before[:n]:
            return CallCheck(FINE)
        if not overloads:  # one definition: whether its new types take the arguments (commons-lang3 3.17 DiffResult)
            return CallCheck(UNKNOWN, "its parameter types changed: the arguments' types decide")
        return CallCheck(UNKNOWN, "which overload it binds to depends on argument types")


# where a type's or a method's type parameters open: `class Name<`, or `<`
# after the modifiers alone
_TYPE_HEAD = re.compile(r"\b(?:class|interface|record)\s+[\w$]+\s*<")
_METHOD_HEAD = re.compile(
    r"\s*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*<"
)


def _callers_view(signature: str) -> tuple[str, list[str], str] | None:
    """A method's signature as callers see it (no annotations, no `final`
    …): the text before its parameters, each parameter's type (the name left
    out; C-style `int a[]` keeps its brackets), the text after them."""
    text = _NOT_FOR_CALLERS.sub(" ", _ANNOTATION.sub(" ", signature))
    start = text.find("(")
    inner = parameters(text, start) if start >= 0 else None
    if inner is None:
        return None
    types = []
    for parameter in top_level_split(inner, ","):
        words = parameter.split()
        if words:
            # the last word is the name (`int[] a`, `T... xs`)
            name = words[-1]
            types.append("".join(words[:-1]) + (name[name.index("[") :] if "[" in name else ""))
    return text[:start], types, text[start + len(inner) + 2 :]


_ACCESS_WORD = re.compile(r"\b(?:public|protected|private)\b")
_ACCESS_RANK = {"private": 0, "protected": 2, "public": 3}  # none: the package's, 1
# (parameter types come without white space: `Comparable<?superT>`)
_WILDCARD = re.compile(r"\?\s*(?:super|extends)(?=[\s\w$])\s*")


def _type_parameters_apart(head: str) -> tuple[str, str]:
    """A method's type parameters (`T extends Comparable<T>`) and the rest of
    the text before its parameters (modifiers, return type, name)."""
    declared = _METHOD_HEAD.match(head)
    inner = _angles(head, declared.end() - 1) if declared is not None else None
    if declared is None or inner is None:
        return "", head
    return inner, head[: declared.end() - 1] + " " + head[declared.end() + len(inner) + 1 :]


def _access(head: str) -> int:
    found = _ACCESS_WORD.search(head)
    return _ACCESS_RANK[found.group()] if found else 1


def _widened_type(before: str, after: str) -> bool:
    """Whether a parameter of type ``after`` takes every argument one of
    type ``before`` took: the same type, or type arguments made wildcard
    bounds on themselves (`Comparable<T>` -> `Comparable<? super T>`), the
    wildcards it had kept."""
    if before == after:
        return True
    kept = _WILDCARD.findall(before)
    return _WILDCARD.sub("", before) == _WILDCARD.sub("", after) and all(
        _WILDCARD.findall(after).count(w) >= kept.count(w) for w in set(kept)
    )


def _angles(text: str, start: int) -> str | None:
    """The text inside the balanced `<…>` opening at ``start``, or None."""
    return balanced(text, start, "<", ">")


_ANNOTATION = re.compile(r"@[\w.$]+(?:\s*\((?:[^()]|\([^()]*\))*\))?")
_NOT_FOR_CALLERS = re.compile(r"\b(?:final|synchronized|native|strictfp)\b")


def _type_name(node: ts.Node | None) -> ts.Node | None:
    """`Foo`, `a.b.Foo`, `Foo<T>`: the class's own name."""
    while node is not None and node.type in ("generic_type", "scoped_type_identifier"):
        names = [c for c in node.named_children if c.type in ("type_identifier", "scoped_type_identifier", "generic_type")]
        if not names:
            return None
        node = names[-1] if node.type == "scoped_type_identifier" else names[0]
    return node if node is not None and node.type == "type_identifier" else None


def _parameters(symbol: Symbol) -> list[str] | None:
    """Each declared parameter's type (with its modifiers; the name left out)."""
    name = symbol.qualified_name.rpartition(".")[0].rpartition(".")[2] if symbol.name == "<init>" else symbol.name
    text = parameters_after(symbol.signature, name)
    if text is None:
        return None
    return [" ".join(p.split()[:-1]) for p in top_level_split(text, ",") if p.strip()]


def _arity(symbol: Symbol) -> tuple[int, bool] | None:
    """(parameter count, whether the last one is varargs `T...`)."""
    params = _parameters(symbol)
    if params is None:
        return None
    return len(params), bool(params) and "..." in params[-1]


def _takes(arity: tuple[int, bool] | None, n: int) -> bool:
    if arity is None:
        return False
    count, varargs = arity
    return n == count or varargs and n >= count - 1


def _grammar() -> ts.Language:
    import tree_sitter_java

    return ts.Language(tree_sitter_java.language())


JAVA = Java(
    name="java",
    extensions=(".java",),
    syntax=Syntax(
        name="java",
        load_grammar=_grammar,
        load_query=query_text("java"),
        decode_import=decode,
        comment_types=("line_comment", "block_comment"),
        self_names=("this",),
        receiver_rewrites=((r"^new\s+([\w$.]+)\s*(?:<[^()]*>)?\s*\(", r"\1("),),
    ),
    scope=ScopeRules(
        self_names=("this",),
        package_is_directory=True,
        builtins=JAVA_BUILTINS,
        implicit_self=True,
        last_definition_wins=False,
        outer_parameters_visible=True,
        common_methods=JAVA_COMMON_METHODS,
        guess_on_expressions=False,
        # `Type name` in a parameter list; lookaheads put the name in group 1
        parameter_pattern=(
            r"[(,]\s*(?:final\s+|@[\w.]+(?:\([^()]*\))?\s+)*"
            r"(?=[\w.$]+(?:<[^()]*?>)?(?:\[\])*(?:\.\.\.)?\s+(\w+)\s*[,)])(?=([\w$]+(?:\.[\w$]+)*))"
        ),
    ),
    test_files=r"(^|/)[^/]*Tests?\.java$",
    test_runner="maven",
)
