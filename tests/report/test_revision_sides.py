"""Both sides of a change read from git at once (report/diff.py): the head
revision's files on a thread of their own while the merge-base's are read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cartog_ci import git as git_mod
from cartog_ci.errors import GitError
from cartog_ci.index.files import Limits, revision_jobs
from cartog_ci.report import diff, sides
from tests.testing.fixtures import commit, git, init_repo, write


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


def _change(tmp_path: Path) -> Path:
    """A commit that adds, deletes, modifies, renames (seen as a deletion and
    an addition), changes a file into a symbolic link, a binary .py file and
    a file in no language, with an untracked file beside it."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "kept.py": "def f():\n    return 1\n", "gone.py": "def g():\n    return 2\n",
        "old_name.py": "def h():\n    return 3\n", "to_link.py": "def k():\n    return 4\n",
        "blob.py": b"\x00\x01binary\xff\n", "logo.png": b"\x89PNG-1",
    })  # fmt: skip
    commit(repo, "base")
    write(repo, {"kept.py": "def f():\n    return 5\n", "added.py": "def a():\n    return 6\n",
                 "blob.py": b"\x00\x02binary\xfe\n", "logo.png": b"\x89PNG-2"})  # fmt: skip
    (repo / "gone.py").unlink()
    (repo / "old_name.py").rename(repo / "new_name.py")
    (repo / "to_link.py").unlink()
    (repo / "to_link.py").symlink_to("kept.py")
    commit(repo, "head")
    write(repo, {"untracked.py": "def u():\n    return 7\n"})
    return repo


def test_a_commit_s_change_with_both_sides_objects_in_one_git_call(tmp_path: Path) -> None:
    repo = _change(tmp_path)
    objects = sides.changed_objects(repo, sides.choose(repo, base="HEAD~1"))
    assert objects is not None

    def name(rev: str, path: str) -> str:
        return git(repo, "rev-parse", f"{rev}:{path}").strip()

    assert objects == {
        "added.py": ("", "", "100644", name("HEAD", "added.py")),
        "blob.py": ("100644", name("HEAD~1", "blob.py"), "100644", name("HEAD", "blob.py")),
        "logo.png": ("100644", name("HEAD~1", "logo.png"), "100644", name("HEAD", "logo.png")),
        "gone.py": ("100644", name("HEAD~1", "gone.py"), "", ""),
        "kept.py": ("100644", name("HEAD~1", "kept.py"), "100644", name("HEAD", "kept.py")),
        "new_name.py": ("", "", "100644", name("HEAD", "new_name.py")),
        "old_name.py": ("100644", name("HEAD~1", "old_name.py"), "", ""),
        "to_link.py": ("100644", name("HEAD~1", "to_link.py"), "120000", name("HEAD", "to_link.py")),
    }
    assert list(objects) == sides.changed_files(repo, sides.choose(repo, base="HEAD~1"))
    assert sides.changed_objects(repo, sides.choose(repo, base="HEAD~1", working_tree=True)) is None
    for data in (b"", b"def f():\n    return 5\n", b"\x00\xff" * 5000):
        made = subprocess.run(["git", "-C", str(repo), "hash-object", "--stdin"], input=data, capture_output=True,
                              check=True).stdout.decode().strip()  # fmt: skip
        assert git_mod.object_name(data, made) == made


@pytest.mark.parametrize("edited", [False, True])
def test_both_sides_of_a_commit_are_the_ones_git_gives(tmp_path: Path, edited: bool) -> None:
    """The merge-base's blobs through one ``cat-file`` by object name, the
    head's from the work tree when it holds them (else from git): the same
    jobs, links and files not checked out as each side read by path."""
    repo = _change(tmp_path)
    if edited:  # a changed file edited again, and a deleted one back: the head's bytes are not the work tree's
        write(repo, {"kept.py": "def f():\n    return 8\n", "gone.py": "def g():\n    return 9\n"})
    comparison = sides.choose(repo, base="HEAD~1")
    begun = diff.begin(repo, comparison)
    assert begun is not None
    objects, base_blobs = begun
    parsed = [p for p in objects if p.endswith(".py")]
    limits = Limits(1_000_000, 10_000)
    found = base_blobs()  # the merge-base's files in a language that were files (not links, not absent)
    assert set(found) == {objects[p][1] for p in ("blob.py", "gone.py", "kept.py", "old_name.py", "to_link.py")}
    links, jobs = diff._base_side(objects, parsed, limits, found)
    head_links, head_jobs, head_bytes, not_checked_out = diff._checked_out_side(repo, objects, parsed, limits)
    # each side as read by path before (``git ls-tree`` and ``git cat-file`` of REV:PATH)
    by_path = diff._without(
        revision_jobs(repo, comparison.merge_base, parsed, limits=limits, keep_source=True, edge_kinds=diff.BASE_EDGES),
        git_mod.symlinks(repo, comparison.merge_base, parsed),
    )
    head_by_path = diff._revision_side(repo, "HEAD", parsed, limits)
    assert (links, jobs) == (set(), by_path)
    assert (head_links, head_jobs) == head_by_path == ({"to_link.py"}, head_jobs)
    assert head_bytes == {j.path: j.data for j in head_by_path[1] if j.path != "to_link.py"}
    assert not_checked_out == sides.not_checked_out(repo, head_bytes)
    assert [(j.path, j.data) for j in jobs] == [
        ("added.py", None), ("blob.py", b"\x00\x01binary\xff\n"), ("gone.py", b"def g():\n    return 2\n"),
        ("kept.py", b"def f():\n    return 1\n"), ("new_name.py", None), ("old_name.py", b"def h():\n    return 3\n"),
        ("to_link.py", b"def k():\n    return 4\n"),
    ]  # fmt: skip
    assert head_bytes == {
        "added.py": b"def a():\n    return 6\n", "blob.py": b"\x00\x02binary\xfe\n", "gone.py": None,
        "kept.py": b"def f():\n    return 5\n", "new_name.py": b"def h():\n    return 3\n", "old_name.py": None,
    }  # fmt: skip
    assert not_checked_out == (["gone.py", "kept.py"] if edited else [])


def test_blobs_by_object_name_leave_out_what_is_no_blob(tmp_path: Path) -> None:
    repo = _change(tmp_path)
    blob, tree, commit_ = (git(repo, "rev-parse", rev).strip() for rev in ("HEAD:kept.py", "HEAD^{tree}", "HEAD"))
    missing = "0123456789" * 4
    assert git_mod.blobs(repo, [tree, missing, blob, commit_, blob]) == {blob: b"def f():\n    return 5\n"}
    assert git_mod.blobs(repo, []) == {}
