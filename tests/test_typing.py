"""The package type-checks: mypy with ``disallow_untyped_defs``, as
configured in ``[tool.mypy]`` of pyproject.toml (STYLE.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_reports_no_errors() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "src/cartog_ci"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
