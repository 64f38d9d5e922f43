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
to measure there. ``--agreement``: recipe 5's conversion with 0, 1, 2 or
6 FFN down-projections in float, each one's lowest cosine against the
shipped model on the agreement texts. No thresholds; nothing is written
outside a temporary directory and ``benchmarks/.corpora``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import embed_variants  # noqa: E402
from embed import corpus_texts  # noqa: E402
from embed_variants import Variant, load_model  # noqa: E402
from measure import median  # noqa: E402


# Variants of benchmarks/embed_variants.py, by file: `dynq-u8` is recipe 3's
# file, `dynq` recipe 4's before onnxruntime optimises it, `dynq-opt` after,
# `dynq-s7` recipe 5's.
LEVERS = {
    "recipe-3": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, level="basic"),
    "recipe-4": Variant(model="dynq-opt", max_tokens=128, intra=1, threads=2, level="none"),
    "recipe-5": Variant(model="dynq-s7", max_tokens=128, intra=1, threads=2, level="basic"),
    "recipe-5-all": Variant(model="dynq-s7", max_tokens=128, intra=1, threads=2, level="all"),
    "recipe-5-1-thread": Variant(model="dynq-s7", max_tokens=128, intra=1, threads=1, level="basic"),
    "recipe-5-intra2": Variant(model="dynq-s7", max_tokens=128, intra=2, threads=1, level="basic"),
    "recipe-5-96": Variant(model="dynq-s7", max_tokens=96, intra=1, threads=2, level="basic"),
    "uint8-all": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2),
    "int8-all": Variant(model="dynq", max_tokens=128, intra=1, threads=2),
    "int8-extended": Variant(model="dynq", max_tokens=128, intra=1, threads=2, level="extended"),
    "int8-basic": Variant(model="dynq", max_tokens=128, intra=1, threads=2, level="basic"),
    "int8-all-intra2": Variant(model="dynq", max_tokens=128, intra=2, threads=1),
    "int8-all-1-thread": Variant(model="dynq", max_tokens=128, intra=1, threads=1),
    "int8-all-no-arena": Variant(model="dynq", max_tokens=128, intra=1, threads=2, arena=False),
    "shipped-r1": Variant(max_tokens=128, intra=1, threads=2),
    "shipped-r8": Variant(max_tokens=128, rows=8, intra=1, threads=2),
    "shipped-r32": Variant(max_tokens=128, rows=32, intra=1, threads=2),
    "shipped-r32-intra2": Variant(max_tokens=128, rows=32, intra=2, threads=1),
}


def model_files(work: Path) -> dict[str, Path]:
    """embed_variants' files, and the int8 one as onnxruntime optimises it
    (recipe 4's file: embed/onnx.py `_optimise`)."""
    from cartog_ci.embed.onnx import _optimise

    files = embed_variants.model_files(work)
    files["dynq-opt"] = work / "dynq-opt.onnx"
    _optimise(files["dynq"], files["dynq-opt"])
    return files


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def agreement() -> int:
    """Recipe 5's conversion with 0, 1, 2 or all 6 FFN down-projections in
    float: the lowest cosine against the shipped model on the agreement
    texts (embed/onnx.py, the gate `MIN_AGREEMENT`)."""
    from cartog_ci.embed import onnx

    shipped = onnx.packaged_spec()
    with tempfile.TemporaryDirectory(prefix="cartog-embed-levers-") as tmp:
        for kept in (0, 1, 2, 6):
            path = Path(tmp) / f"kept-{kept}.onnx"
            onnx.requantize(shipped.model_path, path, **{**onnx.PORTABLE_CONVERSION, "keep_down_projections": kept})
            cosine = onnx._agreement(shipped, path, "basic")
            print(f"7-bit weights, {kept} down-projections in float: min cosine {cosine:.4f}")
    return 0


def main() -> int:
    from cartog_ci.embed.base import embed_texts

    if "--agreement" in sys.argv[1:]:
        return agreement()
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
        models = {name: load_model(LEVERS[name], files[LEVERS[name].model]) for name in names}
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
