"""A consistent snapshot (docs/incremental.md): a file that changes,
disappears, becomes a directory or a link while `index` runs is read again
in the same run, or stored as skipped and left dirty for the next; never
stored as read half-way. After a quiet run the index equals a cold build.

The tree changes at a known moment: the parse-count callback hears each
file right after it was read (fewer files than a pool takes: one process,
in order), and a few tests wrap a step of the run."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.domain import IndexResult
from cartog_ci.index import cascade
from cartog_ci.index.cascade import CHANGED_WHILE_READ, index_repository
from tests.testing.fixtures import assert_as_cold, commit, exported, git, index, init_repo, open_store, sql_rows, write

FILES = {
    "pkg/__init__.py": "",
    "pkg/le/__init__.py": "from pkg.le.impl import LinkExtractor\n",
    "pkg/le/impl.py": "class LinkExtractor:\n    def extract(self):\n        return 1\n",
    "pkg/user.py": "from pkg.le import LinkExtractor\n\n\ndef go():\n    return LinkExtractor().extract()\n",
    "z.py": "from pkg.user import go\n\n\ndef main():\n    return go()\n",
}
ORDER = sorted(FILES)  # the order a first run reads them in


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, FILES)
    commit(repo, "initial")
    return repo


def _index_while(repo: Path, after: str, change: Callable[[], None], reading: list[str] = ORDER) -> IndexResult:
    """One run, reading ``reading`` in order, that calls ``change`` once,
    right after ``after`` was read."""
    done: list[bool] = []

    def count(n: int, total: int) -> None:
        assert total == len(reading)
        if not done and n == reading.index(after) + 1:
            done.append(True)
            change()

    ws = workspace.locate(str(repo), None)
    with workspace.open_store(ws, create=True) as store:
        result = index_repository(repo, store, parse_count=count)
    assert done
    return result


def _files(repo: Path) -> dict[str, tuple[str, str]]:
    with open_store(repo) as store:
        return {str(p): (str(s), str(r)) for p, s, r in sql_rows(store, "SELECT path, status, reason FROM files")}


def _dirty(repo: Path) -> list[str]:
    with open_store(repo) as store:
        return json.loads(store.get_meta("dirty_files") or "[]")  # type: ignore[no-any-return]


def _names(repo: Path, path: str) -> set[str]:
    return {str(s["name"]) for s in exported(repo)["symbols"] if s["file"] == path}  # type: ignore[index, union-attr]


def _to_directory(repo: Path, path: str) -> None:
    (repo / path).unlink()
    (repo / path).mkdir()
    (repo / path / "inner.py").write_text("def inner():\n    return 1\n")


@pytest.mark.parametrize(
    ("backend", "first_run"), [("sqlite", True), ("sqlite", False), ("postgres", True), ("postgres", False)],
    ids=["first run", "incremental", "postgres-first run", "postgres-incremental"], indirect=["backend"],
)  # fmt: skip
def test_a_file_rewritten_after_it_was_read_is_read_again(tmp_path: Path, backend: str, first_run: bool) -> None:
    repo = _repo(tmp_path)
    if not first_run:
        index(repo)
        git(repo, "commit", "-q", "--allow-empty", "-m", "again")
        (repo / "pkg/le/impl.py").write_text(FILES["pkg/le/impl.py"] + "\n# edited\n")
    rewrite = "class LinkExtractor:\n    def rewritten(self):\n        return 2\n"
    reading = ORDER if first_run else ["pkg/le/impl.py"]
    result = _index_while(repo, "pkg/le/impl.py", lambda: (repo / "pkg/le/impl.py").write_text(rewrite), reading)
    assert _names(repo, "pkg/le/impl.py") == {"impl", "LinkExtractor", "rewritten"}
    assert result.skipped_files == []
    assert "pkg/le/impl.py" in _dirty(repo)  # not the commit's: read again whatever git says next
    assert_as_cold(repo, tmp_path)


def test_a_file_that_keeps_changing_is_skipped_and_indexed_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It changed after it was read, and again after it was read once more:
    stored as skipped with the reason, dirty, indexed by the next run."""
    repo = _repo(tmp_path)
    index(repo)
    real = cascade.changed_since_read
    edits = iter(range(100))

    def changing(root: str, seen: dict[str, str], limits: object) -> list[str]:
        (repo / "pkg/le/impl.py").write_text(f"class LinkExtractor:\n    def v{next(edits)}(self):\n        pass\n")
        return real(root, seen, limits)  # type: ignore[arg-type]

    monkeypatch.setattr(cascade, "changed_since_read", changing)
    (repo / "pkg/le/impl.py").write_text("class LinkExtractor:\n    pass\n")
    result = index(repo)
    monkeypatch.undo()
    assert result.skipped_files == [("pkg/le/impl.py", CHANGED_WHILE_READ)]
    assert _files(repo)["pkg/le/impl.py"] == ("skipped", CHANGED_WHILE_READ)
    assert _names(repo, "pkg/le/impl.py") == set()
    assert "pkg/le/impl.py" in _dirty(repo)
    again = index(repo)
    assert again.skipped_files == [] and _files(repo)["pkg/le/impl.py"] == ("indexed", "")
    assert_as_cold(repo, tmp_path)


