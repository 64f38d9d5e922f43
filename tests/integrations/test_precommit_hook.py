"""The pre-commit hook, end to end: real `pre-commit install`, real commits
and pushes in a temporary repository (pre-commit's own tests work this way).

The hooks under test are `.pre-commit-hooks.yaml` itself, installed as
`repo: local` hooks with `language: system`: the published hooks are
`language: python`, which would make pre-commit build a virtualenv and
pip-install this package from the network on every run. Only `entry` and
`language` are swapped; every other setting is the manifest's.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pre_commit.clientlib import load_manifest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, git, init_repo, make_repo, write

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
PERSIST = "def persist(obj):\n    return obj\n"


@pytest.fixture(autouse=True)
def _pre_commit_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    for var in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "SKIP"):
        monkeypatch.delenv(var, raising=False)


def _hook(hook_id: str = "cartog-ci") -> dict[str, object]:
    hooks = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}
    return hooks[hook_id]


def _local(hook_id: str, args: tuple[str, ...]) -> dict[str, object]:
    hook = _hook(hook_id)
    entry = str(hook["entry"])
    assert entry.startswith("cartog-ci ")
    local = {
        key: hook[key]
        for key in ("id", "name", "pass_filenames", "always_run", "require_serial", "verbose", "stages")
    }
    local["entry"] = f"{shlex.quote(sys.executable)} -m cartog_ci.cli {entry.removeprefix('cartog-ci ')}"
    local["language"] = "system"
    if args:
        local["args"] = list(args)
    return local


def _install(repo: Path, *args: str, commit_config: bool = True) -> None:
    hooks = [_local("cartog-ci", args), _local("cartog-ci-branch", args)]
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git(repo, "add", ".pre-commit-config.yaml")  # pre-commit refuses an unstaged config
    if commit_config:
        commit(repo, "pre-commit config")
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "install", "-t", "pre-commit", "-t", "pre-push"],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


def _git(repo: Path, *args: str) -> tuple[int, str]:
    """Exit code and everything printed: git and pre-commit split what they
    print between stdout and stderr differently for commit and push."""
    proc = subprocess.run(["git", "-C", str(repo), *args], check=False, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def _change_signature(repo: Path) -> None:
    path = repo / "shop/models/base.py"
    path.write_text(path.read_text().replace("def persist(obj):", "def persist(obj, *, durable):"))


def test_manifest_passes_pre_commits_schema_and_blocks_what_will_break_by_default() -> None:
    keys = ("id", "entry", "language", "pass_filenames", "always_run", "require_serial", "stages", "args", "verbose")
    hook, branch = (_hook(i) for i in ("cartog-ci", "cartog-ci-branch"))
    assert {k: hook[k] for k in keys} == {
        "id": "cartog-ci",
        "entry": "cartog-ci hook",  # --fail-on broken-refs unless args say otherwise
        "language": "python",
        "pass_filenames": True,  # the file names tell a commit from `run --all-files`
        "always_run": True,
        "require_serial": True,
        "stages": ["pre-commit", "pre-push"],
        "args": [],
        "verbose": True,  # pre-commit hides a passing hook's output otherwise
    }
    assert {k: branch[k] for k in keys} == {
        "id": "cartog-ci-branch",
        "entry": "cartog-ci hook --branch",
        "language": "python",
        "pass_filenames": False,
        "always_run": True,
        "require_serial": True,
        "stages": ["manual"],
        "args": [],
        "verbose": True,
    }


def test_a_breaking_commit_is_blocked_by_default_and_a_harmless_one_passes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo)
    before = git(repo, "rev-parse", "HEAD")
    _change_signature(repo)
    git(repo, "add", "-A")
    code, out = _git(repo, "commit", "-m", "persist needs durable")
    assert code == 1, out
    assert "cartog-ci impact report" in out and "Failed" in out and "exit code: 1" in out
    assert "cartog-ci: indexing 10 files (first run)..." in out  # 9 + the config
    assert "risk HIGH" in out and "-> staged change" in out
    assert "1 call site(s) of persist no longer fit its new signature" in out
    assert "will break:\n  shop/models/base.py:6  persist: missing required argument durable" in out
    assert "modified*         persist  shop/models/base.py:12" in out
    assert (
        "cartog-ci: blocking the commit: 1 call site(s) that no longer fit. Fix it, or skip this check once "
        "(SKIP=cartog-ci git ...); `args: [--fail-on, none]` in .pre-commit-config.yaml only reports\n"
    ) in out
    assert git(repo, "rev-parse", "HEAD") == before

    git(repo, "reset", "-q", "--hard")
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    git(repo, "add", "-A")
    code, out = _git(repo, "commit", "-m", "helper")
    assert code == 0, out
    assert "Passed" in out and "first run" not in out  # the index is reused
    assert "added             helper  shop/util/extra.py:1" in out
    assert "persist" not in out and "blocking" not in out


def test_fail_on_none_only_reports(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo, "--fail-on", "none")
    _change_signature(repo)
    git(repo, "add", "-A")
    code, out = _git(repo, "commit", "-m", "persist needs durable")
    assert code == 0, out
    assert "Passed" in out and "risk HIGH" in out and "blocking" not in out
    assert "1 call site(s) of persist no longer fit its new signature" in out


def _pre_commit(repo: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args], cwd=repo, check=False, capture_output=True, text=True
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_all_files_reports_the_branch_against_its_base(tmp_path: Path) -> None:
    """Nothing is staged under `pre-commit run --all-files`: the hook reports
    the branch from its merge-base with main, then the work tree's edits too."""
    repo = make_repo(tmp_path, "pyproj")
    _install(repo)
    main_tip = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    tip = commit(repo, "helper")
    code, out = _pre_commit(repo, "--all-files", "cartog-ci")
    assert code == 0, out
    assert f"base main ({main_tip[:10]}) -> HEAD" in out
    assert "added             helper  shop/util/extra.py:1" in out and "0 symbol change(s)" not in out
    assert "Passed" in out

    _change_signature(repo)  # not committed, not staged: pre-commit checks the files on disk
    code, out = _pre_commit(repo, "--all-files", "cartog-ci")
    assert code == 1, out
    assert f"base main ({main_tip[:10]}) -> working tree" in out
    assert "added             helper" in out and "modified*         persist" in out
    assert "cartog-ci: blocking the branch: 1 call site(s) that no longer fit." in out
    assert git(repo, "rev-parse", "HEAD").strip() == tip


