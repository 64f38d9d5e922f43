"""Embedding a whole repository: the default model against the recipe before it, with search quality.

    .venv/bin/python benchmarks/embed.py --corpus scrapy --rounds 3 --dev-set PATH/search-dev.jsonl
    .venv/bin/python benchmarks/embed.py --corpus scrapy --no-quality [--texts 1000] [--with-shipped]

Speed: every text cartog-ci embeds for the corpus (its stored ``chunks``, read
through the store's own ``EMBED_TEXT``; the index is built once with
``--no-embed`` into ``benchmarks/.corpora/embed/``), embedded by each variant
in a process of its own (peak RSS is that process's), the way ``cartog-ci
index`` embeds them (``embed_texts``: length-sorted batches of 32, each run
on the model's Python threads). The model loads and embeds two texts before
the clock starts. Rounds interleave the variants (the order flips each
round), so each meets the same background load; the table gives the median
texts per wall second and per CPU second (user + system of every thread:
the steadier figure on a shared machine), the median of the per-round
ratios against ``before``, peak RSS, the load average before and after, and
what onnxruntime was asked to do: provider, graph optimisation level,
intra-/inter-op threads of the session, Python threads, rows per run.

Variants: ``now``, the default model as ``load_default_model`` gives it on
this machine (embed/onnx.py: recipe 5, 7-bit int8 weights at graph
optimisation ``basic``; recipe 4 where the CPU has VNNI and
``CARTOG_CI_EMBED_VNNI=1`` asks for it); ``before``, recipe 3 (uint8
weights, graph optimisation ``basic``), the default before recipe 5;
``recipe 4`` with ``--with-vnni`` (x86 with VNNI only); ``as shipped`` with
``--with-shipped``.

Quality: MRR@10 / success@10 of ``cartog-ci search`` (default preset) on the
dev set's projects (``benchmarks/search_dev.py``; ``--projects``, by default
the eight with the fewest stored texts, 203 of the 493 questions), each index
embedded again with each variant's vectors (``benchmarks/embed_variants.py``
does the embedding and asking, and caches the result by vectors). Recipe 5's
vectors are those of ``dynq-s7 128 opt basic`` there, recipe 4's those of
the int8-weight file at graph level ``all`` (``dynq 128``), recipe 3's
``dynq-u8 128 opt basic``: the run checks that each variant's vectors are
the quality run's, byte for byte, on a sample of the corpus.

No thresholds: the table is for reading. Nothing is written outside a
temporary directory and ``benchmarks/.corpora``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from measure import load_average, median, table  # noqa: E402

HERE = Path(__file__).resolve().parent
WORK = corpora.CORPORA_DIR / "embed"
VARIANTS = ("before", "now", "recipe 4", "as shipped")
# The eight dev projects with the fewest stored texts (7,395 texts, 203 of the 493 questions).
PROJECTS = ("sumy", "IMAPClient", "sacred", "gunicorn", "sqlite-utils", "zxcvbn", "Jinja2", "fs")
CHECKED = 200  # texts on which `now` must give the quality run's vectors exactly


def corpus_texts(name: str) -> list[str]:
    """Every text cartog-ci embeds for the corpus, in the store's order."""
    from cartog_ci.store.sqlite import SqliteStore

    corpus = corpora.get(name)
    root = corpora.ensure(corpus)
    db = WORK / f"{corpus.package.lower()}-{corpus.version}.db"
    if not db.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        cli = Path(sys.executable).with_name("cartog-ci")
        done = subprocess.run(
            [str(cli), "index", str(root), "--index", str(db), "--no-embed", "--json"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"indexing {root} failed: {done.stderr.strip()}")
    with SqliteStore(db, readonly=True) as store:
        return [text for _, text in store.texts_missing_vectors("benchmarks/embed: no such model")]


def load_variant(name: str, work: Path) -> Any:
    from cartog_ci.embed import onnx

    if name == "as shipped":
        return onnx.load_default_model(requantize=False)
    if name == "now":
        return onnx.load_default_model(work / "cache-now")
    shipped = onnx.packaged_spec()
    if name == "recipe 4":
        model_path, meta_path = onnx._cache_paths(shipped, work / "cache-vnni", onnx.VNNI_RECIPE)
        state = onnx._read_cache(model_path, meta_path, onnx.VNNI_RECIPE) or onnx._build(
            shipped, model_path, meta_path, onnx.VNNI_RECIPE
        )
        if state["status"] != "ok":
            raise SystemExit(f"recipe 4 unavailable here: {state['reason']}")
        return onnx.OnnxEmbeddingModel(onnx._requantized(shipped, model_path, state["sha256"], onnx.VNNI_RECIPE))
    # `before`: recipe 3 (no longer built by embed/onnx.py): uint8 weights, level `basic`
    model_path = work / "recipe-3.onnx"
    if not model_path.exists():
        onnx.requantize(shipped.model_path, model_path, unsigned_weights=True)
    return onnx.OnnxEmbeddingModel(
        dataclasses.replace(
            shipped, name=f"{onnx._BASE_MODEL_ID}-dynq3-t{shipped.max_tokens}", model_path=model_path,
            model_sha256=None, graph_level="basic",
        )
    )  # fmt: skip


def settings(model: Any) -> dict[str, Any]:
    """What onnxruntime was asked to do, read back from the live session."""
    import onnxruntime

    session = model._get_session()
    options = session.get_session_options()
    return {
        "model_id": model.model_id,
        "provider": ",".join(session.get_providers()),
        "graph level": options.graph_optimization_level.name,
        "intra-op": options.intra_op_num_threads,
        "inter-op": options.inter_op_num_threads,  # 0: onnxruntime's default, unused when sequential
        "execution": options.execution_mode.name,
        "py threads": model.threads,
        "rows/run": model.spec.rows_per_run,
        "max tokens": model.spec.max_tokens,
        "onnxruntime": onnxruntime.__version__,
    }


# -- one child process per variant and round -------------------------------------------


def child(name: str, work: Path) -> int:
    """Load, warm up, say ready, wait for go, embed every text, report."""
    from cartog_ci.embed.base import embed_texts

    texts = json.loads((work / "texts.json").read_text())
    model = load_variant(name, work)
    embed_texts(model, texts[:2])
    print("ready", flush=True)
    sys.stdin.readline()
    wall, cpu = time.perf_counter(), _cpu()
    vectors = embed_texts(model, texts)
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    np.save(work / f"{_slug(name)}.npy", vectors[:CHECKED])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report = {"wall": wall, "cpu": cpu, "rss_mb": rss, "texts": len(texts), "settings": settings(model)}
    print(json.dumps(report), flush=True)
    return 0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_variant(name: str, work: Path) -> dict[str, Any]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", name, "--work", str(work)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"{name}: child failed")
    proc.stdin.write("go\n")
    proc.stdin.flush()
    out, _ = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"{name}: child exited {proc.returncode}")
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return report


