"""The trusted post step against hostile artifacts (docs/integrations.md,
"Pull requests from forks").

The artifact comes from a run of the pull request's own code, so a fork
writes every byte of it. Each case builds the zip a fork could upload, puts
it behind the fake GitHub API of test_action.py, and runs the trusted step
(`github.main`, what post/action.yml runs). Either it is refused in one
line with exit 2 and nothing is posted, or it is posted and the comment,
rendered by GitHub's own cmark-gfm with raw HTML allowed, has nothing live
from the artifact: no mention, image, HTML, or link out of the repository,
every string of the fork inside a code span. `CASES` counts them.
"""

from __future__ import annotations

import io
import json
import posixpath
import random
import stat
import struct
import subprocess
import sys
import warnings
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from cartog_ci.github import main
from cartog_ci.pr_artifact import SCHEMA, claims_from_report, read_artifact
from tests.integrations.test_action import REPO_NAME, ROOT, TOKEN, FakeGitHub, _pull, _workflow_run_context, github_api

__all__ = ["github_api"]  # the fixture, imported for pytest

HEAD = "c" * 40
SERVER = "https://github.test"
BLOB = f"{SERVER}/{REPO_NAME}/blob/{HEAD}/"
RUN = f"{SERVER}/{REPO_NAME}/actions/runs/4242"


def _report(**changes: Any) -> dict[str, Any]:
    """A valid report.json; `changes` replace parts of it (dotted paths as `__`)."""
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "risk": {"level": "high", "reasons": ["1 call site(s) still call removed code: persist"]},
        "files": 2,
        "changed": {
            "total": 1,
            "items": [{
                "name": "shop.models.persist", "kind": "function", "change": "modified", "file": "shop/models/base.py",
                "line": 3, "callers": 4, "breaking": True, "signature_changed": True, "untested": False,
                "old_signature": "def persist(obj)", "new_signature": "def persist(obj, *, durable)",
            }],
        },
        "will_break": {"total": 1, "items": [{"name": "persist", "file": "shop/cart.py", "line": 12, "why": "missing durable"}]},
        "tests": {"total": 3, "commands": ["pytest tests/test_models.py"]},
    }  # fmt: skip
    for path, value in changes.items():
        where: Any = report
        *parents, last = path.split("__")
        for part in parents:
            where = where[int(part)] if isinstance(where, list) else where[part]
        if isinstance(where, list):
            where[int(last)] = value
        else:
            where[last] = value
    return report


def _every_string(value: str) -> dict[str, Any]:
    """`value` in every free-text field of the schema (in paths with `/` as `_`)."""
    path = value.replace("/", "_").replace("\\", "_")
    return {
        "risk__reasons": [value],
        "changed__items__0__name": value,
        "changed__items__0__file": f"src/{path}.py",
        "changed__items__0__old_signature": value,
        "changed__items__0__new_signature": value,
        "will_break__items__0__name": value,
        "will_break__items__0__file": f"{path}/x.py",
        "will_break__items__0__why": value,
        "tests__commands": [value],
    }


def _files(report: object = None, claim: object = None) -> dict[str, bytes]:
    report = _report() if report is None else report
    claim = {"number": 7, "head_sha": HEAD} if claim is None else claim
    as_bytes = lambda v: v if isinstance(v, bytes) else json.dumps(v).encode()  # noqa: E731
    return {"pr.json": as_bytes(claim), "report.json": as_bytes(report)}


def _zip(files: dict[str, bytes], *, info: dict[str, dict[str, Any]] | None = None, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of `files`; `NAME\x00dup` is a second member named NAME."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name")
        for name, data in files.items():
            member = zipfile.ZipInfo(name.split("\x00dup")[0], date_time=(2026, 1, 1, 0, 0, 0))
            member.compress_type = method
            member.external_attr = (stat.S_IFREG | 0o644) << 16
            for attr, value in (info or {}).get(name, {}).items():
                setattr(member, attr, value)
            archive.writestr(member, data)
    return buffer.getvalue()


def _encrypted() -> bytes:
    """report.json with the "encrypted" flag set in both of its headers."""
    data = bytearray(_zip(_files()))
    member = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("report.json")
    data[member.header_offset + 6] |= 0x1
    data[data.rindex(b"PK\x01\x02") + 8] |= 0x1
    return bytes(data)


