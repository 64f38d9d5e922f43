"""A tiny web app's routes, for the tests of recorded coverage and of
`cartog-ci test` (tests/report/test_coverage.py, tests/commands/test_shadow.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def use_this_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's runner is pytest from this interpreter's folder, with
    no settings of the outer run."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in [k for k in os.environ if k.startswith(("PYTEST_", "COV_CORE"))]:
        monkeypatch.delenv(name)


# The routes are reached through a registry: no static graph sees a test
# call `hello` (framework dispatch, issue 30); the recorded run does.
ROUTES = '''ROUTES = {}


def route(name):
    def register(fn):
        ROUTES[name] = fn
        return fn

    return register


@route("hello")
def hello(who):
    return "hello " + who


@route("bye")
def bye(who):
    return "bye " + who


def shout(text):
    return text.upper()
'''