def test_the_manual_stage_reports_the_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo, "--fail-on", "none")
    git(repo, "checkout", "-q", "-b", "feature")
    _change_signature(repo)
    commit(repo, "persist needs durable")
    code, out = _pre_commit(repo, "--hook-stage", "manual", "cartog-ci-branch")
    assert code == 0, out
    assert "cartog-ci impact report of the branch" in out and "Passed" in out
    assert "-> HEAD" in out and "modified*         persist  shop/models/base.py:12" in out
    code, out = _pre_commit(repo, "--hook-stage", "manual", "cartog-ci")
    assert code == 1 and "No hook with id `cartog-ci` in stage `manual`" in out  # the commit's hook is not manual


def test_a_file_list_in_parts_is_reported_once(tmp_path: Path) -> None:
    """pre-commit splits a long file list over several runs of the hook, one
    after the other under the same pre-commit process (here: this one)."""
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    commit(repo, "helper")

    def part(*files: str) -> tuple[int, str, str]:
        argv = [sys.executable, "-m", "cartog_ci.cli", "hook", *files]
        proc = subprocess.run(argv, cwd=repo, check=False, capture_output=True, text=True)
        return proc.returncode, proc.stdout, proc.stderr

    code, out, err = part("shop/cli.py", "shop/models/base.py")
    assert code == 0 and "added             helper  shop/util/extra.py:1" in out, err
    assert part("shop/util/text.py", "tests/test_order.py") == (
        0, "", "cartog-ci: reported above (pre-commit passed its file list in parts)\n"
    )  # fmt: skip
    write(repo, {"shop/util/more.py": "def more():\n    return 2\n"})
    commit(repo, "more")  # another HEAD: another run
    code, out, err = part("shop/util/text.py")
    assert code == 0 and "added             more  shop/util/more.py:1" in out, err


def test_the_first_commit_of_a_repository_is_reported_not_blocked(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "new")
    write(repo, {"app.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"})
    _install(repo, "--fail-on", "broken-refs", commit_config=False)
    git(repo, "add", "-A")
    code, out = _git(repo, "commit", "-m", "first")
    assert code == 0, out
    assert "base (no commit yet)" in out and "-> staged change" in out
    assert "added             helper  app.py:5" in out