# -- quality ---------------------------------------------------------------------------


def quality(names: Sequence[str], work: Path, texts: Sequence[str], dev_set: Path, projects: Sequence[str]) -> dict[str, Any]:
    """Ranks per variant (embed_variants' recipe for the same vectors); checks
    that `now`'s vectors are the recipe's."""
    import embed_variants as ev

    from cartog_ci.embed.base import embed_texts
    from cartog_ci.embed.recipes import recipes

    ev.SUBSET = tuple(projects)
    vnni = ev.Variant(model="dynq", max_tokens=128, intra=1, threads=2, level="all")
    portable = ev.Variant(model="dynq-s7", max_tokens=128, intra=1, threads=2, level="basic")
    recipe = {
        "before": ev.Variant(model="dynq-u8", max_tokens=128, intra=1, threads=2, level="basic"),
        "now": vnni if recipes()[0] == 4 else portable,
        "recipe 4": vnni,
        "as shipped": ev.Variant(max_tokens=128, intra=1, threads=2),
    }
    (work / "variants").mkdir(exist_ok=True)
    files = ev.model_files(work / "variants")
    for name in names:
        model = ev.load_model(recipe[name], files[recipe[name].model])
        mine = embed_texts(model, list(texts[:CHECKED]))
        gap = float(np.abs(mine - np.load(work / f"{_slug(name)}.npy")).max())
        if gap > 0:
            raise SystemExit(f"{name}: the quality run's vectors are not the variant's (max gap {gap:.2e})")
    return {name: ev.quality(recipe[name], files, dev_set) for name in names}


