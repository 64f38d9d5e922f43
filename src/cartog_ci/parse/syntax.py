"""What the generic tags extractor needs to know of a language's syntax.

A language (``cartog_ci.languages``) hands one ``Syntax`` to
``parse.extract.extract``; this package knows no language by name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Container
from dataclasses import dataclass
from functools import cached_property, lru_cache

import tree_sitter as ts

from cartog_ci.parse import predicates as text_predicates

# (module spec as written, imported name, local alias): see docs/languages.md
ImportTriple = tuple[str, str, str | None]
ImportDecoder = Callable[[ts.Node], list[ImportTriple]]
# A definition's name, or an imported name, that is the file's own: a query's
# `(#set! name "<file>")` (CommonJS `module.exports = function () {}`);
# parse/extract.py puts ``file_symbol_name(path)`` in its place.
FILE_NAMED = "<file>"


def file_symbol_name(path: str, taken: Container[str] = ()) -> str:
    """``lib/parse.js`` -> ``parse``; an index file is its directory's
    (``lib/index.js`` -> ``lib``, ``index.js`` -> ``index``); ``exports``
    when the file defines that name itself (qs's `lib/stringify.js` has a
    `var stringify` the exported function calls)."""
    parts = path.rsplit("/", 2)
    stem = parts[-1].split(".", 1)[0]
    name = parts[-2] if stem == "index" and len(parts) > 1 else stem
    return "exports" if name in taken else name


TYPE_PARENTS = frozenset({"class", "interface", "trait", "struct", "enum"})


_GENERIC_TAIL = re.compile(r"^([\w$.]+)\s*[\[<].*[\]>]$", re.S)
_NAME = re.compile(r"[\w$]+(?:\.[\w$]+)*")
_NOTHING = frozenset({"None", "null", "undefined", "void", "nil"})
_POINTER = re.compile(r"^(?:[*&]\s*(?:mut\s+)?)+")  # Go `*T`, Rust `&mut T`: the value is a T
_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\s*\[(.*)\]$", re.S)
_CAPTURE = re.compile(r"@([\w.]+)")
_COMMENT_OR_STRING = re.compile(r';[^\n]*|"(?:[^"\\]|\\.)*"')
_SET_NAME = re.compile(r'\(\s*#set!\s+name\s+"((?:[^"\\]|\\.)*)"\s*\)')


@lru_cache(maxsize=1 << 14)  # annotations recur (`str`, `Optional[Request]`)
def plain_type(annotation: str) -> str | None:
    """The one named type an annotation gives a value, or None: quotes and
    `Optional[X]` / `X | None` are looked through, generic arguments dropped
    (`list[Foo]` is a list), unions of two types are no answer."""
    text = _POINTER.sub("", annotation.strip().strip("\"'").strip())
    optional = _OPTIONAL.match(text)
    if optional:
        text = optional.group(1).strip()
    parts = [p.strip() for p in _top_level(text, "|") if p.strip() not in _NOTHING]
    if len(parts) != 1:
        return None
    text = parts[0].strip("\"'")
    generic = _GENERIC_TAIL.match(text)
    if generic:
        text = generic.group(1)
    return text if _NAME.fullmatch(text) else None


def python_parameters(signature: str) -> list[str]:
    """The parameter names of a Python ``def`` signature, in order
    (``def f(self, key, *values, default=None)``: self, key, values,
    default): its parentheses' text split at its top-level commas, each
    piece's name before an annotation or a default."""
    start = signature.find("(")
    if start < 0:
        return []
    pieces: list[str] = []
    piece: list[str] = []
    depth = 0
    for char in signature[start + 1 :]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(char)
    pieces.append("".join(piece))
    names = (re.split(r"[:=]", raw, maxsplit=1)[0].strip().lstrip("*").strip() for raw in pieces)
    return [name for name in names if name.isidentifier()]


