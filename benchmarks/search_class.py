"""The class-naming question set (``benchmarks/search-class.jsonl``): real
docstrings of methods of projects that are not in the dev set, each asked
with the method's class named, the way a user who knows the class but not
the method asks ("… in the SortedList instance").

    .venv/bin/python benchmarks/search_class.py                 # rebuild benchmarks/search-class.jsonl
    .venv/bin/python benchmarks/search_eval.py --set dev --dev-set benchmarks/search-class.jsonl

The file holds only the questions and their answers (no third-party
source); this script rebuilds it from the sdists, downloaded with
``pip download --no-deps --no-binary :all: NAME==VERSION`` by
``benchmarks/corpora.py``.

Which methods (``targets``):

- a method (a ``def`` directly in a class body) of the package's own code
  (``PACKAGES``; not its tests, docs or examples), in a ``.py`` file;
- with a body: not a declaration (``@abstractmethod``, ``@overload``, a body
  of only ``...``, ``pass`` or ``raise NotImplementedError``, a method of a
  ``Protocol`` or of a zope ``Interface``): the question is about the code
  that does it, which search must rank above the declarations;
- with a docstring whose first sentence has at least ``MIN_WORDS`` words;
- not private (``_name``), except dunders other than ``__init__``;
- a first sentence that no other target of the project has (after the
  rewrite below): a question with two right answers is dropped.

How a docstring becomes a question, using the docstring only:

- **first sentence**: the docstring's first sentence (``first_sentence``:
  its first paragraph, whitespace collapsed, up to the first ``.``, ``!``
  or ``?`` followed by a space). When it does not name the class already,
  the class is named in one of three forms (``form_of``, by the SHA-256 of
  ``path:qualname``), X being the class's name; nothing else is added or
  changed:

  - ``instance`` (half of the questions): its final punctuation is dropped
    and `` in the X instance.`` is appended (`` of the X class.`` for a
    classmethod or staticmethod), the form of most of the dev set's
    descriptions of methods ("… in the KeyValue instance.");
  - ``bare`` (a quarter): `` in X.`` appended, no kind word ("… on a
    specified folder in IMAPClient.", also in the dev set);
  - ``prefix`` (a quarter): ``X: `` before the sentence, the class first,
    as an issue title or a commit subject names it ("SortedList: Add
    `value` to sorted list."). Before the two other forms, every question
    ended "in the X instance." or "of the X class.": rules fitted to one
    template would have passed;
- **full description**: that sentence, then the rest of the docstring's
  prose paragraphs, whitespace collapsed, up to the first section that is
  not prose (``:param``, ``Args:``, ``Returns:``, a numpy-style underline,
  ``>>>``, a ``::`` literal block or a ``..`` directive), at most
  ``MAX_FULL`` characters, cut after a sentence;
- in both, Sphinx roles are read as their text (``:meth:`~a.B.c``` → ``c``)
  and double back-quotes as single ones.

Each project gives at most ``PER_PROJECT`` questions, chosen by the SHA-256
of ``path:qualname`` (stable, independent of the order of the files).

The corpus a question is asked of (``stripped_root``) is the sdist with the
docstrings of the targets blanked (``search_eval.strip_docstrings``' way: the
span becomes blank lines, no line moves), so that a question is not found
by its own text; every other docstring stays, among them those of the
interfaces and abstract methods the targets implement, as in the project.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402  (benchmarks/ is not a package)

HERE = Path(__file__).resolve().parent
SET_FILE = HERE / "search-class.jsonl"
WORK = corpora.CORPORA_DIR / "search-class"
MARK = ".cartog-search-class-ready"
MIN_WORDS = 4
PER_PROJECT = 100
MAX_FULL = 700
CORPUS_KIND = "targets' docstrings stripped"

# PyPI name -> (version, package directories of the sdist). None of these is
# in the dev set (benchmarks/search_dev.py RELEASES). Chosen for documented
# classes and for what the ranking rules meet in them: anyio's abstract
# stream classes, transaction's zope interfaces, werkzeug's examples/ and
# click's examples/ beside the library, sortedcontainers' plain classes.
PROJECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "anyio": ("4.2.0", ("src/anyio/",)),
    "click": ("8.1.7", ("src/click/",)),
    "sortedcontainers": ("2.4.0", ("sortedcontainers/",)),
    "transaction": ("4.0", ("src/transaction/",)),
    "Werkzeug": ("3.0.1", ("src/werkzeug/",)),
}
_SKIP_PATH = re.compile(r"(^|/)(tests?|testing|docs?|examples?)(/|\.py$)|(^|/)(test_[^/]*|conftest)\.py$")


def corpus_of(pypi: str, version: str) -> corpora.Corpus:
    return corpora.Corpus(f"class-{pypi.lower()}", pypi, version, "")


# -- targets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    path: str
    qualname: str
    cls: str
    classlevel: bool  # classmethod / staticmethod
    doc: str


def is_declaration(node: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef) -> bool:
    """A method without an implementation: abstract, an overload, a stub
    body, or a member of a Protocol or a zope Interface."""
    names = {_name(d) for d in node.decorator_list}
    if names & {"abstractmethod", "abstractproperty", "overload"}:
        return True
    bases = {_name(b) for b in owner.bases}
    if bases & {"Protocol", "Interface"} or any(re.fullmatch(r"I[A-Z]\w*", b) for b in bases):
        return True
    body = [s for s in node.body if not _is_string(s)]
    if not body:
        return True
    if len(body) == 1:
        stmt = body[0]
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return True
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplementedError" in ast.dump(stmt.exc):
            return True
    return False


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


def _is_string(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def methods(tree: ast.Module) -> Iterable[tuple[str, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, class, def) of every method, classes nested in
    classes included (the extractor's dotted names)."""

    def visit(node: ast.AST, prefix: str) -> Iterable[tuple[str, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                for member in child.body:
                    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield f"{prefix}{child.name}.{member.name}", child, member
                yield from visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.If, ast.Try)):
                yield from visit(child, prefix)

    yield from visit(tree, "")


