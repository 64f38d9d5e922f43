"""The pinned test environment, shared by the autouse fixture in conftest.py
and by module-scoped fixtures (inside ``pytest.MonkeyPatch.context()``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

_CONVERTED: list[Path] = []  # the worker's converted model cache (one conversion a process)


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
    # checkout refuses to overwrite (a shell without PYTHONDONTWRITEBYTECODE
    # failed two tests of tests/report/test_coverage.py). The bytecode goes to
    # one directory of the worker's instead, out of every source tree: with
    # PYTHONDONTWRITEBYTECODE, each CLI, pre-commit or pytest subprocess
    # compiled cartog_ci (and the rest it imports) from source again.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path_factory.getbasetemp() / "pycache"))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "CARTOG_CI_INDEX", "CARTOG_CI_DATABASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # Steps over 2 s say so on stderr (commands/progress.py): how loaded the
    # machine is must not change what a test reads (tests/commands/
    # test_progress.py sets its own delays).
    monkeypatch.setattr("cartog_ci.commands.progress.FIRST_AFTER", 3600.0)
    seed_model_cache(home / "cartog-ci", tmp_path_factory)


def converted_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user cache (``$CARTOG_CI_HOME``) holding the default model as this
    machine converts it, built once a process with the default recipes."""
    if not _CONVERTED:
        from cartog_ci.embed import recipes
        from cartog_ci.embed.onnx import load_default_model

        cache = tmp_path_factory.mktemp("converted-model")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CARTOG_CI_HOME", str(cache))
            patch.delenv(recipes.OPT_IN, raising=False)
            load_default_model(cache)
        _CONVERTED.append(cache)
    return _CONVERTED[0]


def seed_model_cache(home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The user cache ``home`` starts with the converted model, as on a
    machine that ran cartog-ci before: each ``report``, ``index`` or
    ``search`` of a test converted it again in its fresh home (~2 s of CPU,
    60 times in tests/report/test_tests_to_run.py alone). The files are hard
    links (embed/onnx.py replaces a cache file, never writes into one);
    ``verified.json`` is left out: its stamps are the master's, and a link
    changes the file's ctime. tests/embed/test_onnx.py, which tests the
    conversion and its cache, gives its tests a home of their own."""
    master = converted_model_cache(tmp_path_factory) / "models"
    models = home / "models"
    models.mkdir(parents=True)
    for source in master.iterdir():
        if source.name == "verified.json" or source.name.startswith("."):
            continue
        try:
            os.link(source, models / source.name)
        except OSError:  # another file system: a copy
            shutil.copy2(source, models / source.name)
