"""An incremental run looks for dangling edges only among the edges to the
symbols it removed (issue 16: the target index instead of a scan of every
edge): a deleted file's symbols count, and the result equals a cold build."""

from __future__ import annotations

from pathlib import Path

from tests.testing.fixtures import commit, exported, git, index, make_repo


def test_edges_to_a_deleted_file_lose_their_target_as_in_a_cold_build(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    before = exported(repo)["edges"]
    to_text = [e for e in before if str(e["target_id"] or "").startswith("shop/util/text.py:")]
    assert to_text
    git(repo, "rm", "-q", "shop/util/text.py")
    commit(repo)
    result = index(repo)
    assert result.deleted_files == ["shop/util/text.py"]
    assert result.edges_invalidated == len([e for e in to_text if not e["source_id"].startswith("shop/util/text.py:")])
    incremental = exported(repo)
    assert not any(str(e["target_id"] or "").startswith("shop/util/text.py:") for e in incremental["edges"])
    index(repo, force=True)
    assert exported(repo) == incremental