def _broken_deflate() -> bytes:
    """report.json's deflate stream with bytes in its middle overwritten."""
    data = bytearray(_zip(_files(_report(risk__reasons=["x" * 400 + str(i) for i in range(5)]))))
    member = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("report.json")
    start = member.header_offset + 30 + len(member.filename)
    data[start + 8 : start + 40] = b"\xff" * 32
    return bytes(data)


def _lying_sizes() -> bytes:
    """A 5 MB member whose headers say 100 bytes."""
    data = bytearray(_zip(_files(report=b"0" * 5_000_000)))
    member = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("report.json")
    struct.pack_into("<I", data, member.header_offset + 22, 100)  # the local header's size
    central = data.rindex(b"PK\x01\x02")  # report.json is the last entry of the central directory
    struct.pack_into("<I", data, central + 24, 100)
    return bytes(data)


FORGED_PR = "forged PR"
# (case, artifact zip, pull requests in the event, refusal) — every one refused in one line, exit 2.
REFUSED: list[tuple[str, bytes, list[int], str]] = [
    ("encrypted member", _encrypted(), [],
     "report.json in the report artifact is encrypted: refused"),
    ("broken deflate stream", _broken_deflate(), [],
     "report.json in the report artifact cannot be read (Error -3 while decompressing data: invalid bit length repeat): refused"),
    ("pr.json of 200,000 nested [", _zip(_files(claim=b"[" * 200_000)), [],
     "pr.json in the report artifact nests deeper than 5 levels: refused"),
    ("zip bomb, honest header", _zip(_files(report=b" " * 50_000_000)), [],
     "report.json in the report artifact is larger than 262,144 bytes: refused"),
    ("zip bomb, lying header", _lying_sizes(), [],
     "report.json in the report artifact cannot be read (Bad CRC-32 for file 'report.json'): refused"),
    ("symlink member", _zip(_files(), info={"report.json": {"external_attr": (stat.S_IFLNK | 0o777) << 16}}), [],
     "report.json in the report artifact is not a regular file (a link or a directory): refused"),
    ("path traversal", _zip({**_files(), "../../.github/workflows/x.yml": b"on: push"}), [],
     "the report artifact holds ../../.github/workflows/x.yml, not only pr.json and report.json: refused"),
    ("absolute member", _zip({"/etc/report.json": b"{}", **_files()}), [],
     "the report artifact holds /etc/report.json, not only pr.json and report.json: refused"),
    ("member in a folder", _zip({"a/report.json": b"{}", **_files()}), [],
     "the report artifact holds a/report.json, not only pr.json and report.json: refused"),
    ("duplicate members", _zip({**_files(), "report.json\x00dup": json.dumps(_report(files=0)).encode()}), [],
     "the report artifact holds report.json twice: refused"),
    ("Markdown of an older action", _zip({"report.md": b"## Risk: LOW", "pr.json": _files()["pr.json"]}), [],
     "the report artifact holds report.md, not only pr.json and report.json: refused"),
    ("bzip2 member", _zip(_files(), method=zipfile.ZIP_BZIP2), [],
     "pr.json in the report artifact uses compression method 12, not deflate: refused"),
    ("not a zip", b"PK\x03\x04 not really", [],
     "the report artifact is not a readable zip (File is not a zip file): refused"),
    ("truncated zip", _zip(_files())[:-30], [],
     "the report artifact is not a readable zip (File is not a zip file): refused"),
    ("not UTF-8", _zip(_files(report=json.dumps(_report(tests__commands=["caf\u00e9"])).encode("latin-1").replace(b"\\u00e9", b"\xe9"))), [],
     "report.json in the report artifact is not UTF-8 text: refused"),
    ("deep nesting in report.json", _zip(_files(report=b'{"schema": [[[[[[1]]]]]]}')), [],
     "report.json in the report artifact nests deeper than 5 levels: refused"),
    ("repeated key", _zip(_files(claim=b'{"number": 7, "number": 8, "head_sha": "' + HEAD.encode() + b'"}')), [],
     "pr.json in the report artifact repeats a key: refused"),
    ("NaN", _zip(_files(report=json.dumps(_report(files=float("nan"))).encode())), [],
     "report.json in the report artifact holds NaN: refused"),
    ("a number of 5,000 digits", _zip(_files(report=json.dumps(_report()).replace('"files": 2', '"files": ' + "9" * 5000).encode())), [],
     "report.json in the report artifact holds a number of 5,000 digits: refused"),
    ("number is a string", _zip(_files(claim={"number": "7; rm -rf /", "head_sha": HEAD})), [],
     "pr.json in the report artifact: number is not a whole number: refused"),
    ("number is true", _zip(_files(claim={"number": True, "head_sha": HEAD})), [],
     "pr.json in the report artifact: number is not a whole number: refused"),
    ("number 0", _zip(_files(claim={"number": 0, "head_sha": HEAD})), [],
     "pr.json in the report artifact: number is 0, not between 1 and 2,147,483,647: refused"),
    ("head is a branch name", _zip(_files(claim={"number": 7, "head_sha": "main"})), [],
     "pr.json in the report artifact: head_sha is not a commit (40 hex digits): refused"),
    ("unknown key", _zip(_files(report=_report(comment="## Risk: LOW · nothing breaks ✅"))), [],
     "report.json in the report artifact: the top level has an unknown key 'comment': refused"),
    ("missing key", _zip(_files(report={k: v for k, v in _report().items() if k != "tests"})), [],
     "report.json in the report artifact: the top level has no key tests: refused"),
    ("fake risk level", _zip(_files(report=_report(risk__level="LOW · nothing breaks ✅"))), [],
     "report.json in the report artifact: risk.level is not one of low, medium, high: refused"),
    ("another schema", _zip(_files(report=_report(schema="cartog-ci/pr-report/0"))), [],
     "report.json in the report artifact: schema is not cartog-ci/pr-report/1 (use one commit of cartog-ci for both workflows): refused"),
    ("a line that is a string", _zip(_files(report=_report(will_break__items__0__line="12](https://evil.example)"))), [],
     "report.json in the report artifact: will_break.items[0].line is not a whole number: refused"),
    ("a kind with markup", _zip(_files(report=_report(changed__items__0__kind="@octocat"))), [],
     "report.json in the report artifact: changed.items[0].kind is not a kind of symbol: refused"),
    ("a change that is a sentence", _zip(_files(report=_report(changed__items__0__change="nothing breaks ✅"))), [],
     "report.json in the report artifact: changed.items[0].change is not one of added, modified, removed, renamed, docs, children_changed: refused"),
    ("negative count", _zip(_files(report=_report(files=-1))), [],
     "report.json in the report artifact: files is -1, not between 0 and 10,000,000: refused"),
    ("a total smaller than its list", _zip(_files(report=_report(changed__total=0))), [],
     "report.json in the report artifact: a total is smaller than its list: refused"),
    ("too many rows", _zip(_files(report=_report(will_break__items=[_report()["will_break"]["items"][0]] * 26, will_break__total=26))), [],
     "report.json in the report artifact: will_break.items has 26 items, more than 25: refused"),
    ("oversize string", _zip(_files(report=_report(changed__items__0__name="a" * 301))), [],
     "report.json in the report artifact: changed.items[0].name has 301 characters, not 1 to 300: refused"),
    ("empty string", _zip(_files(report=_report(tests__commands=[""]))), [],
     "report.json in the report artifact: tests.commands[0] has 0 characters, not 1 to 1000: refused"),
    ("terminal escape", _zip(_files(report=_report(changed__items__0__name="\x1b[31mred"))), [],
     "report.json in the report artifact: changed.items[0].name holds the control or invisible character U+001B: refused"),
    ("newline (a reference-style link definition)", _zip(_files(report=_report(risk__reasons=["see [docs][1]\n\n[1]: https://evil.example"]))), [],
     "report.json in the report artifact: risk.reasons[0] holds the control or invisible character U+000A: refused"),
    ("bidi override", _zip(_files(report=_report(will_break__items__0__file="shop/\u202etxt.exe.py"))), [],
     "report.json in the report artifact: will_break.items[0].file holds the control or invisible character U+202E: refused"),
    ("zero-width-joined @", _zip(_files(report=_report(will_break__items__0__why="@\u200doctocat"))), [],
     "report.json in the report artifact: will_break.items[0].why holds the control or invisible character U+200D: refused"),
    ("lone surrogate", _zip(_files(report=json.dumps(_report(tests__commands=["PLACE"])).replace("PLACE", "\\ud800").encode())), [],
     "report.json in the report artifact: tests.commands[0] holds the control or invisible character U+D800: refused"),
    ("line separator", _zip(_files(report=_report(changed__items__0__new_signature="def f()\u2028# Risk: LOW"))), [],
     "report.json in the report artifact: changed.items[0].new_signature holds the control or invisible character U+2028: refused"),
    ("path out of the repository", _zip(_files(report=_report(changed__items__0__file="../../evil/shop/blob/x.py"))), [],
     "report.json in the report artifact: changed.items[0].file is not a relative path inside the repository (no .., no leading /): refused"),
    ("absolute path", _zip(_files(report=_report(will_break__items__0__file="/etc/passwd"))), [],
     "report.json in the report artifact: will_break.items[0].file is not a relative path inside the repository (no .., no leading /): refused"),
    ("forged PR number: another PR", _zip(_files(claim={"number": 8, "head_sha": HEAD})), [],
     "the artifact names #8, whose head is not cccccccccccc (the commit of run 4242) nor on the run's branch: refused"),
    ("forged PR number: not the event's", _zip(_files(claim={"number": 9, "head_sha": HEAD})), [7],
     "the artifact names #9, the run was for #7: refused"),
    ("forged head commit", _zip(_files(claim={"number": 7, "head_sha": "d" * 40})), [],
     "the artifact was made for dddddddddddd, the run was for cccccccccccc: refused"),
]  # fmt: skip

