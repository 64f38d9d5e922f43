"""Embedding throughput variants, each with its search quality.

    .venv/bin/python benchmarks/embed_variants.py --dev-set PATH/search-dev.jsonl [--texts 200] [--rounds 3]
    .venv/bin/python benchmarks/embed_variants.py --no-quality --only 'shipped 256' --only 'dynq 128'

Speed: a seeded sample of the texts cartog-ci embeds for Scrapy 2.11.0 (its
stored ``chunks``, read through the store's own ``EMBED_TEXT``; the index is
built once with ``--no-embed``), embedded by each variant in a process of its
own (peak RSS is that process's; a variant of two processes adds both). The
model loads and embeds two texts before the clock starts. Rounds interleave
the variants, so each meets the same background load; the table shows the
median texts per wall second with its range, texts per CPU second (user +
system of every thread and process: the steadier figure on a shared
machine), peak RSS, and the lowest cosine of the variant's vectors against
the current default's on the same texts.

Quality: MRR@10 / success@10 of ``cartog-ci search`` (default preset) on a
fixed subset of the dev set (``benchmarks/search_dev.py``): the four projects
with the fewest stored texts, chosen by size before any result was seen —
sumy, IMAPClient, sacred and gunicorn (130 questions, each asked as its first
sentence and as its whole description; 3,116 texts to embed per variant).
Each project's dev index is copied and its texts embedded again under the
variant's model id; the semantic modality alone is shown too, as it sees the
vectors undiluted. Variants that only change how the same vectors are
computed (threads, graph optimisation, execution mode, processes, order) share
the quality row of their vectors (``vectors`` column); the cosine column shows
that their vectors are the same. Quality results are cached in
``benchmarks/.corpora/embed-variants/`` by vectors and dev set.

Variants (one axis changed at a time from ``shipped 256``, the default
before this benchmark): the token cap (256 / 192 / 128; 96 and 64 too), rows per
onnxruntime run (1, 8, 32; length-sorted or in input order), intra-op
threads, inter-op threads with the parallel execution mode, graph
optimisation level, one session with 2 threads against two processes with 1
thread and against one single-threaded session run by 2 Python threads at
once (``2 runs at once``: how cartog-ci embeds since then, each thread
taking the next run), onnxruntime's CPU memory arena, spinning threads, and
the model file: the shipped one (int8 weights
turned into float for each MatMul: float32 compute) or its re-quantisation to
onnxruntime's dynamic int8 kernels (per-channel weights, ``requantize`` in
embed/onnx.py): int8 weights (``dynq``, U8S8 kernels), uint8 weights
(``dynq-u8``, U8U8 kernels: no 16-bit saturation on AVX2 without VNNI), or
int8 with the FFN down-projections kept as shipped (``dynq-ffn-kept``), or
int8 in 7 bits with the first two kept as shipped (``dynq-s7``: recipe 5's
file, embed/onnx.py).

No thresholds: the table is for reading. Nothing is written outside a
temporary directory and ``benchmarks/.corpora``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from measure import load_average, median, table  # noqa: E402

WORK = corpora.CORPORA_DIR / "embed-variants"
SUBSET = ("sumy", "IMAPClient", "sacred", "gunicorn")
LEVELS = ("all", "extended", "basic", "none")


@dataclass(frozen=True)
class Variant:
    model: str = "shipped"  # shipped | dynq | dynq-u8 | dynq-ffn-kept | dynq-s7
    max_tokens: int = 256
    rows: int = 1  # rows per onnxruntime run
    sort: bool = True  # length-sorted before batching (embed_texts) or input order
    intra: int = 2
    inter: int = 1
    parallel: bool = False  # ORT_PARALLEL execution mode
    level: str = "all"
    processes: int = 1
    threads: int = 1  # Python threads, each running rows on the one session
    spin: bool = False
    arena: bool = True  # onnxruntime's CPU memory arena

    @property
    def vectors(self) -> str:
        """What decides the vectors: the model file and the token cap, and
        for a dynamically quantised model the rows run together (one
        activation scale per tensor: rows change each other's vectors)."""
        rows = f" rows {self.rows}" if self.model != "shipped" and self.rows > 1 else ""
        # Below `extended`, onnxruntime runs a dynamically quantised graph's
        # ONNX operators as written, without its fused 8-bit MatMul kernels:
        # other vectors (up to 0.017 per dimension; `basic` = `none` exactly).
        level = f" opt {self.level}" if self.model != "shipped" and self.level in ("basic", "none") else ""
        return f"{self.model} {self.max_tokens}{rows}{level}"


VARIANTS: dict[str, Variant] = {
    "shipped 256": Variant(),
    "shipped 192": Variant(max_tokens=192),
    "shipped 128": Variant(max_tokens=128),
    "shipped 256, 8 rows sorted": Variant(rows=8),
    "shipped 256, 8 rows unsorted": Variant(rows=8, sort=False),
    "shipped 256, 32 rows sorted": Variant(rows=32),
    "shipped 256, 1 thread": Variant(intra=1),
    "shipped 256, spinning": Variant(spin=True),
    "shipped 256, inter-op 2 parallel": Variant(inter=2, parallel=True),
    "shipped 256, opt extended": Variant(level="extended"),
    "shipped 256, opt basic": Variant(level="basic"),
    "shipped 256, opt none": Variant(level="none"),
    "shipped 256, 2 procs x 1 thread": Variant(intra=1, processes=2),
    "shipped 128, 2 procs x 1 thread": Variant(max_tokens=128, intra=1, processes=2),
    "dynq 256": Variant(model="dynq"),
    "dynq 192": Variant(model="dynq", max_tokens=192),
    "dynq 128": Variant(model="dynq", max_tokens=128),
    "dynq 128, 8 rows sorted": Variant(model="dynq", max_tokens=128, rows=8),
    "dynq 128, 2 procs x 1 thread": Variant(model="dynq", max_tokens=128, intra=1, processes=2),
    "dynq-ffn-kept 256": Variant(model="dynq-ffn-kept"),
    "dynq-u8 256": Variant(model="dynq-u8"),
    "dynq-u8 128": Variant(model="dynq-u8", max_tokens=128),
    "dynq-u8 128, 2 procs x 1 thread": Variant(model="dynq-u8", max_tokens=128, intra=1, processes=2),
    "dynq-u8 128, 1 thread": Variant(model="dynq-u8", max_tokens=128, intra=1),
    "dynq-u8 128, 2 runs at once": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2),
    "dynq-u8 128, 2 runs at once, opt basic": Variant(
        model="dynq-u8", max_tokens=128, intra=1, threads=2, level="basic"
    ),
    "dynq-u8 128, 2 runs at once, opt none": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, level="none"),
    "dynq-u8 128, 2 procs x 1 thread, opt basic": Variant(
        model="dynq-u8", max_tokens=128, intra=1, processes=2, level="basic"
    ),
    "dynq-u8 128, 2 runs at once, no arena": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, arena=False),
    "dynq-u8 128, 2 runs at once, 8 rows": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, rows=8),
    "dynq-u8 128, 2 runs at once, 32 rows": Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, rows=32),
    "dynq-u8 64, 2 runs at once": Variant(model="dynq-u8", max_tokens=64, intra=1, threads=2),
    "dynq-u8 96": Variant(model="dynq-u8", max_tokens=96),
    "dynq-u8 64": Variant(model="dynq-u8", max_tokens=64),
    "dynq-s7 128, 2 runs at once, opt basic": Variant(
        model="dynq-s7", max_tokens=128, intra=1, threads=2, level="basic"
    ),
}
REFERENCE = "shipped 256"


