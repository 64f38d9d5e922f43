"""A search hit. Apart from domain/results.py, whose twenty-odd classes a
search does not use: building them took ~20 CPU ms of a `search`
process's start-up (docs/search.md, "Warm search latency")."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartog_ci.domain import Symbol


@dataclass(frozen=True, slots=True)
class Hit:
    symbol: Symbol
    score: float
    sources: dict[str, object] = field(default_factory=dict)
