"""Where the repository and its index are, and opening them: the SQLite
file, or a shared PostgreSQL database (``storage`` /
``CARTOG_CI_DATABASE_URL``, README "Team set-up") keyed by repository and
branch."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from cartog_ci import config as config_mod
from cartog_ci import git
from cartog_ci.config import INDEX_DIR, INDEX_FILE
from cartog_ci.errors import CartogError, IndexMissing
from cartog_ci.store.dburl import is_postgres_url, masked
from cartog_ci.store.sqlite import SqliteStore, read_only_error, read_only_reason

if TYPE_CHECKING:
    from cartog_ci.store.base import Store
    from cartog_ci.store.postgres import PostgresStore

DATABASE_URL_ENV = "CARTOG_CI_DATABASE_URL"
# a reader of a shared database reads the graph of this commit, not the branch's latest
GRAPH_COMMIT_ENV = "CARTOG_CI_GRAPH_COMMIT"


@dataclass(frozen=True)
class Workspace:
    root: Path
    index_path: Path
    is_git: bool
    config: config_mod.Config
    database_url: str | None = None  # a shared PostgreSQL database instead of index_path


def locate(repo: str | None, index: str | None, *, require_git: bool = False) -> Workspace:
    start = Path(repo or ".").resolve()
    if not start.exists():
        raise CartogError(f"no such directory: {start}")
    if not start.is_dir():
        raise CartogError(f"not a directory: {start} (pass the repository directory)")
    top = git.toplevel(start)
    if top is None:
        no_work_tree = git.without_work_tree(start)
        if no_work_tree:
            raise CartogError(no_work_tree)
    if top is None and require_git:
        git.require_repo(start)
    root = top.resolve() if top is not None else start
    chosen = index or os.environ.get("CARTOG_CI_INDEX")
    index_path = Path(chosen).resolve() if chosen else root / INDEX_DIR / INDEX_FILE
    config = config_mod.load(root)
    return Workspace(root, index_path, top is not None, config, database_url(config, explicit_index=bool(chosen)))


def database_url(config: config_mod.Config, *, explicit_index: bool = False) -> str | None:
    """The shared database to use, if any: the environment's URL (where a
    password may be), else the configuration's (where it may not). An
    explicit --index or CARTOG_CI_INDEX file wins over both."""
    if explicit_index:
        return None
    env = os.environ.get(DATABASE_URL_ENV, "").strip()
    if env:
        if not is_postgres_url(env):
            raise CartogError(f"{DATABASE_URL_ENV} must be a postgresql:// URL, not {masked(env)!r}")
        return env
    if not config.storage:
        return None
    if not is_postgres_url(config.storage):
        raise CartogError(f"storage must be \"\" (the SQLite file) or a postgresql:// URL, not {masked(config.storage)!r}")
    if urlsplit(config.storage).password is not None:
        raise CartogError(
            f"storage {masked(config.storage)} holds a password in the configuration: remove it, and set "
            f"PGPASSWORD or {DATABASE_URL_ENV} in the environment instead"
        )
    return config.storage


def repository_key(ws: Workspace) -> str:
    """The repository's name in a shared database: configured, or the CI's,
    or origin's URL without credentials, or the directory's name."""
    for value in (ws.config.repository, os.environ.get("CARTOG_CI_REPOSITORY"), os.environ.get("GITHUB_REPOSITORY")):
        if value:
            return value
    url = git.remote_url(ws.root) if ws.is_git else None
    if url:
        parts = urlsplit(url)
        if parts.hostname:  # https://user:token@host/org/repo.git
            url = urlunsplit(parts._replace(netloc=parts.hostname, query="", fragment=""))
        return url.removesuffix(".git").removesuffix("/")
    return ws.root.name


def branches(ws: Workspace) -> tuple[str, str]:
    """(this run's branch, the base branch whose graph a new branch starts from)."""
    base = ws.config.base_branch or os.environ.get("CARTOG_CI_BASE_BRANCH") or os.environ.get("GITHUB_BASE_REF")
    if not base and ws.is_git:
        remote = git.remote_default_branch(ws.root)
        base = remote.split("/", 1)[1] if remote and "/" in remote else None
    base = base or "main"
    branch = os.environ.get("CARTOG_CI_BRANCH") or os.environ.get("GITHUB_HEAD_REF")
    if not branch and ws.is_git:
        branch = git.current_branch(ws.root)
    return branch or base, base


def _ensure_ignored_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if path.name == INDEX_DIR and not ignore.exists():
        ignore.write_text("*\n")


def open_store(ws: Workspace, *, create: bool, verify: bool = False) -> Store:
    if ws.database_url:
        return open_database(ws, ws.database_url, create=create)
    if not ws.index_path.exists():
        if not create:
            raise IndexMissing(
                f"no index at {ws.index_path}: run `cartog-ci index` first (or pass --index)"
            )
        read_only = read_only_reason(ws.index_path)
        if read_only:
            raise read_only_error(ws.index_path, read_only)
        try:
            _ensure_ignored_dir(ws.index_path.parent)
        except OSError as exc:
            raise CartogError(f"cannot create the index directory {ws.index_path.parent} ({exc.strerror}): pass --index") from exc
    # A query command reports an unusable file instead of replacing it with
    # an empty one it could not fill.
    return SqliteStore(ws.index_path, rebuild=create, busy_timeout_ms=ws.config.busy_timeout_ms, verify=verify)


def open_database(ws: Workspace, url: str, *, create: bool) -> PostgresStore:
    """This repository's branch in a shared PostgreSQL database."""
    try:
        from cartog_ci.store.postgres import PostgresStore
    except ImportError as exc:  # psycopg is the `postgres` extra
        raise CartogError(
            f"storage {masked(url)} needs the PostgreSQL driver: pip install 'cartog-ci[postgres]' ({exc})"
        ) from exc

    import socket  # here: only a shared database names its clone's host (~5 ms at start-up)

    branch, base = branches(ws)
    return PostgresStore(
        url,
        repository=repository_key(ws),
        branch=branch,
        base_branch=base,
        create=create,
        commit=git.head(ws.root) if ws.is_git and create else None,
        at_commit=None if create else os.environ.get(GRAPH_COMMIT_ENV) or None,
        busy_timeout_ms=ws.config.busy_timeout_ms,
        ancestry=(lambda older, newer: git.is_ancestor(ws.root, older, newer)) if ws.is_git and create else None,
        clone=f"{socket.gethostname()}:{ws.root.resolve()}",
    )


def local(ws: Workspace) -> Workspace:
    """The same workspace on its SQLite file, whatever the storage setting."""
    return replace(ws, database_url=None)


def push(ws: Workspace, url: str) -> str:
    """Upload the local index as this repository's branch; the line to print."""
    if not is_postgres_url(url):
        raise CartogError(f"--push needs a postgresql:// URL, not {masked(url)!r}")
    from cartog_ci.store.postgres.push import push as upload

    with SqliteStore(ws.index_path, rebuild=False) as source, open_database(ws, url, create=True) as target:
        done = upload(source, target)
        where = f"{target.repository} ({target.branch})"
    return (
        f"pushed {done.files} files, {done.symbols} symbols, {done.edges} edges, {done.vectors} vectors "
        f"to {masked(url)} as {where}"
    )


def prune(ws: Workspace, older_than_days: int) -> tuple[list[str], int]:
    """Drop this repository's branches not written for that many days from
    the shared database (never the base branch), and the graphs of older
    commits (never a branch's latest); (the branches dropped, how many
    graphs went)."""
    if not ws.database_url:
        raise CartogError(
            "prune works on a shared PostgreSQL database (storage / CARTOG_CI_DATABASE_URL); "
            f"a local index is one file: delete {ws.index_path} to start afresh"
        )
    branch, base = branches(ws)
    with open_database(ws, ws.database_url, create=True) as store:
        return store.prune_graphs(older_than_days, keep=base)