# -- texts and model files ---------------------------------------------------------


def scrapy_texts(n: int, seed: int) -> list[str]:
    """A seeded sample of the texts cartog-ci embeds for Scrapy 2.11.0."""
    from embed import corpus_texts

    texts = corpus_texts("scrapy")
    random.Random(seed).shuffle(texts)
    return texts[:n]


def model_files(work: Path) -> dict[str, Path]:
    """The shipped file and its conversions (built once per run)."""
    from cartog_ci.embed.onnx import PORTABLE_CONVERSION, packaged_spec, requantize

    shipped = packaged_spec().model_path
    files = {name: work / f"{name}.onnx" for name in ("dynq", "dynq-u8", "dynq-ffn-kept", "dynq-s7")}
    how: dict[str, dict[str, Any]] = {
        "dynq": {},
        "dynq-u8": {"unsigned_weights": True},
        "dynq-ffn-kept": {"keep_down_projections": 6},  # all of MiniLM-L6's
        "dynq-s7": PORTABLE_CONVERSION,  # recipe 5's file
    }
    for name, path in files.items():
        if not path.exists():
            requantize(shipped, path, **how[name])
    return {"shipped": shipped, **files}


def load_model(variant: Variant, path: Path, *, name: str | None = None) -> Any:
    """An OnnxEmbeddingModel of the variant, its session made here."""
    import onnxruntime

    from cartog_ci.embed.onnx import OnnxEmbeddingModel, packaged_spec

    spec = dataclasses.replace(
        packaged_spec(),
        name=name or f"bench {variant.vectors}",
        model_path=path,
        model_sha256=None,
        max_tokens=variant.max_tokens,
        rows_per_run=variant.rows,
    )
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = variant.intra
    options.inter_op_num_threads = variant.inter
    mode = onnxruntime.ExecutionMode
    options.execution_mode = mode.ORT_PARALLEL if variant.parallel else mode.ORT_SEQUENTIAL
    levels = onnxruntime.GraphOptimizationLevel
    options.graph_optimization_level = {
        "all": levels.ORT_ENABLE_ALL,
        "extended": levels.ORT_ENABLE_EXTENDED,
        "basic": levels.ORT_ENABLE_BASIC,
        "none": levels.ORT_DISABLE_ALL,
    }[variant.level]
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if variant.spin else "0")
    options.enable_cpu_mem_arena = variant.arena
    model = OnnxEmbeddingModel(spec, threads=variant.threads)
    model._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return model


