"""Which embedding model to use, from configuration (README.md, Configuration)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci.config import Config, home
from cartog_ci.embed.recipes import recipes
from cartog_ci.errors import CartogError

if TYPE_CHECKING:  # numpy comes with the model, not with every command
    from cartog_ci.embed.base import EmbeddingModel


def model_from_config(config: Config, root: Path) -> EmbeddingModel:
    """The configured model. Its tokenizer and ONNX session load on the first
    embedding; the default model hashes its files (and converts them once per
    machine) here, so callers create it only when a text needs a vector."""
    if config.embedding_provider == "http":
        from cartog_ci.embed.http import HttpEmbeddingModel

        if not config.embedding_url or not config.embedding_api_model:
            raise CartogError("embedding_provider = 'http' needs embedding_url and embedding_api_model")
        return HttpEmbeddingModel(
            config.embedding_url,
            config.embedding_api_model,
            config.embedding_dims,
            batch_size=config.embedding_batch_size,
            timeout=config.embedding_timeout,
            retries=config.embedding_retries,
        )
    if config.embedding_provider != "onnx":
        raise CartogError(f"unknown embedding_provider {config.embedding_provider!r}: use 'onnx' or 'http'")
    from cartog_ci.embed.onnx import ModelSpec, OnnxEmbeddingModel, load_default_model

    if config.embedding_model:
        directory = Path(config.embedding_model)
        return OnnxEmbeddingModel(ModelSpec.from_directory(directory if directory.is_absolute() else root / directory))
    return load_default_model(home())


def runtime_modules(config: Config) -> tuple[str, ...]:
    """What the configured model runs on, imported before it is created by
    a caller that loads it on a thread (commands/search.py): onnxruntime's
    Python module, unless a question's session goes through its C library
    (embed/ort_capi.py), which needs no module more."""
    if config.embedding_provider != "onnx":
        return ()
    from cartog_ci.embed.ort_capi import library_path

    return () if library_path() is not None else ("onnxruntime",)


def config_key(config: Config) -> str:
    """What identifies the configured model without loading it: for the
    packaged model, the conversion this CPU gets (embed/recipes.py), so an
    index embedded by an older recipe, or on another machine, is embedded
    again rather than kept with vectors no question can be compared to."""
    packaged = config.embedding_provider == "onnx" and not config.embedding_model
    return "|".join(
        str(v)
        for v in (
            config.embedding_provider,
            config.embedding_model,
            config.embedding_url,
            config.embedding_api_model,
            config.embedding_dims if config.embedding_provider == "http" else "",
            *([f"recipe {recipes()[0]}"] if packaged else []),
        )
    )