def _top_level(text: str, sep: str) -> list[str]:
    depth, start, out = 0, 0, []
    for i, ch in enumerate(text):
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _patterns(query: str) -> list[str]:
    """The source of a query cut before each top-level pattern (each piece
    keeps the comments and captures that follow its pattern): a second
    compiled query only to read its pattern offsets cost as much as the
    query itself."""
    cuts = [0]
    depth, i, n = 0, 0, len(query)
    while i < n:
        ch = query[i]
        if ch == ";":  # a comment, to the end of its line
            end = query.find("\n", i)
            i = n if end < 0 else end
        elif ch == '"':  # a string: brackets in it do not count
            i += 1
            while i < n and query[i] != '"':
                i += 2 if query[i] == "\\" else 1
        elif ch in "([":
            if depth == 0:
                cuts.append(i)
            depth += 1
        elif ch in ")]":
            depth -= 1
        i += 1
    cuts.append(n)
    return [query[a:b] for a, b in zip(cuts, cuts[1:]) if a < b]


def query_digest(text: str) -> str:
    """A digest of a query's source that its comments and layout leave alone."""
    plain = _COMMENT_OR_STRING.sub(lambda m: m[0] if m[0][0] == '"' else " ", text)
    return hashlib.sha1(" ".join(plain.split()).encode()).hexdigest()[:16]


def _captures(query: ts.Query, text: str, checks: text_predicates.Predicates) -> tuple[frozenset[str], ...]:
    """Per pattern of ``query`` (compiled from ``text``), the names of the
    captures it writes, those its ``#child?`` predicates add included."""
    source = text.encode()
    texts = (source[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)] for i in range(query.pattern_count))
    found = [set(_CAPTURE.findall(_COMMENT_OR_STRING.sub(" ", t.decode()))) for t in texts]
    for i, mine in checks.items():
        found[i].update(argument[0] for kind, _, _, _, argument in mine if kind == "child")  # type: ignore[index]
    return tuple(map(frozenset, found))


def no_imports(node: ts.Node) -> list[ImportTriple]:
    return []


