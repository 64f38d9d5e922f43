"""Hostile source files: each one is indexed, or skipped with a reason that
`stats` lists; nothing crashes, nothing hangs, nothing is read from outside
the repository.

One repository holds every case (building and indexing it once keeps the
module fast); each case is then its own test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci import git as git_mod
from cartog_ci.cli import main
from cartog_ci.index import files as files_mod
from cartog_ci.index.files import ParseJob, extract_file
from tests.testing.env import isolate_env
from tests.testing.fixtures import commit, exported, git, index, init_repo, write

HANG = 600  # seconds: a run that takes this long is a hang, not a slow run (a loaded machine included)
DEEP = 10_000
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)
FUNC = "def {0}():\n    return 1\n"
# a bundle as minifiers write it: one line, one-letter names (index/files.py `minified`)
MINIFIED = "!function(){" + ";".join(f"function f{i}(n){{return n+{i}}}" for i in range(300)) + "}();\n"
# a compiled package's one-line module, under 4 KiB: source, not a bundle
LONG_LINE = "export function long_line() { return '" + "x" * 300 + "'; }\n"

# case -> (path, content written before the commit)
COMMITTED: dict[str, tuple[str, str | bytes]] = {
    "binary with a source extension": ("bin.py", bytes(range(256)) * 40),
    "invalid UTF-8": ("bad_utf8.py", b"def f():\n    return '\xff\xfe\xc3('\n"),
    "UTF-16 with BOM": ("utf16.py", "def g():\n    return 'é'\n".encode("utf-16")),
    "UTF-8 with BOM": ("bom.py", b"\xef\xbb\xbfdef with_bom():\n    return 1\n"),
    "CRLF line endings": ("crlf.py", b"def a():\r\n    return 1\r\n\r\ndef b():\r\n    return a()\r\n"),
    "mixed line endings": ("mixed.py", b"def c():\r\n    return 1\n\r\ndef d():\r    return c()\n"),
    "10,000-deep parentheses": ("deep_parens.py", "x = " + "(" * DEEP + "1" + ")" * DEEP + "\n"),
    "10,000-deep calls": ("deep_calls.py", "x = " + "f(" * DEEP + "1" + ")" * DEEP + "\n"),
    # one bracket a line: one line of 20 KB would be skipped as minified
    "10,000-deep arrays (JS)": ("deep.js", "const x = " + "[\n" * DEEP + "1" + "]" * DEEP + ";\n"),
    "10,000-deep block quotes (Markdown)": ("deep.md", ">" * DEEP + " [x](bom.py)\n"),
    "non-ASCII path": ("héllo wörld/ünï.py", FUNC.format("unicode_path")),
    "path with spaces": ("with space/a b.py", FUNC.format("spaced")),
    "path with a newline": ("new\nline.py", FUNC.format("newline_path")),
    "path with terminal escapes": ("esc\x1b[31mred.py", b"\0binary"),
    "Git LFS pointer": ("model.py", LFS_POINTER),
    "deleted after listing": ("gone.py", FUNC.format("gone")),
    "plain file (control)": ("pkg/ok.py", FUNC.format("ok")),
    "minified bundle (JS)": ("dist/app.js", MINIFIED),
    "one long line under 4 KiB (JS)": ("lib/checks.js", LONG_LINE),
}
SYMLINKS = {
    "symlink to itself": ("self.py", "self.py"),
    "symlink outside the repository": ("outside.py", "/etc/passwd"),
    "symlink into .git": ("intogit.py", ".git/config"),
}
NOT_UTF8_NAME = b"latin\xe9.py"

# case -> expected: ("indexed", a symbol name it must hold) | ("skipped", reason) | ("absent", "")
EXPECTED: dict[str, tuple[str, str]] = {
    "binary with a source extension": ("skipped", "binary content"),
    "invalid UTF-8": ("skipped", "not valid UTF-8 text"),
    "UTF-16 with BOM": ("indexed", "g"),
    "UTF-8 with BOM": ("indexed", "with_bom"),
    "CRLF line endings": ("indexed", "b"),
    "mixed line endings": ("indexed", "d"),
    "10,000-deep parentheses": ("indexed", "deep_parens"),
    # no Python runs it (CPython: "too many nested parentheses" past 200),
    # and it is indexed: the value patterns match an argument list alone
    # (languages/queries/python.scm), no match is kept open per level
    "10,000-deep calls": ("indexed", "deep_calls"),
    "10,000-deep arrays (JS)": ("indexed", "deep"),
    "10,000-deep block quotes (Markdown)": ("indexed", "deep"),
    "non-ASCII path": ("indexed", "unicode_path"),
    "path with spaces": ("indexed", "spaced"),
    "path with a newline": ("indexed", "newline_path"),
    "path with terminal escapes": ("skipped", "binary content"),
    "Git LFS pointer": ("skipped", "Git LFS pointer (run `git lfs pull` to index the file)"),
    "deleted after listing": ("absent", ""),
    "plain file (control)": ("indexed", "ok"),
    "minified bundle (JS)": ("skipped", f"minified (1 line(s) of {len(MINIFIED):,} bytes on average)"),
    "one long line under 4 KiB (JS)": ("indexed", "long_line"),
    "symlink to itself": ("skipped", "symbolic link"),
    "symlink outside the repository": ("skipped", "symbolic link"),
    "symlink into .git": ("skipped", "symbolic link"),
    "file name not valid UTF-8": ("skipped", "file name is not valid UTF-8 (rename the file)"),
    "git submodule": ("skipped", "git submodule (not indexed)"),
    "nested git repository": ("skipped", "nested git repository (not indexed)"),
    "50 MB generated file": ("skipped", "too large (50.0 MB > 2.0 MB limit)"),
}
PATHS = {case: path for case, (path, _) in COMMITTED.items()} | {c: p for c, (p, _) in SYMLINKS.items()}
PATHS |= {
    "file name not valid UTF-8": "latin\\xe9.py",
    "git submodule": "vendor/sub",
    "nested git repository": "nested/",
    "50 MB generated file": "huge.py",
}


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args, "--repo", str(repo)],
        capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, object], str, str]]:
    """(repo, stats --json, index output, stats output) after one `index`."""
    with pytest.MonkeyPatch.context() as mp:
        isolate_env(tmp_path_factory, mp)
        root = tmp_path_factory.mktemp("hostile")
        sub = init_repo(root / "sub")
        write(sub, {"lib.py": FUNC.format("in_submodule")})
        commit(sub)
        repo = init_repo(root / "repo")
        write(repo, {path: content for path, content in COMMITTED.values()})
        for path, target in SYMLINKS.values():
            os.symlink(target, repo / path)
        (repo / os.fsdecode(NOT_UTF8_NAME)).write_text(FUNC.format("latin"))
        git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
        commit(repo, "hostile files")
        (repo / "gone.py").unlink()  # still in git's index: listed, then missing
        nested = init_repo(repo / "nested")  # untracked: listed by --others as "nested/"
        write(nested, {"inner.py": FUNC.format("in_nested")})
        commit(nested)
        with (repo / "huge.py").open("wb") as fh:  # untracked: listed by --others
            line = b"x = 'generated line of a very large file, never parsed'\n"
            fh.write(line * (50_000_000 // len(line) + 1))
        indexed = _cli(repo, "index", "--no-embed")
        assert indexed.returncode == 0, indexed.stderr
        stats = _cli(repo, "stats", "--json")
        assert stats.returncode == 0, stats.stderr
        text = _cli(repo, "stats")
        yield repo, json.loads(stats.stdout), indexed.stdout, text.stdout


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_hostile_file_is_indexed_or_skipped_with_a_reason(
    case: str, hostile: tuple[Path, dict[str, object], str, str]
) -> None:
    repo, stats, _, _ = hostile
    outcome, detail = EXPECTED[case]
    path = PATHS[case]
    skipped = {str(s["path"]): str(s["reason"]) for s in stats["skipped"]}  # type: ignore[union-attr]
    symbols = {(str(s["file"]), str(s["name"])) for s in exported(repo)["symbols"]}  # type: ignore[union-attr]
    if outcome == "skipped":
        assert skipped.get(path) == detail
        assert not any(f == path for f, _ in symbols)
    elif outcome == "indexed":
        assert path not in skipped
        assert (path, detail) in symbols or any(f == path and n == detail for f, n in symbols), sorted(symbols)
    else:
        assert path not in skipped and not any(f == path for f, _ in symbols)


def test_line_numbers_follow_the_lines_git_shows(hostile: tuple[Path, dict[str, object], str, str]) -> None:
    repo, _, _, _ = hostile
    lines = {(s["file"], s["name"]): s["start_line"] for s in exported(repo)["symbols"]}  # type: ignore[union-attr, index]
    assert lines[("crlf.py", "a")] == 1 and lines[("crlf.py", "b")] == 4
    assert lines[("bom.py", "with_bom")] == 1
    assert lines[("mixed.py", "c")] == 1  # a lone CR is no line break for git (nor for us)
    assert lines[("mixed.py", "d")] == 4


def test_terminal_output_carries_no_control_characters(hostile: tuple[Path, dict[str, object], str, str]) -> None:
    _, _, index_out, stats_out = hostile
    for out in (index_out, stats_out):
        assert "\x1b" not in out
        assert "skipped esc?[31mred.py: binary content" in out


def test_nothing_outside_the_repository_is_read(hostile: tuple[Path, dict[str, object], str, str]) -> None:
    repo, _, _, _ = hostile
    contents = json.dumps(exported(repo))
    assert "root:" not in contents  # /etc/passwd
    assert "repositoryformatversion" not in contents  # .git/config


def test_a_deleted_file_comes_back_when_restored(hostile: tuple[Path, dict[str, object], str, str]) -> None:
    repo, _, _, _ = hostile
    git(repo, "checkout", "--", "gone.py")
    try:
        result = index(repo)
        assert "gone.py:function:gone" in result.categories["added"]
    finally:
        (repo / "gone.py").unlink()
        index(repo)


# -- races: the file changes between the listing and the read ------------------


def _listing_then(action: str, repo: Path, target: str) -> object:
    real = git_mod.tracked_and_untracked

    def listed(root: Path, untracked: list[str] | None = None) -> list[str]:
        paths = real(root, untracked)
        full = repo / target
        full.unlink()
        if action == "symlink":
            os.symlink("/etc/passwd", full)
        elif action == "directory":
            full.mkdir()
        elif action == "fifo":
            os.mkfifo(full)
        elif action == "changed":
            full.write_text(FUNC.format("changed_after_listing"))
        return paths

    return listed


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("deleted", None),
        ("changed", "indexed"),
        ("symlink", "symbolic link"),
        ("directory", "now a directory"),
        ("fifo", "not a regular file"),
    ],
)
def test_a_file_changed_between_listing_and_reading(
    action: str, expected: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": FUNC.format("fn_a"), "b.py": FUNC.format("fn_b")})
    commit(repo)
    monkeypatch.setattr(git_mod, "tracked_and_untracked", _listing_then(action, repo, "b.py"))
    result = index(repo, force=True)
    monkeypatch.undo()
    names = {s["name"] for s in exported(repo)["symbols"]}  # type: ignore[index, union-attr]
    assert "fn_a" in names and "fn_b" not in names
    skipped = dict(result.skipped_files)
    if expected == "indexed":
        assert "changed_after_listing" in names
    elif expected is None:
        assert "b.py" not in skipped
    else:
        assert skipped["b.py"] == expected


def test_a_symlink_swapped_in_after_lstat_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """lstat saw a regular file; by the time it is opened it is a link to a
    file outside the repository: O_NOFOLLOW refuses it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text(FUNC.format("a"))
    regular = os.lstat(repo / "a.py")
    (repo / "a.py").unlink()
    secret = tmp_path / "secret.py"
    secret.write_text("def secret():\n    return 'do not read'\n")
    os.symlink(secret, repo / "a.py")
    monkeypatch.setattr(files_mod.os, "lstat", lambda path: regular)
    result = extract_file(ParseJob("a.py", root=str(repo)))
    assert result.extraction is None
    assert result.state.reason == "symbolic link"


