"""Bring an index up to date: the structure (the cascade), then, when asked,
the vectors of what lacks one. Every command that needs a fresh graph
(`index`, `report`, `watch`) calls this."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci.config import Config
from cartog_ci.domain import IndexResult
from cartog_ci.domain.marks import unembedded
from cartog_ci.index.cascade import index_repository
from cartog_ci.index.files import Count, Progress
from cartog_ci.index.selection import Selector

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.embed.pipeline import EmbedResult
    from cartog_ci.store.base import Store


@dataclass(frozen=True)
class Refreshed:
    index: IndexResult
    embedded: EmbedResult | None  # None: embeddings were not asked for
    selector: Selector  # what chose the files: the report's change is chosen by it too


def refresh(
    root: Path,
    store: Store,
    config: Config,
    *,
    embed: bool,
    force: bool = False,
    progress: Progress | None = None,
    embed_progress: Callable[[int, int], None] | None = None,
    parse_count: Count | None = None,
) -> Refreshed:
    """``embed``: embed the texts without a vector of the configured model
    (the model is loaded only when one lacks it), but those of files marked
    documentation or generated (index/selection.py)."""
    selector = Selector(root, config)
    result = index_repository(
        root,
        store,
        force=force,
        max_bytes=config.max_file_bytes,
        parse_timeout_ms=config.parse_timeout_ms,
        progress=progress,
        parse_count=parse_count,
        select=selector.keep,
    )
    selector.write_marks(store)
    embedded = None
    if embed and config.embed:
        from cartog_ci.embed.pipeline import embed_pending
        from cartog_ci.embed.provider import config_key, model_from_config

        embedded = embed_pending(
            store,
            lambda: model_from_config(config, root),
            config_key=config_key(config),
            progress=embed_progress,
            skip_files=unembedded(selector.marks),
        )
    return Refreshed(result, embedded, selector)