@pytest.mark.parametrize(
    ("backend", "first_run"), [("sqlite", True), ("sqlite", False), ("postgres", False)],
    ids=["first run", "incremental", "postgres-incremental"], indirect=["backend"],
)  # fmt: skip
@pytest.mark.parametrize(
    ("path", "change", "stored"),
    [
        ("pkg/le/impl.py", "delete", None),
        ("pkg/le/__init__.py", "delete", None),  # a package's __init__: a deleted module, its importers revisited
        ("pkg/le/__init__.py", "directory", ("skipped", "now a directory")),
        ("pkg/le/impl.py", "symlink", ("skipped", "symbolic link")),
    ],
)  # fmt: skip
def test_a_file_gone_after_it_was_read_is_a_change_with_its_reason(
    tmp_path: Path, backend: str, first_run: bool, path: str, change: str, stored: tuple[str, str] | None
) -> None:
    repo = _repo(tmp_path)
    if not first_run:
        index(repo)
        (repo / path).write_text(FILES[path] + "\n# edited\n")  # a candidate of the next run

    def act() -> None:
        if change == "directory":
            _to_directory(repo, path)
            return
        (repo / path).unlink()
        if change == "symlink":
            os.symlink("user.py" if path.startswith("pkg/le/") else "x.py", repo / path)

    result = _index_while(repo, path, act, ORDER if first_run else [path])
    assert _files(repo).get(path) == stored
    assert _names(repo, path) == set()
    assert dict(result.skipped_files).get(path) == (stored[1] if stored else None)
    assert (path in result.deleted_files) == (stored is None and not first_run)
    if change != "directory":  # else its files, which git did not list yet, are new to the next run
        assert_as_cold(repo, tmp_path)  # the importers of a module gone resolve as in a cold build
    index(repo)  # the quiet next run
    assert_as_cold(repo, tmp_path)
    if change == "directory":
        assert _files(repo)[f"{path}/inner.py"] == ("indexed", "")


def test_a_file_changed_before_it_was_read_and_reverted_after_the_run_is_read_again(tmp_path: Path) -> None:
    """git said z.py was the commit's; it was edited before being read, and
    checked out again after the run: the next run must not trust git's
    "unchanged" (the index holds the edit). It is dirty: read again."""
    repo = _repo(tmp_path)
    edited = FILES["z.py"] + "\n\ndef edited_mid_run():\n    pass\n"
    _index_while(repo, ORDER[0], lambda: (repo / "z.py").write_text(edited))
    assert "edited_mid_run" in _names(repo, "z.py")
    assert "z.py" in _dirty(repo)  # git's view at the end of the run
    git(repo, "checkout", "--", "z.py")
    result = index(repo)
    assert result.parsed == 1 and "edited_mid_run" not in _names(repo, "z.py")
    assert_as_cold(repo, tmp_path)