def test_a_directory_without_git_with_a_fifo_and_a_link_loop(tmp_path: Path) -> None:
    """No git: the directory is walked; a FIFO would block a read forever."""
    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.py").write_text(FUNC.format("a"))
    os.mkfifo(root / "pipe.py")
    os.symlink("loop.py", root / "loop.py")
    os.symlink(".", root / "dir_loop")
    proc = _cli(root, "index", "--no-embed", "--json")
    assert proc.returncode == 0, proc.stderr
    skipped = {s["path"]: s["reason"] for s in json.loads(proc.stdout)["skipped_files"]}
    assert skipped == {"pipe.py": "not a regular file", "loop.py": "symbolic link"}


# -- limits: size cap and parse timeout, both configurable ----------------------


def test_size_cap_and_parse_timeout_are_configurable(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    body = "".join(FUNC.format(f"f{i}") for i in range(40_000))  # ~1 MB: its parse alone takes ~180 ms of CPU
    write(repo, {"big.py": body, "small.py": FUNC.format("small"), "medium.py": "# pad\n" * 300})
    commit(repo)
    write(repo, {".cartog-ci.toml": "max_file_bytes = 1000\n"})
    proc = _cli(repo, "index", "--no-embed", "--json")
    assert proc.returncode == 0, proc.stderr
    skipped = {s["path"]: s["reason"] for s in json.loads(proc.stdout)["skipped_files"]}
    assert skipped == {
        "big.py": "too large (1.1 MB > 1,000 bytes limit)",
        "medium.py": "too large (1,800 bytes > 1,000 bytes limit)",
    }
    write(repo, {".cartog-ci.toml": "parse_timeout_ms = 100\n"})
    proc = _cli(repo, "index", "--no-embed", "--json", "--force")
    skipped = {s["path"]: s["reason"] for s in json.loads(proc.stdout)["skipped_files"]}
    assert skipped == {"big.py": "parse timed out (over 100 ms of CPU); raise parse_timeout_ms to index it"}


@pytest.mark.parametrize("setting", ["max_file_bytes = 'big'", "parse_timeout_ms = true", "busy_timeout_ms = 1.5"])
def test_a_setting_of_the_wrong_type_is_one_line(
    setting: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {".cartog-ci.toml": setting + "\n"})
    code = main(["index", "--no-embed", "--repo", str(repo)])
    err = capsys.readouterr().err
    key, value = setting.split(" = ")
    assert code == 2
    assert err == f"cartog-ci: setting '{key}' in cartog-ci configuration must be an integer, not {value.replace('true', 'True')}\n"