def embed(model: Any, texts: Sequence[str], variant: Variant) -> np.ndarray:
    from cartog_ci.embed.base import embed_texts

    if variant.sort:
        return embed_texts(model, texts)
    rows = [model.embed_batch(list(texts[i : i + 32])) for i in range(0, len(texts), 32)]
    return np.concatenate(rows)


# -- speed: one child process per variant (per process of it) ----------------------


def child(name: str, work: Path, part: int) -> int:
    """Load, warm up, say ready, wait for go, embed this part, report."""
    variant = VARIANTS[name]
    texts = json.loads((work / "texts.json").read_text())[part :: variant.processes]
    model = load_model(variant, model_files(work)[variant.model])
    embed(model, texts[:2], variant)
    print("ready", flush=True)
    sys.stdin.readline()
    wall, cpu = time.time(), _cpu()
    vectors = embed(model, texts, variant)
    end, cpu = time.time(), _cpu() - cpu
    np.save(work / f"{_slug(name)}-{part}.npy", vectors)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"start": wall, "end": end, "cpu": cpu, "rss_mb": rss, "texts": len(texts)}), flush=True)
    return 0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_variant(name: str, work: Path) -> dict[str, float]:
    """All processes of a variant start embedding together; wall runs from
    the first start to the last end."""
    variant = VARIANTS[name]
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", name, "--work", str(work), "--part", str(part)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        for part in range(variant.processes)
    ]
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"{name}: child failed")
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    reports = []
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode:
            raise SystemExit(f"{name}: child exited {proc.returncode}")
        reports.append(json.loads(out.strip().splitlines()[-1]))
    wall = max(r["end"] for r in reports) - min(r["start"] for r in reports)
    texts = sum(r["texts"] for r in reports)
    return {
        "per_wall": texts / wall,
        "per_cpu": texts / sum(r["cpu"] for r in reports),
        "rss_mb": sum(r["rss_mb"] for r in reports),
    }


def vectors_of(name: str, work: Path, n: int) -> np.ndarray:
    processes = VARIANTS[name].processes
    parts = [np.load(work / f"{_slug(name)}-{p}.npy") for p in range(processes)]
    out = np.empty((n, parts[0].shape[1]), dtype=np.float32)
    for p, rows in enumerate(parts):
        out[p::processes] = rows
    return out


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)


# -- quality: the dev subset, re-embedded per vectors ---------------------------------


def quality(variant: Variant, files: dict[str, Path], dev_set: Path) -> dict[str, float]:
    """MRR@10 / success@10 on the subset, cached by vectors and dev set."""
    key = hashlib.sha256(
        f"{variant.vectors}|{_sha256(files[variant.model])}|{_sha256(dev_set)}|{','.join(SUBSET)}".encode()
    ).hexdigest()[:16]
    cache = WORK / f"quality-{_slug(variant.vectors)}-{key}.json"
    if cache.exists():
        return dict(json.loads(cache.read_text()))
    result = _measure_quality(variant, files[variant.model], dev_set)
    WORK.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(result))
    return result


