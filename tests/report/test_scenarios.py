"""Report scenarios on real git repositories, with golden Markdown and JSON.

Regenerate the goldens after an intended change with
``CARTOG_UPDATE_SNAPSHOTS=1 bash scripts/test tests/report``; review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, git, make_repo, write

SNAPSHOTS = Path(__file__).parent / "snapshots"
# Every scenario on both backends, against the same goldens.
pytestmark = pytest.mark.usefixtures("backend")


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("CARTOG_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(text)
        if os.environ.get("CARTOG_UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"snapshot {name} was missing and has been written: review and re-run")
    assert text == path.read_text(), f"report differs from snapshot {name}"


def _report(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str, str]:
    code = main(["report", "--repo", str(repo), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _both(capsys: pytest.CaptureFixture[str], repo: Path, name: str, *args: str) -> dict[str, object]:
    # Related code is the model's (its scores depend on the CPU's int8
    # kernels): tests/search/test_related.py checks it, not the goldens.
    args = ("--no-related", *args)
    code, markdown, err = _report(capsys, repo, "--format", "markdown", *args)
    assert code == 0, err
    _snapshot(f"{name}.md", markdown)
    code, out, err = _report(capsys, repo, "--format", "json", *args)
    assert code == 0, err
    data = json.loads(out)
    _snapshot(f"{name}.json", json.dumps(data, indent=2, sort_keys=True) + "\n")
    return data


def _feature(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    return repo


def _changes(data: dict[str, object]) -> list[tuple[str, str, bool]]:
    return [
        (c["category"], (c["symbol"] or c["old"])["id"], c["signature_changed"])  # type: ignore[index]
        for c in data["changed"]  # type: ignore[union-attr]
        if c["category"] != "children_changed"  # type: ignore[index]
    ]


def test_rename_across_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    text = (repo / "shop/util/text.py").read_text()
    write(repo, {
        "shop/util/text.py": text.replace("def normalize(value):\n    return value.strip().lower()\n", "")
        .replace("import re as regex\n", "import re as regex\n\nfrom .clean import canonical\n")
        .replace("normalize(value)", "canonical(value)"),
        "shop/util/clean.py": "def canonical(value):\n    return value.strip().lower()\n",
        "shop/cli.py": (repo / "shop/cli.py").read_text().replace(
            "shop.util.text.normalize(", "shop.util.clean.canonical("
        ).replace("import shop.util.text\n", "import shop.util.clean\n"),
    })  # fmt: skip
    commit(repo, "move normalize to clean.canonical")
    data = _both(capsys, repo, "rename_across_files", "--base", "main")
    assert _changes(data) == [
        ("renamed", "shop/util/clean.py:function:canonical", False),
        ("modified", "shop/cli.py:module:shop.cli", False),
        ("modified", "shop/cli.py:function:main", False),
        ("modified", "shop/util/text.py:module:shop.util.text", False),
        ("modified", "shop/util/text.py:function:slugify", False),
        ("added", "shop/util/clean.py:module:shop.util.clean", False),
    ]
    renamed = data["changed"][0]  # type: ignore[index]
    assert renamed["old"]["id"] == "shop/util/text.py:function:normalize"
    assert renamed["moved_from"] == "shop/util/text.py:function:normalize"
    assert data["broken_references"] == []


def test_signature_change_with_callers_in_three_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {
        "shop/report.py": "from shop.models.base import persist\n\n\ndef archive(order):\n    return persist(order)\n",
        "shop/export.py": "from shop.models import base\n\n\ndef dump(order):\n    return base.persist(order)\n",
    })  # fmt: skip
    commit(repo, "more callers")
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "shop/models/base.py"
    path.write_text(path.read_text().replace("def persist(obj):", "def persist(obj, *, durable):"))
    commit(repo, "persist needs durable")
    data = _both(capsys, repo, "signature_change", "--base", "main")
    assert _changes(data) == [("modified", "shop/models/base.py:function:persist", True)]
    callers = data["changed"][0]["callers"]  # type: ignore[index]
    direct = sorted((c["id"], c["depth"]) for c in callers if c["depth"] == 1)
    assert direct == [
        ("shop/export.py:function:dump", 1),
        ("shop/models/base.py:method:Model.save", 1),
        ("shop/report.py:function:archive", 1),
    ]
    # the call-site check binds each call against the new signature
    assert data["risk"]["level"] == "high"  # type: ignore[index]
    assert data["risk"]["reasons"][0] == (  # type: ignore[index]
        "3 call site(s) of persist no longer fit its new signature "
        "(shop/export.py:5: missing required argument durable)"
    )
    assert [(s["file"], s["line"], s["verdict"]) for s in data["will_break"]] == [  # type: ignore[union-attr]
        ("shop/export.py", 5, "will break"),
        ("shop/models/base.py", 6, "will break"),
        ("shop/report.py", 5, "will break"),
    ]


def test_removed_function_still_called_is_a_broken_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    path = repo / "shop/models/base.py"
    path.write_text(path.read_text().replace("def persist(obj):\n    return obj\n", ""))
    commit(repo, "drop persist")
    data = _both(capsys, repo, "removed_still_called", "--base", "main")
    assert _changes(data) == [("removed", "shop/models/base.py:function:persist", False)]
    assert [(b["file"], b["line"], b["name"], b["change"]) for b in data["broken_references"]] == [  # type: ignore[union-attr]
        ("shop/models/base.py", 6, "persist", "removed")
    ]
    assert data["risk"]["level"] == "high"  # type: ignore[index]
    code, _, err = _report(capsys, repo, "--base", "main", "--fail-on", "broken-refs")
    assert code == 1
    assert err == "cartog-ci: failing (--fail-on): 1 broken reference(s)\n"


def test_method_added_to_a_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    path = repo / "shop/models/order.py"
    path.write_text(path.read_text() + "\n    def cancel(self):\n        return self.reference()\n")
    commit(repo, "cancel")
    data = _both(capsys, repo, "method_added", "--base", "main")
    assert _changes(data) == [("added", "shop/models/order.py:method:Order.cancel", False)]
    assert [c["category"] for c in data["changed"]] == ["added", "children_changed", "children_changed"]  # type: ignore[union-attr,index]
    assert data["risk"]["level"] == "low"  # type: ignore[index]


def test_body_only_change_reached_by_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    path = repo / "shop/models/order.py"
    path.write_text(path.read_text().replace("self.save()\n", "self.save()\n        self.validate()\n"))
    commit(repo, "validate twice")
    data = _both(capsys, repo, "body_only_tested", "--base", "main")
    assert _changes(data) == [("modified", "shop/models/order.py:method:Order.checkout", False)]
    assert data["test_commands"] == ["pytest tests/test_order.py::test_checkout"]
    assert data["changed"][0]["untested"] is False  # type: ignore[index]


def test_comment_and_whitespace_only_change_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    path = repo / "shop/models/order.py"
    path.write_text("# orders\n\n" + path.read_text().replace("    def add(", "\n\n    # add an item\n    def add("))
    commit(repo, "comments")
    data = _both(capsys, repo, "comments_only", "--base", "main")
    assert data["changed"] == [] and data["broken_references"] == []
    assert data["risk"]["level"] == "low"  # type: ignore[index]


def test_binary_file_and_deleted_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    write(repo, {"shop/blob.py": b"\x00\x01\x02binary", "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00"})
    (repo / "shop/util/other.py").unlink()
    commit(repo, "binary, delete")
    data = _both(capsys, repo, "binary_and_deleted", "--base", "main")
    assert _changes(data) == [
        ("removed", "shop/util/other.py:function:normalize", False),
        ("removed", "shop/util/other.py:module:shop.util.other", False),
    ]
    assert data["notes"] == ["shop/blob.py: skipped (binary content)"]
    assert data["broken_references"] == []  # nobody imported other.normalize


def test_staged_versus_unstaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("return True", "return bool(self)"))
    git(repo, "add", "shop/models/base.py")
    text = repo / "shop/util/text.py"
    text.write_text(text.read_text().replace(".lower()", ".casefold()"))
    staged = _both(capsys, repo, "staged_only", "--staged")
    assert _changes(staged) == [("modified", "shop/models/base.py:method:Model.validate", False)]
    worktree = json.loads(_report(capsys, repo, "--working-tree", "--format", "json")[1])
    assert _changes(worktree) == [
        ("modified", "shop/models/base.py:method:Model.validate", False),
        ("modified", "shop/util/text.py:function:normalize", False),
    ]


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    code, _, err = _report(capsys, repo, "--base", "nope")
    assert (code, err) == (2, "cartog-ci: unknown revision 'nope': check the name, or run `git fetch` first\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = _report(capsys, plain)
    assert code == 2 and err.startswith("cartog-ci: not a git repository:")
    code, _, err = _report(capsys, repo, "--fail-on", "everything")
    assert code == 2 and "unknown --fail-on gate 'everything'" in err


def test_typescript_removed_export_still_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "tsproj")
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "src/util/format.ts"
    path.write_text(
        path.read_text().replace(
            "export function truncate(text: string, width = MAX_WIDTH): string {\n"
            "  return normalize(text).slice(0, width);\n}\n",
            "",
        )
    )
    commit(repo, "drop truncate")
    data = _both(capsys, repo, "ts_removed_export", "--base", "main")
    assert _changes(data) == [("removed", "src/util/format.ts:function:truncate", False)]
    broken = sorted((b["file"], b["name"], b["kind"]) for b in data["broken_references"])  # type: ignore[union-attr]
    assert broken == [
        ("src/components/UserCard.tsx", "truncate", "calls"),
        ("src/components/UserCard.tsx", "truncate", "imports"),
        ("src/services/registry.ts", "truncate", "calls"),
    ]
    assert data["risk"]["level"] == "high"  # type: ignore[index]


def test_go_signature_change_reaches_the_go_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "goproj")
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "internal/server/server.go"
    path.write_text(path.read_text().replace("func NewServer(name string) *Server {", "func NewServer(name string, port int) *Server {"))
    commit(repo, "NewServer takes a port")
    data = _both(capsys, repo, "go_signature_change", "--base", "main")
    assert _changes(data) == [("modified", "internal/server/server.go:function:NewServer", True)]
    assert data["test_commands"] == ["go test ./internal/server -run '^(TestStart)$'"]
    assert data["changed"][0]["untested"] is False  # type: ignore[index]


def test_head_not_checked_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    (repo / "shop/util/other.py").unlink()
    commit(repo, "drop other")
    git(repo, "checkout", "-q", "main")
    code, out, err = _report(capsys, repo, "--head", "feature", "--base", "main")
    assert (code, out) == (2, "")
    assert err.endswith(
        "cartog-ci: feature is not checked out (1 changed file(s) differ from the work tree, "
        "e.g. shop/util/other.py): check it out (git switch, or git worktree add) and run the report there\n"
    )


def test_a_file_unreadable_at_head_is_not_all_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _feature(tmp_path)
    path = repo / "shop/models/base.py"
    path.write_bytes(path.read_bytes() + b"# caf\xe9\n")  # one Latin-1 byte
    commit(repo, "latin-1")
    code, out, err = _report(capsys, repo, "--base", "main", "--format", "json", "--fail-on", "broken-refs")
    assert code == 0, err
    data = json.loads(out)
    assert data["changed"] == [] and data["broken_references"] == []
    assert data["risk"]["level"] == "medium"
    assert data["risk"]["reasons"] == [
        "1 changed file(s) could not be parsed on one side (e.g. shop/models/base.py): their impact is unknown"
    ]


def test_go_module_below_the_root_finds_broken_references(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.testing.fixtures import init_repo

    repo = init_repo(tmp_path / "mono")
    write(repo, {
        "backend/go.mod": "module example.com/api\n\ngo 1.21\n",
        "backend/internal/db/db.go": "package db\n\nfunc Open(dsn string) int {\n\treturn len(dsn)\n}\n\nfunc Close() {}\n",
        "backend/cmd/main.go": 'package main\n\nimport "example.com/api/internal/db"\n\nfunc main() {\n\tdb.Open("x")\n\tdb.Close()\n}\n',
    })  # fmt: skip
    commit(repo, "initial")
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "backend/internal/db/db.go"
    path.write_text(path.read_text().replace("\nfunc Close() {}\n", ""))
    commit(repo, "drop Close")
    code, out, err = _report(capsys, repo, "--base", "main", "--format", "json")
    assert code == 0, err
    broken = [(b["file"], b["line"], b["name"]) for b in json.loads(out)["broken_references"]]
    assert broken == [("backend/cmd/main.go", 7, "Close")]


@pytest.mark.slow
def test_related_code_with_the_real_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With embeddings in the index, each changed function lists similar code
    elsewhere: never itself, its own class or members, or what it calls."""
    repo = _feature(tmp_path)
    assert main(["index", "--repo", str(repo)]) == 0
    capsys.readouterr()
    path = repo / "shop/util/text.py"
    path.write_text(path.read_text().replace(".strip().lower()", ".strip().casefold()"))
    commit(repo, "casefold")
    code, out, err = _report(capsys, repo, "--base", "main", "--format", "json")
    assert code == 0, err
    (item,) = [c for c in json.loads(out)["changed"] if c["category"] == "modified" and c["symbol"]["kind"] == "function"]
    assert item["symbol"]["id"] == "shop/util/text.py:function:normalize"
    related = [r["id"] for r in item["related"]]
    assert related and len(related) <= 3
    assert "shop/util/text.py:function:normalize" not in related
    # the other normalize (same body shape, another module) is the nearest
    assert related[0] == "shop/util/other.py:function:normalize"