# -- main ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="scrapy", help="a corpus of benchmarks/corpora.py (default scrapy)")
    parser.add_argument("--texts", type=int, help="a seeded sample of this many texts (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--with-shipped", action="store_true", help="also the model as shipped (float32)")
    parser.add_argument("--with-vnni", action="store_true", help="also recipe 4 (x86 with VNNI only)")
    parser.add_argument("--dev-set", type=Path, help="the dev set's questions (benchmarks/search_dev.py)")
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS), help="dev projects for quality")
    parser.add_argument("--no-quality", action="store_true", help="speed only")
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.work)
    if not args.no_quality and (args.dev_set is None or not args.dev_set.exists()):
        parser.error("quality needs --dev-set PATH (the dev set's JSON lines), or pass --no-quality")
    texts = corpus_texts(args.corpus)
    if args.texts:
        texts = random.Random(1).sample(texts, min(args.texts, len(texts)))
    names = ["before", "now", *(["recipe 4"] if args.with_vnni else []), *(["as shipped"] if args.with_shipped else [])]
    with tempfile.TemporaryDirectory(prefix="cartog-embed-bench-") as tmp:
        work = Path(tmp)
        (work / "texts.json").write_text(json.dumps(texts))
        for name in names:  # conversions, once, outside the clock
            load_variant(name, work)
        loads = [load_average()]
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for round_number in range(args.rounds):
            for name in names if round_number % 2 == 0 else names[::-1]:
                runs[name].append(run_variant(name, work))
                print(f"round {round_number + 1} {name}: {texts_per(runs[name][-1], 'wall'):.1f} texts/s, "
                      f"{texts_per(runs[name][-1], 'cpu'):.1f} per CPU-s, load {load_average()}",
                      file=sys.stderr, flush=True)  # fmt: skip
        loads.append(load_average())
        qualities = {} if args.no_quality else quality(names, work, texts, args.dev_set, args.projects)
    _print(args, names, texts, runs, qualities, loads)
    return 0


def texts_per(run: dict[str, Any], clock: str) -> float:
    return float(run["texts"] / run[clock])


def _print(
    args: argparse.Namespace,
    names: list[str],
    texts: list[str],
    runs: dict[str, list[dict[str, Any]]],
    qualities: dict[str, Any],
    loads: list[str],
) -> None:
    import embed_variants as ev

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# {len(texts)} texts of {args.corpus} (cartog-ci's stored texts), {args.rounds} interleaved rounds, "
          f"{cpus} CPUs ({platform.processor() or platform.machine()}), load {loads[0]} -> {loads[1]}")  # fmt: skip
    headers = ["variant", "texts/s wall (range)", "texts/CPU-s (range)", "wall ratio", "CPU ratio", "peak RSS MB"]
    rows = []
    for name in names:
        walls = [texts_per(r, "wall") for r in runs[name]]
        per_cpu = [texts_per(r, "cpu") for r in runs[name]]
        wall_ratio = median([b["wall"] / r["wall"] for r, b in zip(runs[name], runs["before"])])
        cpu_ratio = median([b["cpu"] / r["cpu"] for r, b in zip(runs[name], runs["before"])])
        rows.append([
            name,
            f"{median(walls):.1f} ({min(walls):.1f}-{max(walls):.1f})",
            f"{median(per_cpu):.1f} ({min(per_cpu):.1f}-{max(per_cpu):.1f})",
            f"{wall_ratio:.2f}x",
            f"{cpu_ratio:.2f}x",
            f"{median([r['rss_mb'] for r in runs[name]]):.0f}",
        ])  # fmt: skip
    print(table(headers, rows))
    print("# ratios: texts per second against `before` in the same round (median of the rounds)")
    print()
    keys = list(runs[names[0]][0]["settings"])
    print(table(["variant", *keys], [[n, *(str(runs[n][0]["settings"][k]) for k in keys)] for n in names]))
    if not qualities:
        return
    print()
    any_q = next(iter(qualities.values()))
    print(f"# quality: cartog-ci search on the dev projects {', '.join(args.projects)} "
          f"({any_q['questions']} questions); MRR@10 / success@10")  # fmt: skip
    ref = qualities["before"]["ranks"]
    q_rows = []
    for name in names:
        ranks = qualities[name]["ranks"]
        q_rows.append([
            name,
            ev.mrr_cell(ranks["first"]),
            ev.mrr_cell(ranks["full"]),
            ev.mrr_cell(ranks["semantic first"]),
            ev.mrr_cell(ranks["semantic full"]),
            ev.paired_interval(ranks["first"], ref["first"]),
            ev.paired_interval(ranks["full"], ref["full"]),
        ])  # fmt: skip
    print(table(
        ["variant", "first sentence", "full description", "semantic only, first", "semantic only, full",
         "Δ MRR first vs before [95%]", "Δ MRR full vs before [95%]"],
        q_rows,
    ))  # fmt: skip


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)


if __name__ == "__main__":
    raise SystemExit(main())
