"""The report's templates are loaded on a thread while the report is
computed (report/render.py ``prepare``; commands/report.py starts it with
the templates ``emit`` will render)."""

from __future__ import annotations

import threading

import jinja2
import pytest

from cartog_ci.cli import build_parser
from cartog_ci.commands.report import _templates
from cartog_ci.report import render


def _cached(env: jinja2.Environment) -> list[str]:
    assert env.cache is not None
    return sorted(key[1] for key in env.cache.keys())


@pytest.fixture
def fresh() -> None:
    render.environment()  # any earlier thread joined
    render._environment.cache_clear()


@pytest.mark.usefixtures("fresh")
def test_prepare_loads_the_templates_on_a_thread_that_environment_joins() -> None:
    render.prepare(["report.md.j2", "report.txt.j2"])
    thread = render._preparing[0]
    assert thread is not threading.current_thread() and thread.name == "cartog-ci templates"
    env = render.environment()
    assert not thread.is_alive() and render._preparing == []
    assert _cached(env) == ["report.md.j2", "report.txt.j2"]
    assert render.environment() is env


@pytest.mark.usefixtures("fresh")
def test_nothing_to_prepare_starts_no_thread() -> None:
    render.prepare([])
    assert render._preparing == []
    assert _cached(render.environment()) == []


@pytest.mark.usefixtures("fresh")
def test_a_template_the_thread_could_not_load_fails_in_the_render() -> None:
    render.prepare(["missing.j2"])
    env = render.environment()
    assert _cached(env) == []
    with pytest.raises(jinja2.TemplateNotFound, match="missing.j2"):
        env.get_template("missing.j2")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        ([], ["report.txt.j2"]),
        (["--format", "text"], ["report.txt.j2"]),
        (["--format", "markdown"], ["report.md.j2"]),
        (["--format", "json"], []),
        (["--json"], []),
        (["--format", "text", "--output", "r.md"], ["report.txt.j2", "report.md.j2"]),
        (["--format", "markdown", "--output", "r.md"], ["report.md.j2"]),
        (["--format", "json", "--output", "r.json"], []),
    ],
)
def test_the_templates_prepared_are_those_emit_renders(args: list[str], names: list[str]) -> None:
    argv = ["report", *args]
    assert _templates(build_parser(argv).parse_args(argv)) == names
