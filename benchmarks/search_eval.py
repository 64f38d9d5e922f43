"""Search quality on real code nobody tuned on: a docstring's first sentence
as the query, the function it documents (docstrings stripped) as the target;
and, with ``--set dev``, natural-language questions about 15 real projects
with their docstrings (``benchmarks/search_dev.py``).

    .venv/bin/python benchmarks/search_eval.py --set dev --dev-set PATH  # the dev set: decisions are made here
    .venv/bin/python benchmarks/search_eval.py                  # report corpus: rich 13.7.1
    .venv/bin/python benchmarks/search_eval.py --corpus tune     # tuning corpus: Jinja2 3.1.4
    .venv/bin/python benchmarks/search_eval.py --alternatives    # + variants that are not the default
    .venv/bin/python benchmarks/search_eval.py --late-interaction  # + MaxSim re-ranking (~1 min more)
    .venv/bin/python benchmarks/search_eval.py --latency         # + latency on the ~500-file corpus
    .venv/bin/python benchmarks/search_eval.py --latency-only    # only that

How it works:

1. the sdist is downloaded and committed by ``benchmarks/corpora.py``;
2. a copy of its tree has every docstring removed (ast-based: the docstring's
   span becomes blank, or ``pass`` where the docstring was the whole body,
   so no line moves), is committed as a git repository of its own and
   indexed + embedded with ``cartog-ci index`` (default model); the index is
   built again from nothing when the text-building code changed;
3. every function or method of the package that had a docstring whose first
   sentence has at least ``MIN_WORDS`` words is a query; queries whose text
   appears for two functions are dropped (no single right answer);
4. each query is answered by: BM25 only (the FTS5 cascade,
   ``keyword_search``), vector only (``query_vector`` + sqlite-vec KNN),
   RRF (k = 60) and RRF + the ``BlendReranker``, and by
   ``multimodal.search`` with the default preset (what ``cartog-ci search``
   runs: intent, weighted RRF, centrality, re-ranker vote); a hit counts
   only if its symbol ID is the function's ``file:kind:qualified_name``.
   Metrics: MRR@10, success@1, success@10, and paired differences with a
   95% bootstrap interval.

The two RRF rows are the search ``cartog-ci search`` ran before intents,
``search/engine.hybrid_search``, which left the package (commit 2a28a2f):
``rrf_hybrid`` below re-creates it from the public pieces
(``keyword_search`` + ``store.knn`` + ``fuse.rrf`` with k = 60, then the
same re-ranker over the first 50), so those rows still mean what they did.

Latency (``--latency``) is measured in process on ``corpora.py``'s
``medium`` corpus (celery 5.4.0, 385 Python files), indexed into a file of
our own, with docstring first sentences of that corpus as queries: one
``multimodal.search`` call (default preset), one ``rrf_hybrid`` call (embed
query + KNN + BM25 + RRF + re-rank) with each of its steps timed on its
own, median and p95, and a few ``cartog-ci search`` processes (what a user
waits for, model loading included).

Corpora: the report corpus (``rich``) was chosen before looking at any
result and nothing was tuned on it; ``--corpus tune`` (``Jinja2``) is where
changes were tried (the re-ranker's scaling, see ``search/rerank.py``).

Measured with the removed ``hybrid_search`` (before the port to
``rrf_hybrid``; no ``multimodal.search`` row then) on rich 13.7.1 (487
queries, 2 shared cores), MRR@10 / succ@10: BM25 0.426 / 0.669, vector
0.616 / 0.867, RRF 0.595 / 0.860, RRF + blend 0.647 / 0.889; celery:
``hybrid_search`` median ~25 ms, p95 ~36-50 ms.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402  (benchmarks/ is not a package)
import search_dev  # noqa: E402

from cartog_ci.embed.base import EmbeddingModel, query_vector  # noqa: E402
from cartog_ci.embed.onnx import load_default_model  # noqa: E402
from cartog_ci.search.fts import expressions, keyword_search  # noqa: E402
from cartog_ci.search.fuse import RRF_K, rrf  # noqa: E402
from cartog_ci.search.intent import classify  # noqa: E402
from cartog_ci.search.multimodal import MultimodalOptions, search  # noqa: E402
from cartog_ci.search.rerank import BlendReranker, Candidate, Reranker  # noqa: E402
from cartog_ci.store.sqlite import SqliteStore  # noqa: E402

EVAL = corpora.Corpus("eval", "rich", "13.7.1", "")
TUNE = corpora.Corpus("tune", "Jinja2", "3.1.4", "")
LATENCY = corpora.CORPORA["medium"]
CORPUS_CHOICES = {"eval": EVAL, "tune": TUNE}
# Where queries come from, per corpus (Jinja2's sdist also ships tests and
# docs: they are indexed, as distractors, but not asked about).
PACKAGE_DIRS = {"rich": ("rich/",), "Jinja2": ("src/jinja2/",)}

MIN_WORDS = 3
TOP = 10
CANDIDATES = 50
RERANK_TOP = 50  # what the removed hybrid_search re-ranked (SearchOptions.rerank_top)
WORK = corpora.CORPORA_DIR / "search-eval"
READY_MARK = ".cartog-search-eval-ready"


# -- the corpus without docstrings ---------------------------------------------------


def docstring_nodes(tree: ast.AST) -> list[tuple[ast.Expr, bool]]:
    """Each docstring expression, and whether it is the whole body."""
    found: list[tuple[ast.Expr, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and _is_docstring(body[0]):
                found.append((body[0], len(body) == 1))
    return found


def _is_docstring(stmt: ast.stmt) -> TypeGuard[ast.Expr]:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def strip_docstrings(source: bytes) -> bytes:
    """``source`` without docstrings; every other line stays where it was.

    The docstring's span becomes spaces (its lines then count as blank, which
    the text builder drops), or ``pass`` where it was the whole body. Runs
    again while the removal exposes a new docstring (a string statement right
    after the first one).
    """
    for _ in range(5):
        tree = ast.parse(source)
        nodes = docstring_nodes(tree)
        if not nodes:
            return source
        lines = source.splitlines(keepends=True)
        # From the end, so earlier offsets stay valid; col offsets are bytes.
        for expr, alone in sorted(nodes, key=lambda n: (n[0].lineno, n[0].col_offset), reverse=True):
            _blank_span(lines, expr, "pass" if alone or _code_follows(lines, expr) else "")
        source = b"".join(lines)
    raise ValueError("docstrings keep appearing")


def _code_follows(lines: list[bytes], expr: ast.Expr) -> bool:
    """``"doc"; x = 1`` — removing the string alone would leave ``; x = 1``."""
    rest = lines[expr.end_lineno - 1][expr.end_col_offset :]  # type: ignore[operator]
    return bool(rest.split(b"#")[0].strip())


def _blank_span(lines: list[bytes], expr: ast.Expr, replacement: str) -> None:
    first, last = expr.lineno - 1, expr.end_lineno - 1  # type: ignore[operator]
    start, end = expr.col_offset, expr.end_col_offset
    assert end is not None
    head, tail = lines[first][:start], lines[last][end:]
    lines[first] = head + replacement.encode() + (b"" if first == last else b"\n")
    for i in range(first + 1, last):
        lines[i] = b"\n"
    if first == last:
        lines[first] += tail
    else:
        lines[last] = tail if tail.strip() else b"\n"
        if tail.strip():  # ``"""…""" ; x`` across lines: keep the code on its line
            lines[last] = b" " * end + tail


def stripped_repo(corpus: corpora.Corpus) -> Path:
    """A committed copy of the corpus with all docstrings stripped (built once)."""
    source = corpora.ensure(corpus)
    root = WORK / f"{corpus.package.lower()}-{corpus.version}-nodoc"
    if (root / ".git" / READY_MARK).exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    print(f"building {root.relative_to(corpora.HERE)} ...", file=sys.stderr)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git", ".cartog-ci"))
    failed = 0
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        try:
            path.write_bytes(strip_docstrings(data))
        except (SyntaxError, ValueError):
            failed += 1  # left as is: a file Python itself cannot parse
    if failed:
        print(f"  {failed} file(s) not parseable, left as they were", file=sys.stderr)
    corpora.git(root, "init", "-q", "-b", "main")
    corpora.git(root, "add", "-A", "-f", ".")
    corpora.git(root, "commit", "-q", "--no-verify", "-m", f"{corpus.requirement} without docstrings")
    (root / ".git" / READY_MARK).touch()
    return root


def cartog_ci() -> str:
    local = Path(sys.executable).with_name("cartog-ci")
    return str(local) if local.exists() else "cartog-ci"


def index(root: Path, db: Path) -> dict[str, object]:
    """``cartog-ci index`` as a user runs it (incremental: a no-op when built).

    The stored texts depend on the code that builds them, which no file
    hash of the corpus sees: when that code changed since the last run, the
    index is built again from nothing.
    """
    stamp = db.with_name(db.name + ".recipe")
    recipe = _recipe()
    if db.exists() and (not stamp.exists() or stamp.read_text() != recipe):
        # A new file, not --force: vectors cached for the old texts would stay
        # in the KNN table and take slots (see tests/search/test_cache.py).
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    done = subprocess.run(
        [cartog_ci(), "index", str(root), "--index", str(db), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"cartog-ci index failed ({done.returncode}): {done.stderr.strip()}")
    stamp.write_text(recipe)
    return dict(json.loads(done.stdout))


def _recipe() -> str:
    """A hash of the modules that decide which symbols exist and their text."""
    import cartog_ci.embed.text
    import cartog_ci.parse.extract

    digest = hashlib.sha256()
    for module in (cartog_ci.embed.text, cartog_ci.parse.extract):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


# -- queries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    text: str
    target: str  # symbol ID: file:kind:qualified_name


def first_sentence(docstring: str) -> str:
    paragraph = re.split(r"\n\s*\n", docstring.strip(), maxsplit=1)[0]
    flat = " ".join(paragraph.split())
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    return (match.group(1) if match else flat).strip()


def symbol_ids(path: str, tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(ID, node) of every function and method, named the way the extractor
    names them: dotted path of enclosing classes/functions, ``method`` when
    the parent is a class, ``#2`` … for a name taken twice (property setters)."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    seen: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                base = f"{path}:{'method' if in_class else 'function'}:{name}"
                seen[base] = seen.get(base, 0) + 1
                out.append((base if seen[base] == 1 else f"{base}#{seen[base]}", child))
                visit(child, f"{name}.", False)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.", True)
            else:
                visit(child, prefix, in_class)

    visit(tree, "", False)
    return out


def queries_of(corpus: corpora.Corpus, known: set[str]) -> tuple[list[Query], dict[str, int]]:
    """Queries from the original tree (docstrings intact); IDs are the same
    in the stripped copy because no line moved and no name changed."""
    root = corpora.ensure(corpus)
    dirs = PACKAGE_DIRS[corpus.package]
    found: list[Query] = []
    dropped = {"short docstring": 0, "not an indexed symbol": 0, "ambiguous text": 0}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(dirs):
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for symbol_id, node in symbol_ids(rel, tree):
            doc = ast.get_docstring(node)
            if not doc:
                continue
            text = first_sentence(doc)
            if len(re.findall(r"\w+", text)) < MIN_WORDS:
                dropped["short docstring"] += 1
            elif symbol_id not in known:
                dropped["not an indexed symbol"] += 1
            else:
                found.append(Query(text, symbol_id))
    counts: dict[str, int] = {}
    for q in found:
        counts[q.text.lower()] = counts.get(q.text.lower(), 0) + 1
    kept = [q for q in found if counts[q.text.lower()] == 1]
    dropped["ambiguous text"] = len(found) - len(kept)
    return kept, dropped


# -- methods ---------------------------------------------------------------------------


class MemoModel:
    """The model with query vectors remembered: every method that embeds the
    query sees the same vector, computed once (latency is timed apart)."""

    def __init__(self, model: EmbeddingModel) -> None:
        self.model = model
        self.model_id = model.model_id
        self.dims = model.dims
        self.query_prefix = getattr(model, "query_prefix", "")
        self._memo: dict[str, np.ndarray] = {}

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self._memo]
        if missing:
            for text, row in zip(missing, self.model.embed_batch(missing)):
                self._memo[text] = row
        return np.stack([self._memo[t] for t in texts])


Method = Callable[[SqliteStore, str], list[str]]


def bm25_only(store: SqliteStore, text: str) -> list[str]:
    return [i for i, _ in keyword_search(store, text, CANDIDATES)[0]][:TOP]


KeywordSearch = Callable[[SqliteStore, str, int], tuple[list[tuple[str, float]], str | None]]


def rrf_hybrid(
    store: SqliteStore,
    query: str,
    *,
    model_factory: Callable[[], EmbeddingModel] | None,
    reranker: Reranker | None,
    limit: int = TOP,
    keyword: KeywordSearch = keyword_search,
) -> list[str]:
    """Symbol IDs from the search ``cartog-ci search`` ran before intents.

    That engine (``search/engine.hybrid_search``) left the package in commit
    2a28a2f; this is the same algorithm built from the public pieces, so
    that the "before" rows still mean what they did: BM25 cascade
    (``keyword_search``, 50) and sqlite-vec KNN (50) fused by plain RRF,
    k = 60, IDs no longer in the store dropped, then the first 50 re-ordered
    by ``reranker`` (its scores replace the fused order; they do not vote as
    in ``multimodal.search``). ``keyword`` swaps the keyword search (the
    "cascade filled" alternative).
    """
    hits, _ = keyword(store, query, CANDIDATES)
    qvec, near = _query_knn(store, query, model_factory)
    fused = [i for i, _, _ in rrf({"fts": [i for i, _ in hits], "vector": near}, k=RRF_K)]
    present = store.symbols(fused)
    fused = [i for i in fused if i in present]
    if reranker is not None and fused:
        fused = _reranked(store, query, qvec, fused, dict(hits), reranker)
    return fused[:limit]


def _query_knn(
    store: SqliteStore, query: str, model_factory: Callable[[], EmbeddingModel] | None
) -> tuple[np.ndarray | None, list[str]]:
    """The query's vector and its KNN; nothing when the index has no vectors
    of this model (the removed engine's rule)."""
    stored = store.vector_model()
    if model_factory is None or stored is None:
        return None, []
    model = model_factory()
    if model.model_id != stored[0]:
        return None, []
    qvec = query_vector(model, query)
    return qvec, [i for i, _ in store.knn(qvec, CANDIDATES)]


def _reranked(
    store: SqliteStore, query: str, qvec: np.ndarray | None, fused: list[str], bm25: dict[str, float], reranker: Reranker
) -> list[str]:
    top = fused[:RERANK_TOP]
    contents = store.contents(top)
    stored = store.vector_model()
    vectors = store.vectors_for(top, stored[0]) if stored else {}
    candidates = [Candidate(i, contents.get(i, ""), vectors.get(i), bm25.get(i)) for i in top]
    scores = reranker.scores(query, qvec, candidates)
    if scores is None:
        return fused
    by_id = dict(zip(top, scores))
    return sorted(top, key=lambda i: -by_id[i]) + fused[RERANK_TOP:]  # stable: ties keep the RRF order


def hybrid(model: EmbeddingModel, reranker: Reranker | None, *, keyword: KeywordSearch = keyword_search) -> Method:
    def run(store: SqliteStore, text: str) -> list[str]:
        return rrf_hybrid(store, text, model_factory=lambda: model, reranker=reranker, keyword=keyword)

    return run


def vector_only(model: EmbeddingModel) -> Method:
    def run(store: SqliteStore, text: str) -> list[str]:
        near = _query_knn(store, text, lambda: model)[1]
        present = store.symbols(near)
        return [i for i in near if i in present][:TOP]

    return run


def multimodal(
    model: EmbeddingModel, *, preset: str, intent: str | None = None, per_file: bool | None = None
) -> Method:
    """``multimodal.search`` (what ``cartog-ci search`` runs now) with the
    default re-ranker; ``intent`` None lets the classifier decide."""
    reranker = BlendReranker()

    def run(store: SqliteStore, text: str) -> list[str]:
        options = MultimodalOptions(limit=TOP, preset=preset, intent=intent, per_file=per_file)
        result = search(store, text, model_factory=lambda: model, reranker=reranker, options=options)
        return [h.symbol.id for h in result.hits]

    return run


@dataclass
class Score:
    reciprocal: np.ndarray  # per query: 1 / (rank + 1) within the top 10, else 0

    @property
    def mrr(self) -> float:
        return float(self.reciprocal.mean())

    @property
    def at1(self) -> float:
        return float((self.reciprocal == 1.0).mean())

    @property
    def at10(self) -> float:
        return float((self.reciprocal > 0).mean())


def evaluate(store: SqliteStore, queries: Sequence[Query], method: Method) -> Score:
    reciprocal = []
    for q in queries:
        ids = method(store, q.text)[:TOP]
        reciprocal.append(1.0 / (ids.index(q.target) + 1) if q.target in ids else 0.0)
    return Score(np.array(reciprocal))


def paired(better: Score, worse: Score, *, resamples: int = 10_000) -> str:
    """MRR difference with a 95% paired-bootstrap interval, and per-query wins."""
    diff = better.reciprocal - worse.reciprocal
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return (
        f"MRR@10 {diff.mean():+.3f} [95% CI {lo:+.3f}, {hi:+.3f}], "
        f"better on {(diff > 0).sum()} queries, worse on {(diff < 0).sum()}"
    )


def filled_keyword_search(store: SqliteStore, query: str, limit: int = CANDIDATES) -> tuple[list[tuple[str, float]], str | None]:
    """Not the product's cascade: each level's hits, then the next level's, up
    to ``limit`` (an AND level with one wrong hit no longer hides the rest)."""
    found: dict[str, float] = {}
    first = None
    for level, expression in expressions(query):
        for symbol_id, score in store.fts(expression, limit):
            found.setdefault(symbol_id, score)
        first = first or (level if found else None)
        if len(found) >= limit:
            break
    return list(found.items())[:limit], first


class UnscaledBlend:
    """The ``BlendReranker`` before it scaled the cosine: alpha x raw cosine
    + (1 - alpha) x min-max BM25 (kept here to show why it changed)."""

    name = "blend-unscaled"

    def __init__(self, alpha: float = 0.7) -> None:
        self.alpha = alpha

    def scores(
        self,
        query: str,
        query_vector: np.ndarray | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: np.ndarray | None = None,
    ) -> list[float] | None:
        if query_vector is None or not candidates:
            return None
        cosines = np.array([float(np.dot(c.vector, query_vector)) if c.vector is not None else 0.0 for c in candidates])
        return list(self.alpha * cosines + (1 - self.alpha) * _scaled([c.bm25 for c in candidates], negate=True))


class LateInteraction:
    """ColBERT-style MaxSim with the bi-encoder's own token vectors (it was
    not trained for it), scaled and blended 50/50 with the scaled cosine.

    Each candidate's token vectors take a forward pass of their own; they
    are cached by symbol for the run, and that cost is reported, because an
    index would have to store them (~100 x 384 floats per symbol).
    """

    name = "late-interaction"

    def __init__(self, model: EmbeddingModel) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        spec = model.spec  # type: ignore[attr-defined]
        self.tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
        self.tokenizer.enable_truncation(spec.max_tokens)
        self.tokenizer.no_padding()
        self.session = onnxruntime.InferenceSession(str(spec.model_path), providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.documents: dict[str, np.ndarray] = {}
        self.document_seconds = 0.0

    def _tokens(self, text: str) -> np.ndarray:
        encoding = self.tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0][0][1:-1]
        return hidden / np.maximum(np.linalg.norm(hidden, axis=1, keepdims=True), 1e-9)

    def scores(
        self,
        query: str,
        query_vector: np.ndarray | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: np.ndarray | None = None,
    ) -> list[float] | None:
        if query_vector is None or not candidates:
            return None
        q = self._tokens(query)
        clock = time.perf_counter()
        for c in candidates:
            if c.symbol_id not in self.documents:
                text = c.content.encode()[:800].decode("utf-8", "ignore")  # what the bi-encoder read
                self.documents[c.symbol_id] = self._tokens(text)
        self.document_seconds += time.perf_counter() - clock
        maxsim = [float((q @ self.documents[c.symbol_id].T).max(axis=1).mean()) for c in candidates]
        cosines = [float(np.dot(c.vector, query_vector)) if c.vector is not None else None for c in candidates]
        return list(0.5 * _scaled(maxsim) + 0.5 * _scaled(cosines))


def _scaled(values: Sequence[float | None], *, negate: bool = False) -> np.ndarray:
    raw = np.array([np.nan if v is None else (-v if negate else v) for v in values], dtype=float)
    out = np.zeros(len(raw))
    present = ~np.isnan(raw)
    if present.any():
        lo, hi = raw[present].min(), raw[present].max()
        out[present] = 1.0 if hi == lo else (raw[present] - lo) / (hi - lo)
    return out


def methods(model: EmbeddingModel, alternatives: bool, late: LateInteraction | None) -> dict[str, Method]:
    out: dict[str, Method] = {
        "BM25 only (FTS5 cascade)": bm25_only,
        "vector only (KNN)": vector_only(model),
        f"RRF (k={RRF_K})": hybrid(model, None),
        "RRF + BlendReranker": hybrid(model, BlendReranker()),
        "multimodal.search, default preset": multimodal(model, preset="default"),
    }
    if alternatives:
        out["multimodal.search, quick preset"] = multimodal(model, preset="quick")
        out["multimodal.search, thorough preset"] = multimodal(model, preset="thorough")
        out["multimodal, default, understand_code, per-file off"] = multimodal(
            model, preset="default", intent="understand_code", per_file=False
        )
        out["RRF + old unscaled blend a=0.7"] = hybrid(model, UnscaledBlend(0.7))
        out["RRF + old unscaled blend a=0.9"] = hybrid(model, UnscaledBlend(0.9))
        for alpha in (0.5, 0.6, 0.85):
            out[f"RRF + Blend alpha={alpha}"] = hybrid(model, BlendReranker(alpha))
        out["RRF + cosine only (alpha=1)"] = hybrid(model, BlendReranker(1.0))
    if late is not None:
        out["RRF + late interaction (MaxSim)"] = hybrid(model, late)
    if alternatives:
        out["BM25, cascade levels filled"] = lambda store, text: [i for i, _ in filled_keyword_search(store, text)[0]][:TOP]
        out["RRF + Blend, cascade filled"] = hybrid(model, BlendReranker(), keyword=filled_keyword_search)
    return out


def cascade_levels(store: SqliteStore, queries: Sequence[Query]) -> str:
    """Which level of the FTS5 cascade answered, and how often it held the target."""
    counts: dict[str, list[int]] = {}
    for q in queries:
        hits, level = keyword_search(store, q.text, CANDIDATES)
        found = q.target in [i for i, _ in hits][:TOP]
        counts.setdefault(level or "none", [0, 0])[0] += 1
        counts[level or "none"][1] += found
    parts = [f"{name} {n} ({hit} found)" for name, (n, hit) in counts.items()]
    return "BM25 cascade level that answered: " + ", ".join(parts)


# -- latency ---------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def latency(model: EmbeddingModel, limit: int) -> list[str]:
    """Query latency in process on the ~500-file corpus: one
    ``multimodal.search`` call (default preset, what ``cartog-ci search``
    runs), one call of the re-created RRF hybrid and each of its steps."""
    root = corpora.ensure(LATENCY)
    # the index benchmarks/intent_eval.py keeps: one embedding of celery serves both
    db = corpora.CORPORA_DIR / "indexes" / f"{LATENCY.package.lower()}-{LATENCY.version}.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    clock = time.perf_counter()
    run = index(root, db)
    build_s = time.perf_counter() - clock
    texts = [q.text for q in _latency_queries(root)][:limit]
    with SqliteStore(db, readonly=True) as store:
        symbols = store.db.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
        reranker = BlendReranker()
        options = MultimodalOptions(limit=TOP, preset="default")
        search(store, "warm up", model_factory=lambda: model, reranker=reranker, options=options)
        rrf_hybrid(store, "warm up", model_factory=lambda: model, reranker=reranker)
        shipped: list[float] = []
        routes: Counter[str] = Counter()
        total: list[float] = []
        steps: dict[str, list[float]] = {"embed": [], "knn": [], "bm25": [], "rrf": [], "rerank": []}
        for text in texts:
            clock = time.perf_counter()
            result = search(store, text, model_factory=lambda: model, reranker=reranker, options=options)
            shipped.append(_lap(clock))
            routes[result.fusion_strategy] += 1
            clock = time.perf_counter()
            rrf_hybrid(store, text, model_factory=lambda: model, reranker=reranker)
            total.append(_lap(clock))
            for name, ms in _steps(store, model, reranker, text).items():
                steps[name].append(ms)
    embedded = run.get("embedded")
    texts_embedded = embedded.get("texts", 0) if isinstance(embedded, dict) else 0
    size = (
        f"latency on {LATENCY.requirement} ({symbols} embedded symbols, index {db.stat().st_size / 1e6:.0f} MB; "
        f"this run: index {build_s:.1f} s, embedded {texts_embedded} texts), {len(texts)} queries:"
    )
    route_note = ", ".join(f"{n} {name}" for name, n in routes.most_common())
    lines = [
        size,
        f"  {'multimodal':<13} {_spread(shipped)}   (multimodal.search, default preset, blend vote; {route_note})",
        f"  {'RRF hybrid':<13} {_spread(total)}   (re-created hybrid_search: embed + KNN + BM25 + RRF + blend re-rank)",
    ]
    lines += [f"    {name:<11} {_spread(values)}" for name, values in steps.items()]
    _cli_latency(root, db, texts[:1])  # warm: files in the OS cache, the model converted
    cli = _cli_latency(root, db, texts[:10])
    lines.append(f"  {'CLI process':<13} {_spread(cli)}   (`cartog-ci search` start to exit, {len(cli)} runs)")
    return lines


def _spread(values: Sequence[float]) -> str:
    return f"median {statistics.median(values):7.2f} ms, p95 {percentile(values, 95):7.2f} ms"


def _cli_latency(root: Path, db: Path, texts: Sequence[str]) -> list[float]:
    """What a user waits for: process start, model load, search, exit."""
    out = []
    for text in texts:
        clock = time.perf_counter()
        subprocess.run(
            [cartog_ci(), "search", text, "--repo", str(root), "--index", str(db), "--json"],
            capture_output=True, check=True,
        )  # fmt: skip
        out.append(_lap(clock))
    return out


def _steps(store: SqliteStore, model: EmbeddingModel, reranker: Reranker, text: str) -> dict[str, float]:
    """The same work as ``rrf_hybrid``, each step on its own clock."""
    out: dict[str, float] = {}
    clock = time.perf_counter()
    qvec = query_vector(model, text)
    out["embed"] = _lap(clock)
    clock = time.perf_counter()
    near = store.knn(qvec, CANDIDATES)
    out["knn"] = _lap(clock)
    clock = time.perf_counter()
    keyword, _ = keyword_search(store, text, CANDIDATES)
    out["bm25"] = _lap(clock)
    clock = time.perf_counter()
    fused = rrf({"fts": [i for i, _ in keyword], "vector": [i for i, _ in near]}, k=RRF_K)
    out["rrf"] = _lap(clock)
    clock = time.perf_counter()
    top = [i for i, _, _ in fused[:CANDIDATES]]
    contents, vectors, bm25 = store.contents(top), store.vectors_for(top, model.model_id), dict(keyword)
    reranker.scores(text, qvec, [Candidate(i, contents.get(i, ""), vectors.get(i), bm25.get(i)) for i in top])
    out["rerank"] = _lap(clock)
    return out


def _lap(clock: float) -> float:
    return (time.perf_counter() - clock) * 1000


def _latency_queries(root: Path) -> Iterable[Query]:
    for path in sorted((root / "celery").rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for symbol_id, node in symbol_ids(path.relative_to(root).as_posix(), tree):
            doc = ast.get_docstring(node)
            if doc and len(first_sentence(doc).split()) >= MIN_WORDS:
                yield Query(first_sentence(doc), symbol_id)


# -- main ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        "--corpus",
        dest="corpus",
        choices=sorted([*CORPUS_CHOICES, "dev"]),
        default="eval",
        help="eval: rich, docstring -> function; tune: Jinja2; dev: the dev set of questions (search_dev.py)",
    )
    parser.add_argument(
        "--dev-set", type=Path, default=search_dev.DEFAULT_DEV_SET, help="--set dev: the questions (JSON lines)"
    )
    parser.add_argument("--project", help="--set dev: only these projects' questions (comma-separated)")
    parser.add_argument("--misses", type=int, default=0, help="--set dev: list this many first-sentence misses")
    parser.add_argument(
        "--not-first",
        action="store_true",
        help="--set dev, with --misses: list the first sentences not answered first (with their rank), not only those missed",
    )
    parser.add_argument("--save", help="--set dev: write every system's reciprocal ranks to this JSON file")
    parser.add_argument("--baseline", help="--set dev: add the systems of a file written by --save as rows")
    parser.add_argument("--no-reindex", action="store_true", help="--set dev: use the indexes as they are")
    parser.add_argument("--ablations", action="store_true", help="--set dev: + the search with each ranking rule off")
    parser.add_argument(
        "--alternatives", action="store_true", help="also other presets of multimodal.search and other re-rankers of RRF"
    )
    parser.add_argument("--latency", action="store_true", help="also time queries on the ~500-file corpus")
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument("--latency-only", action="store_true", help="only the latency on the ~500-file corpus")
    parser.add_argument(
        "--late-interaction", action="store_true", help="also MaxSim re-ranking (slow: a forward pass per candidate)"
    )
    args = parser.parse_args(argv)
    if args.latency_only:
        for line in latency(load_default_model(), args.latency_queries):
            print(line)
        return 0
    if args.corpus == "dev":
        return search_dev.evaluate(args)
    corpus = CORPUS_CHOICES[args.corpus]
    root = stripped_repo(corpus)
    db = root / ".cartog-ci" / "index.db"
    index(root, db)
    model = load_default_model()
    memo = MemoModel(model)
    with SqliteStore(db, readonly=True) as store:
        known = {str(r[0]) for r in store.db.execute("SELECT symbol_id FROM chunks")}
        queries, dropped = queries_of(corpus, known)
        stored = store.vector_model()
        print(f"corpus {corpus.requirement} without docstrings: {len(known)} embedded symbols, "
              f"model {stored[0] if stored else '-'}")  # fmt: skip
        print(f"{len(queries)} queries (docstring first sentence -> function); dropped: "
              + ", ".join(f"{v} {k}" for k, v in dropped.items()))  # fmt: skip
        intents = Counter(classify(q.text).name for q in queries)
        print("classifier's reading of the queries: " + ", ".join(f"{n} {name}" for name, n in intents.most_common()))
        print(f"RRF rows: the removed hybrid_search, re-created here (rrf_hybrid, RRF k = {RRF_K})")
        print()
        late = LateInteraction(model) if args.late_interaction else None
        chosen = methods(memo, args.alternatives, late)
        width = max(len(name) for name in chosen)
        print(f"{'method':<{width}} {'MRR@10':>7} {'succ@1':>7} {'succ@10':>8}")
        scores: dict[str, Score] = {}
        for name, method in chosen.items():
            s = scores[name] = evaluate(store, queries, method)
            print(f"{name:<{width}} {s.mrr:>7.3f} {s.at1:>7.3f} {s.at10:>8.3f}")
        print()
        names = list(scores)
        for better, worse in ((1, 0), (3, 2), (3, 1), (4, 3)):
            print(f"{names[better]} vs {names[worse]}: {paired(scores[names[better]], scores[names[worse]])}")
        print(cascade_levels(store, queries))
        if late is not None:
            print(f"late interaction: token vectors of {len(late.documents)} candidates took "
                  f"{late.document_seconds:.0f} s ({late.document_seconds / max(len(late.documents), 1) * 1000:.0f} ms each)")  # fmt: skip
    if args.latency:
        print()
        for line in latency(model, args.latency_queries):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