def _measure_quality(variant: Variant, path: Path, dev_set: Path) -> dict[str, Any]:
    import search_dev

    from cartog_ci.embed.base import encode_vector
    from cartog_ci.store.sqlite import SqliteStore

    rows = [r for r in search_dev.load(dev_set) if r["pypi"] in SUBSET]
    qs, _ = search_dev.questions(rows, None)
    model = load_model(
        dataclasses.replace(variant, intra=1, threads=2, processes=1), path, name=f"bench {variant.vectors}"
    )
    ranks: dict[str, list[float]] = {"first": [], "full": [], "semantic first": [], "semantic full": []}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cartog-embed-variants-") as tmp:
        for pypi in SUBSET:
            corpus = search_dev.corpus_of(pypi)
            root = corpora.ensure(corpus)
            db = Path(tmp) / f"{pypi}.db"
            _copy_db(_dev_index(corpus), db)
            with SqliteStore(db) as store:
                texts = store.texts_missing_vectors(model.model_id)
                if variant == VARIANTS[REFERENCE]:
                    _seed_reference(store, variant, path)
                vectors = recipe_vectors(variant, model, path, texts)
                with store.transaction():
                    store.use_vector_model(model.model_id, model.dims)
                    store.add_vectors(model.model_id, [(h, encode_vector(vectors[h])) for h, _ in texts])
            with SqliteStore(db, readonly=True) as store:
                asks = search_dev.systems(store, root, model, alternatives=True)
                default, semantic = asks["cartog-ci search (default)"], asks["semantic only (KNN)"]
                for q in (q for q in qs if q.pypi == pypi):
                    ranks["first"].append(search_dev.reciprocal(default(q.first), q.target))
                    ranks["full"].append(search_dev.reciprocal(default(q.full), q.target))
                    ranks["semantic first"].append(search_dev.reciprocal(semantic(q.first), q.target))
                    ranks["semantic full"].append(search_dev.reciprocal(semantic(q.full), q.target))
    return {"questions": len(ranks["first"]), "seconds": time.perf_counter() - started, "ranks": ranks}


def _seed_reference(store: Any, variant: Variant, path: Path) -> None:
    """The dev indexes were embedded by the default model as shipped: the
    reference's own recipe (same file, cap 256, one row per run), so its
    stored vectors are taken instead of computed again."""
    from cartog_ci.embed.base import decode_vector
    from cartog_ci.embed.onnx import packaged_spec

    stored_id = packaged_spec(max_tokens=256).name  # the id the dev indexes were embedded with
    if path != packaged_spec().model_path:
        return
    cache = WORK / f"vectors-{_slug(variant.vectors)}-{_sha256(path)[:12]}.npz"
    have = _load_vectors(cache)
    stored = store.db.execute("SELECT text_hash, vector FROM vectors WHERE model_id = ?", (stored_id,))
    have.update((str(h), decode_vector(blob)) for h, blob in stored)
    if not have:  # indexes embedded since the default changed hold none
        return
    WORK.mkdir(parents=True, exist_ok=True)
    np.savez(cache, hashes=np.array(list(have)), vectors=np.stack(list(have.values())))


def _dev_index(corpus: corpora.Corpus) -> Path:
    """The project's dev index (structure, texts), built if missing."""
    import search_dev
    from search_eval import index

    source = search_dev.index_path(corpus)
    if not source.exists():
        search_dev.WORK.mkdir(parents=True, exist_ok=True)
        index(corpora.ensure(corpus), source)
    return source


