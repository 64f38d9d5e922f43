"""`cartog-ci index --verify` (commands/index.py, index/verify.py): an index
equal to a cold build says so in one line, exit 0; a damaged one names what
differs, is rebuilt from scratch with a one-line notice, and exits 1."""

from __future__ import annotations

import json
import re
from pathlib import Path

import apsw
import pytest

from cartog_ci import workspace
from cartog_ci.store import checksum
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import assert_as_cold, commit, init_repo, run_cli, write

NOTICE = "cartog-ci: the index differed from a cold build of the same tree: rebuilt it from scratch\n"
EQUAL = re.compile(
    r"verify: equal to a cold build of the same tree: 2 files, 6 symbols, 3 edges, 4 search rows \(took \d+ ms\)\n"
)


@pytest.fixture
def repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = init_repo(tmp_path / "r")
    write(repo, {
        "a.py": "def helper(x):\n    return x + 1\n\n\ndef main():\n    return helper(2)\n",
        "b.py": "from a import helper\n\n\nclass K:\n    def run(self):\n        return helper(3)\n",
    })  # fmt: skip
    commit(repo)
    assert run_cli(capsys, "index", "--no-embed", str(repo))[0] == 0
    return repo


def _damage(repo: Path, *statements: str) -> None:
    """Change the index file behind the tool's back (store/edge_rows.py,
    symbol_rows.py, search.py: rows keyed by interned IDs)."""
    path = repo / ".cartog-ci" / "index.db"
    db = apsw.Connection(str(path))
    try:
        for sql in statements:
            db.execute(sql)
        # stamped as a writer of ours stamps what it wrote (store/checksum.py): the
        # rows cartog-ci itself would have written wrongly, which only --verify finds
        checksum.stamp(db, path, 1000)
    finally:
        db.close()


def _fill_trigrams(repo: Path) -> None:
    """The trigram table filled, as the first literal search fills it (a
    cold run leaves it for that search: store/search.py)."""
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        assert store.fts('"helper"', 5, table="fts_trigram")


def _key(symbol_id: str) -> str:
    return f"(SELECT key FROM interned WHERE text = '{symbol_id}')"


