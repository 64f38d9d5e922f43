"""The latency of a warm `cartog-ci search` process, and of the ONNX session
behind a question, against a baseline revision.

``cli`` (default): ``cartog-ci search QUESTION --limit 10`` on an embedded
index, as the executable runs it (``cartog_ci.launch``), ``--runs`` times
per side, and whether the two sides' hits are the same; with ``--baseline REV`` that revision runs
from a detached worktree (``PYTHONPATH``, as benchmarks/compare.py does) and
the two sides alternate (baseline first in odd rounds); ``--baseline-index``
gives the baseline an index of its own, embedded by its own default model
when the two sides' vectors differ (a new recipe), ``--baseline-home`` a
model cache of its own (``CARTOG_CI_HOME``) when the cache's layout changed
(embed/onnx.py, ``_store_split``). Median and range of
wall and CPU (user + system) seconds per side, and the machine's load: on a
shared machine the CPU seconds are the steadier figure.

``--throughput``: texts per second embedding ``--texts`` stored texts of
``--index`` with 2 threads that spin while waiting or sleep (onnxruntime's
``session.intra_op.allow_spinning``), and with 1 thread, alternating.

``--sessions``: in one process, creating an onnxruntime session and
embedding one 12-token question (CPU of the thread), per model file (the
shipped one, the default's conversion, that conversion dequantising its
whole embedding tables) and graph optimisation level, interleaved, median
of ``--runs``.

    .venv/bin/python benchmarks/search_latency.py --index IDX --repo REPO --baseline eed330e --runs 21
    .venv/bin/python benchmarks/search_latency.py --sessions --runs 11

No thresholds: the table is for reading.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import PYTHON, _resolve, baseline_worktree, check_imports, make_side  # noqa: E402
from measure import cli_env, load_average, median, run_process  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
QUESTION = "retry a task with exponential backoff when it fails"
# What the `cartog-ci` executable runs (pyproject.toml: cartog_ci.launch:main,
# which ends a search without the interpreter's teardown); a revision
# older than launch.py, the CLI itself.
RUN_CLI = (
    "import sys\n"
    "try:\n    from cartog_ci.launch import main\n"
    "except ImportError:\n    from cartog_ci.cli import main\n"
    "    sys.exit(main(sys.argv[1:]))\n"
    "sys.exit(main())"
)


def run_cli(
    index: str,
    repo: str,
    question: str,
    runs: int,
    baseline: str | None,
    baseline_index: str | None = None,
    baseline_home: str | None = None,
) -> int:
    args = {
        side: ["search", question, "--limit", "10", "--repo", repo, "--index", db]
        for side, db in (("current", index), ("baseline", baseline_index or index))
    }
    sides = {"current": cli_env()}
    with tempfile.TemporaryDirectory() as tmp:
        if baseline:
            sha = _resolve(baseline)
            worktree = baseline_worktree(sha, Path(tmp))
            root = worktree.__enter__()
            side = make_side("baseline", root, sha[:7])
            check_imports(side)
            sides = {"baseline": side.env, "current": cli_env()}
            if baseline_home:  # its own model cache, as that revision wrote it
                sides["baseline"] = {**side.env, "CARTOG_CI_HOME": baseline_home}
        try:
            walls: dict[str, list[float]] = {name: [] for name in sides}
            cpus: dict[str, list[float]] = {name: [] for name in sides}
            answers: dict[str, set[str]] = {name: set() for name in sides}
            loads = [load_average()]
            for name, env in sides.items():  # warm the page cache and the model cache, untimed
                run_process([PYTHON, "-c", RUN_CLI, *args[name]], env=env)
            for i in range(runs):
                order = list(sides) if i % 2 == 0 else list(reversed(sides))
                for name in order:
                    done = run_process([PYTHON, "-c", RUN_CLI, *args[name]], env=sides[name])
                    walls[name].append(done.wall)
                    cpus[name].append(done.cpu)
                    answers[name].add(_answer(done.stdout))
            loads.append(load_average())
        finally:
            if baseline:
                worktree.__exit__(None, None, None)
    print(f"# `cartog-ci search {question!r}`: {runs} runs per side, load {loads[0]} -> {loads[1]}")
    print("| side | wall median (range) | CPU median (range) |")
    print("|---|---|---|")
    for name in sides:
        w, c = walls[name], cpus[name]
        print(f"| {name} | {median(w):.3f} s ({min(w):.3f}-{max(w):.3f}) | {median(c):.3f} s ({min(c):.3f}-{max(c):.3f}) |")
    for name in sides:  # the same answer in every run of a side, whatever its timing
        same = "the same in every run" if len(answers[name]) == 1 else f"{len(answers[name])} different answers"
        print(f"{name}: hits {same}: {next(iter(answers[name])) if len(answers[name]) == 1 else ''}")
    if len(sides) == 2:
        alike = answers["baseline"] == answers["current"]
        print(f"the two sides' hits: {'the same' if alike else 'DIFFERENT'}")
    return 0


def _answer(stdout: str) -> str:
    """The hits a run printed (file:line and name of each), without timings."""
    hits = (re.match(r"(\S+:\d+)\s+\w+\s+(\S+)", line) for line in stdout.splitlines())
    return " | ".join(f"{m.group(1)} {m.group(2)}" for m in hits if m)


def run_sessions(runs: int) -> int:
    """Session creation and one 12-token question, per model file and graph
    optimisation level (one thread): the shipped file, the default's
    (recipe 5: embedding rows looked up, then dequantised) and the same
    conversion dequantising its whole tables (``rows_first`` off)."""
    import numpy as np
    import onnxruntime

    from cartog_ci.embed.onnx import PORTABLE_CONVERSION, load_default_model, packaged_spec, requantize

    levels = onnxruntime.GraphOptimizationLevel
    with tempfile.TemporaryDirectory() as tmp:
        whole_tables = Path(tmp) / "whole-tables.onnx"
        requantize(packaged_spec().model_path, whole_tables, **{**PORTABLE_CONVERSION, "rows_first": False})
        files = {
            "shipped": str(packaged_spec().model_path),
            "recipe 5": str(load_default_model().spec.model_path),
            "recipe 5, whole tables dequantised": str(whole_tables),
        }
        variants = {
            f"{name}, {label}": (path, level)
            for name, path in files.items()
            for label, level in (
                ("no optimisation (questions)", levels.ORT_DISABLE_ALL),
                ("basic", levels.ORT_ENABLE_BASIC),
            )
        }
        ids = np.array([[101, 2128, 1037, 4708, 2007, 23436, 2067, 7245, 2043, 2009, 11896, 102]], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        cpus: dict[str, list[float]] = {k: [] for k in variants}
        runs_cpu: dict[str, list[float]] = {k: [] for k in variants}
        out: dict[str, np.ndarray] = {}
        load = load_average()
        for _ in range(runs):
            for name, (path, level) in variants.items():
                options = onnxruntime.SessionOptions()
                options.graph_optimization_level = level
                options.intra_op_num_threads = 1
                cpu = time.thread_time()
                session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
                made = time.thread_time()
                out[name] = session.run(None, feeds)[0]
                cpus[name].append(time.thread_time() - cpu)
                runs_cpu[name].append(time.thread_time() - made)
    print(f"# session + one 12-token question, one thread, {runs} runs each, load {load} -> {load_average()}")
    print(
        "| file, graph optimisation | session + question, CPU median | of which the question "
        "| max abs difference vs the file at `basic` |"
    )
    print("|---|---|---|---|")
    for name, (path, _) in variants.items():
        basic = next(k for k, (p, level) in variants.items() if p == path and level == levels.ORT_ENABLE_BASIC)
        diff = float(np.abs(out[name] - out[basic]).max())
        print(f"| {name} | {median(cpus[name]) * 1000:.0f} ms | {median(runs_cpu[name]) * 1000:.1f} ms | {diff:.1e} |")
    return 0


def run_throughput(index: str, texts: int) -> int:
    """Texts per second (wall and CPU) embedding stored texts of an index,
    2 threads, with and without spinning threads, alternating."""
    import onnxruntime
    from embed_tokens import sample_texts  # the store's own reading of the embedded texts (m006)

    from cartog_ci.embed.onnx import OnnxEmbeddingModel, packaged_spec

    sample = sample_texts(Path(index), texts, seed=1)
    spec = packaged_spec()
    print(f"# {len(sample)} stored texts of {index}, load {load_average()}")
    print("| threads | spinning | texts/s wall | texts per CPU-second |")
    print("|---|---|---|---|")
    for threads, spin in ((2, "0"), (2, "1"), (1, "0"), (2, "0"), (2, "1")):
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", spin)
        model = OnnxEmbeddingModel(spec)
        model._session = onnxruntime.InferenceSession(str(spec.model_path), options, providers=["CPUExecutionProvider"])
        model.embed_batch(["warm up"])
        cpu, wall = time.process_time(), time.perf_counter()
        model.embed_batch(sample)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"| {threads} | {'yes' if spin == '1' else 'no'} | {len(sample) / wall:.1f} | {len(sample) / cpu:.1f} |")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", help="an embedded index (cli)")
    parser.add_argument("--repo", help="its repository (cli)")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--baseline", help="revision to compare with (cli)")
    parser.add_argument(
        "--baseline-index", help="the baseline's own embedded index, when its model's vectors differ (cli)"
    )
    parser.add_argument(
        "--baseline-home", help="CARTOG_CI_HOME of the baseline: its model cache, when the cache's layout changed (cli)"
    )
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sessions", action="store_true", help="time session settings in-process")
    parser.add_argument("--throughput", action="store_true", help="embedding rate with and without spinning threads")
    parser.add_argument("--texts", type=int, default=60, help="stored texts for --throughput")
    args = parser.parse_args(argv)
    if args.sessions:
        return run_sessions(args.runs)
    if args.throughput:
        if not args.index:
            parser.error("--throughput needs --index")
        return run_throughput(args.index, args.texts)
    if not args.index or not args.repo:
        parser.error("--index and --repo are needed (or --sessions)")
    return run_cli(
        args.index, args.repo, args.question, args.runs, args.baseline, args.baseline_index, args.baseline_home
    )


if __name__ == "__main__":
    raise SystemExit(main())