def test_a_file_reverted_while_edges_are_resolved_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited before being read, checked out again after the read was
    checked (while the edges are resolved): git's view at the end says
    "unchanged", the stored state is the edit; the file is dirty all the same."""
    repo = _repo(tmp_path)
    real = cascade._resolve

    def resolve(*args: object, **kwargs: object) -> object:
        git(repo, "checkout", "--", "z.py")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cascade, "_resolve", resolve)
    edited = FILES["z.py"] + "\n\ndef edited_mid_run():\n    pass\n"
    _index_while(repo, ORDER[0], lambda: (repo / "z.py").write_text(edited))
    monkeypatch.undo()
    assert "z.py" in _dirty(repo)
    index(repo)
    assert "edited_mid_run" not in _names(repo, "z.py")
    assert_as_cold(repo, tmp_path)


@pytest.mark.parametrize("change", ["directory", "binary", "symlink"])
def test_a_module_that_becomes_skipped_is_gone_for_its_importers_and_back(tmp_path: Path, change: str) -> None:
    """A quiet tree: pkg/le/__init__.py, which pkg/user.py imports from,
    becomes a directory, binary or a link (skipped, with the reason), then
    comes back: each run equals a cold build."""
    repo = _repo(tmp_path)
    index(repo)
    path = "pkg/le/__init__.py"
    if change == "directory":
        _to_directory(repo, path)
    elif change == "binary":
        (repo / path).write_bytes(b"\0\1\2binary")
    else:
        (repo / path).unlink()
        os.symlink("impl.py", repo / path)
    result = index(repo)
    reason = {"directory": "now a directory", "binary": "binary content", "symlink": "symbolic link"}[change]
    assert dict(result.skipped_files)[path] == reason and result.deleted_files == []
    assert_as_cold(repo, tmp_path)
    if change == "directory":
        (repo / path / "inner.py").unlink()
        (repo / path).rmdir()
    else:
        (repo / path).unlink()
    git(repo, "checkout", "--", path)
    index(repo)
    assert _files(repo)[path] == ("indexed", "")
    assert_as_cold(repo, tmp_path)


@pytest.mark.parametrize("swap", ["retargeted", "file to link", "link to file"])
def test_a_swapped_symlink_is_skipped_as_a_link_and_equals_cold(tmp_path: Path, swap: str) -> None:
    """A tracked symbolic link whose target changes stays a skipped link; a
    file replaced by a link (mid-run, after being read) is skipped as one,
    and a link replaced by a file is indexed: each equal to a cold build."""
    repo = _repo(tmp_path)
    os.symlink("pkg/le/impl.py", repo / "link.py")
    commit(repo, "a link")
    index(repo)
    target = "link.py" if swap != "file to link" else "pkg/le/impl.py"
    (repo / "pkg/user.py").write_text(FILES["pkg/user.py"] + "\n# edited\n")  # a candidate before the swap

    def act() -> None:
        (repo / target).unlink()
        if swap == "link to file":
            (repo / target).write_text("def from_link():\n    pass\n")
        else:
            os.symlink("pkg/user.py" if swap == "retargeted" else "user.py", repo / target)

    if swap != "file to link":  # the link is no candidate: git sees the swap in the next run
        act()
        index(repo)
    else:
        (repo / target).write_text(FILES[target] + "\n# edited\n")
        _index_while(repo, target, act, sorted([target, "pkg/user.py"]))
    expected = ("indexed", "") if swap == "link to file" else ("skipped", "symbolic link")
    assert _files(repo)[target] == expected
    assert_as_cold(repo, tmp_path)
    index(repo)
    assert_as_cold(repo, tmp_path)


def test_a_deleted_top_package_init_reresolves_what_now_names_a_project_package(tmp_path: Path) -> None:
    """A quiet tree, no mid-run change: deleting pkg/__init__.py moves the
    Python import roots, so `from http.cookiejar import X` in
    pkg/http/cookies.py now names the project's pkg/http (scrapy/__init__.py:
    8 edges of scrapy/http/cookies.py were left stale by the hand-written
    rules; the recorded dependencies see the roots change)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "pkg/__init__.py": "",
        "pkg/http/__init__.py": "",
        "pkg/http/cookies.py": "from http.cookiejar import CookieJar\n\n\ndef jar():\n    return CookieJar()\n",
    })  # fmt: skip
    commit(repo)
    index(repo)
    (repo / "pkg/__init__.py").unlink()
    index(repo)
    assert_as_cold(repo, tmp_path)


