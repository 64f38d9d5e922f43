"""The report on real history: two releases of a real project from the
package registries, replayed as a commit on a branch (the old release on
``main``). Each test pins the verdicts a reviewer would check by hand.

The archives are downloaded once into ``$CARTOG_CI_TEST_DOWNLOADS`` (default
``~/.cache/cartog-ci/test-downloads``): PyPI sdists with ``pip download``,
npm tarballs with ``npm pack``. CI reaches both registries.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.report.test_scenarios import _snapshot
from tests.testing.fixtures import commit, git, init_repo

pytestmark = pytest.mark.slow

DOWNLOADS = Path(os.environ.get("CARTOG_CI_TEST_DOWNLOADS", Path.home() / ".cache/cartog-ci/test-downloads"))


def _sdist(package: str, version: str) -> Path:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    found = [p for p in DOWNLOADS.glob("*.tar.gz") if p.name.lower() == f"{package.lower()}-{version}.tar.gz"]
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             f"{package}=={version}", "-d", str(DOWNLOADS)],
            check=True,
        )  # fmt: skip
        found = [p for p in DOWNLOADS.glob("*.tar.gz") if p.name.lower() == f"{package.lower()}-{version}.tar.gz"]
    return found[0]


def _npm(package: str, version: str) -> Path:
    target = DOWNLOADS / f"{package}-{version}.tgz"
    if not target.exists():
        if shutil.which("npm") is None:
            pytest.fail("npm is needed for this test (the npm registry's tarball)")
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", "--silent", f"{package}@{version}", "--pack-destination", str(DOWNLOADS)],
                       check=True, capture_output=True)  # fmt: skip
    return target


def _unpack(archive: Path, dest: Path, keep: tuple[str, ...] = ()) -> Path:
    """The archive's single top folder, unpacked in ``dest`` (only ``keep``
    entries of it when given)."""
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    (top,) = list(dest.iterdir())
    if keep:
        for child in top.iterdir():
            if child.name not in keep:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    return top


def _replay(tmp_path: Path, old: Path, new: Path) -> Path:
    """``old`` committed on main, ``new`` on the branch ``upgrade``."""
    repo = init_repo(tmp_path / "repo")
    shutil.copytree(old, repo, dirs_exist_ok=True)
    commit(repo, "old release")
    git(repo, "checkout", "-q", "-b", "upgrade")
    for path in git(repo, "ls-files", "-z").split("\0"):
        if path:
            (repo / path).unlink()
    shutil.copytree(new, repo, dirs_exist_ok=True)
    commit(repo, "new release")
    return repo


def _json_report(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    return json.loads(capsys.readouterr().out)


def _tests_to_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The Markdown report's "Tests to run" section: what a recording
    changes (the rest of a release's report is the graph's, pinned above)."""
    assert main(["report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--no-related"]) == 0
    markdown = capsys.readouterr().out
    section = markdown[markdown.index("### Tests to run") :]
    return section[: section.index("\n### ", 1) + 1]


def _by_name(data: dict[str, object]) -> dict[tuple[str, str], dict[str, object]]:
    out = {}
    for c in data["changed"]:  # type: ignore[attr-defined]
        s = c["symbol"] or c["old"]
        out[(s["file"], s["qualified_name"])] = c
    return out


def test_scrapy_2_11_0_to_2_11_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The decompression-bomb release: new keyword-only parameters with
    defaults, a private method gaining a parameter its one caller passes, a
    middleware removed with its tests, a docstring edited."""
    old = _unpack(_sdist("scrapy", "2.11.0"), tmp_path / "old")
    new = _unpack(_sdist("scrapy", "2.11.1"), tmp_path / "new")
    data = _json_report(_replay(tmp_path, old, new), capsys)
    changed = _by_name(data)

    def verdicts(file: str, name: str) -> tuple[str | None, list[str | None]]:
        c = changed[(file, name)]
        return c["signature_verdict"], [s["verdict"] for s in c["call_sites"]]  # type: ignore[index]

    # `assertRaises(OSError, gunzip, …)` names it as a value: its call is not read
    assert verdicts("scrapy/utils/gz.py", "gunzip") == ("compatible", ["fine"] * 5 + [None] + ["fine"] * 2)
    assert changed[("scrapy/utils/gz.py", "gunzip")]["new_signature"] == (
        "def gunzip(data: bytes, *, max_size: int = 0) -> bytes"
    )
    http = "scrapy/downloadermiddlewares/httpcompression.py"
    assert verdicts(http, "HttpCompressionMiddleware.__init__") == ("compatible", ["fine"] * 3)
    # breaking as a signature, but its one call site passes the new argument
    assert verdicts(http, "HttpCompressionMiddleware._decode") == ("breaking", ["fine"])
    assert data["broken_references"] == [] and data["will_break"] == []
    removed = changed[("scrapy/downloadermiddlewares/decompression.py", "DecompressionMiddleware")]
    assert (removed["category"], removed["in_degree"]) == ("removed", 0)
    assert changed[("scrapy/contracts/__init__.py", "Contract.add_pre_hook.wrapper")]["category"] == "docs"
    # no false alarm: nothing breaks, no changed symbol is central
    assert data["risk"]["level"] == "low"  # type: ignore[index]


def test_zod_4_1_0_to_4_1_12(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Twelve patch releases of a TypeScript library (its src/ as the
    registry ships it): two locale files renamed, generic type parameters
    added to error helpers."""
    keep = ("src", "package.json")
    old = _unpack(_npm("zod", "4.1.0"), tmp_path / "old", keep)
    new = _unpack(_npm("zod", "4.1.12"), tmp_path / "new", keep)
    data = _json_report(_replay(tmp_path, old, new), capsys)
    moves = sorted(
        (c["old"]["file"], c["symbol"]["file"], c["symbol"]["qualified_name"])  # type: ignore[index]
        for c in data["changed"]  # type: ignore[attr-defined]
        if c["category"] == "renamed"
    )
    assert moves == [
        ("src/v4/locales/kh.ts", "src/v4/locales/km.ts", "error"),
        ("src/v4/locales/kh.ts", "src/v4/locales/km.ts", "error.getSizing"),
        ("src/v4/locales/kh.ts", "src/v4/locales/km.ts", "error.parsedType"),
        ("src/v4/locales/ua.ts", "src/v4/locales/uk.ts", "error"),
        ("src/v4/locales/ua.ts", "src/v4/locales/uk.ts", "error.getSizing"),
        ("src/v4/locales/ua.ts", "src/v4/locales/uk.ts", "error.parsedType"),
    ]
    changed = _by_name(data)
    # error: $ZodError -> $ZodError<T> in the implementation behind two
    # overload signatures that stay as they were: callers see no change
    flatten = changed[("src/v4/core/errors.ts", "flattenError")]
    assert (flatten["category"], flatten["signature_verdict"]) == ("modified", None)
    assert data["broken_references"] == [] and data["will_break"] == []


