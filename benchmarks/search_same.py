"""Does the current tree answer every search as a baseline revision does?
And what do the full-text modalities cost on each?

    .venv/bin/python benchmarks/search_same.py --baseline main --dev-set PATH/search-dev.jsonl
    .venv/bin/python benchmarks/search_same.py --baseline main --dev-set PATH --corpus large --rounds 5
    .venv/bin/python benchmarks/search_same.py --baseline main --dev-set PATH --embed   # the semantic modality too

Each side (the baseline from a detached worktree, ``PYTHONPATH`` as
benchmarks/compare.py runs it) indexes its own copy of the corpus cold
(``index --no-embed``; with ``--embed``, ``index`` with the configured
model: the semantic modality runs too), then:

* ``search --json`` of the questions of benchmarks/parity.py (the first
  sentences of the dev set of benchmarks/search_dev.py, spread over it) and
  ``export --json`` are compared between the sides, byte for byte (the
  copy's path made alike);
* in a child process per side and round (sides alternating), the keyword and
  text modalities of every question are timed in process (CPU seconds);
  median and p95 per side, and the median of the text modality's calls;
* the size of each index file.

No thresholds: the table is for reading.

Measured for issue 16 (m010 + m011 against 36b7a55, their parent; 50
questions; 2 shared CPUs at a 1-minute load of 3-7):

==========================  ===================  ===================  ==================
                            scrapy, no embed     scrapy, embeddings   django, no embed
==========================  ===================  ===================  ==================
``search --json`` same      50 / 50              50 / 50              50 / 50
``export --json`` same      yes                  yes                  yes
index.db                    21.9 -> 13.1 MB      43.9 -> 35.1 MB      163.5 -> 97.2 MB
text modality, med / p95    0.1 / 0.5 -> 0.0 /   0.1 / 0.6 -> 0.0 /   0.1 / 2.8 -> 0.1 /
                            1.4 ms               1.2 ms               6.8 ms
==========================  ===================  ===================  ==================
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpora  # noqa: E402
from compare import PYTHON, REPO, _resolve, baseline_worktree, make_side  # noqa: E402
from measure import load_average  # noqa: E402
from parity import questions  # noqa: E402

TIMER = """
import json, sys, time
from cartog_ci import workspace
from cartog_ci.search import modalities
from cartog_ci.search.intent import classify
asked = json.loads(sys.argv[2])
out = {"keyword": [], "text": []}
with workspace.open_store(workspace.locate(sys.argv[1], None), create=False) as store:
    for question in asked:
        intent = classify(question)
        for name, run in (("keyword", modalities.keyword), ("text", modalities.text)):
            start = time.process_time()
            run(store, question, intent)
            out[name].append(time.process_time() - start)
print(json.dumps(out))
"""


def cli(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "-m", "cartog_ci.cli", *args], cwd=cwd, env={**env, **corpora.GIT_ENV}, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"cartog-ci {' '.join(args)} failed: {done.stderr.strip()[-1500:]}")
    return done.stdout


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1000:.1f} / {p95 * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--corpus", default="scrapy")
    parser.add_argument("--dev-set", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embed", action="store_true", help="index with embeddings (the semantic modality runs)")
    args = parser.parse_args(argv)
    corpus = corpora.get(args.corpus)
    source = corpora.ensure(corpus)
    asked = questions(args.dev_set, args.questions)
    print(f"corpus {corpus.requirement}; {len(asked)} questions; embeddings {'on' if args.embed else 'off'}; "
          f"{os.cpu_count()} CPUs; load {load_average()}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="cartog-same-") as tmp, baseline_worktree(_resolve(args.baseline), Path(tmp)) as base:
        sides = [make_side("baseline", base, args.baseline), make_side("current", REPO, "current")]
        repos, envs = {}, {}
        for side in sides:
            repo = Path(tmp) / side.name / "repo"
            shutil.copytree(source, repo, symlinks=True)
            envs[side.name] = {**side.env, "CARTOG_CI_HOME": str(Path(tmp) / side.name / "home")}
            cli(envs[side.name], repo, "index", *([] if args.embed else ["--no-embed"]))
            repos[side.name] = repo

        def answer(name: str, *command: str) -> str:
            return cli(envs[name], repos[name], *command).replace(str(repos[name]), "<repo>")

        same, differ = 0, []
        for question in asked:
            outputs = [answer(s.name, "search", "--json", question) for s in sides]
            same += outputs[0] == outputs[1]
            if outputs[0] != outputs[1]:
                differ.append(question)
        exports = [answer(s.name, "export", "--json") for s in sides]
        times: dict[str, dict[str, list[float]]] = {s.name: {"keyword": [], "text": []} for s in sides}
        for round_ in range(args.rounds):
            for side in sides if round_ % 2 == 0 else sides[::-1]:
                done = subprocess.run(
                    [PYTHON, "-c", TIMER, str(repos[side.name]), json.dumps(asked)],
                    env=envs[side.name], capture_output=True, text=True, check=True,
                )  # fmt: skip
                for name, values in json.loads(done.stdout).items():
                    times[side.name][name] += values
        sizes = {}
        for side in sides:
            found = list((Path(tmp) / side.name / "home").rglob("index.db")) or list(repos[side.name].rglob("index.db"))
            sizes[side.name] = found[0].stat().st_size / 1e6 if found else float("nan")
    print(f"`search --json` identical: {same} / {len(asked)}; `export --json` identical: {exports[0] == exports[1]}")
    for question in differ:
        print(f"  differs: {question[:100]!r}")
    print(f"{'':34}{'baseline':>22}{'current':>22}")
    print(f"{'index.db, MB':34}{sizes['baseline']:>22.1f}{sizes['current']:>22.1f}")
    for name in ("keyword", "text"):
        label = f"{name} modality CPU, median / p95"
        print(f"{label:34}{ms(times['baseline'][name]):>22}{ms(times['current'][name]):>22}")
    print(f"{args.rounds} rounds, sides alternating; load {load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