def _verify(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[int, list[str], str]:
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    lines = out.splitlines(keepends=True)
    assert lines[:2] == [
        "incremental: 0 candidate files, 0 unchanged, 0 parsed, 0 deleted\n",
        "symbols: +0 ~0 children~0 -0; edges re-resolved 0, invalidated 0\n",
    ]  # the plain run's output first
    assert re.fullmatch(r"took \d+ ms\n", lines[2])
    return code, lines[3:], err


def test_an_up_to_date_index_verifies(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _verify(capsys, repo)
    assert (code, err, len(lines)) == (0, "", 1)
    assert EQUAL.fullmatch(lines[0]), lines
    _fill_trigrams(repo)  # against a cold build, whose trigram table waits for its first search
    code, lines, err = _verify(capsys, repo)
    assert (code, err, len(lines)) == (0, "", 1)
    assert EQUAL.fullmatch(lines[0]), lines


@pytest.mark.usefixtures("backend")
def test_verify_on_either_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "r")
    write(repo, {"a.py": "def helper(x):\n    return x + 1\n\n\ndef main():\n    return helper(2)\n"})
    commit(repo)
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    assert (code, err) == (0, ""), out
    assert re.search(
        r"^verify: equal to a cold build of the same tree: 1 files, 3 symbols, 1 edges, 2 search rows "
        r"\(took \d+ ms\)$",
        out,
        re.M,
    ), out


def test_a_damaged_edge_target_in_a_postgresql_graph(
    repo: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    assert run_cli(capsys, "index", "--no-embed", str(repo))[0] == 0
    with workspace.open_store(workspace.locate(str(repo), None), create=True) as store, store.transaction():
        store.db.execute(  # type: ignore[attr-defined]
            "UPDATE edges SET target_id = 'a.py:function:main' WHERE file = 'b.py' AND line = 6"
        )
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    assert (code, err) == (1, NOTICE)
    assert (
        "  edge b.py:6 b.py:method:K.run calls helper: a.py:function:main (import) → a.py:function:helper (import)\n"
    ) in out
    code, out, _ = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    assert code == 0 and EQUAL.fullmatch(out.splitlines(keepends=True)[-1]), out


def test_a_damaged_edge_target_is_named_and_the_index_rebuilt(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _damage(
        repo,
        f"UPDATE edge_rows SET target_key = {_key('a.py:function:main')} "
        f"WHERE file_key = {_key('b.py')} AND line = 6 AND target_name = 'helper'",
    )
    code, lines, err = _verify(capsys, repo)
    assert (code, err) == (1, NOTICE)
    assert re.fullmatch(
        r"verify: 1 difference\(s\) from a cold build of the same tree "
        r"\(files 0, symbols 0, edges 1, search rows 0; took \d+ ms\):\n",
        lines[0],
    ), lines
    assert lines[1:] == [
        "  edge b.py:6 b.py:method:K.run calls helper: a.py:function:main (import) → a.py:function:helper (import)\n"
    ]
    assert_as_cold(repo, tmp_path)
    code, lines, err = _verify(capsys, repo)
    assert (code, err) == (0, "") and EQUAL.fullmatch(lines[0])


def test_damaged_hashes_and_missing_search_rows(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill_trigrams(repo)
    _damage(
        repo,
        "UPDATE files SET sha256 = 'f00d', merkle_hash = '' WHERE path = 'a.py'",  # git says unchanged: not read
        f"UPDATE symbol_rows SET content_hash = zeroblob(32) WHERE key = {_key('a.py:function:main')}",
        f"DELETE FROM fts_trigram WHERE rowid = {_key('b.py:class:K')}",  # one full-text row
        f"DELETE FROM chunk_rows WHERE key = {_key('b.py:method:K.run')}",  # a text, its full-text rows left
        f"DELETE FROM fts_symbols WHERE rowid = {_key('a.py:function:helper')}",
    )
    code, lines, err = _verify(capsys, repo)
    assert (code, err) == (1, NOTICE)
    assert lines[0].startswith(
        "verify: 5 difference(s) from a cold build of the same tree (files 1, symbols 1, edges 0, search rows 3; "
    )
    assert lines[1:] == [
        "  file a.py: sha256 'f00d' → ab2c0dd91652…, merkle_hash '' → 9b8d18a55bf7…\n",
        "  symbol a.py:function:main: content_hash 000000000000… → c4e0e9fde549…, "
        "subtree_hash 000000000000… → c4e0e9fde549…\n",
        "  search row a.py:function:helper: keyword_tokens none → 13\n",
        "  search row b.py:class:K: trigram_tokens none → 44\n",
        "  search row b.py:method:K.run: full-text rows without a text "
        "(keyword_tokens 14, trigram_tokens 58; a cold build has a text)\n",
    ]
    assert _verify(capsys, repo)[0] == 0


def test_the_first_differences_are_shown_and_the_rest_counted(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, {f"m{i:02}.py": f"def f{i}():\n    return {i}\n" for i in range(25)})
    commit(repo)
    assert run_cli(capsys, "index", "--no-embed", str(repo))[0] == 0
    _damage(repo, "UPDATE symbol_rows SET content_hash = zeroblob(32)")
    code, out, _ = run_cli(capsys, "index", "--no-embed", "--verify", str(repo))
    assert "verify: 56 difference(s) from a cold build of the same tree (files 0, symbols 56, edges 0, " in out
    shown = [line for line in out.splitlines() if line.startswith("  ")]
    assert code == 1 and len(shown) == 21 and shown[-1] == "  … and 36 more", shown


def test_verify_as_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill_trigrams(repo)
    _damage(repo, f"DELETE FROM fts_trigram WHERE rowid = {_key('b.py:class:K')}")
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", "--json", str(repo))
    assert (code, err) == (1, NOTICE)
    verified = json.loads(out)["verify"]
    del verified["ms"]
    assert verified == {
        "equal": False,
        "compared": {"files": 2, "symbols": 6, "edges": 3, "search rows": 4},
        "differences": {"files": 0, "symbols": 0, "edges": 0, "search rows": 1},
        "first": [{"category": "search rows", "line": "search row b.py:class:K: trigram_tokens none → 44"}],
        "rebuilt": True,
    }


def test_verify_and_force_are_one_or_the_other(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "index", "--verify", "--force", str(repo)) == (
        2, "", "cartog-ci: --verify compares the index with a cold build, --force makes one: pass one of them\n"
    )  # fmt: skip


def test_an_index_inside_the_work_tree_is_not_compared_with_itself(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside `.cartog-ci/` the index is a file of the tree (unsupported):
    the cold build goes elsewhere, and the index's own files, written as it
    runs, are left out."""
    index = str(repo / "idx" / "i.db")
    assert run_cli(capsys, "index", "--no-embed", "--index", index, str(repo))[0] == 0
    code, out, err = run_cli(capsys, "index", "--no-embed", "--verify", "--index", index, str(repo))
    assert (code, err) == (0, ""), out
    assert EQUAL.fullmatch(out.splitlines(keepends=True)[-1]), out
    assert sorted(p.name for p in (repo / "idx").iterdir()) == ["i.db", "i.db.checked"]  # store/checksum.py's note
