"""What a report's process does not import: modules of other commands and
of languages it did not meet stay out of its start-up (docs/report.md,
"Start-up"). Checked in a fresh interpreter: the modules of the report
command and of its steps imported, then which ones came with them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# what the report command and its steps import at the top of their modules
REPORT_MODULES = (
    "cartog_ci.cli",
    "cartog_ci.commands.report",
    "cartog_ci.report.build",
    "cartog_ci.report.render",
    "cartog_ci.report.sides",
    "cartog_ci.graph",
)


def _imported_with(modules: tuple[str, ...]) -> set[str]:
    code = f"import sys, json\nfor m in {list(modules)!r}: __import__(m)\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(proc.stdout))


@pytest.fixture(scope="module")
def report_imports() -> set[str]:
    return _imported_with(REPORT_MODULES)


def test_the_report_builds_no_class_of_other_commands_answers(report_imports: set[str]) -> None:
    assert "cartog_ci.domain.results" in report_imports
    assert "cartog_ci.domain.answers" not in report_imports
    assert "cartog_ci.domain.hits" not in report_imports


def test_the_report_imports_recorded_coverage_only_to_read_a_recording(report_imports: set[str]) -> None:
    """report/build.py: the coverage module (and its formats) come with a
    recording to read (tests/report/test_coverage.py reads them)."""
    assert "cartog_ci.report.build" in report_imports
    assert "cartog_ci.report.coverage" not in report_imports
    assert "cartog_ci.report.coverage_formats" not in report_imports


def test_the_report_imports_difflib_only_to_choose_among_renames(report_imports: set[str]) -> None:
    """report/diff.py ``_similarity``: a name moved to several files."""
    assert "cartog_ci.report.diff" in report_imports
    assert "difflib" not in report_imports


def test_the_report_imports_a_language_module_only_when_it_meets_a_file_of_it(report_imports: set[str]) -> None:
    assert "cartog_ci.languages" in report_imports
    assert sorted(m for m in report_imports if m.startswith("cartog_ci.languages.")) == [
        "cartog_ci.languages.arguments",
        "cartog_ci.languages.base",
        "cartog_ci.languages.pack",
        "cartog_ci.languages.testrunners",
    ]
