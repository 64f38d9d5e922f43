"""kill -9 at any moment loses nothing: after each kill the index opens,
passes `PRAGMA integrity_check` and our invariants (tests/testing/
invariants.py), and the next run completes and equals a `--force` index.

Two harnesses, both on a generated repository that changes between rounds
(edits, renames, signature changes, new and deleted files, committed or
not):

* the real CLI (`index` cold, incremental, `--force`, with embeddings, and
  `report`) as a subprocess, SIGKILLed after a random delay;
* an in-process run (index, then embeddings with the fake model) in a
  forked child that SIGKILLs itself right before its K-th SQL statement
  (apsw ``exec_trace``), K drawn over the whole run: the CLI harness mostly
  lands in start-up and parsing, this one lands on writes.

CI runs a few rounds of each; ``CARTOG_KILLS=200`` runs 200 of each (the
figure quoted in docs/robustness.md). ``CARTOG_KILL_SEED`` replays a run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import apsw
import pytest

from cartog_ci.commands.export import export
from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.index.cascade import index_repository
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, git, index, init_repo
from tests.testing.generate import generate_repo
from tests.testing.invariants import violations

KILLS = int(os.environ.get("CARTOG_KILLS", "10"))
SEED = int(os.environ.get("CARTOG_KILL_SEED", "20260101"))
FILES = 40  # under the parse pool's threshold: the in-process child parses serially

# command -> weight; "cold" deletes the index first (the longest run, most
# writes), "embed" too, then embeds everything with the real model: its
# warm-up (model conversion, then one timed run) costs ~15 s, so only long
# runs have it; short ones kill embedding in-process (fake model).
COMMANDS = {"incremental": 30, "cold": 25, "force": 10, "report": 25} | ({"embed": 10} if KILLS >= 50 else {})


def _argv(command: str) -> list[str]:
    if command == "report":
        return ["report", "--base", "main", "--working-tree", "--json", "--no-related"]
    return ["index", *(["--force"] if command == "force" else []), *([] if command == "embed" else ["--no-embed"])]


def _mutate(repo: Path, rng: random.Random, round_: int) -> str:
    files = sorted(p for p in repo.glob("pkg*/mod*.py"))
    target = rng.choice(files)
    text = target.read_text()
    op = rng.choice(["edit", "rename", "signature", "add", "delete"] if len(files) > FILES // 2 else ["add"])
    if op == "edit":
        target.write_text(text.replace("value * step", f"value * step + {round_}", 1))
    elif op == "rename":
        name = text.split("def ", 1)[1].split("(", 1)[0]
        target.write_text(text.replace(f"def {name}(", f"def {name}_r{round_}(", 1))
    elif op == "signature":
        target.write_text(text.replace("limit=10)", f"limit=10, extra_{round_}=None)", 1))
    elif op == "add":
        module = ".".join(target.relative_to(repo).with_suffix("").parts)
        name = text.split("def ", 1)[1].split("(", 1)[0]
        (target.parent / f"added{round_}.py").write_text(
            f"from {module} import {name}\n\n\ndef added_{round_}(x):\n    return {name}(x)\n"
        )
    else:
        target.unlink()
    if rng.random() < 0.5:
        commit(repo, f"round {round_}: {op}")
    return op


def _settle(repo: Path, db: Path, tmp: Path) -> None:
    """What must hold after a kill, then after the run that follows it."""
    if db.exists():
        assert violations(db, repo) == []
        with SqliteStore(db) as store:  # opens as is: no "unusable, rebuilding"
            assert store.notices == []
    index(repo)
    assert violations(db, repo) == []
    forced = tmp / "forced.db"
    _delete(forced)
    index(repo, force=True, db=forced)
    assert _export(db) == _export(forced)


def _delete(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _export(db: Path) -> str:
    with SqliteStore(db) as store:
        return json.dumps(export(store, hashes=True), sort_keys=True)


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    repo = init_repo(tmp_path / "repo")
    generate_repo(repo, FILES, seed=SEED)
    commit(repo, "generated")
    git(repo, "checkout", "-q", "-b", "feature")  # `report --base main` has a change to show
    return repo, repo / ".cartog-ci" / "index.db"


def _run_cli(repo: Path, command: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", *_argv(command), "--repo", str(repo)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def _timed_run(repo: Path, command: str) -> float:
    start = time.perf_counter()
    proc = _run_cli(repo, command)
    assert proc.wait() == 0, proc.stderr.read() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    return time.perf_counter() - start


@pytest.mark.slow
def test_kill_9_of_the_cli_at_random_moments(project: tuple[Path, Path], tmp_path: Path) -> None:
    repo, db = project
    rng = random.Random(SEED)
    # start-up: interpreter and imports, up to the store opening (a missing index fails there)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cartog_ci.cli", "stats", "--repo", str(repo)], capture_output=True)
    startup = time.perf_counter() - start
    durations = {"cold": _timed_run(repo, "cold")}
    outcomes: Counter[str] = Counter()
    commands = list(COMMANDS)
    for round_ in range(KILLS):
        _mutate(repo, rng, round_)
        command = rng.choices(commands, weights=[COMMANDS[c] for c in commands])[0]
        if command not in durations:  # one whole run of each kind, timed (embed: converts the model first)
            if command == "embed":
                _timed_run(repo, command)
                _delete(db)
            durations[command] = _timed_run(repo, command)
            _mutate(repo, rng, round_)
        if command in ("cold", "embed"):
            _delete(db)
        proc = _run_cli(repo, command)
        # from the end of imports (killing an interpreter that has not touched
        # the index proves little) to a little past the end of the run
        delay = rng.uniform(0.7 * startup, 1.1 * durations[command])
        try:
            code = proc.wait(timeout=delay)
            assert code == 0, proc.stderr.read() if proc.stderr else ""
            outcomes["finished before the kill"] += 1
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the run and its parse workers
            proc.wait()
            outcomes["killed in start-up" if delay < startup else f"killed in {command} after start-up"] += 1
        finally:
            assert proc.stderr is not None
            proc.stderr.close()
        _settle(repo, db, tmp_path)
    timed = ", ".join(f"{c} {d:.2f} s" for c, d in durations.items())
    print(f"\nCLI kill -9: {KILLS} rounds; start-up {startup:.2f} s, whole runs: {timed}; {dict(sorted(outcomes.items()))}")


def _child(repo: Path, kill_at: int) -> None:  # pragma: no cover - runs in the forked child
    """Index; SIGKILL ourselves right before the kill_at-th SQL statement."""
    seen = 0

    def trace(_cursor: apsw.Cursor, _sql: str, _bindings: object) -> bool:
        nonlocal seen
        seen += 1
        if seen == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return True

    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        store.db.exec_trace = trace
        _run(repo, store)
    os._exit(0)


def _statements(repo: Path, db: Path, scratch: Path) -> int:
    """How many SQL statements a run makes from the current state, counted
    on a copy of the index."""
    _delete(scratch)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copy(f"{db}{suffix}", f"{scratch}{suffix}")
    count = 0

    def trace(_cursor: apsw.Cursor, _sql: str, _bindings: object) -> bool:
        nonlocal count
        count += 1
        return True

    with SqliteStore(scratch) as store:
        store.db.exec_trace = trace
        _run(repo, store)
    return count


def _run(repo: Path, store: SqliteStore) -> None:
    index_repository(repo, store)
    embed_pending(store, lambda: FakeEmbeddingModel(dims=8), config_key="fake")


@pytest.mark.slow
def test_kill_9_before_a_random_sql_statement(project: tuple[Path, Path], tmp_path: Path) -> None:
    repo, db = project
    rng = random.Random(SEED + 1)
    index(repo)
    where: Counter[str] = Counter()
    for round_ in range(KILLS):
        _mutate(repo, rng, round_)
        if rng.random() < 0.3:
            _delete(db)
        kill_at = rng.randint(1, _statements(repo, db, tmp_path / "count.db"))
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            _child(repo, kill_at)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        where["killed" if killed else "finished"] += 1
        _settle(repo, db, tmp_path)
    print(f"\nin-process kill -9 before a random statement: {KILLS} rounds; {dict(where)}")
