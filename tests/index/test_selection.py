"""Which files the index holds (index/selection.py): the configuration's
`exclude` / `include` globs and the repository's own `.gitattributes`
(linguist-vendored, -generated, -documentation); a change of either
reaches the index in the next incremental run, as a cold build sees it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.config import glob_pattern
from cartog_ci.domain.marks import decode
from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.index.selection import stored_marks
from cartog_ci.search.multimodal import MultimodalOptions, search
from cartog_ci.search.roles import role_of
from tests.testing.fixtures import commit, git, init_repo, run_cli, write

APP = "def create_user(name):\n    return {'name': name}\n\n\ndef delete_user(user):\n    return None\n"
TUTORIAL = (
    "from app import create_user\n\n\n"
    "def create_user_tutorial(name):\n    user = create_user(name)\n    return user\n"
)
ATTRIBUTES = (
    "docs_src/** linguist-documentation\n"
    "gen/** linguist-generated=true\n"
    "third/** linguist-vendored\n"
    "docs/api/** -linguist-documentation\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "r")
    write(repo, {
        "app.py": APP,
        "docs_src/tutorial001.py": TUTORIAL,
        "gen/users_pb2.py": "def create_user_request(name):\n    return name\n",
        "third/lib.py": "def create_user(name):\n    return name\n",
        "docs/api/core.py": "from app import delete_user\n\n\ndef remove(user):\n    return delete_user(user)\n",
        ".gitattributes": ATTRIBUTES,
    })  # fmt: skip
    commit(repo)
    return repo


def _files(repo: Path) -> list[str]:
    with workspace.open_store(workspace.locate(str(repo), None), create=False) as store:
        return sorted(p for p, (_, status) in store.file_hashes().items() if status == "indexed")


def _marks(repo: Path) -> dict[str, frozenset[str]]:
    with workspace.open_store(workspace.locate(str(repo), None), create=False) as store:
        return stored_marks(store)


def _verified(capsys: pytest.CaptureFixture[str], repo: Path) -> str:
    """The incremental run, then its comparison with a cold build: equal."""
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    assert code == 0, out + err
    assert re.search(r"verify: equal to a cold build of the same tree", out), out
    return out


@pytest.mark.parametrize(
    ("glob", "matched", "unmatched"),
    [
        ("docs_src/", ["docs_src/a.py", "x/docs_src/b/c.py"], ["docs_src", "docs_srcx/a.py"]),
        ("*.md", ["README.md", "docs/en/index.md"], ["a.mdx"]),
        ("/docs/*.py", ["docs/a.py"], ["x/docs/a.py", "docs/a/b.py"]),
        ("docs/**/*.py", ["docs/a.py", "docs/a/b/c.py"], ["src/docs.py"]),
        ("docs/en", ["docs/en/index.md"], ["docs/english/x.md", "x/docs/en/y.md"]),
        ("test_[!x]*.py", ["tests/test_a.py"], ["tests/test_x.py"]),
    ],
)
def test_globs_read_as_gitignore_reads_them(glob: str, matched: list[str], unmatched: list[str]) -> None:
    pattern = glob_pattern(glob)
    assert [p for p in matched + unmatched if pattern.fullmatch(p)] == matched


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("exclude = 'docs_src'", "setting 'exclude' in cartog-ci configuration must be a list of strings, not 'docs_src'"),
        ("include = ['']", "setting 'include' in cartog-ci configuration: glob '' is empty: remove it"),
        ("exclude = ['docs/[abc']", "setting 'exclude' in cartog-ci configuration: glob 'docs/[abc' has a [ that no ] "
         "closes: close it, or write [[] for the character"),
        ("exclude = ['/']", "setting 'exclude' in cartog-ci configuration: glob '/' matches the whole repository: remove it"),
    ],
)  # fmt: skip
def test_a_bad_glob_is_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    write(repo, {".cartog-ci.toml": setting + "\n"})
    code, out, err = run_cli(capsys, "index", "--no-embed", str(repo))
    assert (code, out, err) == (2, "", f"cartog-ci: {message}\n")


def test_vendored_files_are_not_indexed_documentation_and_generated_ones_are_marked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _verified(capsys, repo)
    assert _files(repo) == ["app.py", "docs/api/core.py", "docs_src/tutorial001.py", "gen/users_pb2.py"]
    marks = _marks(repo)
    assert marks == {
        "docs_src/tutorial001.py": frozenset({"documentation"}),
        "gen/users_pb2.py": frozenset({"generated"}),
        "docs/api/core.py": frozenset({"-documentation"}),
    }
    # a reference from documentation counts
    code, out, _ = run_cli(capsys, "refs", "create_user", "--repo", str(repo))
    assert code == 0 and "docs_src/tutorial001.py:5" in out
    assert [role_of(p, marks) for p in _files(repo)] == ["", "", "docs", "vendored"]
    assert role_of("docs/api/core.py") == "docs"  # what its path alone says


def test_documentation_and_generated_code_are_not_embedded_and_rank_after_the_implementation(repo: Path) -> None:
    ws = workspace.locate(str(repo), None)
    with workspace.open_store(ws, create=True) as store:
        from cartog_ci.index.refresh import refresh

        refresh(repo, store, ws.config, embed=False)
        model = FakeEmbeddingModel()
        from cartog_ci.domain.marks import unembedded

        embed_pending(store, lambda: model, config_key="fake", skip_files=unembedded(stored_marks(store)))
        embedded = store.vectors_for(
            ["app.py:function:create_user", "docs_src/tutorial001.py:function:create_user_tutorial",
             "gen/users_pb2.py:function:create_user_request", "docs/api/core.py:function:remove"],
            model.model_id,
        )  # fmt: skip
        assert sorted(embedded) == ["app.py:function:create_user", "docs/api/core.py:function:remove"]
        result = search(
            store, "how is a user created", model_factory=lambda: model, options=MultimodalOptions(limit=10)
        )
        files = [h.symbol.file for h in result.hits]
        assert files.index("app.py") < files.index("docs_src/tutorial001.py")
        assert "docs_src/tutorial001.py" in files  # found by its words, after the implementation


def test_a_change_of_configuration_or_attributes_reaches_the_index_as_a_cold_build(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _verified(capsys, repo)
    write(repo, {".cartog-ci.toml": "exclude = ['docs_src/']\n"})
    _verified(capsys, repo)  # not committed: the work tree's configuration counts
    assert _files(repo) == ["app.py", "docs/api/core.py", "gen/users_pb2.py"]
    assert "docs_src/tutorial001.py" not in _marks(repo)

    write(repo, {".cartog-ci.toml": "include = ['*.py']\nexclude = ['gen/']\n", ".gitattributes": "gen/** linguist-documentation\n"})
    _verified(capsys, repo)  # newly included: docs_src and third/ (no longer vendored)
    assert _files(repo) == ["app.py", "docs/api/core.py", "docs_src/tutorial001.py", "third/lib.py"]
    assert _marks(repo) == {}

    (repo / ".cartog-ci.toml").unlink()
    write(repo, {".gitattributes": "*.py linguist-generated\napp.py -linguist-generated\n"})
    _verified(capsys, repo)
    assert _files(repo) == ["app.py", "docs/api/core.py", "docs_src/tutorial001.py", "gen/users_pb2.py", "third/lib.py"]
    assert sorted(p for p, words in _marks(repo).items() if "generated" in words) == [
        "docs/api/core.py", "docs_src/tutorial001.py", "gen/users_pb2.py", "third/lib.py"
    ]  # fmt: skip
    commit(repo, "attributes")
    _verified(capsys, repo)


def test_a_report_leaves_out_what_the_index_leaves_out(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, {".cartog-ci.toml": "exclude = ['docs_src/']\n"})
    commit(repo, "config")
    write(repo, {
        "third/lib.py": "def create_user(name, extra):\n    return name\n",
        "docs_src/tutorial002.py": "def other():\n    return 1\n",
        "app.py": APP + "\n\ndef update_user(user):\n    return user\n",
    })  # fmt: skip
    code, out, err = run_cli(capsys, "report", "--working-tree", "--no-related", "--repo", str(repo))
    assert code == 0, err
    assert "1 symbol change(s) in 1 file(s)" in out and "added             update_user  app.py:9" in out


def test_unreadable_marks_hold_none() -> None:
    assert decode("not json") == {} and decode("[1]") == {} and decode(None) == {}
    assert decode('{"a.py": ["documentation", "bogus"], "b.py": ["bogus"]}') == {"a.py": frozenset({"documentation"})}


@pytest.mark.parametrize("linked", [False, True], ids=["own .git", "linked work tree"])
def test_the_repository_info_attributes_are_read_without_a_gitattributes_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: bool
) -> None:
    """No .gitattributes in the tree, the attributes in the repository's own
    `info/attributes`: found where `.git` is a directory (no git process)
    and, in a linked work tree (`.git` a file), where git says (the common
    directory's)."""
    main = init_repo(tmp_path / "r")
    write(main, {"app.py": APP, "third/lib.py": "def create_user(name):\n    return name\n"})
    commit(main)
    (main / ".git" / "info").mkdir(exist_ok=True)
    (main / ".git" / "info" / "attributes").write_text("third/** linguist-vendored\n")
    repo = main
    if linked:
        repo = tmp_path / "linked"
        git(main, "worktree", "add", "-q", str(repo))
        assert (repo / ".git").is_file()
    _verified(capsys, repo)
    assert _files(repo) == ["app.py"]


def test_a_macro_that_sets_a_linguist_attribute_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """git is asked when an attribute file says `linguist-` anywhere: here
    only in the definition of the macro the paths use."""
    repo = init_repo(tmp_path / "r")
    write(repo, {
        "app.py": APP,
        "third/lib.py": "def create_user(name):\n    return name\n",
        ".gitattributes": "[attr]thirdparty linguist-vendored\n* text=auto\nthird/** thirdparty\n",
    })  # fmt: skip
    commit(repo)
    _verified(capsys, repo)
    assert _files(repo) == ["app.py"]


@pytest.mark.parametrize("gitattributes", [None, "* text=auto eol=lf\n"], ids=["none", "line endings only"])
def test_attributes_outside_the_repository_are_not_read_when_its_own_name_no_linguist_attribute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gitattributes: str | None
) -> None:
    """The repository's attribute files (its .gitattributes, info/attributes)
    name no linguist attribute: git is not asked, so a user's own attributes
    file (`core.attributesFile`) does not change what the index holds, with
    a .gitattributes that sets line endings as without one."""
    repo = init_repo(tmp_path / "r")
    files = {"app.py": APP, "third/lib.py": "def create_user(name):\n    return name\n"}
    write(repo, files | ({".gitattributes": gitattributes} if gitattributes else {}))
    commit(repo)
    own = tmp_path / "attributes"
    own.write_text("third/** linguist-vendored\n")
    git(repo, "config", "core.attributesFile", str(own))
    _verified(capsys, repo)
    assert "third/lib.py" in _files(repo)
