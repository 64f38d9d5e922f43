"""Both sides of a change read from git at once (report/diff.py): the head
revision's files on a thread of their own while the merge-base's are read."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.errors import GitError
from cartog_ci.index.files import Limits
from cartog_ci.report import diff, sides
from tests.testing.fixtures import commit, init_repo, write


def test_a_read_begun_apart_gives_its_answer_or_raises_its_error() -> None:
    assert diff._started(lambda: ("links", [1, 2]))() == ("links", [1, 2])

    def fails() -> None:
        raise GitError("git ls-tree failed: not a tree")

    waited = diff._started(fails)
    with pytest.raises(GitError, match="^git ls-tree failed: not a tree$"):
        waited()


def test_the_head_revision_s_side_is_the_one_git_gives(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def f():\n    return 1\n", "b.py": "def g():\n    return 2\n"})
    commit(repo, "base")
    write(repo, {"a.py": "def f():\n    return 3\n"})
    (repo / "c.py").symlink_to("a.py")
    commit(repo, "head")
    limits = Limits(1_000_000, 10_000)
    head = sides.head_revision(sides.choose(repo, base="HEAD~1").head)
    assert head is not None
    links, jobs = diff._started(lambda: diff._revision_side(repo, head, ["a.py", "b.py", "c.py"], limits))()
    assert links == {"c.py"}
    assert [(j.path, j.data) for j in jobs] == [
        ("a.py", b"def f():\n    return 3\n"), ("b.py", b"def g():\n    return 2\n"), ("c.py", None),
    ]  # fmt: skip
    cs = diff.compute_change(repo, sides.choose(repo, base="HEAD~1"), limits=limits)
    assert cs.skipped == [("c.py", "symbolic link")]
    assert [(c.category, c.symbol.name if c.symbol else None) for c in cs.changes] == [("modified", "f"), ("children_changed", "a")]
