"""Re-ranking of the fused top candidates (docs/search.md).

Two implementations of one interface:
- ``CrossEncoderReranker``: a user-provided ONNX cross-encoder directory
  (ms-marco / bge-reranker style: query+document pair in, one logit out),
  with the 3-state cache not-tried -> ready | failed; failed is never retried
  in the process, and search then keeps the fused order;
- ``BlendReranker``: needs no extra model; blends the cosine of the stored
  vectors with the BM25 score, both scaled over the candidates.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cartog_ci.domain.vectors import as_floats, dot

if TYPE_CHECKING:  # numpy only for the cross-encoder's inputs
    import numpy as np

    from cartog_ci.domain.vectors import Vector


@dataclass(frozen=True)
class Candidate:
    symbol_id: str
    content: str
    vector: Vector | None = None  # stored embedding, if any
    bm25: float | None = None  # FTS5 bm25 (lower is better), if the keyword list had it


class Reranker(Protocol):
    name: str

    def scores(
        self,
        query: str,
        query_vector: Vector | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: Vector | None = None,
    ) -> list[float] | None:
        """One score per candidate (higher is better), or None to keep the fused order.
        ``lead_vector``: the vector of a description's first sentence, when it has more
        than one (search/multimodal.py, ``FIRST_SENTENCE_MEANING``)."""
        ...


class BlendReranker:
    """``alpha`` × cosine + (1 − alpha) × BM25, each min-max scaled over the
    candidates, so that alpha is the share of each signal.

    Unscaled, the cosines of 50 candidates spread over ~0.2 while the scaled
    BM25 spans 0..1, so the keyword side decided most orders and re-ranking
    did no better than plain RRF (``benchmarks/search_eval.py``, docstring
    -> function, MRR@10: tuning corpus Jinja2 0.402 vs RRF 0.427, report
    corpus rich 0.594 vs 0.595). Scaled, tuned on Jinja2 only: 0.486 there,
    flat from alpha 0.7 to 0.85, and 0.647 vs 0.595 on rich. A candidate
    missing from a list scores 0 on that side. The cosines are dot products
    in double precision, without numpy (domain/vectors.py).
    """

    name = "blend"

    def __init__(self, alpha: float = 0.7) -> None:
        self.alpha = alpha

    def scores(
        self,
        query: str,
        query_vector: Vector | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: Vector | None = None,
    ) -> list[float] | None:
        if query_vector is None or not candidates:
            return None
        question = as_floats(query_vector)
        cosines = [dot(as_floats(c.vector), question) if c.vector is not None else None for c in candidates]
        if lead_vector is not None:
            # a candidate reads like the whole description or like its first
            # sentence, what the code does: the better of the two counts
            lead = as_floats(lead_vector)
            cosines = [
                None if x is None or c.vector is None else max(x, dot(as_floats(c.vector), lead))
                for x, c in zip(cosines, candidates)
            ]
        keyword = [-(c.bm25) if c.bm25 is not None else None for c in candidates]
        return [
            self.alpha * by_meaning + (1 - self.alpha) * by_words
            for by_meaning, by_words in zip(_scaled(cosines), _scaled(keyword))
        ]


def _scaled(raw: Sequence[float | None]) -> list[float]:
    """Min-max to 0..1 over the present values (all equal: 1); absent: 0."""
    present = [x for x in raw if x is not None]
    if not present:
        return [0.0] * len(raw)
    lo, hi = min(present), max(present)
    return [0.0 if x is None else 1.0 if hi == lo else (x - lo) / (hi - lo) for x in raw]


_STATES: dict[Path, object] = {}  # path -> session tuple | "failed"
_LOCK = threading.Lock()


class CrossEncoderReranker:
    name = "cross-encoder"

    def __init__(self, directory: Path, *, max_tokens: int = 512) -> None:
        self.directory = directory
        self.max_tokens = max_tokens

    def _load(self) -> tuple[object, object] | None:
        with _LOCK:
            state = _STATES.get(self.directory)
            if state == "failed":
                return None
            if state is not None:
                return state  # type: ignore[return-value]
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self.directory / "tokenizer.json"))
                tokenizer.enable_truncation(self.max_tokens)
                tokenizer.enable_padding()
                options = onnxruntime.SessionOptions()
                session = onnxruntime.InferenceSession(
                    str(self.directory / "model.onnx"), options, providers=["CPUExecutionProvider"]
                )
                _STATES[self.directory] = (tokenizer, session)
            except Exception:  # noqa: BLE001 - optional: a failure means fused order
                _STATES[self.directory] = "failed"
                return None
            return _STATES[self.directory]  # type: ignore[return-value]

    def scores(
        self,
        query: str,
        query_vector: Vector | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: Vector | None = None,
    ) -> list[float] | None:
        import numpy as np

        loaded = self._load()
        if loaded is None or not candidates:
            return None
        tokenizer, session = loaded
        try:
            encodings = tokenizer.encode_batch([(query, c.content) for c in candidates])  # type: ignore[attr-defined]
            feeds: Mapping[str, np.ndarray] = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            names = {i.name for i in session.get_inputs()}  # type: ignore[attr-defined]
            logits = session.run(None, {k: v for k, v in feeds.items() if k in names})[0]  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            with _LOCK:
                _STATES[self.directory] = "failed"
            return None
        return [float(x) for x in np.asarray(logits).reshape(len(candidates), -1)[:, 0]]
