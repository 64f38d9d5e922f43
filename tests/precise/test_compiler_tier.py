"""The compiler tier (docs/report.md, "The compiler tier") with the real
tools: node with the real ``typescript`` package from the npm registry
(installed once into ~/.cache/cartog-ci-test), and jedi from the test
extra. A call site only the tool resolves is a caller of tier
``compiler``; without the tool the report says why in one line; a tool
that crashes, hangs or is broken costs the report nothing but that line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.fixtures import commit, git, init_repo, run_cli, write

TYPESCRIPT = "5.9.3"
# resolved at import, before the autouse fixture points HOME at a tmp dir
CACHE = Path(os.environ.get("CARTOG_CI_TEST_CACHE") or Path.home() / ".cache" / "cartog-ci-test")

LIB_TS = """export class Box {
  open(): number {
    return 1;
  }
}

export function make(): Box {
  return new Box();
}
"""
USE_TS = """import { Box, make } from "./lib";

export function run(boxes: Box[]): number[] {
  return boxes.map((b) => b.open());
}

export function direct(): number {
  return make().open();
}
"""


@pytest.fixture(scope="session")
def typescript_package() -> Path:
    """The real ``typescript`` package, from the npm registry once."""
    prefix = CACHE / f"typescript-{TYPESCRIPT}"
    package = prefix / "node_modules" / "typescript"
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH: the TypeScript compiler tier cannot run here")
    if not (package / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not on PATH: typescript cannot be installed from the registry")
        prefix.mkdir(parents=True, exist_ok=True)
        cmd = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent", f"typescript@{TYPESCRIPT}"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.skip(f"the npm registry did not give typescript@{TYPESCRIPT}: {done.stderr.strip()[-300:]}")
    return package


def _ts_repo(tmp_path: Path, typescript: Path | None) -> Path:
    """``Box.open`` changed on a branch; ``run`` calls it on a callback
    parameter whose type only the compiler infers, ``direct`` on a call's
    result, which the structural tiers resolve."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"lib.ts": LIB_TS, "use.ts": USE_TS, ".gitignore": "node_modules\n"})
    if typescript is not None:
        (repo / "node_modules").mkdir()
        (repo / "node_modules" / "typescript").symlink_to(typescript)
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"lib.ts": LIB_TS.replace("return 1;", "return 2;")})
    commit(repo, "change")
    return repo


def _report(capsys: pytest.CaptureFixture[str], repo: Path) -> dict:
    code, out, err = run_cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--json")
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out)


def _callers(report: dict, qualified_name: str) -> dict[str, str | None]:
    (item,) = [c for c in report["changed"] if c["symbol"]["qualified_name"] == qualified_name]
    return {n["id"]: n.get("tier") for n in item["callers"]}


def _untimed(notes: list[str]) -> list[str]:
    """The notes without how long the tool took (the machine's load says that)."""
    return [re.sub(r", in \d+\.\d s", "", note) for note in notes]


def _broken_typescript(tmp_path: Path, source: str) -> Path:
    """A real package named typescript whose module does ``source``."""
    package = tmp_path / "broken" / "typescript"
    write(package, {"package.json": '{"name": "typescript", "version": "0.0.0-broken", "main": "index.js"}',
                    "index.js": source})  # fmt: skip
    return package


def test_a_site_only_the_compiler_resolves_is_a_caller_of_tier_compiler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, typescript_package)
    report = _report(capsys, repo)
    assert _callers(report, "Box.open") == {"use.ts:function:run": "compiler", "use.ts:function:direct": None}
    (item,) = [c for c in report["changed"] if c["symbol"]["qualified_name"] == "Box.open"]
    assert (item["callers_total"], item["possible_callers"]) == (2, 0)
    (run,) = report["compiler_tier"]
    assert {k: run[k] for k in ("tool", "available", "version", "asked", "answered", "cached", "callers")} == {
        "tool": "typescript", "available": True, "version": TYPESCRIPT, "asked": 1, "answered": 1, "cached": 0,
        "callers": 1,
    }  # fmt: skip
    # again: the answer comes from the index's cache, the same caller
    again = _report(capsys, repo)
    assert _callers(again, "Box.open") == _callers(report, "Box.open")
    assert (again["compiler_tier"][0]["answered"], again["compiler_tier"][0]["cached"]) == (1, 1)
    code, text, _ = run_cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related")
    assert "Box.open  lib.ts:2 · 2 caller(s) (1 by the compiler tier)" in text
    assert (
        "note: compiler tier (typescript 5.9.3): 1 of 1 call site(s) answered (1 from the cache), "
        "1 caller(s) the graph did not have\n"
    ) in text


def test_an_edit_of_any_file_asks_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, typescript_package)
    _report(capsys, repo)
    write(repo, {"use.ts": USE_TS + "\nexport const other = 1;\n"})
    report = _report(capsys, repo)
    assert (report["compiler_tier"][0]["answered"], report["compiler_tier"][0]["cached"]) == (1, 0)
    assert _callers(report, "Box.open")["use.ts:function:run"] == "compiler"


def test_without_typescript_the_report_says_the_tier_is_unavailable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _ts_repo(tmp_path, None)
    report = _report(capsys, repo)
    assert _callers(report, "Box.open") == {"use.ts:function:direct": None}
    assert report["compiler_tier"] == [{
        "tool": "typescript", "languages": "TypeScript/JavaScript", "available": False,
        "why": "no node_modules/typescript in the repository (`npm install --save-dev typescript` adds it)",
        "version": None, "asked": 1, "answered": 0, "cached": 0, "callers": 0, "unanswered": 1, "failure": None,
        "seconds": 0.0,
    }]  # fmt: skip
    assert report["notes"] == [
        "compiler tier not available for TypeScript/JavaScript: no node_modules/typescript in the repository "
        "(`npm install --save-dev typescript` adds it)"
    ]