def test_a_settled_file_rewritten_to_the_same_size_and_times_is_still_read_again(tmp_path: Path) -> None:
    """A file left alone for ``SETTLED_NS`` before it is read is checked by
    its stat, not read again (index/files.py ``_stamp_of``): a rewrite after
    the read to the same size, its modification time set back, is still
    seen, by its change time, and read again in the same run."""
    import time

    from cartog_ci.index.files import SETTLED_NS, STAMP, Limits, ParseJob, extract_file

    repo = _repo(tmp_path)
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    seen = extract_file(ParseJob("pkg/le/impl.py", root=str(repo), limits=Limits())).seen
    assert STAMP in seen  # settled: its stat stands for its bytes
    target = repo / "pkg/le/impl.py"
    before = os.stat(target)
    same_size = "class LinkExtractor:\n    def rewrite(self):\n        return 1\n"
    assert len(same_size) == len(FILES["pkg/le/impl.py"])

    def rewrite() -> None:
        target.write_text(same_size)
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))

    result = _index_while(repo, "pkg/le/impl.py", rewrite)
    assert _names(repo, "pkg/le/impl.py") == {"impl", "LinkExtractor", "rewrite"}
    assert result.skipped_files == []
    assert_as_cold(repo, tmp_path)


def test_a_file_changed_just_before_it_is_read_keeps_no_stamp(tmp_path: Path) -> None:
    """Its change time is too close to the read for a later stat to vouch
    for its bytes (a file system may keep times coarsely): it is read again."""
    from cartog_ci.index.files import STAMP, Limits, ParseJob, extract_file

    repo = _repo(tmp_path)
    assert STAMP not in extract_file(ParseJob("pkg/le/impl.py", root=str(repo), limits=Limits())).seen


def test_a_file_is_read_to_its_end_or_the_limit_whatever_its_stat_said(tmp_path: Path) -> None:
    """files._read_regular reads the size fstat gives and a byte more: a
    file longer than its stat said (it grew since; procfs says 0) is read on
    to its end, a file over the limit up to the limit."""
    from cartog_ci.index.files import _read_regular

    def read(path: Path | str, limit: int) -> tuple[bytes, int]:
        found = _read_regular(str(path), limit)
        assert found is not None
        return found[0], found[1].st_size

    source = tmp_path / "a.py"
    source.write_bytes(b"x = 1\n" * 1000)
    assert read(source, 100_000) == (b"x = 1\n" * 1000, 6000)
    assert read(source, 6_001) == (b"x = 1\n" * 1000, 6000)
    assert read(source, 6_000) == (b"x = 1\n" * 1000, 6000)
    assert read(source, 10) == (b"x = 1\nx = ", 6000)
    if os.path.exists("/proc/self/status"):  # a regular file of size 0 with bytes in it
        data, size = read("/proc/self/status", 100_000)
        assert (size, data[:5], data[-1:]) == (0, b"Name:", b"\n")
        assert len(data) > 200
        assert read("/proc/self/status", 20) == (data[:20], 0)
