"""Real git repositories for tests, built in tmp_path (pre-commit style)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.cli import main
from cartog_ci.commands.export import export
from cartog_ci.domain import IndexResult
from cartog_ci.index.cascade import index_repository
from cartog_ci.store.base import Store
from cartog_ci.store.sqlite import SqliteStore

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return out.stdout


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def write(repo: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)


def commit(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def branched(path: Path, base: dict[str, str | bytes], edit: dict[str, str | bytes]) -> Path:
    """A repository at ``path`` whose ``main`` commits ``base``, and a
    branch ``feature`` (checked out) with one commit of ``edit`` on top."""
    repo = init_repo(path)
    write(repo, base)
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, edit)
    commit(repo, "edit")
    return repo


def make_repo(tmp_path: Path, name: str) -> Path:
    """Copy tests/resources/<name>/ into a fresh repository and commit it."""
    repo = tmp_path / name
    shutil.copytree(RESOURCES / name, repo)
    init_repo(repo)
    commit(repo, "initial")
    return repo


def index(repo: Path, *, force: bool = False, db: Path | None = None) -> IndexResult:
    ws = workspace.locate(str(repo), str(db) if db else None)
    with workspace.open_store(ws, create=True) as store:
        return index_repository(repo, store, force=force)


def exported(repo: Path, db: Path | None = None) -> dict[str, object]:
    """The export of ``db``, else of the repository's store (its file, or
    its graph in CARTOG_CI_DATABASE_URL)."""
    if db is not None:
        with SqliteStore(db) as store:
            return export(store, hashes=True)
    with open_store(repo) as opened:
        return export(opened, hashes=True)


def assert_as_cold(repo: Path, tmp_path: Path) -> None:
    """The repository's index (built incrementally) equals a cold ``--force``
    build of the same tree, in a file of its own."""
    cold = tmp_path / "cold.db"
    cold.unlink(missing_ok=True)
    index(repo, force=True, db=cold)
    assert exported(repo) == exported(repo, cold)


@contextmanager
def database(url: str | None) -> Iterator[None]:
    """CARTOG_CI_DATABASE_URL set to ``url`` for the block (a module-scoped
    fixture cannot use ``monkeypatch``); None: the repository's SQLite file."""
    with pytest.MonkeyPatch.context() as patch:
        if url is None:
            patch.delenv("CARTOG_CI_DATABASE_URL", raising=False)
        else:
            patch.setenv("CARTOG_CI_DATABASE_URL", url)
        yield


def open_store(repo: Path) -> Store:
    """The repository's store, as a query command opens it (either backend)."""
    return workspace.open_store(workspace.locate(str(repo), None), create=False)


def sql_rows(store: Store, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Test-only inspection of the index, on the store's connection (the SQL
    shared by both backends: store/tables.py)."""
    return [tuple(r) for r in store.db.execute(sql, params)]  # type: ignore[attr-defined]


def run_cli(capsys: object, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()  # type: ignore[attr-defined]
    return code, captured.out, captured.err


def run_subprocess(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args], cwd=cwd, capture_output=True, text=True
    )


def cli_json(capsys: object, *args: str) -> object:
    code, out, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)