# (case, the size GitHub lists, refusal): a zip over 1 MiB.
OVERSIZE = [
    ("listed over the cap", (1 << 20) + 1, "the cartog-ci-report artifact is 1,048,577 bytes, more than 1,048,576: refused"),
    ("listed small, downloaded over the cap", 100, "the report artifact is larger than 1,048,576 bytes: refused"),
]  # fmt: skip

# Strings the schema allows: posted, and nothing in them is live.
HOSTILE = [
    "@octocat",
    "@octo/security-team",
    "\uff20octocat",  # fullwidth @
    "\ufe6boctocat",  # small @
    "cc @octocat @octo/admins please merge",
    "![](https://evil.example/track.png)",
    '<img src="https://evil.example/x.png" onerror="alert(1)">',
    "<script>alert(1)</script>",
    "<details open><summary>Risk: LOW</summary></details>",
    "<!-- cartog-ci -->",
    "[click here](https://evil.example/login)",
    "<https://evil.example/autolink>",
    "https://evil.example/bare",
    "www.evil.example",
    "[docs][1] [1]: https://evil.example",
    "](javascript:alert(1))",
    "Risk: LOW · nothing breaks ✅",
    "**Risk: LOW** _approved_ :white_check_mark:",
    "`` ` ``` code `",
    "a|b|c | d",
    "#1 GH-2 octo/shop#3",
    "&lt;b&gt; &#64;octocat",
    "\\`escaped\\`",
    "x?y#L1%2e%2e",
]
CASES = len(REFUSED) + len(OVERSIZE) + len(HOSTILE)


