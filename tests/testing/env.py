"""The pinned test environment, shared by the autouse fixture in conftest.py
and by module-scoped fixtures (inside ``pytest.MonkeyPatch.context()``)."""

from __future__ import annotations

import pytest


def isolate_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to $HOME; git identity and templates are pinned."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CARTOG_CI_HOME", str(home / "cartog-ci"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00+00:00")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00+00:00")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    empty = home / "git-template"
    empty.mkdir()
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(empty))
    # the projects tests build run their own suites (pytest in the repository,
    # whose commits add every file): no __pycache__ of theirs, which a later
    # checkout refuses to overwrite (a shell without the variable failed two
    # tests of tests/report/test_coverage.py)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "CARTOG_CI_INDEX", "CARTOG_CI_DATABASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # Steps over 2 s say so on stderr (commands/progress.py): how loaded the
    # machine is must not change what a test reads (tests/commands/
    # test_progress.py sets its own delays).
    monkeypatch.setattr("cartog_ci.commands.progress.FIRST_AFTER", 3600.0)
