"""A cold run on two cores: files are stored as the parse pool gives them,
and half of the edges are resolved in a forked copy of the process (issue 16).
The index is the one a run on one process writes, for every language."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cartog_ci.index import files, resolve, workers
from tests.testing.fixtures import commit, exported, index, init_repo, make_repo, write


@pytest.mark.parametrize("project", ["pyproj", "tsproj", "goproj", "rustproj", "javaproj", "mixedproj"])
def test_a_forked_cold_run_equals_one_on_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: str
) -> None:
    repo = make_repo(tmp_path, project)
    serial = tmp_path / "serial.db"
    index(repo, force=True, db=serial)
    # the thresholds below which a run stays on one process, lowered to this small project
    monkeypatch.setattr(resolve, "FORK_THRESHOLD", 2)
    monkeypatch.setattr(files, "POOL_THRESHOLD", 2)
    monkeypatch.setattr(workers, "spare_core", lambda: True)  # a busy test machine forks too
    forked = tmp_path / "forked.db"
    result = index(repo, force=True, db=forked)
    assert result.edges_resolved > 2
    assert exported(repo, forked) == exported(repo, serial)


def test_a_forked_incremental_run_equals_a_cold_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An incremental run that resolves many edges shares them with a forked
    process too (cascade.FORK_INCREMENTAL), each side taking chunks
    (resolve.SHARED_CHUNK): the index is a cold build's."""
    from cartog_ci.index import cascade

    repo = init_repo(tmp_path / "repo")
    users = {f"u{i}.py": "from lib import f\n\n\ndef g():\n" + "    f()\n" * 20 for i in range(5)}
    write(repo, {"lib.py": "def f():\n    pass\n", **users})
    commit(repo, "initial")
    index(repo)
    monkeypatch.setattr(resolve, "FORK_THRESHOLD", 2)
    monkeypatch.setattr(resolve, "SHARED_CHUNK", 3)
    monkeypatch.setattr(cascade, "FORK_INCREMENTAL", 2)
    monkeypatch.setattr(workers, "spare_core", lambda: True)
    pools: list[int] = []
    real_pool = workers.pool
    monkeypatch.setattr(workers, "pool", lambda n, **kw: pools.append(n) or real_pool(n, **kw))
    write(repo, {"lib.py": "def h():\n    pass\n"})  # every `f` of the project resolved again
    result = index(repo)
    assert (result.mode, result.edges_resolved, pools) == ("incremental", 105, [1])  # 1: the forked resolver
    cold = tmp_path / "cold.db"
    index(repo, force=True, db=cold)
    assert exported(repo) == exported(repo, cold)


def test_the_indexer_parses_the_last_files_while_the_worker_parses_a_slow_first_one(tmp_path: Path) -> None:
    """files._InTurns: waiting for the first file, the indexer takes the
    chunks no worker has started, from the end, and parses them itself; the
    results come in order and equal those of one process."""
    from cartog_ci.index import workers

    repo = init_repo(tmp_path / "repo")
    slow = "".join(f"def f{i}(a, b):\n    return g(a) + h(b)\n\n\n" for i in range(3000))  # ~1 s to extract
    small = {f"m{i:02}.py": f"def m{i}():\n    return {i}\n" for i in range(40)}
    write(repo, {"a_slow.py": slow, **small})
    jobs = [files.ParseJob(p, root=str(repo)) for p in ["a_slow.py", *small]]
    one_process = [files.extract_file(job) for job in jobs]
    pool = workers.pool(1)
    try:
        turns = files._InTurns([pool.submit(files._extract_chunk, [job]) for job in jobs], [[job] for job in jobs])
        # a file's stat joins what was seen only once it has not changed
        # for files.SETTLED_NS, which a slow machine may pass between the reads
        assert [_unstamped(r) for r in turns] == [_unstamped(r) for r in one_process]
    finally:
        pool.shutdown()
    # the worker took the slow file and at most the next two (its queue): the indexer parsed the rest
    assert 38 <= turns.here <= 40


def _unstamped(result: files.ParseResult) -> files.ParseResult:
    return replace(result, seen=result.seen.partition(files.STAMP)[0])


def test_the_queries_are_compiled_before_the_pool_forks() -> None:
    """Markdown's link queries too (each worker compiled both)."""
    from cartog_ci import languages
    from cartog_ci.languages import markdown

    markdown._definitions.cache_clear()
    markdown._inline.cache_clear()
    files._compile_queries([files.ParseJob("README.md"), files.ParseJob("src/a.ts")], languages.for_path)
    assert markdown._definitions.cache_info().currsize == markdown._inline.cache_info().currsize == 1
    typescript = languages.for_path("src/a.ts").syntax  # type: ignore[union-attr]
    assert "_tags" in typescript.__dict__


def test_a_busy_machine_resolves_on_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no core idle (workers.spare_core), the resolver forks no copy
    of itself: the child would cost CPU for no wall time. The index is the same."""
    repo = make_repo(tmp_path, "pyproj")
    serial = tmp_path / "serial.db"
    index(repo, force=True, db=serial)
    monkeypatch.setattr(resolve, "FORK_THRESHOLD", 2)
    monkeypatch.setattr(workers, "spare_core", lambda: False)
    pools: list[int] = []
    real_pool = workers.pool
    monkeypatch.setattr(workers, "pool", lambda n, **kw: pools.append(n) or real_pool(n, **kw))
    busy = tmp_path / "busy.db"
    result = index(repo, force=True, db=busy)
    assert result.edges_resolved > 2
    assert pools == []
    assert exported(repo, busy) == exported(repo, serial)


@pytest.mark.parametrize(
    ("cores", "load", "spare"),
    [(2, 0.3, True), (2, 1.4, True), (2, 1.5, False), (2, 7.2, False), (4, 3.0, True), (1, 0.0, False)],
)
def test_a_spare_core_is_one_the_load_leaves_idle(
    monkeypatch: pytest.MonkeyPatch, cores: int, load: float, spare: bool
) -> None:
    monkeypatch.setattr(workers.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(workers.os, "getloadavg", lambda: (load, load, load))
    assert workers.spare_core() is spare