def test_gojsonnet_0_20_0_to_0_21_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """go-jsonnet as its PyPI sdist ships it (a Go module): a type renamed
    (traceFrame -> TraceFrame) in every signature that names it, functions
    gaining a parameter that each of their call sites passes."""
    old = _unpack(_sdist("gojsonnet", "0.20.0"), tmp_path / "old")
    new = _unpack(_sdist("gojsonnet", "0.21.0"), tmp_path / "new")
    data = _json_report(_replay(tmp_path, old, new), capsys)
    changed = _by_name(data)
    renamed = changed[("runtime_error.go", "TraceFrame")]
    assert (renamed["category"], renamed["old"]["qualified_name"]) == ("renamed", "traceFrame")  # type: ignore[index]
    # the rename alone is no signature change of the functions that name the type
    for file, name in (("runtime_error.go", "makeRuntimeError"), ("interpreter.go", "interpreter.getCurrentStackTrace")):
        assert not changed[(file, name)]["signature_changed"], name
    evaluate = changed[("interpreter.go", "evaluate")]
    assert evaluate["signature_verdict"] == "breaking"
    assert [s["verdict"] for s in evaluate["call_sites"]] == ["fine", "fine"]  # type: ignore[union-attr]
    assert data["will_break"] == [] and data["broken_references"] == []
    go_tests = [c for c in data["test_commands"] if c.startswith("go test")]  # type: ignore[union-attr]
    assert go_tests and all("Benchmark" not in c and "Example" not in c for c in go_tests)


def test_tabulate_0_9_0_to_0_10_0_recorded_coverage_adds_a_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tabulate's own suite, recorded with per-test contexts at the old
    release (as its default branch's CI would), changes the tests to run
    for the new one: ``_CustomTextWrap._handle_long_word`` is called by the
    standard library's ``TextWrapper._wrap_chunks``, which no static graph
    follows; the recording shows the test that ran it (and, as the release
    changes module-level lines that ran at import, the tests importing
    tabulate: ``import``), where the graph shows none."""
    old = _unpack(_sdist("tabulate", "0.9.0"), tmp_path / "old")
    new = _unpack(_sdist("tabulate", "0.10.0"), tmp_path / "new")
    repo = _replay(tmp_path, old, new)
    wrap = "test/test_textwrapper.py:function:test_wrap_longword_non_wide"
    handle = ("tabulate/__init__.py", "_CustomTextWrap._handle_long_word")

    git(repo, "checkout", "-q", "upgrade")
    before = _json_report(repo, capsys)
    _snapshot("tabulate_0_10_0_tests_before.md", _tests_to_run(repo, capsys))
    assert wrap not in {t["id"] for t in before["tests"]}  # type: ignore[union-attr,index]
    assert _by_name(before)[handle]["covered_by"] == []

    git(repo, "checkout", "-q", "main")
    data = tmp_path / "coverage.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE"))}
    env["COVERAGE_FILE"] = str(data)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=tabulate", "--cov-context=test", "test"],
        cwd=repo, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert main(["coverage", "import", str(data), "--repo", str(repo)]) == 0
    capsys.readouterr()

    git(repo, "checkout", "-q", "upgrade")
    after = _json_report(repo, capsys)
    _snapshot("tabulate_0_10_0_tests_after.md", _tests_to_run(repo, capsys))
    chosen = {t["id"]: t["chosen_by"] for t in after["tests"]}  # type: ignore[union-attr,index]
    assert chosen[wrap] == ["coverage", "import"]
    changed = _by_name(after)[handle]
    assert (changed["category"], changed["unreached"]) == ("modified", True)
    assert wrap in changed["covered_by"]  # type: ignore[operator]
    assert after["coverage"]["at_base"] is True  # type: ignore[index]