def recipe_vectors(variant: Variant, model: Any, path: Path, texts: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """Vectors by text hash, cached per vectors and model file. With one row
    per run, a text the token cap does not cut has the same vector under
    every cap, so a larger cap's cached rows serve it."""
    from cartog_ci.embed.base import embed_texts
    from cartog_ci.embed.onnx import counting_tokenizer

    key = _sha256(path)[:12]
    cache = WORK / f"vectors-{_slug(variant.vectors)}-{key}.npz"
    have = _load_vectors(cache)
    if variant.rows == 1 and " opt " not in variant.vectors:
        lengths = {h: len(ids) for (h, _), ids in zip(texts, _token_ids(counting_tokenizer(), texts))}
        for wider in sorted(WORK.glob(f"vectors-{_slug(variant.model)}-*-{key}.npz")):
            if "-rows-" in wider.stem or "-opt-" in wider.stem:
                continue
            cap = int(wider.stem.split("-")[-2])
            if cap > variant.max_tokens:
                for h, row in _load_vectors(wider).items():
                    if h not in have and lengths.get(h, cap) <= variant.max_tokens:
                        have[h] = row
    missing = [(h, t) for h, t in texts if h not in have]
    if missing:
        for (h, _), row in zip(missing, embed_texts(model, [t for _, t in missing])):
            have[h] = row
        WORK.mkdir(parents=True, exist_ok=True)
        np.savez(cache, hashes=np.array(list(have)), vectors=np.stack(list(have.values())))
    return have


def _token_ids(tokenizer: Any, texts: Sequence[tuple[str, str]]) -> list[list[int]]:
    return [e.ids for e in tokenizer.encode_batch([t for _, t in texts])]


def _load_vectors(path: Path) -> dict[str, np.ndarray]:
    if not path.exists():
        return {}
    data = np.load(path)
    return dict(zip((str(h) for h in data["hashes"]), data["vectors"]))


def _copy_db(source: Path, dest: Path) -> None:
    # Byte for byte: the index's own checksum (store/checksum.py) must
    # still match, or the store sets the copy aside as damaged and the
    # variant embeds nothing. A closed index has no write-ahead log left.
    if Path(f"{source}-wal").exists():
        from cartog_ci.store.sqlite import SqliteStore

        with SqliteStore(source):  # a writer's close checkpoints and stamps the file
            pass
    shutil.copyfile(source, dest)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mrr_cell(ranks: Sequence[float]) -> str:
    values = np.asarray(ranks)
    return f"{values.mean():.3f} / {(values > 0).mean():.3f}"


def paired_interval(better: Sequence[float], worse: Sequence[float], *, resamples: int = 10_000) -> str:
    """Mean difference of reciprocal ranks with a 95% paired bootstrap interval."""
    diff = np.asarray(better) - np.asarray(worse)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), (resamples, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return f"{diff.mean():+.3f} [{low:+.3f}, {high:+.3f}]"


# -- main --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", choices=list(VARIANTS), help="these variants (repeatable)")
    parser.add_argument("--dev-set", type=Path, help="the dev set's questions (benchmarks/search_dev.py)")
    parser.add_argument("--no-quality", action="store_true", help="speed only")
    parser.add_argument("--child", choices=list(VARIANTS), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--part", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.work, args.part)
    if not args.no_quality and (args.dev_set is None or not args.dev_set.exists()):
        parser.error("quality needs --dev-set PATH (the dev set's JSON lines), or pass --no-quality")
    names = list(dict.fromkeys([REFERENCE, *(args.only or VARIANTS)]))
    texts = scrapy_texts(args.texts, args.seed)
    with tempfile.TemporaryDirectory(prefix="cartog-embed-variants-") as tmp:
        work = Path(tmp)
        (work / "texts.json").write_text(json.dumps(texts))
        files = model_files(work)
        loads = [load_average()]
        speed: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        for _ in range(args.rounds):
            for name in random.Random(_).sample(names, len(names)) if _ else names:
                speed[name].append(run_variant(name, work))
        loads.append(load_average())
        reference = vectors_of(REFERENCE, work, len(texts))
        cosines = {name: float(np.min(np.sum(reference * vectors_of(name, work, len(texts)), axis=1))) for name in names}
        qualities = {} if args.no_quality else {VARIANTS[n].vectors: quality(VARIANTS[n], files, args.dev_set) for n in names}
    _print(names, texts, speed, cosines, qualities, loads, args.rounds)
    return 0


def _print(
    names: list[str],
    texts: list[str],
    speed: dict[str, list[dict[str, float]]],
    cosines: dict[str, float],
    qualities: dict[str, dict[str, Any]],
    loads: list[str],
    rounds: int,
) -> None:
    print(f"# {len(texts)} texts of Scrapy 2.11.0 (cartog-ci's stored texts), {rounds} interleaved rounds, "
          f"load {loads[0]} -> {loads[1]}")  # fmt: skip
    if qualities:
        any_q = next(iter(qualities.values()))
        print(f"# quality: cartog-ci search on the dev subset {', '.join(SUBSET)} ({any_q['questions']} questions); "
              "MRR@10 / success@10")  # fmt: skip
    headers = ["variant", "texts/s wall (range)", "texts/CPU-s", "peak RSS MB", "cos min", "vectors"]
    if qualities:
        headers += ["first sentence", "full description", "semantic only, first", "Δ MRR first vs ref [95%]"]
    ref_ranks = qualities.get(VARIANTS[REFERENCE].vectors, {}).get("ranks")
    rows = []
    for name in names:
        runs = speed[name]
        walls = [r["per_wall"] for r in runs]
        row = [
            name,
            f"{median(walls):.1f} ({min(walls):.1f}-{max(walls):.1f})",
            f"{median([r['per_cpu'] for r in runs]):.1f}",
            f"{median([r['rss_mb'] for r in runs]):.0f}",
            f"{cosines[name]:.4f}",
            VARIANTS[name].vectors,
        ]
        if qualities:
            ranks = qualities[VARIANTS[name].vectors]["ranks"]
            row += [
                mrr_cell(ranks["first"]),
                mrr_cell(ranks["full"]),
                mrr_cell(ranks["semantic first"]),
                paired_interval(ranks["first"], ref_ranks["first"]) if ref_ranks else "-",
            ]
        rows.append(row)
    print(table(headers, rows))


if __name__ == "__main__":
    raise SystemExit(main())
