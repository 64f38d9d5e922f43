"""A branch's latest graph moves only forward (store/postgres/__init__.py
``_moves_forward``), on a real PostgreSQL: two writers of main, opened in
push order and finishing in either order, leave the newer commit the
latest; the late older one's graph is stored and readable by its commit;
after a rewritten history the run that began later wins."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from cartog_ci import workspace
from cartog_ci.index.cascade import index_repository
from tests.testing.fixtures import commit, git, make_repo, run_cli, write

FRESH = "def fresh_tip(name):\n    return name\n"


@pytest.fixture
def shared(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    monkeypatch.setenv("CARTOG_CI_REPOSITORY", "proj")
    monkeypatch.setenv("CARTOG_CI_BRANCH", "main")
    monkeypatch.setenv("CARTOG_CI_BASE_BRANCH", "main")
    return pg_url


def _latest_commit(url: str) -> str:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT s.commit_sha FROM cartog.graphs g JOIN cartog.snapshots s USING (schema_name) "
            "WHERE g.repository = 'proj' AND g.branch = 'main'"
        ).fetchall()
    assert len(rows) == 1
    return str(rows[0][0])


def _checkout(origin: Path, sha: str, path: Path) -> Path:
    """A clone of ``origin`` at ``sha`` (detached, as CI checks out a push)."""
    git(origin.parent, "clone", "-q", str(origin), str(path))
    git(path, "checkout", "-q", "--detach", sha)
    return path


def _writers(order: list[Path]) -> list[object]:
    """Writers opened in ``order`` (the order their runs began)."""
    return [workspace.open_store(workspace.locate(str(p), None), create=True) for p in order]


def _finish(path: Path, store: object) -> list[str]:
    with store:  # type: ignore[attr-defined]
        return index_repository(path, store).notices  # type: ignore[arg-type]


def _race(older: Path, newer: Path, *, older_last: bool) -> list[str]:
    """Both writers opened, the older's run first (as pushes start runs),
    then finished in the order asked; the notices of the one finishing
    last (the first says nothing)."""
    writers = dict(zip((older, newer), _writers([older, newer])))
    order = [newer, older] if older_last else [older, newer]
    assert _finish(order[0], writers[order[0]]) == []
    return _finish(order[1], writers[order[1]])


def _history(tmp_path: Path) -> tuple[Path, str, str, str]:
    origin = make_repo(tmp_path, "pyproj")
    x = git(origin, "rev-parse", "HEAD").strip()
    write(origin, {"older.py": "def older_one():\n    return 1\n"})
    x1 = commit(origin, "X+1")
    write(origin, {"tip.py": FRESH})
    x2 = commit(origin, "X+2")
    return origin, x, x1, x2


@pytest.mark.parametrize("last", ["older", "newer"])
def test_the_newer_commit_stays_latest_whichever_writer_finishes_last(
    shared: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], last: str
) -> None:
    origin, _, x1, x2 = _history(tmp_path)
    older, newer = _checkout(origin, x1, tmp_path / "run1"), _checkout(origin, x2, tmp_path / "run2")
    notices = _race(older, newer, older_last=last == "older")
    if last == "older":
        assert notices == [
            f"main's latest graph stays at commit {x2[:12]} ({x1[:12]} is an ancestor of {x2[:12]}): "
            f"the graph of {x1[:12]} is stored, readable with CARTOG_CI_GRAPH_COMMIT={x1}"
        ]
    else:
        assert notices == []
    assert _latest_commit(shared) == x2
    code, out, err = run_cli(capsys, "refs", "fresh_tip", "--repo", str(newer))
    assert (code, err) == (0, ""), err
    # the older commit's graph is addressable: it has older_one and no fresh_tip
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CARTOG_CI_GRAPH_COMMIT", x1)
        assert run_cli(capsys, "refs", "older_one", "--repo", str(older))[0] == 0
        code, _, err = run_cli(capsys, "refs", "fresh_tip", "--repo", str(older))
        assert code == 2 and "no symbol named" in err


def test_a_late_older_writer_run_again_writes_its_own_graph_in_place(shared: str, tmp_path: Path) -> None:
    """A second run of the older commit (as a later transaction of one run)
    writes that commit's graph again, never a new one over the latest's,
    and still keeps off the pointer."""
    origin, _, x1, x2 = _history(tmp_path)
    older, newer = _checkout(origin, x1, tmp_path / "run1"), _checkout(origin, x2, tmp_path / "run2")
    _finish(newer, _writers([newer])[0])
    _finish(older, _writers([older])[0])
    with psycopg.connect(shared) as conn:
        graphs_before = conn.execute("SELECT count(*) FROM cartog.snapshots").fetchone()[0]
    assert len(_finish(older, _writers([older])[0])) == 1
    assert _latest_commit(shared) == x2
    with psycopg.connect(shared) as conn:
        assert conn.execute("SELECT count(*) FROM cartog.snapshots").fetchone()[0] == graphs_before


@pytest.mark.parametrize("last", ["old push", "new push"])
@pytest.mark.parametrize("clones", ["fresh", "shared objects"])
def test_after_a_force_push_the_newer_push_wins(
    shared: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], last: str, clones: str
) -> None:
    """main rewritten (X+1 dropped, Y pushed in its place): the run of Y
    began after the run of X+1, so Y is the latest whichever finishes
    last. Fresh clones know only their own history (git cannot relate the
    commits); clones that share objects know both (neither is an ancestor)."""
    origin, x, x1, _ = _history(tmp_path)
    git(origin, "reset", "-q", "--hard", x1)
    old_run = _checkout(origin, x1, tmp_path / "old")
    git(origin, "reset", "-q", "--hard", x)
    write(origin, {"rewritten.py": "def rewritten_one():\n    return 1\n"})
    y = commit(origin, "Y (force-pushed)")
    if clones == "fresh":
        git(origin, "reflog", "expire", "--expire=now", "--all")
        git(origin, "gc", "-q", "--prune=now")
        new_run = _checkout(origin, y, tmp_path / "new")
    else:
        git(old_run, "fetch", "-q", "origin", "main")
        new_run = tmp_path / "new"
        git(old_run, "worktree", "add", "-q", "--detach", str(new_run), y)
    notices = _race(old_run, new_run, older_last=last == "old push")
    if last == "old push":
        assert notices == [
            f"main's latest graph stays at commit {y[:12]} (the history was rewritten and the run that wrote "
            f"{y[:12]} began after this one): the graph of {x1[:12]} is stored, readable with "
            f"CARTOG_CI_GRAPH_COMMIT={x1}"
        ]
    else:
        assert notices == []
    assert _latest_commit(shared) == y
    assert run_cli(capsys, "refs", "rewritten_one", "--repo", str(new_run))[0] == 0


def test_a_query_refreshed_at_an_older_commit_answers_from_its_graph_and_says_the_latest_stays(
    shared: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`refs` brings the graph up to date with its clone first: in a clone
    at X+1 after X+2 was indexed, it stores X+1's graph off the pointer,
    says so, and answers from X+1's graph (its own tree)."""
    origin, _, x1, x2 = _history(tmp_path)
    older, newer = _checkout(origin, x1, tmp_path / "run1"), _checkout(origin, x2, tmp_path / "run2")
    _finish(newer, _writers([newer])[0])
    code, out, err = run_cli(capsys, "refs", "older_one", "--repo", str(older))
    assert code == 0 and "older.py" in out
    assert err == (
        f"cartog-ci: main's latest graph stays at commit {x2[:12]} ({x1[:12]} is an ancestor of {x2[:12]}): "
        f"the graph of {x1[:12]} is stored, readable with CARTOG_CI_GRAPH_COMMIT={x1}\n"
    )
    assert _latest_commit(shared) == x2
    code, _, err = run_cli(capsys, "refs", "fresh_tip", "--repo", str(older))  # X+2's function: not in X+1's tree
    assert code == 2 and "no symbol named" in err


def test_a_clone_reset_to_an_older_commit_moves_the_latest_back(shared: str, tmp_path: Path) -> None:
    """One clone's own runs follow its HEAD: indexed at X+2, reset to X+1,
    indexed again, the latest is X+1 (a user's reset, not a late run)."""
    origin, _, x1, x2 = _history(tmp_path)
    clone = _checkout(origin, x2, tmp_path / "clone")
    assert _finish(clone, _writers([clone])[0]) == []
    git(clone, "checkout", "-q", "--detach", x1)
    assert _finish(clone, _writers([clone])[0]) == []
    assert _latest_commit(shared) == x1
