"""A cold run on two cores: files are stored as the parse pool gives them,
and half of the edges are resolved in a forked copy of the process (issue 16).
The index is the one a run on one process writes, for every language."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.index import files, resolve
from tests.testing.fixtures import exported, index, make_repo


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
    forked = tmp_path / "forked.db"
    result = index(repo, force=True, db=forked)
    assert result.edges_resolved > 2
    assert exported(repo, forked) == exported(repo, serial)
