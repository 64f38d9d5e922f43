"""Reciprocal Rank Fusion: score = sum of weight / (k + rank + 1), rank 0-based."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