def _package_trees(root: Path, packages: Sequence[str]) -> list[tuple[str, ast.Module]]:
    out = []
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(root).as_posix()
        if not rel.startswith(tuple(packages)) or _SKIP_PATH.search(rel[len(_prefix(rel, packages)) :]):
            continue
        try:
            out.append((rel, ast.parse(file.read_bytes())))
        except SyntaxError:
            continue
    return out


class Docs:
    """Where a method's description is when its own docstring does not give
    it: inherited from a base class or a zope interface it implements (what
    ``inspect.getdoc`` and the docs show), or in the method a ``See
    `Interface``` docstring points to (same method name)."""

    def __init__(self, trees: Sequence[tuple[str, ast.Module]]) -> None:
        self.classes: dict[str, list[ast.ClassDef]] = {}
        for _, tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append(node)

    def parents(self, owner: ast.ClassDef) -> list[str]:
        names = [_name(b) for b in owner.bases]
        for decorator in owner.decorator_list:
            if isinstance(decorator, ast.Call) and _name(decorator) in ("implementer", "implementer_only"):
                names += [_name(a) for a in decorator.args]
        return [n for n in names if n]

    def own(self, cls: str, method: str) -> str | None:
        for node in self.classes.get(cls, []):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name == method:
                    doc = ast.get_docstring(member)
                    if doc:
                        return doc
        return None

    def inherited(self, owner: ast.ClassDef, method: str) -> str | None:
        queue, seen = self.parents(owner), {owner.name}
        while queue:
            name = queue.pop(0)
            if name in seen:
                continue
            seen.add(name)
            doc = self.own(name, method)
            if doc:
                return doc
            for node in self.classes.get(name, []):
                queue += self.parents(node)
        return None

    def described(self, owner: ast.ClassDef, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        doc = ast.get_docstring(node) or self.inherited(owner, node.name)
        see = re.match(r"\s*See\s+:?\w*:?`~?([\w.]+)`\.?\s*$", doc or "")
        if see:
            return self.own(see.group(1).split(".")[-1], node.name)
        return doc


def targets(root: Path, packages: Sequence[str]) -> list[Target]:
    found: list[Target] = []
    trees = _package_trees(root, packages)
    docs = Docs(trees)
    for rel, tree in trees:
        seen: Counter[str] = Counter()
        for qualname, owner, node in methods(tree):
            seen[qualname] += 1
            name = node.name
            private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
            doc = docs.described(owner, node)
            if seen[qualname] > 1 or private or name == "__init__" or not doc or is_declaration(node, owner):
                continue
            decorators = {_name(d) for d in node.decorator_list}
            if "setter" in decorators or "deleter" in decorators:
                continue
            classlevel = bool(decorators & {"classmethod", "staticmethod"})
            found.append(Target(rel, qualname, owner.name, classlevel, doc))
    # a name defined twice in a file: the extractor numbers the second (#2); skip both
    dup = Counter((t.path, t.qualname) for t in found)
    return [t for t in found if dup[(t.path, t.qualname)] == 1]


def _prefix(rel: str, packages: Sequence[str]) -> str:
    return next(p for p in packages if rel.startswith(p))


# -- the question ----------------------------------------------------------------------

_ROLE = re.compile(r":[\w:.-]+:`~?(?:[^`<]*<)?([^`>]+)>?`|`~([\w.]+)`")
_SECTION = re.compile(
    r"^\s*(?::(?:param|parameter|arg|type|returns?|rtype|raises?|yields?|var|ivar|keyword|kwarg)\b"
    r"|(?:Args|Arguments|Parameters|Returns?|Yields?|Raises|Examples?|Notes?|See Also|Attributes|Usage)\s*:?\s*$"
    r"|>>>|\.\. |[-=~]{3,}\s*$)",
    re.MULTILINE,
)


def plain(text: str) -> str:
    """Sphinx roles as their text's last dotted part, double back-quotes as one."""

    def role(match: re.Match[str]) -> str:
        return "`" + (match.group(1) or match.group(2)).strip().split(".")[-1] + "`"

    return " ".join(_ROLE.sub(role, text.replace("``", "`")).split())


def first_sentence(paragraph: str) -> str:
    flat = plain(paragraph)
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    return (match.group(1) if match else flat).strip()


def names_class(sentence: str, cls: str) -> bool:
    return re.search(rf"(?<![\w`]){re.escape(cls)}(?![\w`])", sentence) is not None


def form_of(target: Target) -> str:
    """How the question names the class (``FORMS``), chosen by the SHA-256
    of ``path:qualname``: half ``instance``, a quarter each ``bare`` and
    ``prefix``."""
    digest = int(hashlib.sha256(f"{target.path}:{target.qualname}".encode()).hexdigest()[-2:], 16)
    return ("instance", "instance", "bare", "prefix")[digest % 4]


def with_class(sentence: str, target: Target, form: str | None = None) -> str:
    if names_class(sentence, target.cls):
        return sentence
    core = sentence.rstrip().rstrip(".!?:;,").rstrip()
    form = form or form_of(target)
    if form == "bare":
        return f"{core} in {target.cls}."
    if form == "prefix":
        return f"{target.cls}: {sentence}"
    return f"{core} of the {target.cls} class." if target.classlevel else f"{core} in the {target.cls} instance."


def prose(doc: str) -> list[str]:
    """The docstring's paragraphs up to the first section that is not prose."""
    cut = _SECTION.search(doc)
    text = doc[: cut.start()] if cut else doc
    out = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        if not paragraph.strip():
            continue
        stripped = paragraph.rstrip()
        literal = stripped.endswith("::")
        out.append(plain(stripped[:-1] if literal else stripped))
        if literal:
            break
    return out


def question(target: Target) -> tuple[str, str, str] | None:
    """(first sentence, full description, the first sentence in the
    ``instance`` form: what tells two questions apart, whatever their form)."""
    paragraphs = prose(target.doc)
    if not paragraphs:
        return None
    first = first_sentence(paragraphs[0])
    if len(re.findall(r"\w+", first)) < MIN_WORDS:
        return None
    asked = with_class(first, target)
    rest = " ".join(paragraphs)[len(first) :].strip()
    full = asked
    for sentence in re.split(r"(?<=[.!?])\s+", rest):
        if not sentence or len(full) + 1 + len(sentence) > MAX_FULL:
            break
        full += " " + sentence
    return asked, full, with_class(first, target, "instance")


def _names_own_class(target: Target) -> bool:
    return names_class(first_sentence(prose(target.doc)[0]), target.cls)


def build(projects: dict[str, tuple[str, tuple[str, ...]]]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for pypi, (version, packages) in projects.items():
        root = corpora.ensure(corpus_of(pypi, version))
        asked: list[tuple[Target, str, str, str]] = []
        for target in targets(root, packages):
            q = question(target)
            if q is not None:
                asked.append((target, *q))
        counts = Counter(key.lower() for _, _, _, key in asked)
        unique = [a for a in asked if counts[a[3].lower()] == 1]
        chosen = sorted(unique, key=lambda a: hashlib.sha256(f"{a[0].path}:{a[0].qualname}".encode()).hexdigest())
        chosen = sorted(chosen[:PER_PROJECT], key=lambda a: (a[0].path, a[0].qualname))
        print(
            f"{pypi} {version}: {len(asked)} documented methods, {len(unique)} unambiguous, {len(chosen)} kept, "
            f"{sum(1 for t, *_ in chosen if _names_own_class(t))} naming the class"
            " in the docstring itself",
            file=sys.stderr,
        )
        for target, first, full, _ in chosen:
            rows.append(
                {
                    "project": pypi,
                    "pypi": pypi,
                    "version": version,
                    "corpus": CORPUS_KIND,
                    "path": target.path,
                    "qualname": target.qualname,
                    "kind": "method",
                    "query": full,
                    "query_first_sentence": first,
                    "form": "docstring" if _names_own_class(target) else form_of(target),
                }
            )
    return rows


# -- the corpus ------------------------------------------------------------------------


def stripped_root(pypi: str, version: str, rows: Sequence[dict[str, str]]) -> Path:
    """The sdist as a git repository with the docstrings of ``rows``'
    targets blanked (built once per set of targets)."""
    from search_eval import _blank_span, _code_follows  # the rich corpus's stripping, one node at a time

    source = corpora.ensure(corpus_of(pypi, version))
    wanted = sorted({(r["path"], r["qualname"]) for r in rows})
    digest = hashlib.sha256(json.dumps(wanted).encode()).hexdigest()[:12]
    root = WORK / f"{pypi.lower()}-{version}-{digest}"
    if (root / ".git" / MARK).exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    print(f"building {root.relative_to(corpora.HERE)} ...", file=sys.stderr)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git", ".cartog-ci"))
    by_file: dict[str, set[str]] = {}
    for path, qualname in wanted:
        by_file.setdefault(path, set()).add(qualname)
    for path, names in by_file.items():
        file = root / path
        tree = ast.parse(file.read_bytes())
        lines = file.read_bytes().splitlines(keepends=True)
        # a target described by an inherited or pointed-to docstring has none of its own
        nodes = [node for qualname, _, node in methods(tree) if qualname in names and _is_string(node.body[0])]
        for node in sorted(nodes, key=lambda n: n.lineno, reverse=True):
            expr = node.body[0]
            assert isinstance(expr, ast.Expr)
            alone = len(node.body) == 1
            _blank_span(lines, expr, "pass" if alone or _code_follows(lines, expr) else "")
        file.write_bytes(b"".join(lines))
    corpora.git(root, "init", "-q", "-b", "main")
    corpora.git(root, "add", "-A", "-f", ".")
    corpora.git(root, "commit", "-q", "--no-verify", "-m", f"{pypi}=={version}, {len(wanted)} docstrings stripped")
    (root / ".git" / MARK).touch()
    return root


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SET_FILE)
    args = parser.parse_args(argv)
    rows = build(PROJECTS)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} questions -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
