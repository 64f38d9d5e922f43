"""What a run made is kept to the end of a process that ends without
teardown (index/cascade.py ``keep_to_exit``, which launch.py calls for
`cartog-ci index`), not freed when the run's functions return; a library
caller keeps nothing, and a process that runs again holds one run's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.index import cascade
from tests.testing.fixtures import commit, exported, index, init_repo, write


@pytest.fixture
def keeping() -> Iterator[None]:
    cascade.keep_to_exit()
    yield
    cascade._keep = False
    cascade._KEPT.clear()


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def f():\n    return g()\n", "b.py": "from a import f\n\n\ndef g():\n    return f()\n"})
    commit(repo, "first")
    return repo


def test_a_library_run_keeps_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    index(repo, db=tmp_path / "index.db")
    assert cascade._KEPT == []


def test_a_run_that_ends_the_process_keeps_what_it_made_and_the_next_forgets_the_last(
    tmp_path: Path, keeping: None
) -> None:
    repo = _repo(tmp_path)
    db = tmp_path / "index.db"
    index(repo, db=db)  # cold: _resolve_everything's and _index's
    cold = list(cascade._KEPT)
    assert [("work" in k, "take" in k) for k in cold] == [(True, False), (False, True)]
    write(repo, {"a.py": "def f():\n    return g() + 1\n"})
    index(repo, db=db)  # incremental: _resolve's and _index's; the cold run's forgotten
    assert all(k is not c for k in cascade._KEPT for c in cold)
    assert [("rest" in k, "take" in k) for k in cascade._KEPT] == [(True, False), (False, True)]
    kept = exported(repo, db)
    cascade._keep = False
    cascade._KEPT.clear()
    index(repo, db=tmp_path / "cold.db", force=True)
    assert exported(repo, tmp_path / "cold.db") == kept  # the same index either way