def test_without_node_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, typescript_package)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", str(bin_dir))
    report = _report(capsys, repo)
    assert report["notes"] == ["compiler tier not available for TypeScript/JavaScript: no `node` on PATH"]
    assert _callers(report, "Box.open") == {"use.ts:function:direct": None}


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("throw new Error('this typescript is broken');", "node exited with code 1: Error: this typescript is broken"),
        ("process.exit(3);", "node exited with code 3"),
    ],
)
def test_a_broken_typescript_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path, source: str, said: str
) -> None:
    repo = _ts_repo(tmp_path, _broken_typescript(tmp_path, source))
    report = _report(capsys, repo)
    assert _callers(report, "Box.open") == {"use.ts:function:direct": None}
    assert _untimed(report["notes"]) == [
        f"compiler tier (typescript 0.0.0-broken): 0 of 1 call site(s) answered; 1 unanswered: {said}"
    ]


def test_a_hanging_tool_stops_at_the_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, _broken_typescript(tmp_path, "for (;;) {}"))
    write(repo, {".cartog-ci.toml": "compiler_budget = 1\n"})
    report = _report(capsys, repo)
    assert _untimed(report["notes"]) == [
        "compiler tier (typescript 0.0.0-broken): 0 of 1 call site(s) answered; 1 unanswered: not finished within "
        "the 1 s budget"
    ]
    assert report["compiler_tier"][0]["failure"] == "budget"
    (item,) = [c for c in report["changed"] if c["symbol"]["qualified_name"] == "Box.open"]
    assert item["possible_callers"] == 1  # unanswered: still a possible caller


def test_a_budget_of_zero_turns_the_tier_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, typescript_package)
    write(repo, {".cartog-ci.toml": "compiler_budget = 0\n"})
    report = _report(capsys, repo)
    assert (report["compiler_tier"], report["notes"]) == ([], [])
    assert _callers(report, "Box.open") == {"use.ts:function:direct": None}


LIB_PY = """class Box:
    def open(self):
        return 1


def make() -> Box:
    return Box()
"""
USE_PY = """from lib import make


def run():
    boxes = [make()]
    return [b.open() for b in boxes]
"""


def _python_repo(tmp_path: Path) -> Path:
    """``Box.open`` changed on a branch; ``run`` calls it on an element of a
    list of ``make()`` results, which only jedi types."""
    pytest.importorskip("jedi", reason="jedi is in the test extra (pip install -e '.[test]')")
    repo = init_repo(tmp_path / "repo")
    write(repo, {"lib.py": LIB_PY, "use.py": USE_PY})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"lib.py": LIB_PY.replace("return 1", "return 2")})
    commit(repo, "change")
    return repo


def test_jedi_answers_for_python(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _python_repo(tmp_path)
    report = _report(capsys, repo)
    assert _callers(report, "Box.open") == {"use.py:function:run": "compiler"}
    (run,) = report["compiler_tier"]
    assert {k: run[k] for k in ("tool", "available", "asked", "answered", "callers")} == {
        "tool": "jedi", "available": True, "asked": 1, "answered": 1, "callers": 1,
    }  # fmt: skip


def test_a_jedi_cache_file_cut_short_is_parsed_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A service killed at the budget while parso pickled a module leaves the
    pickle cut short in jedi's cache; every later report then failed on it
    (``EOFError: Ran out of input``) until someone deleted the folder."""
    repo = _python_repo(tmp_path)
    _report(capsys, repo)
    where = subprocess.run(
        [sys.executable, "-c", "import jedi; print(jedi.settings.cache_directory)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    pickles = sorted(Path(where).rglob("*.pkl"))
    assert pickles  # lib.py and the stubs jedi read, under the test's own HOME
    for pickled in pickles:
        pickled.write_bytes(pickled.read_bytes()[:16])
    write(repo, {"other.py": "X = 1\n"})  # a new program: the site is asked again, not read from cartog-ci's cache
    commit(repo, "other")
    report = _report(capsys, repo)
    assert _callers(report, "Box.open") == {"use.py:function:run": "compiler"}
    (run,) = report["compiler_tier"]
    assert {k: run[k] for k in ("answered", "cached", "failure")} == {"answered": 1, "cached": 0, "failure": None}
    assert all(p.stat().st_size > 16 for p in pickles if p.exists())  # parsed again, written whole


def test_stats_says_which_tools_are_available(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typescript_package: Path
) -> None:
    repo = _ts_repo(tmp_path, typescript_package)
    _report(capsys, repo)
    code, out, err = run_cli(capsys, "stats", "--repo", str(repo), "--json")
    assert code == 0, err
    by_tool = {t["tool"]: t for t in json.loads(out)["compiler_tier"]}
    assert by_tool["typescript"] == {
        "tool": "typescript", "languages": "TypeScript/JavaScript", "available": True, "version": TYPESCRIPT,
        "why": None, "cached_answers": 1,
    }  # fmt: skip
    code, text, _ = run_cli(capsys, "stats", "--repo", str(repo))
    assert f"compiler tier for TypeScript/JavaScript: typescript {TYPESCRIPT}, 1 answer(s) cached\n" in text
