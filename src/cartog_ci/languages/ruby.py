"""Ruby: `require` / `require_relative`, files on the load path.

Imports: Ruby ``require`` / ``require_relative`` -> (module spec, ``"*"``, None).

A required file's top-level constants become visible everywhere, which is a
star import of that file. The spec keeps the two lookups apart:
``require_relative 'x/y'`` -> ``./x/y`` (relative to the requiring file),
``require 'foo/bar'`` -> ``foo/bar`` (searched on the load path; the finder
matches it as a path suffix, ``lib/foo/bar.rb`` first).

Module lookup: Ruby module lookup for ``require`` / ``require_relative`` specs (see
the decoder above): ``./x`` is relative to the requiring file;
``foo/bar`` is looked up on the load path, i.e. ``foo/bar.rb`` directly below
the repository root or a ``lib/``, ``test/`` or ``spec/`` directory. A gem
or standard library name matches nothing and the import is external.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

import tree_sitter as ts

from cartog_ci.domain import Symbol
from cartog_ci.languages import testrunners
from cartog_ci.languages.base import Language, Project, ScopeRules, parameters, query_text, top_level_split, whole_signature
from cartog_ci.languages.testrunners import TestCommand, Workspace
from cartog_ci.languages.paths import closest, path_index
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.syntax import ImportTriple, Syntax


def decode(node: ts.Node) -> list[ImportTriple]:
    method = _text(node.child_by_field_name("method"))
    args = node.child_by_field_name("arguments")
    literal = args.named_children[0] if args is not None and args.named_children else None
    if literal is None or literal.type != "string":
        return []
    # an interpolated string (`require "#{dir}/x"`) names no file we can know
    if any(c.type == "interpolation" for c in literal.named_children):
        return []
    spec = "".join(_text(c) for c in literal.named_children if c.type == "string_content")
    if not spec:
        return []
    if method == "require_relative" and not spec.startswith("."):
        spec = f"./{spec}"
    return [(spec, "*", None)]


_LOAD_DIRS = ("lib", "test", "spec")


def find_module(table: Project, importer: str, spec: str) -> list[str]:
    rel = spec if spec.endswith(".rb") else f"{spec}.rb"
    if spec.startswith("."):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), rel))
        return [path] if table.language_of_file.get(path) == "ruby" else []
    candidates = [
        c
        for c in path_index(table, "ruby").files.get(rel, [])
        if c == rel or posixpath.basename(c[: -len(rel) - 1]) in _LOAD_DIRS
    ]
    lib = [c for c in candidates if posixpath.basename(c[: -len(rel) - 1]) == "lib"]
    return lib if len(lib) == 1 else closest(importer, candidates)


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


# `attr_reader :a, :b` (a call that may go on over lines after each comma):
# group 1 the macro, group 2 its symbol list
_ATTRIBUTES = r"(attr_reader|attr_accessor|attr_writer|attr)\b[ \t(]*((?::\w+[?!]?|[\"']\w+[\"'])(?:[ \t]*,\s*(?::\w+[?!]?|[\"']\w+[\"']))*)"


def _declared_names(macro: str, symbols: str) -> set[str]:
    """The methods one ``attr_*`` line defines: `name` for a reader,
    `name=` for a writer, both for an accessor."""
    names = {s.strip().lstrip(":").strip("\"'") for s in symbols.split(",")}
    readers = names if macro != "attr_writer" else set()
    writers = {f"{n}=" for n in names} if macro in ("attr_accessor", "attr_writer") else set()
    return readers | writers


def call_shape(signature: str) -> str:
    """What a Ruby call depends on: the place of each positional parameter
    (its name is the method's own: a caller cannot pass it by name) and
    whether it has a default, the keywords by name, splats and the block
    (addressable 2.8.7 changed the default of `encode_component`'s
    `character_class`: no call changed)."""
    params = parameters(signature)
    if params is None:
        return whole_signature(signature)
    shape = []
    for raw in top_level_split(params, ","):
        param = raw.strip()
        if not param:
            continue
        if param.startswith(("**", "*", "&")):
            shape.append(param[: 2 if param.startswith("**") else 1])
            continue
        head, eq, _ = param.partition("=")
        name, colon, default = head.partition(":")
        if colon:  # a keyword, `name:` or `name: default`
            shape.append(f"{name.strip()}:" + ("=" if default.strip() else ""))
        else:
            shape.append("_" + ("=" if eq else ""))
    return ",".join(shape)


def is_spec_file(path: str) -> bool:
    """An RSpec file: `*_spec.rb`, or any file under a `spec/` folder
    (languages/testrunners.py ``ruby_commands`` runs them with rspec)."""
    return path.endswith("_spec.rb") or re.search(r"(^|/)spec/", path) is not None


class Ruby(Language):
    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        return find_module(project, importer, spec)

    def call_shape(self, signature: str) -> str:
        return call_shape(signature)

    def binds_by_assignment(self, lines: Sequence[str], name: str, indent: int) -> bool:
        """An ``attr_reader`` / ``attr_accessor`` / ``attr_writer`` at the
        body's level that declares ``name`` (``name=`` for a writer), or an
        ``alias`` / ``alias_method`` / ``define_method`` of it: the method
        still exists (addressable 2.8.1 -> 2.8.7 replaced `def scheme …
        end` by `attr_reader :scheme`)."""
        text = "\n".join(lines)
        lead = rf"^[ \t]{{{indent}}}"
        for found in re.finditer(lead + _ATTRIBUTES, text, re.MULTILINE):
            if name in _declared_names(found.group(1), found.group(2)):
                return True
        symbol = rf"(?::{re.escape(name)}|[\"']{re.escape(name)}[\"'])(?![\w?!=])"
        defined = (
            rf"{lead}(?:alias_method[ \t(]*{symbol}|define_method[ \t(]*{symbol}"
            rf"|alias[ \t]+:?{re.escape(name)}(?![\w?!=]))"
        )
        return re.search(defined, text, re.MULTILINE) is not None

    def is_test(self, symbol: Symbol) -> bool:
        """A spec file itself (the calls in `it ... do` blocks belong to the
        file's module symbol) or a method of one; in another test file, a
        `test_…` method: what minitest and test-unit run (`setup` and the
        helpers beside the tests are test code, not tests: tzinfo's
        `-n '/^(setup)$/'` ran nothing)."""
        if symbol.kind == "module":
            return symbol.file.endswith("_spec.rb")
        if not super().is_test(symbol):
            return False
        return is_spec_file(symbol.file) or symbol.name.startswith("test_")

    def test_commands(self, tests: Sequence[Symbol], ws: Workspace) -> list[TestCommand]:
        return testrunners.ruby_commands(tests, ws)


def _grammar() -> ts.Language:
    import tree_sitter_ruby

    return ts.Language(tree_sitter_ruby.language())


RUBY = Ruby(
    name="ruby",
    interfaces=False,
    extensions=(".rb", ".rake", ".gemspec"),
    syntax=Syntax(
        name="ruby",
        load_grammar=_grammar,
        load_query=query_text("ruby"),
        decode_import=decode,
        self_names=("self",),
        receiver_rewrites=((r"\.new\b(?![?!=])", ""),),
    ),
    scope=ScopeRules(
        self_names=("self",),
        builtins=RUBY_BUILTINS,
        implicit_self=True,
        outer_methods_visible=False,
        unique_methods=False,
    ),
    test_files=r"(^|/)[^/]*_(spec|test)\.rb$",
    test_runner="rspec",
    reopened_methods=True,
)