def test_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--repo", str(repo), "--depth", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        "cartog-ci report: argument --depth: must be 1 or more (see cartog-ci report --help)\n"
    )


def test_caller_depth_never_narrows_the_tests_and_edited_tests_stand_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--depth 1`` shows callers at depth 1 but runs the tests within the
    test depth (test_checkout calls checkout, which calls save: depth 2);
    the test the change adds is listed as edited, not as reaching it; and
    without recorded coverage ``--fail-on untested`` cannot fail: it says so."""
    repo = _feature(tmp_path)
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("        self.validate()\n", "        if not self.validate():\n            return None\n"))
    tests = repo / "tests/test_order.py"
    tests.write_text(tests.read_text() + "\n\ndef test_reference():\n    assert Order().reference() is not None\n")
    commit(repo, "save checks validate; a test of reference")
    data = _both(capsys, repo, "depth_one_edited_test", "--base", "main", "--depth", "1")
    assert [(t["id"], t["chosen_by"]) for t in data["tests"]] == [  # type: ignore[union-attr,index]
        ("tests/test_order.py:function:test_checkout", ["graph"]),
        ("tests/test_order.py:function:test_reference", ["edited"]),
    ]
    assert (data["test_depth"], data["tests_more"], data["coverage"]) == (2, 0, None)
    assert data["test_commands"] == ["pytest tests/test_order.py"]
    code, text, err = _report(capsys, repo, "--no-related", "--base", "main", "--depth", "1", "--fail-on", "untested")
    assert code == 0
    assert err == (
        "cartog-ci: --fail-on untested: no coverage recorded for this base, nothing to fail on "
        "(record it with `cartog-ci coverage import`, docs/coverage.md)\n"
    )
    _snapshot("depth_one_edited_test.txt", text)
