"""The dev set of ``benchmarks/search_eval.py --set dev``: natural-language
questions about real Python projects, asked of their released code with its
docstrings.

    .venv/bin/python benchmarks/search_eval.py --set dev --dev-set PATH/search-dev.jsonl
    .venv/bin/python benchmarks/search_eval.py --set dev --project sumy --misses 5

The questions (a JSON-lines file, not part of the repository: 493
functionality descriptions of functions of 15 projects, from DevEval,
Apache-2.0) name each target by ``pypi`` (the package index name), ``path``
(file in the sdist), ``qualname`` (``Class.method``) and ``kind``; each has
``query`` (the whole description) and ``query_first_sentence``. Every
question is asked twice, as its first sentence and as its whole description.

How it works:

1. each project's sdist (the release of ``RELEASES``, from the time the
   questions were written, late 2023 to early 2024) is downloaded and
   committed as a git repository by ``benchmarks/corpora.py``;
2. it is indexed as it is, docstrings, tests and docs included, with
   ``cartog-ci index`` into ``benchmarks/.corpora/search-dev/`` (built again
   from nothing when the code that builds the stored texts changed);
3. a hit answers a question when it is the target: same file and qualified
   name, or a symbol whose lines lie inside the target's (a nested function);
   a target that the release does not hold is skipped and counted;
4. systems, each cut at 10 hits: ``cartog-ci search`` as shipped
   (``multimodal.search``, default preset, the blend re-ranker, the
   configured model), plain BM25 over function and method source (Okapi
   BM25, k1 = 1.2, b = 0.75, words split at camelCase and snake_case, no
   stemming, no stop words: a baseline outside our index), and, with
   ``--alternatives``, each modality alone and variants of the search;
5. MRR@10 and success@10 overall, per project and per intent (the
   classifier's reading of the question), and the in-process latency of
   the search (median, p95).
"""

from __future__ import annotations

import ast
import json
import math
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import corpora
import search_class

from cartog_ci.store.search import words_of
from cartog_ci.store.sqlite import SqliteStore

HERE = Path(__file__).resolve().parent
DEFAULT_DEV_SET = HERE / "search-dev.jsonl"
WORK = corpora.CORPORA_DIR / "search-dev"
TOP = 10

# The release of each project (PyPI name -> version) closest to the time
# the questions were written (late 2023 to early 2024); for projects without
# a release then, the last one before. All 493 targets exist in these.
RELEASES = {
    "Jinja2": "3.1.3",  # 2024-01
    "mrjob": "0.7.4",  # 2020-09, the last release
    "alembic": "1.13.1",  # 2023-12
    "Mopidy": "3.4.2",  # 2023-11
    "sacred": "0.8.5",  # 2023-11
    "kinto": "17.0.0",  # 2024-01
    "IMAPClient": "3.0.1",  # 2023-11 (a .zip sdist)
    "fs": "2.4.16",  # 2022-05, the last release
    "sumy": "0.11.0",  # 2022-09, the last release
    "gunicorn": "21.2.0",  # 2023-07
    "Faker": "22.0.0",  # 2024-01
    "zxcvbn": "4.4.28",  # 2019-05, the last release
    "praw": "7.7.1",  # 2023-07
    "peewee": "3.17.0",  # 2023-10
    "sqlite-utils": "3.36",  # 2024-01
}


def corpus_of(pypi: str, version: str | None = None) -> corpora.Corpus:
    return corpora.Corpus(f"dev-{pypi.lower()}", pypi, version or RELEASES[pypi], "")


def index_path(corpus: corpora.Corpus) -> Path:
    return WORK / f"{corpus.package.lower()}-{corpus.version}.db"


def release(row: dict[str, str]) -> str | None:
    """The release a question is asked of: its own ``version`` (the
    class-naming set, benchmarks/search_class.py), else ``RELEASES``."""
    return row.get("version") or RELEASES.get(row["pypi"])