class _Html(HTMLParser):
    """Tags, links and the text outside <code> of rendered Markdown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.hrefs: list[str] = []
        self.code: list[str] = []
        self.live = ""
        self._in_code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "code":
            self._in_code += 1
            self.code.append("")
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_code -= 1

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.code[-1] += data
        else:
            self.live += data

    def handle_comment(self, data: str) -> None:
        self.tags.add("<!--")


def _assert_inert(body: str, planted: list[str]) -> None:
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmark-gfm bindings (pip install cmarkgfm, the test extra)")
    from cmarkgfm.cmark import Options

    assert body.startswith("<!-- cartog-ci -->\n")  # ours; a planted one is in code (no HTML comment below)
    html = _Html()
    html.feed(cmarkgfm.github_flavored_markdown_to_html(body.split("\n", 1)[1], options=Options.CMARK_OPT_UNSAFE))
    assert html.tags <= {"h2", "h3", "p", "blockquote", "strong", "a", "code", "table", "thead", "tbody", "tr", "th", "td", "ul", "li"}, html.tags
    for href in html.hrefs:
        assert href == RUN or href.startswith(BLOB), href
        path = posixpath.normpath(unquote(urlsplit(href).path))
        assert path.startswith(f"/{REPO_NAME}/"), href  # no way out of the repository
    for mark in ("@", "\uff20", "\ufe6b", "http", "www.", "<", "evil", "LOW", "✅", ":white_check_mark:", "javascript"):
        assert mark not in html.live, (mark, html.live)
    for text in planted:  # shown, literally, in code
        assert any(text.replace("\\|", "|") in code for code in html.code), text


def _post(
    api: FakeGitHub, data: bytes, listed: list[int], capsys: pytest.CaptureFixture[str], tmp_path: Path, size: int | None = None
) -> tuple[int, str, str]:
    """`github.main` in an empty working directory, which it leaves empty
    (nothing extracted); GitHub lists the artifact with `size` bytes."""
    api.pulls[7] = _pull(7, HEAD)
    api.pulls[8] = _pull(8, "e" * 40, repo=REPO_NAME, ref="victim")
    api.add_artifact(4242, data, size=size)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_workflow_run_context(HEAD, pull_requests=listed)["event"]))
    work = tmp_path / "work"
    work.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        code = main([str(event)])
    out, err = capsys.readouterr()
    assert list(work.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["event.json", "work"]
    return code, out, err


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, github_api: FakeGitHub) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO_NAME)
    monkeypatch.setenv("GITHUB_API_URL", github_api.url)
    monkeypatch.setenv("GITHUB_SERVER_URL", SERVER)
    return github_api


@pytest.mark.parametrize(("case", "data", "listed", "message"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_malformed_or_forged_artifact_is_one_line_and_exit_2(
    environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    case: str, data: bytes, listed: list[int], message: str,
) -> None:  # fmt: skip
    code, out, err = _post(environment, data, listed, capsys, tmp_path)
    assert (code, out, err) == (2, "", f"cartog-ci: {message}\n")
    assert environment.comments == [] and not any(m in ("POST", "PATCH") for m, _ in environment.requests)


@pytest.mark.parametrize(("case", "listed_size", "message"), OVERSIZE)
def test_an_oversize_artifact_is_refused_before_or_while_downloading(
    environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, listed_size: int, message: str
) -> None:
    data = _zip({**_files(), "padding.bin": random.Random(5).randbytes((1 << 20) + 10)}, method=zipfile.ZIP_STORED)
    code, out, err = _post(environment, data, [], capsys, tmp_path, size=listed_size)
    assert (code, out, err) == (2, "", f"cartog-ci: {message}\n")
    assert environment.storage == ([] if listed_size > 1 << 20 else [("/storage/500?sig=signed", None)])
    assert environment.comments == []


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_every_field_is_posted_inert(
    environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    report = _report(**_every_string(text))
    code, out, err = _post(environment, _zip(_files(report)), [], capsys, tmp_path)
    assert (code, err) == (0, ""), err
    assert out.startswith("cartog-ci: created comment ")
    (comment,) = environment.comments
    assert comment["user"] == {"login": "github-actions[bot]", "type": "Bot"}
    path = text.replace("/", "_").replace("\\", "_")
    _assert_inert(str(comment["body"]), [text, f"src/{path}.py:3", f"{path}/x.py:12"])


def test_the_comment_says_whose_figures_they_are(environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, _ = _post(environment, _zip(_files()), [], capsys, tmp_path)
    assert code == 0
    body = str(environment.comments[0]["body"])
    assert body == (
        "<!-- cartog-ci -->\n"
        "## cartog-ci impact report\n\n"
        f"> **Figures from the pull request's own run** ([run 4242]({RUN}), commit cccccccccccc): that run executed "
        "the pull request's code, so what follows is what the pull request's run reports, not a check made by this "
        "repository. Names and paths are shown as written, in code.\n\n"
        "**Risk reported by the run: HIGH** · 2 file(s) changed · 1 symbol change(s)\n\n"
        "- `1 call site(s) still call removed code: persist`\n\n"
        "### Will break (1, as reported)\n\n"
        "| call site | calls | why |\n|---|---|---|\n"
        f"| [`shop/cart.py:12`]({BLOB}shop/cart.py#L12) | `persist` | `missing durable` |\n\n"
        "### Changed symbols (1, as reported)\n\n"
        "| symbol | kind | change | where | callers |\n|---|---|---|---|---|\n"
        f"| `shop.models.persist` | `function` | modified, **breaking signature** | [`shop/models/base.py:3`]({BLOB}shop/models/base.py#L3) | 4 |\n\n"
        "Signature changes:\n\n"
        "- `shop.models.persist`: `def persist(obj)` → `def persist(obj, *, durable)`\n\n"
        "### Tests to run\n\n3 test(s) within 2 calls of the change, as reported:\n\n"
        "- `pytest tests/test_models.py`\n"
    )
    _assert_inert(body, [])


def test_paths_are_percent_encoded_into_the_repository(environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = _report(will_break__items__0__file="a b/%2e%2e/x?y#z.py")
    assert _post(environment, _zip(_files(report)), [], capsys, tmp_path)[0] == 0
    body = str(environment.comments[0]["body"])
    assert f"]({BLOB}a%20b/%252e%252e/x%3Fy%23z.py#L12)" in body
    _assert_inert(body, ["a b/%2e%2e/x?y#z.py:12"])


def test_the_three_crashes_are_one_line_on_a_bare_python(tmp_path: Path, environment: FakeGitHub) -> None:
    """What post/action.yml runs (`python -I -S`, this checkout's src/): the
    three artifacts that once ended in a traceback."""
    crashes = [c for c in REFUSED if c[0] in ("encrypted member", "broken deflate stream", "pr.json of 200,000 nested [")]
    environment.pulls[7] = _pull(7, HEAD)
    script = "import sys; sys.path.insert(0, sys.argv[1]); from cartog_ci.github import main; sys.exit(main(sys.argv[2:]))"
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO_NAME, "GITHUB_API_URL": environment.url, "PATH": "/usr/bin:/bin"}
    for run_id, (_, data, _, message) in enumerate(crashes, start=1):
        environment.add_artifact(run_id, data)
        event = tmp_path / f"event-{run_id}.json"
        event.write_text(json.dumps(_workflow_run_context(HEAD, run_id=run_id)["event"]))
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), str(event)],
            cwd=tmp_path, env=env, check=False, capture_output=True, text=True,
        )  # fmt: skip
        assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"cartog-ci: {message}\n")
    assert environment.comments == []


def test_random_damage_to_an_artifact_is_refused_or_harmless() -> None:
    """500 seeded rounds of flipped bytes in a valid artifact: each is read
    whole or refused with a CartogError, never another exception."""
    from cartog_ci.errors import CartogError

    valid = _zip(_files())
    rng = random.Random(31)
    outcomes = {"read": 0, "refused": 0}
    for _ in range(500):
        data = bytearray(valid)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            read_artifact(bytes(data))
            outcomes["read"] += 1
        except CartogError as exc:
            assert "\n" not in str(exc) and str(exc).endswith(": refused")
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0 and sum(outcomes.values()) == 500


def test_a_real_report_fits_the_schema_and_a_hostile_one_is_cut_to_it() -> None:
    """The untrusted side (`claims_from_report`): control and invisible
    characters become spaces, long strings and lists are cut, totals kept."""
    symbol = {"qualified_name": "x\u202e" + "n" * 400, "kind": "function", "file": "a.py", "start_line": 2}
    report = {
        "risk": {"level": "medium", "reasons": ["r\nline"] * 9},
        "files": ["a.py"],
        "changed": [{"category": "added", "symbol": symbol, "callers_total": 1}] * 40,
        "broken_references": [{"name": "gone", "file": "b.py", "line": 1, "change": "renamed", "new_name": "kept"}],
        "will_break": [{"name": "f", "file": "c\\d.py", "line": 5, "reason": "too many arguments"}],
        "tests": [], "test_commands": [],
    }  # fmt: skip
    claims = claims_from_report(report)
    files = {"pr.json": json.dumps({"number": 7, "head_sha": HEAD}).encode(), "report.json": json.dumps(claims).encode()}
    read = read_artifact(_zip(files))
    assert (read.changed_total, len(read.changed), read.will_break_total) == (40, 25, 2)
    assert read.reasons == ("r line",) * 5 and read.changed[0].name == "x " + "n" * 297 + "…"
    assert [(row.file, row.why) for row in read.will_break] == [("b.py", "renamed to kept"), ("c_d.py", "too many arguments")]


def test_a_real_repository_with_hostile_names_goes_through_whole_and_inert(tmp_path: Path) -> None:
    """`report --json-output` on a real repository whose paths and names are
    hostile, cut to the schema (the untrusted side), read and rendered by
    the trusted side."""
    from cartog_ci.cli import main as cli
    from cartog_ci.pr_comment import Where, render
    from tests.testing.fixtures import commit, git, make_repo, write

    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    folder = "shop/@octocat ![x](https:__evil.example_x.png) <img src=x>\u202e"
    write(repo, {f"{folder}/mod.py": "def helper_at_octocat():\n    return 1\n"})
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("def persist(obj):", "def persist(obj, *, durable):"))
    commit(repo, "hostile names")
    out = tmp_path / "report.json"
    assert cli(["report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--no-related", "--json-output", str(out)]) == 0
    claims = claims_from_report(json.loads(out.read_text()))
    files = {"pr.json": json.dumps({"number": 7, "head_sha": HEAD}).encode(), "report.json": json.dumps(claims).encode()}
    read = read_artifact(_zip(files))
    assert read.level == "high" and read.will_break_total == 1
    added = [row for row in read.changed if row.name == "helper_at_octocat"]
    assert [row.file for row in added] == [f"{folder.replace(chr(0x202E), ' ')}/mod.py"]
    body = "<!-- cartog-ci -->\n" + render(read, Where(SERVER, REPO_NAME, 4242))
    _assert_inert(body, [f"{added[0].file}:1"])


def test_the_largest_artifact_the_schema_allows_fits_one_comment(
    environment: FakeGitHub, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every list at its cap, every string at its longest, paths of CJK
    characters (9 characters each once percent-encoded): rows that do not
    fit are counted, the comment is never cut."""
    row = _report()["changed"]["items"][0] | {
        "name": "n" * 300, "file": "\u4e00" * 299 + "x", "line": 10**6, "old_signature": "o" * 500, "new_signature": "w" * 500,
    }  # fmt: skip
    broken = {"name": "n" * 300, "file": "\u4e00" * 300, "line": 10**6, "why": "y" * 500}
    report = _report(
        risk__reasons=["r" * 500] * 5, files=10**7, changed={"total": 10**7, "items": [row] * 25},
        will_break={"total": 10**7, "items": [broken] * 25}, tests={"total": 10**7, "commands": ["c" * 1000] * 5},
    )  # fmt: skip
    assert len(json.dumps(report)) == 156_617  # under the 256 KiB cap
    assert _post(environment, _zip(_files(report)), [], capsys, tmp_path)[0] == 0
    body = str(environment.comments[0]["body"])
    assert len(body) < 65_536 and "Comment cut" not in body
    assert "…and 9999993 more call site(s) (in the run's JSON report)." in body
    assert "…and 9999994 more changed symbol(s) (in the run's JSON report)." in body
    _assert_inert(body, [])


def test_the_suite_counts_its_cases() -> None:
    assert (len(REFUSED), len(OVERSIZE), len(HOSTILE), CASES) == (46, 2, 24, 72)


def test_the_trusted_side_loads_no_parser_and_nothing_installed() -> None:
    """The choice (docs/integrations.md): the trusted job repeats the run's
    figures as data; it does not compute a report, so neither tree-sitter,
    git nor the fork's configuration is ever near the write token. What
    post/action.yml's `python -I -S` loads: the standard library and four
    modules of cartog-ci."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import cartog_ci.github; "
        "print(sorted(m for m in sys.modules if m.startswith('cartog_ci'))); "
        "print(sorted(m.split('.')[0] for m in sys.modules if 'site-packages' in (getattr(sys.modules[m], '__file__', '') or '')))"
    )
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(ROOT / "src")], check=True, capture_output=True, text=True)
    assert proc.stdout.splitlines() == [
        "['cartog_ci', 'cartog_ci.errors', 'cartog_ci.github', 'cartog_ci.pr_artifact', 'cartog_ci.pr_comment']", "[]"
    ]
