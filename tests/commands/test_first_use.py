"""What a new user tries first (issue 17, item 9): each command either
answers or says in one line (exit 2) what is wrong; answers come from an
index brought up to date; the text form and the README explain themselves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cartog_ci.cli import COMMANDS, main
from tests.testing.fixtures import commit, git, make_repo, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path, "pyproj")
    assert main(["index", "--no-embed", "--repo", str(repo)]) == 0
    return repo


def _cli(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--repo", str(repo)])
    out, err = capsys.readouterr()
    return code, out, err


def test_deps_of_a_file_not_in_the_index(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _cli(capsys, repo, "deps", "nosuch.py") == (
        2, "", "cartog-ci: nosuch.py is not in the index (check the path, or run `cartog-ci index`)\n"
    )  # fmt: skip
    code, out, _ = _cli(capsys, repo, "deps", "./shop/models/base.py")
    assert code == 0 and out.startswith("shop/models/base.py imports:\n")


def test_hierarchy_of_something_that_is_not_a_class(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _cli(capsys, repo, "hierarchy", "persist") == (
        2,
        "",
        "cartog-ci: 'persist' is a function, not a class: hierarchy shows the bases and subclasses of types "
        "(classes, interfaces, traits, structs, enums); try `cartog-ci refs persist`\n",
    )
    code, out, err = _cli(capsys, repo, "hierarchy", "Model")
    assert (code, err) == (0, "") and out.startswith("shop/models/base.py:class:Model\n")


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_is_a_usage_error(query: str, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _cli(capsys, repo, "search", query) == (
        2, "", "cartog-ci: search: the query is empty: ask for a name, an error string or a question\n"
    )  # fmt: skip


def test_index_outside_a_git_repository_says_what_it_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    write(plain, {"a.py": "def a():\n    return 1\n"})
    code, out, err = _cli(capsys, plain, "index", "--no-embed")
    db = plain / ".cartog-ci" / "index.db"
    assert code == 0 and out.startswith("full: 1 candidate files")
    assert err == (
        f"cartog-ci: {plain} is not in a git repository: indexing every file below it into {db} "
        "(run `git init` first to index only what git would track)\n"
    )
    assert _cli(capsys, plain, "index", "--no-embed")[::2] == (0, "")  # said once, when the index is made


def test_refs_and_export_answer_from_an_index_brought_up_to_date(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An edit after the last `index`: refs and export see it, as report
    does; --no-refresh answers from the index as it is."""
    write(repo, {"shop/extra.py": "from shop.models.base import persist\n\n\ndef keep(x):\n    return persist(x)\n"})
    capsys.readouterr()
    code, out, err = _cli(capsys, repo, "refs", "persist", "--no-refresh", "--json")
    assert (code, err) == (0, "")
    assert "shop/extra.py" not in out
    code, out, err = _cli(capsys, repo, "export", "--no-refresh", "--json")
    assert (code, err) == (0, "") and "shop/extra.py" not in out
    code, out, err = _cli(capsys, repo, "refs", "persist", "--json")
    assert (code, err) == (0, "")
    assert {(e["file"], e["kind"]) for e in json.loads(out)[0]["refs"] if e["file"] == "shop/extra.py"} == {
        ("shop/extra.py", "calls"), ("shop/extra.py", "imports"),
    }  # fmt: skip
    (repo / "shop/extra.py").unlink()
    code, out, err = _cli(capsys, repo, "export", "--json")
    assert (code, err) == (0, "")
    assert not [s for s in json.loads(out)["symbols"] if s["file"] == "shop/extra.py"]


def test_callees_say_outside_the_project_not_unresolved_external(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code, out, err = _cli(capsys, repo, "callees", "slugify")
    assert (code, err) == (0, "")
    assert out == (
        "shop/util/text.py:function:slugify: 2 call(s)\n"
        "  shop/util/text.py:5  -> sub (outside the project)\n"
        "  shop/util/text.py:5  -> shop/util/text.py:function:normalize\n"
    )


def test_the_readme_lists_every_command() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    listed = set(re.findall(r"^cartog-ci (\w+)", readme.split("## Commands", 1)[1].split("```", 2)[1], re.M))
    assert listed == set(COMMANDS) - {"comment"}  # `comment` is the Action's step, documented in docs/integrations.md


def test_the_text_report_explains_its_marks(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("def persist(obj):", "def persist(obj, *, durable):"))
    text = repo / "shop/util/text.py"
    text.write_text(text.read_text().replace("def normalize(value):", "def normalize(value, strip=True):"))
    commit(repo, "signatures")
    capsys.readouterr()
    code, out, err = _cli(capsys, repo, "report", "--base", "main", "--no-related")
    assert code == 0, err
    assert "  modified*         persist" in out and "  modified~         normalize" in out
    assert out.endswith("  (* breaking signature change; ~ signature changed, compatible)\n")


def test_a_report_of_nothing_committed_points_at_the_uncommitted_changes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    code, out, err = _cli(capsys, repo, "report", "--base", "main", "--no-related")
    assert code == 0 and " 0 symbol change(s) in 0 file(s)" in out and "uncommitted" not in err
    write(repo, {"shop/util/extra.py": "def helper():\n    return 1\n"})
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text() + "\n\ndef more():\n    return 2\n")
    code, out, err = _cli(capsys, repo, "report", "--base", "main", "--no-related")
    assert code == 0 and " 0 symbol change(s) in 0 file(s)" in out
    assert err.splitlines()[-1] == (
        "cartog-ci: nothing committed since the base, but 2 file(s) have uncommitted changes: "
        "`--working-tree` reports them, `--staged` what is staged"
    )
    code, out, err = _cli(capsys, repo, "report", "--base", "main", "--working-tree", "--no-related")
    assert "added             helper" in out and "uncommitted" not in err