class Sources:
    """Each project's repository and index file: the sdist as it is, or, for
    a set whose rows say so (``corpus``), the sdist with the docstrings of
    its targets stripped (benchmarks/search_class.py)."""

    def __init__(self, rows: Sequence[dict[str, str]]) -> None:
        self.rows = rows
        self._roots: dict[str, Path] = {}

    def root(self, pypi: str) -> Path:
        if pypi not in self._roots:
            mine = [r for r in self.rows if r["pypi"] == pypi]
            version = release(mine[0])
            assert version is not None
            if any(r.get("corpus") == search_class.CORPUS_KIND for r in mine):
                self._roots[pypi] = search_class.stripped_root(pypi, version, mine)
            else:
                self._roots[pypi] = corpora.ensure(corpus_of(pypi, version))
        return self._roots[pypi]

    def index(self, pypi: str) -> Path:
        root = self.root(pypi)
        if root.parent == search_class.WORK:
            return WORK / f"{root.name}.db"
        return index_path(corpus_of(pypi, release(next(r for r in self.rows if r["pypi"] == pypi))))


# -- questions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    path: str
    qualname: str
    start: int  # 1-based lines, decorators included
    end: int


@dataclass(frozen=True)
class DevQuestion:
    project: str
    pypi: str
    target: Target
    first: str  # the first sentence
    full: str  # the whole description
    version: str = ""  # the release asked
    form: str = ""  # how the question names the class (the class-naming set: search_class.form_of)


