"""Where the repository and its index are, and opening them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cartog_ci import config as config_mod
from cartog_ci import git
from cartog_ci.config import INDEX_DIR, INDEX_FILE
from cartog_ci.errors import CartogError, IndexMissing
from cartog_ci.store.sqlite import SqliteStore, read_only_error, read_only_reason


@dataclass(frozen=True)
class Workspace:
    root: Path
    index_path: Path
    is_git: bool
    config: config_mod.Config


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
    return Workspace(root, index_path, top is not None, config_mod.load(root))


def _ensure_ignored_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if path.name == INDEX_DIR and not ignore.exists():
        ignore.write_text("*\n")


def open_store(ws: Workspace, *, create: bool, verify: bool = False) -> SqliteStore:
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