def test_commit_a_and_partial_commit_report_what_git_will_record(tmp_path: Path) -> None:
    """git hands hooks a temporary index through GIT_INDEX_FILE for
    `commit -a` and `commit PATH`; the report must read that one."""
    repo = make_repo(tmp_path, "pyproj")
    _install(repo, "--fail-on", "none")
    _change_signature(repo)
    order = repo / "shop/models/order.py"
    order.write_text(order.read_text() + "\n\ndef refund(order):\n    return order\n")
    code, out = _git(repo, "commit", "-m", "refund only", "shop/models/order.py")
    assert code == 0, out
    assert "added             refund  shop/models/order.py" in out
    assert "persist" not in out  # modified in the work tree, not committed
    assert git(repo, "status", "--porcelain").split() == ["M", "shop/models/base.py"]

    code, out = _git(repo, "commit", "-a", "-m", "the rest")
    assert code == 0, out
    assert "modified*         persist  shop/models/base.py:12" in out


def test_a_removed_symbol_blocks_the_commit_and_names_the_call_site(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo)
    before = git(repo, "rev-parse", "HEAD")
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace(PERSIST, ""))
    git(repo, "add", "-A")
    code, out = _git(repo, "commit", "-m", "drop persist")
    assert code != 0
    assert "Failed" in out and "exit code: 1" in out
    assert "will break:\n  shop/models/base.py:6  persist (removed)" in out
    assert "cartog-ci: blocking the commit: 1 broken reference(s). Fix it" in out
    assert git(repo, "rev-parse", "HEAD") == before


def test_pre_push_reports_the_pushed_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo, "--fail-on", "none")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "--no-verify", "origin", "main")  # the hook runs once, below
    _change_signature(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "one")
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "two")
    pushed = git(repo, "rev-parse", "HEAD").strip()

    code, out = _git(repo, "push", "origin", "main")
    assert code == 0, out
    assert f"-> pushed {pushed[:12]}" in out  # nothing is staged: the pushed range
    assert "modified*         persist" in out
    assert "added             helper" in out


def test_pre_push_of_branches_new_to_the_remote(tmp_path: Path) -> None:
    """The first push to an empty remote (pre-commit gives no range: the
    root commit is new there) reports the whole pushed history, not an empty
    'staged change'; a new branch on a remote that has main reports its own
    commits (pre-commit's range starts at the branch point)."""
    repo = make_repo(tmp_path, "pyproj")
    _install(repo, "--fail-on", "none")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    pushed = git(repo, "rev-parse", "HEAD").strip()
    code, out = _git(repo, "push", "origin", "main")
    assert code == 0, out
    assert f"base (new on the remote) ({git(repo, 'hash-object', '-t', 'tree', '/dev/null').strip()[:10]}) -> pushed {pushed[:12]}" in out
    assert "staged change" not in out and " 0 symbol change(s)" not in out
    assert "added             persist" in out
    git(repo, "checkout", "-q", "-b", "feature")
    _change_signature(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "one")
    feature = git(repo, "rev-parse", "HEAD").strip()
    code, out = _git(repo, "push", "origin", "feature")
    assert code == 0, out
    assert f"base {pushed} ({pushed[:10]}) -> pushed {feature[:12]}" in out
    assert "modified*         persist" in out


def test_staged_uses_pre_commits_range_and_base_overrides_its_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, "pyproj")
    start = git(repo, "rev-parse", "HEAD").strip()
    _change_signature(repo)
    middle = commit(repo, "one")
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    end = commit(repo, "two")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", middle)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", end)

    def staged(*extra: str) -> Any:
        assert main(["report", "--repo", str(repo), "--staged", "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)

    pushed = staged()
    assert pushed["base"]["merge_base"] == middle and pushed["head"]["commit"] == end
    names = {c["symbol"]["name"] for c in pushed["changed"]}
    assert "helper" in names and "persist" not in names
    widened = staged("--base", start)
    assert widened["base"]["merge_base"] == start


def test_a_push_that_breaks_a_call_site_is_blocked_by_default(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    _install(repo)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    _change_signature(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "persist needs durable")
    code, out = _git(repo, "push", "origin", "main")
    assert code != 0, out
    assert "cartog-ci: blocking the push: 1 call site(s) that no longer fit." in out
    assert git(repo, "rev-parse", "main").strip() != git(repo, "--git-dir", str(remote), "rev-parse", "main").strip()