def load(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        raise SystemExit(
            f"dev set not found: {path}\n"
            "The dev set is not part of the repository. Pass its path with --dev-set PATH: a JSON-lines file,\n"
            "one question a line with the fields project, pypi, path, qualname, kind, query,\n"
            "query_first_sentence (functionality descriptions of DevEval, Apache-2.0); or copy it to\n"
            f"{DEFAULT_DEV_SET.relative_to(HERE.parent)}."
        )
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def find_definition(tree: ast.Module, qualname: str) -> ast.AST | None:
    """The def or class at ``qualname`` (``Class.method``, ``outer.inner``)."""
    nodes: list[ast.AST] = [tree]
    for part in qualname.split("."):
        found: list[ast.AST] = []
        for node in nodes:
            found.extend(_named_children(node, part))
        if not found:
            return None
        nodes = found
    return nodes[-1]  # the last definition of a name is the one Python keeps


def _named_children(node: ast.AST, name: str) -> Iterable[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if child.name == name:
                yield child
        else:
            yield from _named_children(child, name)  # under if/try/with blocks


def questions(rows: Sequence[dict[str, str]], project: str | None) -> tuple[list[DevQuestion], Counter[str]]:
    """The questions whose target the chosen release holds; the others counted per project."""
    kept: list[DevQuestion] = []
    skipped: Counter[str] = Counter()
    trees: dict[Path, ast.Module | None] = {}
    sources = Sources(rows)
    for row in rows:
        if project and not {row["project"].lower(), row["pypi"].lower()} & set(project.lower().split(",")):
            continue
        if release(row) is None:
            skipped[row["project"]] += 1
            continue
        file = sources.root(row["pypi"]) / row["path"]
        if file not in trees:
            trees[file] = _parse(file)
        tree = trees[file]
        node = find_definition(tree, row["qualname"]) if tree is not None else None
        if node is None:
            skipped[row["project"]] += 1
            continue
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
        target = Target(row["path"], row["qualname"], start, node.end_lineno or node.lineno)  # type: ignore[attr-defined]
        kept.append(
            DevQuestion(
                row["project"],
                row["pypi"],
                target,
                row["query_first_sentence"],
                row["query"],
                release(row) or "",
                row.get("form", ""),
            )
        )
    return kept, skipped


def _parse(file: Path) -> ast.Module | None:
    try:
        return ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None


# -- hits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class HitRef:
    file: str
    qualified_name: str
    start: int
    end: int


def answers(hit: HitRef, target: Target) -> bool:
    if hit.file != target.path:
        return False
    if hit.qualified_name.split("#")[0] == target.qualname:
        return True
    return target.start <= hit.start and hit.end <= target.end and hit.qualified_name.startswith(target.qualname)


def reciprocal(hits: Sequence[HitRef], target: Target) -> float:
    for rank, hit in enumerate(hits[:TOP]):
        if answers(hit, target):
            return 1.0 / (rank + 1)
    return 0.0


# -- plain BM25 over function and method source ----------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+")


def bm25_tokens(text: str) -> list[str]:
    """Lower-case words, identifiers split at camelCase and snake_case (the
    whole identifier kept too)."""
    out: list[str] = []
    for token in re.findall(r"\w+", text):
        parts = words_of(token).split()
        out.extend(parts)
        if len(parts) > 1:
            out.append(token.lower())
    return [t for t in out if _WORD.fullmatch(t)]


class PlainBM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over the source of every function
    and method of the index, read from the repository's files."""

    def __init__(self, store: SqliteStore, root: Path, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        rows = store.db.execute(
            "SELECT file, qualified_name, start_line, end_line FROM symbols WHERE kind IN ('function', 'method') "
            "ORDER BY file, start_line"
        ).fetchall()
        lines: dict[str, list[str]] = {}
        self.docs: list[HitRef] = []
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        lengths = []
        for file, qualname, start, end in rows:
            if file not in lines:
                try:
                    lines[file] = (root / file).read_text(errors="replace").splitlines()
                except OSError:
                    lines[file] = []
            tokens = bm25_tokens("\n".join(lines[file][start - 1 : end]))
            doc = len(self.docs)
            self.docs.append(HitRef(file, qualname, start, end))
            lengths.append(len(tokens))
            for term, n in Counter(tokens).items():
                postings[term][doc] = n
        self.lengths = np.array(lengths, dtype=float)
        self.average = float(self.lengths.mean()) if lengths else 1.0
        total = len(self.docs)
        self.postings = {
            term: (np.fromiter(p.keys(), int), np.fromiter(p.values(), float), math.log(1 + (total - len(p) + 0.5) / (len(p) + 0.5)))
            for term, p in postings.items()
        }

    def search(self, query: str, limit: int = TOP) -> list[HitRef]:
        scores = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / self.average)
        for term in bm25_tokens(query):
            if term not in self.postings:
                continue
            docs, tf, idf = self.postings[term]
            scores[docs] += idf * tf * (self.k1 + 1) / (tf + norm[docs])
        best = np.argsort(-scores, kind="stable")[:limit]
        return [self.docs[i] for i in best if scores[i] > 0]


# -- tables ----------------------------------------------------------------------------


@dataclass
class Run:
    """One system's reciprocal ranks, per question and form (first, full)."""

    first: list[float]
    full: list[float]
    ms: list[float]


def mrr(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def success(values: Sequence[float]) -> float:
    return float(np.mean([v > 0 for v in values])) if values else 0.0


def cell(values: Sequence[float]) -> str:
    return f"{mrr(values):.3f} / {success(values):.3f}"


def spread(ms: Sequence[float]) -> str:
    if not ms:
        return "-"
    return f"{statistics.median(ms):.0f} / {float(np.percentile(ms, 95)):.0f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    out = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |"]
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    out += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join(out)


def overall_table(runs: dict[str, Run]) -> str:
    rows = [[name, cell(r.first), cell(r.full), spread(r.ms)] for name, r in runs.items()]
    return table(["system", "first sentence MRR@10 / succ@10", "full description", "ms median / p95"], rows)


def grouped_table(runs: dict[str, Run], groups: dict[str, list[int]], label: str, form: str) -> str:
    names = list(runs)
    rows = []
    for group, members in groups.items():
        row = [group, str(len(members))]
        for name in names:
            values = getattr(runs[name], form)
            row.append(cell([values[i] for i in members]))
        rows.append(row)
    return table([label, "n", *names], rows)


def grouped(qs: Sequence[DevQuestion], key: Callable[[DevQuestion], str]) -> dict[str, list[int]]:
    """Question indexes by ``key``, the largest group first."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(qs):
        groups[key(q)].append(i)
    return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def by_project(qs: Sequence[DevQuestion]) -> dict[str, list[int]]:
    return grouped(qs, lambda q: q.project)


def by_form(qs: Sequence[DevQuestion]) -> dict[str, list[int]]:
    return grouped(qs, lambda q: q.form or "-")


def by_intent(qs: Sequence[DevQuestion], texts: Callable[[DevQuestion], str]) -> dict[str, list[int]]:
    from cartog_ci.search.intent import classify

    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(qs):
        intent = classify(texts(q))
        groups[f"{intent.name} ({intent.rule})"].append(i)
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def timed(fn: Callable[[str], list[HitRef]], text: str, ms: list[float]) -> list[HitRef]:
    clock = time.perf_counter()
    out = fn(text)
    ms.append((time.perf_counter() - clock) * 1000)
    return out


def print_err(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


# -- systems ---------------------------------------------------------------------------

Ask = Callable[[str], list[HitRef]]


def refs(symbols: Iterable[object]) -> list[HitRef]:
    return [HitRef(s.file, s.qualified_name, s.start_line, s.end_line) for s in symbols]  # type: ignore[attr-defined]


STEPS: dict[str, list[float]] = defaultdict(list)  # the shipped search's own timings, per step
_PATCHING: list[bool] = []  # non-empty while an ablation runs


def systems(
    store: SqliteStore, root: Path, model: object, alternatives: bool, ablations: bool = False
) -> dict[str, Ask]:
    """What is asked, by row name: the search as shipped first (its latency
    includes embedding the question: the memo is cold for it)."""
    from cartog_ci.search import modalities
    from cartog_ci.search.fts import keyword_search
    from cartog_ci.search.intent import classify
    from cartog_ci.search.multimodal import MultimodalOptions, search
    from cartog_ci.search.rerank import BlendReranker

    reranker = BlendReranker()
    plain = PlainBM25(store, root)

    def shipped(**overrides: object) -> Ask:
        def ask(text: str) -> list[HitRef]:
            options = MultimodalOptions(limit=TOP, **overrides)  # type: ignore[arg-type]
            result = search(store, text, model_factory=lambda: model, reranker=reranker, options=options)  # type: ignore[arg-type,return-value]
            if not overrides and not _PATCHING:
                for step, ms in result.timings_ms.items():
                    STEPS[step].append(ms)
            return refs(h.symbol for h in result.hits)

        return ask

    def listed(ids: Sequence[str]) -> list[HitRef]:
        found = store.symbols(list(ids))
        return refs(found[i] for i in ids if i in found)[:TOP]

    out: dict[str, Ask] = {
        "cartog-ci search (default)": shipped(),
        "plain BM25, function/method source": plain.search,
    }
    if alternatives:
        out["keyword modality only"] = lambda text: listed(
            [i for i, _ in modalities.keyword(store, text, classify(text), limit=50)]
        )
        out["keyword cascade only (fts.keyword_search)"] = lambda text: listed(
            [i for i, _ in keyword_search(store, text, 50)[0]]
        )
        out["semantic only (KNN)"] = lambda text: listed(
            modalities.semantic(store, text, lambda: model, limit=50).ids  # type: ignore[arg-type,return-value]
        )
        out["default, one hit per file"] = shipped(per_file=True)
        out["default, with the centrality boost"] = patched(shipped(), UNBOOSTED_INTENTS=frozenset())
        out["default, tests/docs not demoted"] = patched(shipped(), ROLE_DEMOTED_INTENTS=frozenset())
        out["default, no kind preference"] = patched(shipped(), KIND_INTENTS=frozenset())
    if alternatives or ablations:
        # each rule of issue 33 off in turn (docs/search.md, "What is the answer")
        out["default, a named class is not context"] = patched(shipped(), CONTEXT_INTENTS=frozenset())
        out["default, a class named in words is not context"] = patched(shipped(), CLASS_NAMED_IN_WORDS=False)
        out["default, no members list"] = patched(shipped(), MEMBERS_WEIGHT=0.0)
        out["default, no member names list"] = patched(shipped(), MEMBER_NAMES_WEIGHT=0.0)
        out["default, member names at the fusion's k, no shared places"] = patched(shipped(), MEMBER_NAMES_K=None)
        out["default, namesakes elsewhere not the named class's"] = patched(shipped(), NAMESAKE_TRANSFER=False)
        out["default, namesakes elsewhere not read for meaning (members list, re-ranker)"] = patched(
            shipped(), NAMESAKE_MEANING=False
        )
        out["default, a special method's words anywhere in the lead"] = patched(shipped(), SPECIAL_BY_VERB=False)
        out["default, a member named by any word of the lead, not the action verb"] = patched(
            shipped(), NAMED_BY_ACTION_VERB=False
        )
        out["default, names that run words together not split"] = patched(shipped(), NAMES_RUN_TOGETHER=False)
        out["default, a name's abbreviated words not read as the lead's words"] = patched(
            shipped(), ABBREVIATED_NAMES=False
        )
        out["default, a name's word not read as the head of a compound the lead writes"] = patched(
            shipped(), COMPOUND_HEADS=False
        )
        out["default, an adverb before the verb read as the verb"] = patched(shipped(), _names_ADVERBS_BEFORE_VERB=False)
        out["default, member names not named by the classifier's stop words (get, list, find, call …)"] = patched(
            shipped(), CODE_VERBS_NAME_MEMBERS=False
        )
        out["default, container/I-O methods not named by the standard library's wording"] = patched(
            shipped(), PROTOCOL_WORDING=False
        )
        out["default, conversions not named by what they convert into"] = patched(shipped(), CONVERSION_NAMES=False)
        out["default, alternate constructors not named by what they make their instance from"] = patched(
            shipped(), ALTERNATE_CONSTRUCTORS=False
        )
        out["default, a name compared with is not demoted"] = patched(shipped(), COMPARED_INTENTS=frozenset())
        out["default, a class not demoted for a question that opens with a verb"] = patched(
            shipped(), VERB_ASKS_CODE=False
        )
        out["default, a name written as code in the first sentence is not demoted"] = patched(
            shipped(), CODE_NAMES_USED=False
        )
        out["default, a method the description refers its reader to is not demoted"] = patched(
            shipped(), REFERENCES_NOT_ANSWER=False
        )
        out["default, a function a later sentence names in prose (the NAME function) is not demoted"] = patched(
            shipped(), CALLEES_IN_PROSE=False
        )
        out["default, code that returns no value not demoted for a description that says it returns one"] = patched(
            shipped(), RETURNS_BY_BODY=False
        )
        out["default, methods that take fewer of the parameters written as code than a sibling not demoted"] = patched(
            shipped(), PARAMETERS_WRITTEN=False
        )
        out["default, methods not demoted for a description of a value when a property of their class is a candidate"] = (
            patched(shipped(), PROPERTIES_BY_LEAD=False)
        )
        out["default, the kinds a statement asks for read from every sentence, not its first or its 'This function'"] = (
            patched(shipped(), KINDS_IN_FIRST_SENTENCE=False)
        )
        out["default, the kind words after a statement's opening verb ask for their kind"] = patched(
            shipped(), VERB_OBJECTS_ASK_NO_KIND=False
        )
        out["default, a hook named for the other moment (before/pre, after/post) than the question's not demoted"] = (
            patched(shipped(), MOMENTS_OF_HOOKS=False)
        )
        out["default, a twin one word apart whose word the first sentence does not say not demoted"] = patched(
            shipped(), TWINS_BY_WORD=False
        )
        out["default, a twin named by the verb alone not demoted beside one named by the verb's object too"] = patched(
            shipped(), TWIN_BY_OBJECT=False
        )
        out["default, an X_async variant not demoted when the first sentence does not say async"] = patched(
            shipped(), ASYNC_BY_WORDS=False
        )
        out["default, a twin named by a word the description rules out (without, ignoring, unlike …) not demoted"] = patched(
            shipped(), NEGATED_WORDS=False
        )
        out["default, a twin named in the other number (suffix/suffixes) than the first sentence says not demoted"] = patched(
            shipped(), NUMBER_TWINS=False
        )
        out["default, a special method (__copy__) beside its public namesake (copy) not demoted"] = patched(
            shipped(), PROTOCOL_TWINS=False
        )
        out["default, a constructor not demoted when the question's verb does not name it"] = patched(
            shipped(), CONSTRUCTOR_BY_VERB=False
        )
        out["default, a class named as what the answer makes is context"] = patched(
            shipped(), PRODUCTS_NOT_CONTEXT=False
        )
        out["default, a class named in a later sentence owns the answer too"] = patched(
            shipped(), FIRST_SENTENCE_CONTEXT=False
        )
        out["default, a test case outside the test paths not demoted"] = patched(shipped(), TEST_CASES=False)
        out["default, a _nowait method not named by the question's words"] = patched(shipped(), NOWAIT_BY_WORDS=False)
        out["default, a private helper named after a public method not demoted"] = patched(
            shipped(), HELPERS_BELOW_PUBLIC=False
        )
        out["default, a member named by the verb alone not demoted beside the standard library's wording"] = patched(
            shipped(), PROTOCOL_OVER_VERB=False
        )
        out["default, members named by the lead's words not demoted beside the standard library's wording"] = patched(
            shipped(), PROTOCOL_OVER_WORDS=False
        )
        out["default, a sentence that says what subclasses of X must do read as asking for them"] = patched(
            shipped(), _intent_STATED_REFERENCES=False
        )
        out["default, the re-ranker reads a description by its whole text only, not also by its first sentence"] = patched(
            shipped(), FIRST_SENTENCE_MEANING=False
        )
        out["default, a property not demoted for a statement whose verb acts on its object (Increment the …)"] = patched(
            shipped(), ACTIONS_NOT_PROPERTIES=False
        )
        out["default, the kind words of a lead that describes a value (The name of the … function) ask for their kind"] = patched(
            shipped(), VALUE_LEADS_ASK_NO_KIND=False
        )
        out["default, code that is not a context manager not demoted for a lead that says it is one"] = patched(
            shipped(), CONTEXT_MANAGER_LEAD=False
        )
        out["default, a later-named base's method not read as the first sentence's class's override of it"] = patched(
            shipped(), OVERRIDES_OF_BASES=False
        )
        out["default, a plural kind word (methods, functions, classes) is a stop word of the member names list"] = patched(
            shipped(), PLURAL_KINDS_NAME_MEMBERS=False
        )
        out["default, a name in the singular not demoted for a lead that acts on all (Unregister all …)"] = patched(
            shipped(), ALL_BY_PLURAL=False
        )
        out["default, the roles a statement asks for (tests, docs …) read from every sentence, not its first"] = patched(
            shipped(), ROLES_IN_FIRST_SENTENCE=False
        )
        out["default, member names compared by the crude stem, not the singular (writes/write_usage, adds/add)"] = patched(
            shipped(), INFLECTED_NAMES=False
        )
        out["default, a member name's unsaid words counted against the lead, not the first sentence"] = patched(
            shipped(), UNUSED_BY_SENTENCE=False
        )
        out["default, a member name's twin in the other number than the lead's (keys for key) named too"] = patched(
            shipped(), NUMBER_OF_THE_LEAD=False
        )
        out["default, a description's semantic list is its whole text's KNN only, not also its first sentence's"] = patched(
            shipped(), SEMANTIC_FIRST_SENTENCE=False
        )
        out["default, declarations not demoted"] = patched(shipped(), DECLARATION_INTENTS=frozenset())
        out["default, test doubles not demoted"] = patched(shipped(), DOUBLE_INTENTS=frozenset())
        out["default, docs_src/-like paths are code"] = patched(shipped(), _roles_DOCS=_OLD_DOCS)
    return out


# roles.py's documentation paths before docs_src/, examples_x/ … counted as documentation
_OLD_DOCS = re.compile(r"(^|/)(docs?|documentation|examples?|samples?|demos?|tutorials?|cookbook|howto)/", re.I)


def patched(ask: Ask, **constants: object) -> Ask:
    """The shipped search with module constants of search/multimodal.py or
    search/context.py changed for the call: what each rule is worth (an
    ablation)."""
    from cartog_ci.search import context, intent, multimodal, names, roles

    def where(name: str) -> tuple[object, str]:
        # ``_roles_NAME``: a constant of search/roles.py
        if name.startswith("_roles_"):
            return roles, name[len("_roles") :]
        if name.startswith("_names_"):  # a constant of search/names.py
            return names, name[len("_names_") :]
        if name.startswith("_intent_"):  # a constant of search/intent.py
            return intent, name[len("_intent_") :]
        return (multimodal if hasattr(multimodal, name) else context), name

    def run(text: str) -> list[HitRef]:
        saved = {name: getattr(*where(name)) for name in constants}
        for name, value in constants.items():
            setattr(*where(name), value)
        _PATCHING.append(True)
        try:
            return ask(text)
        finally:
            _PATCHING.pop()
            for name, value in saved.items():
                setattr(*where(name), value)

    return run


# -- main ------------------------------------------------------------------------------


def evaluate(args: object) -> int:
    from cartog_ci import config as config_mod
    from cartog_ci.embed.provider import model_from_config
    from search_eval import MemoModel, index

    rows = load(args.dev_set)  # type: ignore[attr-defined]
    qs, skipped = questions(rows, args.project)  # type: ignore[attr-defined]
    WORK.mkdir(parents=True, exist_ok=True)
    runs: dict[str, Run] = {}
    model_cache: dict[str, MemoModel] = {}
    ordered: list[DevQuestion] = []
    misses: list[str] = []
    sources = Sources(rows)
    for pypi in sorted({q.pypi for q in qs}, key=str.lower):
        mine = [q for q in qs if q.pypi == pypi]
        root = sources.root(pypi)
        db = sources.index(pypi)
        if not args.no_reindex:  # type: ignore[attr-defined]
            print_err(f"{root.name}: indexing (incremental) ...")
            index(root, db)
        if "model" not in model_cache:
            model_cache["model"] = MemoModel(model_from_config(config_mod.load(root), root))
        model = model_cache["model"]
        with SqliteStore(db, readonly=True) as store:
            asks = systems(store, root, model, args.alternatives, getattr(args, "ablations", False))  # type: ignore[attr-defined]
            for name, ask in asks.items():
                run = runs.setdefault(name, Run([], [], []))
                for q in mine:
                    first = timed(ask, q.first, run.ms)
                    full = timed(ask, q.full, run.ms)
                    run.first.append(reciprocal(first, q.target))
                    run.full.append(reciprocal(full, q.target))
                    worse = run.first[-1] < 1 if getattr(args, "not_first", False) else run.first[-1] == 0
                    if name == "cartog-ci search (default)" and args.misses and worse:  # type: ignore[attr-defined]
                        misses.append(_miss(q, first))
        ordered.extend(mine)
    if args.baseline:  # type: ignore[attr-defined]
        for name, saved in json.loads(Path(args.baseline).read_text()).items():  # type: ignore[attr-defined]
            if len(saved["first"]) == len(ordered):
                runs[f"saved: {name}"] = Run(saved["first"], saved["full"], saved["ms"])
    _report(ordered, runs, skipped, args)
    if misses:
        print("\nfirst-sentence misses of the default search:")
        for line in misses[: args.misses]:  # type: ignore[attr-defined]
            print(line)
    return 0


def _miss(q: DevQuestion, hits: Sequence[HitRef]) -> str:
    from cartog_ci.search.intent import classify

    intent = classify(q.first)
    top = ", ".join(f"{h.file}:{h.qualified_name}" for h in hits[:3])
    rank = round(1 / reciprocal(hits, q.target)) if reciprocal(hits, q.target) else "-"
    return (
        f"  [{q.project}] {q.first!r} ({intent.name} {intent.confidence:.2f}) -> {q.target.path}:{q.target.qualname}"
        f" (rank {rank}); top: {top}"
    )


def _report(qs: Sequence[DevQuestion], runs: dict[str, Run], skipped: Counter[str], args: object) -> None:
    total = len(qs) + sum(skipped.values())
    print(f"dev set: {total} questions, {len(qs)} asked, {sum(skipped.values())} skipped (target not in the release)"
          + (": " + ", ".join(f"{p} {n}" for p, n in skipped.items()) if skipped else ""))  # fmt: skip
    versions = {q.pypi: q.version for q in qs}
    print("releases: " + ", ".join(f"{p} {versions[p]}" for p in sorted(versions, key=str.lower)))
    print("cells: MRR@10 / success@10; latency in process, per question, both forms\n")
    print(overall_table(runs))
    steps = ", ".join(f"{step} {statistics.median(ms):.1f}" for step, ms in STEPS.items())
    print(f"the shipped search's steps, median ms (the question's embedding is in semantic): {steps}\n")
    for form, label in (("first", "first sentence"), ("full", "full description")):
        print(f"per project, {label}:")
        print(grouped_table(runs, by_project(qs), "project", form) + "\n")
        texts = (lambda q: q.first) if form == "first" else (lambda q: q.full)
        print(f"per intent (the classifier's reading), {label}:")
        print(grouped_table(runs, by_intent(qs, texts), "intent (rule)", form) + "\n")
        if any(q.form for q in qs):
            print(f"per form of naming the class (search_class.form_of), {label}:")
            print(grouped_table(runs, by_form(qs), "form", form) + "\n")
    if args.save:  # type: ignore[attr-defined]
        data = {name: {"first": r.first, "full": r.full, "ms": r.ms} for name, r in runs.items()}
        Path(args.save).write_text(json.dumps(data))  # type: ignore[attr-defined]