@dataclass(frozen=True, eq=False)
class Syntax:
    name: str
    load_grammar: Callable[[], ts.Language]
    load_query: Callable[[], str]  # the tags query's source
    decode_import: ImportDecoder = no_imports
    # Node types whose range includes decorators/attributes/comments that
    # belong to the definition they wrap (Python decorated_definition).
    wrappers: tuple[str, ...] = ()
    body_fields: tuple[str, ...] = ("body",)
    comment_types: tuple[str, ...] = ("comment",)
    # Kinds a function becomes a method under.
    method_parents: frozenset[str] = TYPE_PARENTS
    # The receiver names of a method (`self`, `this`): a class field bound
    # to a constructor (`repo = new Repo()`) is `<first>.repo`.
    self_names: tuple[str, ...] = ()
    # re.sub pairs applied to a call's `@receiver` so that a receiver built
    # by a constructor reads like a call: `new Foo(a)` / `Foo.new(a)` -> `Foo(a)`.
    receiver_rewrites: tuple[tuple[str, str], ...] = ()
    # Node types that hold one definition and whose preceding comment is its
    # documentation (Go `type_declaration` around a `type_spec`), climbed only
    # when the definition opens the parent's first line.
    doc_parents: tuple[str, ...] = ()
    # Python: the docstring is the first string of the body (and of the module),
    # not the comment before the definition.
    docstring_in_body: bool = False
    # JS/TS: a callee on a chain of calls (`z.string().min(1).parse`) keeps the
    # chain as its qualifier (`z.string().min()`), not `<expr>`
    call_chains: bool = False
    # The definition patterns rooted at the tree's root (`(program
    # (lexical_declaration ...))`: module-level only) run in a pass of their
    # own that starts matches at the root alone (``top_level_query``): in the
    # one pass, each keeps a match open at the root that every node of the
    # file is then tried against (half the query time on zod's TypeScript).
    top_level_pass: bool = False
    # The matches of those root-level patterns found by walking the root's
    # children in Python, numbered and ordered as their query gives them
    # before its text predicates (``top_level_query`` is then never compiled,
    # nor run; ``_matches`` checks the predicates as ``budget.matches`` does):
    # TypeScript's four cost the compile 56 M instructions, a fixed ~25 M of
    # them for any query, JavaScript's twelve 195 M (docs/languages.md, "The
    # queries' compile"). The query's source still says what is matched: its
    # patterns' captures, names and predicates are read from it, and
    # tests/parse/test_top_level_walk.py compares the walk with the query.
    top_level_walk: Callable[[ts.Node, bytes], list[tuple[int, dict[str, list[ts.Node]]]]] | None = None
    # The ``query_digest`` of the root-level patterns' source the walk was
    # written for: with another source (a query rewritten, a pattern edited)
    # their query runs instead (``walked``).
    top_level_walk_for: str = ""
    # The names a container holds as values, for a `@values` capture (Python
    # argument lists, lists, tuples, sets, comparisons): a pattern whose
    # children have no field keeps one query match open per nesting level
    # (parse/budget.py), so the container is captured alone and its children
    # are read here.
    value_items: Callable[[ts.Node, bytes], list[ts.Node]] | None = None
    # Definitions read from the root's own children rather than matched by
    # the tags query: (kind, definition node, name node) of a tree's root
    # (Python's module-level UPPER_CASE constants: a pattern on
    # `assignment` that only says where it is and how it is named is tried
    # on every assignment of the file, 8,021 on scrapy 2.11.2, and keeps 234).
    module_definitions: Callable[[ts.Node], list[tuple[str, ts.Node, ts.Node]]] | None = None
    # The names a definition's node binds as its own (``@local.definition``
    # with the node as ``@local.scope``), read when the tags query matches the
    # definition (Python's parameters: a pattern matched once a parameter).
    definition_locals: Callable[[ts.Node], list[ts.Node]] | None = None
    # The decorator that marks a type-only declaration of a function whose
    # implementation follows under the same name (Python ``@overload``,
    # ``@typing.overload``): the implementation keeps the name's plain ID, so
    # that a function which gains overloads is compared with itself.
    overload_decorator: str = ""
    # Python: a name assigned in a function (or at a module's top level) is
    # that scope's own; a call of it calls the assigned value, never another
    # file's definition of that name (parse/extract.py ``_shadowed``).
    assignments_shadow: bool = False

    @cached_property
    def grammar(self) -> ts.Language:
        return self.load_grammar()

    @cached_property
    def _tags(self) -> tuple[ts.Query, int, str]:
        """The tags query with the comments' pattern appended, the index
        of that pattern, and the query's source: one pass over the tree finds
        both (a second query for the comments cost ~5 % of extraction). A
        grammar without those comment types gets the tags query alone (no
        comment is then found). The patterns' numbers, captures and settings
        are read from this query (``_first``), which ``query_without`` may
        have narrowed since: disabling a pattern changes none of them."""
        tags = self._split_predicates[0]
        pattern = self._comment_pattern
        if pattern:
            joined = f"{tags}\n{pattern}\n"
            try:
                query = ts.Query(self.grammar, joined)
            except (ts.QueryError, ValueError):
                pass
            else:
                return query, query.pattern_count - 1, joined
        query = ts.Query(self.grammar, tags)
        return query, query.pattern_count, tags

    @cached_property
    def pattern_captures(self) -> tuple[frozenset[str], ...]:
        """Per pattern of ``query``, the names of the captures it writes
        (comments and strings of the query's source aside), those its
        ``#child?`` predicates add included (parse/predicates.py)."""
        query, _, text = self._tags
        return _captures(query, text, self.predicates)

    @cached_property
    def top_level_captures(self) -> tuple[frozenset[str], ...]:
        """``pattern_captures`` of ``top_level_query`` (read from its source
        alone with ``top_level_walk``)."""
        if self.walked is not None:
            return tuple(captures for captures, _, _ in self._top_level_texts)
        query = self.top_level_query
        return _captures(query, self._top_level_source[0], self.top_level_predicates) if query is not None else ()

    @cached_property
    def _top_level_texts(self) -> tuple[tuple[frozenset[str], str, tuple[text_predicates.Predicate, ...]], ...]:
        """Per root-level pattern, read from the source without compiling it
        (``top_level_walk``): the captures it writes, those its ``#child?``
        predicates add included, the name it sets (``#set! name``) or "", and
        its text predicates."""
        text, located = self._top_level_source
        out: list[tuple[frozenset[str], str, tuple[text_predicates.Predicate, ...]]] = []
        start = 0
        for piece in _patterns(text):
            end = start + len(piece.encode())
            if piece.lstrip().startswith(("(", "[")):
                mine = tuple(predicate for at, predicate in located if start <= at < end)
                found = set(_CAPTURE.findall(_COMMENT_OR_STRING.sub(" ", piece)))
                found.update(argument[0] for kind, _, _, _, argument in mine if kind == "child")  # type: ignore[index]
                named = _SET_NAME.search(_COMMENT_OR_STRING.sub(lambda m: m[0] if m[0][0] == '"' else " ", piece))
                out.append((frozenset(found), named.group(1) if named else "", mine))
            start = end
        if sum(len(mine) for _, _, mine in out) != len(located):
            raise ValueError("a predicate outside any root-level pattern")
        return tuple(out)

    def query_without(self, patterns: frozenset[int]) -> tuple[ts.Query, tuple[int, ...] | None]:
        """A tags query of its own without ``patterns``, and the number in
        ``query`` of each of its patterns (None: the same numbers, which
        ``fixed_names``, ``comment_pattern`` and ``predicates`` use). The
        first one narrows the query compiled for the patterns' metadata when
        no match has run it (``query`` compiles its own then;
        ``Query.disable_pattern`` cannot be undone): a report on a warm index
        runs narrowed queries alone, and compiled the tags query once more for
        its metadata (Python 40 ms, TypeScript 100 ms). Any later one is
        compiled from the other patterns' source alone: tree-sitter analyses
        each pattern when it compiles a query, and a report's second side
        compiled the whole TypeScript query again (857 M instructions) to
        disable most of it. A query's matches come in the order of the node
        each finishes at, then of the depth it started at, then of its
        pattern's number, so the patterns kept give the same matches in the
        same order either way (tests/parse/test_edge_kinds.py)."""
        if "query" not in self.__dict__ and not self.__dict__.get("_lent"):
            self.compile()  # the metadata, read before any pattern is disabled
            self.fixed_names  # noqa: B018
            self.within  # noqa: B018
            self.pattern_captures  # noqa: B018
            self.__dict__["_lent"] = True
            query = self._first
            for i in sorted(patterns):
                query.disable_pattern(i)
            return query, None
        first = self._first
        kept = tuple(i for i in range(first.pattern_count) if i not in patterns)
        source = self._tags[2].encode()
        pieces = (source[first.start_byte_for_pattern(i) : first.end_byte_for_pattern(i)] for i in kept)
        return ts.Query(self.grammar, b"\n".join(pieces).decode()), kept

    @property
    def _comment_pattern(self) -> str:
        """The pattern that captures comments ("" for a grammar with none)."""
        patterns = " ".join(f"({t}) @comment" for t in self.comment_types)
        return f"[{patterns}]" if len(self.comment_types) > 1 else patterns

    @cached_property
    def comment_query(self) -> ts.Query | None:
        """The comments' pattern of ``query`` alone (None: the grammar has no
        such node): the comments a report reads without the tags query
        (``extract.code_hashes``)."""
        pattern = self._comment_pattern
        if not pattern:
            return None
        try:
            return ts.Query(self.grammar, f"{pattern}\n")
        except (ts.QueryError, ValueError):
            return None

    @cached_property
    def _split_query(self) -> tuple[str, str]:
        """The tags query's source without its root-level definition patterns,
        and those patterns ("" without ``top_level_pass``)."""
        tags = self.load_query()
        if not self.top_level_pass:
            return tags, ""
        root = ts.Parser(self.grammar).parse(b"").root_node.type
        rest: list[str] = []
        top: list[str] = []
        for text in _patterns(tags):
            rooted = text.lstrip("( \t\n").split(None, 1)[0].rstrip(")") == root
            definitions_only = "@definition." in text and not any(
                mark in text for mark in ("@reference.", "@bind", "@local.")
            )
            (top if rooted and definitions_only else rest).append(text)
        return "".join(rest), "".join(top)

    @cached_property
    def top_level_query(self) -> ts.Query | None:
        """The root-level definition patterns (``top_level_pass``), or None."""
        top = self._top_level_source[0]
        return ts.Query(self.grammar, top) if top else None

    @cached_property
    def _split_predicates(self) -> tuple[str, list[tuple[int, text_predicates.Predicate]]]:
        """The tags query's source with its text predicates blanked out, and
        those (parse/predicates.py)."""
        return text_predicates.split(self._split_query[0])

    @cached_property
    def _top_level_source(self) -> tuple[str, list[tuple[int, text_predicates.Predicate]]]:
        return text_predicates.split(self._split_query[1])

    @cached_property
    def predicates(self) -> text_predicates.Predicates:
        """Per pattern of ``query`` (and of ``query_without``'s), its text
        predicates, which ``budget.matches`` checks."""
        return text_predicates.assign(self._first, self._split_predicates[1])

    @cached_property
    def top_level_predicates(self) -> text_predicates.Predicates:
        """``predicates`` of ``top_level_query`` (read from its source alone
        with ``top_level_walk``)."""
        if self.walked is not None:
            return {i: mine for i, (_, _, mine) in enumerate(self._top_level_texts) if mine}
        query = self.top_level_query
        return text_predicates.assign(query, self._top_level_source[1]) if query is not None else {}

    @cached_property
    def walked(self) -> Callable[[ts.Node, bytes], list[tuple[int, dict[str, list[ts.Node]]]]] | None:
        """``top_level_walk`` when it was written for these root-level
        patterns (``top_level_walk_for``), else None."""
        walk = self.top_level_walk
        if walk is None or query_digest(self._split_query[1]) != self.top_level_walk_for:
            return None
        return walk

    @property
    def has_top_level(self) -> bool:
        """Whether root-level patterns run in a pass of their own (``top_level_pass``)."""
        return bool(self._top_level_source[0])

    @cached_property
    def top_level_names(self) -> tuple[str, ...]:
        """``fixed_names`` of ``top_level_query``."""
        if self.walked is not None:
            return tuple(name for _, name, _ in self._top_level_texts)
        query = self.top_level_query
        return tuple(query.pattern_settings(i).get("name") or "" for i in range(query.pattern_count)) if query else ()

    def compile(self) -> None:
        """Compile the tags queries now: a process pool's forked workers
        then inherit them instead of each compiling its own."""
        self.predicates  # noqa: B018
        self.top_level_predicates  # noqa: B018

    @cached_property
    def query(self) -> ts.Query:
        """The tags query; its patterns from ``comment_pattern`` on capture
        comments. The one compiled for the metadata, unless
        ``query_without`` narrowed that one first."""
        return ts.Query(self.grammar, self._tags[2]) if self.__dict__.get("_lent") else self._first

    @property
    def _first(self) -> ts.Query:
        """The query compiled first, for the patterns' metadata: numbers,
        captures, settings (``query_without`` may have narrowed it)."""
        return self._tags[0]

    @property
    def pattern_count(self) -> int:
        """The patterns of ``query`` (``comment_pattern`` included)."""
        return self._first.pattern_count

    @cached_property
    def capture_names(self) -> tuple[str, ...]:
        """The capture names of ``query``."""
        query = self._first
        return tuple(map(query.capture_name, range(query.capture_count)))

    @property
    def comment_pattern(self) -> int:
        """The index of the pattern that captures comments (the pattern count: none)."""
        return self._tags[1]

    @cached_property
    def within(self) -> tuple[tuple[str, ...], ...]:
        """Per pattern of the tags query, the ancestors' types its
        ``(#set! within "a b")`` names, nearest first (parse/extract.py
        ``_local_scope``), or ()."""
        query = self._first
        return tuple(tuple((query.pattern_settings(i).get("within") or "").split()) for i in range(query.pattern_count))

    @cached_property
    def fixed_names(self) -> tuple[str, ...]:
        """Per pattern of the tags query, the name it sets (``#set! name``), or ""."""
        query = self._first
        return tuple(query.pattern_settings(i).get("name") or "" for i in range(query.pattern_count))
