"""docs/integrations.md adopts as written: the pre-commit config and the
workflows work once OWNER says where cartog-ci is hosted ("Adopting").

The texts are taken from the page itself. The workflows are linted as
written in test_action.py (check-jsonschema, zizmor, actionlint); here:
the one substitution is the only one, every configuration pins the same
commit, that commit is in cartog-ci's history and has what they use, and
the hook config passes pre-commit's own validation and runs the hook that
the pinned commit's manifest declares.

The hook runs as `language: system` with this checkout's cartog-ci, as in
test_precommit_hook.py: pre-commit's `language: python` would build a
virtualenv and install cartog-ci's dependencies from the network.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pre_commit.clientlib import load_config, load_manifest

from tests.testing.fixtures import git, make_repo

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "integrations.md"
TEXT = DOCS.read_text()
BLOCKS = re.findall(r"```yaml\n(.*?)```", TEXT, flags=re.DOTALL)
HOOK_CONFIG = next(b for b in BLOCKS if b.startswith("# .pre-commit-config.yaml\n") and "repo: https://" in b)
WORKFLOWS = [b for b in BLOCKS if "jobs:" in b]
PINNED = re.search(r"same commit of cartog-ci, by its full SHA,\s+`([0-9a-f]{40})`", TEXT)


def _pinned() -> str:
    assert PINNED, "docs/integrations.md names the pinned commit in its Adopting section"
    return PINNED.group(1)


def _at_pin(path: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{_pinned()}:{path}"], check=False, capture_output=True, text=True
    )
    return proc.stdout if proc.returncode == 0 else None


def test_owner_is_the_one_substitution_and_every_configuration_pins_one_commit() -> None:
    assert len(WORKFLOWS) == 5
    for block in [HOOK_CONFIG, *WORKFLOWS]:
        # OWNER appears only as the host of cartog-ci, and nothing else is left to fill in
        values = yaml.safe_dump(yaml.safe_load(block))  # without the comments
        assert re.findall(r"OWNER[^\s]*", values) in (
            ["OWNER/cartog-ci"], [f"OWNER/cartog-ci@{_pinned()}"], [f"OWNER/cartog-ci/post@{_pinned()}"]
        ), block  # fmt: skip
        assert not re.search(r"\b(YOUR|CHANGE|TODO|XXX|<[a-z-]+>)", block), block
        pins = re.findall(r"cartog-ci(?:/post)?@(\S+)|rev: (\S+)", block)
        assert {a or b for a, b in pins} == {_pinned()}, block
    assert "@v0" not in TEXT and "rev: v0" not in TEXT  # no tag exists to resolve them


def test_the_pinned_commit_is_in_the_history_and_has_what_the_configurations_use() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout of cartog-ci")
    pinned = _pinned()
    ancestor = subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", pinned, "HEAD"], check=False)
    assert ancestor.returncode == 0, (
        f"the commit docs/integrations.md pins, {pinned}, is not in this history (rebased away?): "
        "pin a commit of cartog-ci's main branch there"
    )
    manifest = _at_pin(".pre-commit-hooks.yaml")
    action, post = _at_pin("action.yml"), _at_pin("post/action.yml")
    assert manifest and action and post
    config = yaml.safe_load(HOOK_CONFIG)
    assert [h["id"] for h in config["repos"][0]["hooks"]] == [h["id"] for h in yaml.safe_load(manifest)]
    inputs = set(yaml.safe_load(action)["inputs"])
    for block in WORKFLOWS:
        for job in yaml.safe_load(block)["jobs"].values():
            for step in job["steps"]:
                if str(step["uses"]).startswith("OWNER/cartog-ci@"):
                    assert set(step.get("with", {})) <= inputs, step
    # the posting action at that commit writes the comment from data (pr_artifact.py), not the fork's Markdown
    assert "pr_artifact" in (_at_pin("src/cartog_ci/github.py") or "")
    assert "--json-output" in action


def test_the_documented_hook_config_passes_pre_commit_as_written(tmp_path: Path) -> None:
    """`pre-commit validate-config` on the page's text, OWNER filled in."""
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(HOOK_CONFIG.replace("OWNER", "octo"))
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)], check=False, capture_output=True, text=True
    )
    assert (proc.returncode, proc.stdout + proc.stderr) == (0, "")  # no warning: the rev is immutable
    (repo,) = load_config(str(config))["repos"]
    assert repo["repo"] == "https://github.com/octo/cartog-ci" and repo["rev"] == _pinned()


def _as_local_hook(manifest: str, documented: dict[str, Any]) -> dict[str, Any]:
    """The pinned manifest's hook with the documented config's overrides, as a
    `repo: local` hook that runs this checkout's cartog-ci."""
    path = Path(manifest)
    (hook,) = [h for h in load_manifest(str(path)) if h["id"] == documented["id"]]
    local = {key: hook[key] for key in ("id", "name", "pass_filenames", "always_run", "require_serial", "verbose", "stages", "args")}
    local |= {k: v for k, v in documented.items() if k != "id"}
    entry = str(hook["entry"]).removeprefix("cartog-ci ")
    return local | {"entry": f"{shlex.quote(sys.executable)} -m cartog_ci.cli {entry}", "language": "system"}


def test_the_documented_hook_runs_on_a_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout of cartog-ci")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(_at_pin(".pre-commit-hooks.yaml") or "")
    (documented,) = [h for h in yaml.safe_load(HOOK_CONFIG)["repos"][0]["hooks"] if h["id"] == "cartog-ci"]
    repo = make_repo(tmp_path, "pyproj")
    config = {"repos": [{"repo": "local", "hooks": [_as_local_hook(str(manifest), documented)]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git(repo, "add", ".pre-commit-config.yaml")
    install = [sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-commit", "--hook-type", "pre-push"]
    subprocess.run(install, cwd=repo, check=True, capture_output=True)  # the page's install line
    path = repo / "shop/util/extra.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("def helper():\n    return 1\n")
    git(repo, "add", "-A")
    proc = subprocess.run(["git", "-C", str(repo), "commit", "-m", "helper"], check=False, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "cartog-ci impact report" in out and "Passed" in out
    assert "added             helper  shop/util/extra.py:1" in out
