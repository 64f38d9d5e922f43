"""Reciprocal Rank Fusion: score = sum of weight / (k + rank + 1), rank 0-based."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RRF_K = 60


def rrf(
    lists: Mapping[str, Sequence[str]],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[str, float, dict[str, int]]]:
    """Fuse ranked lists of IDs; returns (id, score, {list name: rank}) best first.

    Ties keep the order of first appearance across the lists, so the result
    is deterministic.
    """
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, items in lists.items():
        weight = 1.0 if weights is None else weights.get(name, 0.0)
        for rank, item in enumerate(items):
            if item in ranks and name in ranks[item]:
                continue  # an item counts once per list, at its best rank
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
            ranks.setdefault(item, {})[name] = rank
    order = {item: i for i, item in enumerate(scores)}
    fused = sorted(scores, key=lambda item: (-scores[item], order[item]))
    return [(item, scores[item], ranks[item]) for item in fused]


@dataclass(frozen=True)
class Fused:
    symbol_id: str
    score: float
    sources: dict[str, tuple[int, float]]  # modality -> (rank, contribution)


def weighted_rrf(
    lists: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    *,
    k: int,
    factors: Mapping[str, float] | None = None,
    own_k: Mapping[str, int] | None = None,
    places: Mapping[str, Mapping[str, int]] | None = None,
) -> list[Fused]:
    """Σ over modalities of ``weight × factor / (k + rank + 1)``, rank
    0-based; ``factor`` (boost × demotion) is per symbol, 1 when absent.
    A list with a k of its own (``own_k``) votes ``weight × factor ×
    (k' + 1) / (k + 1) / (k' + rank + 1)``: its first as much as with k,
    the ones after it less; its items may share a rank (``places``).
    Ties keep the order of first appearance (``fuse.rrf``)."""
    factor = factors or {}
    sharp = own_k or {}
    out: dict[str, Fused] = {}
    plain = {m: items for m, items in lists.items() if m not in sharp}
    for symbol_id, base, ranks in rrf(plain, k=k, weights=weights):
        f = factor.get(symbol_id, 1.0)
        sources = {m: (r, weights.get(m, 0.0) * f / (k + r + 1)) for m, r in ranks.items()}
        out[symbol_id] = Fused(symbol_id, base * f, sources)
    for m, kk in sharp.items():
        for r, symbol_id in enumerate(dict.fromkeys(lists.get(m, ()))):
            r = (places or {}).get(m, {}).get(symbol_id, r)
            f = factor.get(symbol_id, 1.0)
            vote = weights.get(m, 0.0) * f * (kk + 1) / (k + 1) / (kk + r + 1)
            was = out.get(symbol_id, Fused(symbol_id, 0.0, {}))
            out[symbol_id] = Fused(symbol_id, was.score + vote, {**was.sources, m: (r, vote)})
    order = {symbol_id: i for i, symbol_id in enumerate(out)}
    return sorted(out.values(), key=lambda f: (-f.score, order[f.symbol_id]))
