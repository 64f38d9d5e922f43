"""Embedding throughput on a real index's stored texts, by token cut.

The texts are those the index embeds (its ``chunks``, read through the
store's own ``EMBED_TEXT``), a seeded sample, embedded with the packaged model
as configured (``max_tokens`` from its spec) and with each ``--cut``, in
alternating rounds in one process. Prints the token lengths of the sample and,
per cut, the median texts per wall second and per CPU second (user + system of
every thread: on a shared machine the steadier figure), with the load.

    .venv/bin/python benchmarks/embed_tokens.py --index PATH/.cartog-ci/index.db --texts 300 --cut 128

No thresholds: the table is for reading. Search quality per cut is measured
separately (benchmarks/search_eval.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import load_average, median  # noqa: E402

from cartog_ci.embed.base import embed_texts  # noqa: E402
from cartog_ci.embed.onnx import OnnxEmbeddingModel, load_default_model  # noqa: E402
from cartog_ci.store.sqlite import SqliteStore  # noqa: E402


def sample_texts(index: Path, n: int, seed: int) -> list[str]:
    with SqliteStore(index) as store:
        texts = [text for _, text in store.texts_missing_vectors("benchmarks/embed_tokens: no such model")]
    random.Random(seed).shuffle(texts)
    return texts[:n]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index.db (embedded or not)")
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--cut", type=int, action="append", default=[], help="a max_tokens to compare (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    texts = sample_texts(args.index, args.texts, args.seed)
    if not texts:
        print(f"{args.index} holds no texts to embed", file=sys.stderr)
        return 2
    shipped = load_default_model()
    models = {shipped.spec.max_tokens: shipped}
    for cut in args.cut:
        models.setdefault(cut, OnnxEmbeddingModel(dataclasses.replace(shipped.spec, max_tokens=cut)))
    lengths = sorted(len(e.ids) for e in shipped._get_tokenizer().encode_batch(texts))
    print(
        f"# {len(texts)} texts of {args.index}; tokens p50 {lengths[len(lengths) // 2]}, "
        f"p90 {lengths[int(len(lengths) * 0.9)]}, max {lengths[-1]} (after the model's cut); load {load_average()}"
    )
    embed_texts(shipped, texts[:4])  # the session, created once and untimed
    rates: dict[int, tuple[list[float], list[float]]] = {cut: ([], []) for cut in models}
    for _ in range(args.rounds):
        for cut, model in models.items():
            wall, cpu = time.perf_counter(), time.process_time()
            embed_texts(model, texts)
            rates[cut][0].append(len(texts) / (time.perf_counter() - wall))
            rates[cut][1].append(len(texts) / (time.process_time() - cpu))
    print("| max tokens | texts/s wall (median) | texts per CPU second (median) |")
    print("|---|---|---|")
    for cut, (walls, cpus) in rates.items():
        print(f"| {cut} | {median(walls):.1f} | {median(cpus):.1f} |")
    print(f"load after: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
