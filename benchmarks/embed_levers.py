"""Embedding levers one at a time, in one process: threads, rows per run, graph level, weights, arena.

    .venv/bin/python benchmarks/embed_levers.py --corpus scrapy --texts 300 --rounds 3 \\
        --only recipe-3 --only recipe-4 --only shipped-r8 --only int8-all-intra2

A seeded sample of the texts cartog-ci embeds for the corpus (as
``benchmarks/embed.py`` reads them), embedded by each lever through
``embed_texts`` in this one process, rounds interleaved (the order flips each
round). Prints texts per wall second and per CPU second (user + system of the
process: every thread) per round and their medians, and the lowest and mean
cosine of each lever's vectors against the first one's. Quicker to read than
``benchmarks/embed.py`` (no process per run, no quality), for choosing what
to measure there. No thresholds; nothing is written outside a temporary
directory and ``benchmarks/.corpora``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed import corpus_texts  # noqa: E402
from measure import median  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Lever:
    weights: str  # shipped (float32 compute) | uint8 (recipe 3's file) | int8 (recipe 4 before optimising) | int8-opt
    level: str = "all"  # onnxruntime graph optimisation: all | extended | basic | none
    rows: int = 1  # rows per onnxruntime run
    threads: int = 2  # Python threads running rows on the one session
    intra: int = 1  # the session's intra-op threads
    arena: bool = True


LEVERS = {
    "recipe-3": Lever("uint8", "basic"),
    "recipe-4": Lever("int8-opt", "none"),
    "uint8-all": Lever("uint8", "all"),
    "int8-all": Lever("int8", "all"),
    "int8-extended": Lever("int8", "extended"),
    "int8-basic": Lever("int8", "basic"),
    "int8-all-intra2": Lever("int8", "all", threads=1, intra=2),
    "int8-all-1-thread": Lever("int8", "all", threads=1),
    "int8-all-no-arena": Lever("int8", "all", arena=False),
    "shipped-r1": Lever("shipped"),
    "shipped-r8": Lever("shipped", rows=8),
    "shipped-r32": Lever("shipped", rows=32),
    "shipped-r32-intra2": Lever("shipped", rows=32, threads=1, intra=2),
}


def model_files(work: Path) -> dict[str, Path]:
    import onnxruntime

    from cartog_ci.embed.onnx import packaged_spec, requantize

    shipped = packaged_spec().model_path
    files = {"shipped": shipped, "uint8": work / "uint8.onnx", "int8": work / "int8.onnx", "int8-opt": work / "opt.onnx"}
    requantize(shipped, files["uint8"], unsigned_weights=True)
    requantize(shipped, files["int8"])
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(files["int8-opt"])
    onnxruntime.InferenceSession(str(files["int8"]), options, providers=["CPUExecutionProvider"])
    return files


def load(lever: Lever, path: Path) -> Any:
    import onnxruntime

    from cartog_ci.embed.onnx import OnnxEmbeddingModel, packaged_spec

    spec = dataclasses.replace(packaged_spec(), name="lever", model_path=path, model_sha256=None, rows_per_run=lever.rows)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = lever.intra
    levels = onnxruntime.GraphOptimizationLevel
    options.graph_optimization_level = {
        "all": levels.ORT_ENABLE_ALL,
        "extended": levels.ORT_ENABLE_EXTENDED,
        "basic": levels.ORT_ENABLE_BASIC,
        "none": levels.ORT_DISABLE_ALL,
    }[lever.level]
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_cpu_mem_arena = lever.arena
    model = OnnxEmbeddingModel(spec, threads=lever.threads)
    model._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return model


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    from cartog_ci.embed.base import embed_texts

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="scrapy")
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", choices=list(LEVERS), help="these levers, the first the reference")
    args = parser.parse_args()
    names = args.only or list(LEVERS)
    texts = corpus_texts(args.corpus)
    texts = random.Random(1).sample(texts, min(args.texts, len(texts)))
    with tempfile.TemporaryDirectory(prefix="cartog-embed-levers-") as tmp:
        files = model_files(Path(tmp))
        models = {name: load(LEVERS[name], files[LEVERS[name].weights]) for name in names}
        for model in models.values():
            embed_texts(model, texts[:4])
        speed: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        vectors: dict[str, np.ndarray] = {}
        print(f"# {len(texts)} texts of {args.corpus}, {args.rounds} rounds, load {os.getloadavg()[0]:.2f}", flush=True)
        for round_number in range(args.rounds):
            for name in names if round_number % 2 == 0 else names[::-1]:
                wall, cpu = time.perf_counter(), _cpu()
                vectors[name] = embed_texts(models[name], texts)
                wall, cpu = time.perf_counter() - wall, _cpu() - cpu
                speed[name].append((len(texts) / wall, len(texts) / cpu))
                print(f"round {round_number + 1} {name:20s} {len(texts) / wall:7.1f} texts/s {len(texts) / cpu:7.1f} per CPU-s",
                      flush=True)  # fmt: skip
    reference = vectors[names[0]]
    for name in names:
        cosines = np.sum(reference * vectors[name], axis=1)
        print(f"{name:20s} median {median([w for w, _ in speed[name]]):7.1f} texts/s "
              f"{median([c for _, c in speed[name]]):7.1f} per CPU-s; cosine vs {names[0]} "
              f"min {cosines.min():.4f} mean {cosines.mean():.5f}")  # fmt: skip
    print(f"# load at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
