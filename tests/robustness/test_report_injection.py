"""Gaps left by tests/report/test_injection.py (names and paths): every other
string a repository or a pull request controls, each fuzzed on its own, and
end to end the two sources of free text in a symbol: Markdown heading text
(a section's name is anything) and what a Python signature or docstring may
hold. The Markdown must stay inert; the terminal form must carry no control
character from the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cartog_ci.cli import main
from cartog_ci.domain import Edge, Symbol
from cartog_ci.domain.results import BrokenRef, ChangedSymbol, ChangeSet, ImpactNode, Report, Risk, Side, SymbolChange, named
from cartog_ci.report.build import is_unreached
from cartog_ci.report.render import render_markdown, render_text
from tests.report.test_injection import HOSTILE, _assert_inert, hostile_text
from tests.testing.fixtures import commit, git, make_repo, write

FIELDS = (
    "name", "qualified_name", "file", "signature", "docstring", "decorator", "caller_file",
    "base_ref", "base_label", "head_label", "note", "reason", "command", "target_name", "new_name",
    "related_name", "test_name",
)  # fmt: skip
BIDI = "admin\u202etxt.exe\u200bzero\u200djoin"
_ANY_TEXT = st.one_of(hostile_text, st.text(min_size=1, max_size=40), st.sampled_from([*HOSTILE, BIDI]))
_TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
# bidi controls and zero-width characters: printed as \u202e, never raw
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _symbol(v: dict[str, str], name: str, path: str, kind: str = "function") -> Symbol:
    return Symbol(
        id=f"{path}:{kind}:{name}", name=name, qualified_name=f"{v['qualified_name']}.{name}", kind=kind,
        file=path, start_line=3, end_line=9, start_byte=0, end_byte=10, parent_id=None,
        signature=v["signature"], language="python", content_hash="c", subtree_hash="s",
        decorators=(v["decorator"],), docstring=v["docstring"],
    )  # fmt: skip


def _report(v: dict[str, str]) -> Report:
    changed = _symbol(v, v["name"], v["file"])
    caller = _symbol(v, v["name"] + "_caller", v["caller_file"])
    deeper = _symbol(v, v["test_name"], v["caller_file"])
    removed = _symbol(v, v["target_name"], v["file"])
    related = _symbol(v, v["related_name"], v["caller_file"])
    edge = Edge(caller.id, v["target_name"], "calls", v["caller_file"], 4)
    cs = ChangeSet(v["base_label"], v["base_ref"], "0" * 40, Side("staged", None, v["head_label"]), files=[v["file"]])
    nodes = [ImpactNode(caller, 1, (changed.id, caller.id)), ImpactNode(deeper, 2, (changed.id, caller.id, deeper.id))]
    items = [
        ChangedSymbol(SymbolChange("modified", changed, changed, True), nodes, 2, [deeper], [(related, 0.5)], 2),
        ChangedSymbol(SymbolChange("removed", None, removed), [], 0),
        ChangedSymbol(SymbolChange("renamed", changed, removed, True, removed.id), [], 0),
    ]
    for item in items:
        item.unreached = is_unreached(item)
    return Report(
        changes=cs, changed=items, broken=[BrokenRef(edge, removed, "renamed", v["new_name"])], tests=[deeper],
        test_commands=[v["command"]], risk=Risk("high", [named(v["reason"])]), depth=3, unresolved_edges=1,
        total_edges=2, related_available=True, notes=[v["note"]],
    )  # fmt: skip


def _assert_terminal_clean(text: str) -> None:
    assert not _TERMINAL_CONTROL.search(text), repr(text)
    assert not _INVISIBLE.search(text), repr(text)


@given(st.sampled_from(FIELDS), _ANY_TEXT)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_quoted_field_renders_inert(field: str, text: str) -> None:
    values = {f: f"x_{f}" for f in FIELDS} | {field: text}
    report = _report(values)
    markdown = render_markdown(report)
    _assert_inert(markdown)
    assert not _INVISIBLE.search(markdown), repr(markdown)
    _assert_terminal_clean(render_text(report, color=False))


@given(st.fixed_dictionaries({f: _ANY_TEXT for f in FIELDS}))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_all_fields_hostile_at_once(values: dict[str, str]) -> None:
    report = _report(values)
    _assert_inert(render_markdown(report, link_base="https://example.com/tree/x"), "https://example.com/tree/x")
    _assert_terminal_clean(render_text(report, color=False))


HEADINGS = (
    "# <img src=x onerror=alert(1)> @octocat\n\nIntro.\n\n"
    "## [click](javascript:alert(1)) | a | b\n\nText.\n\n"
    "## ```` `` ` <!-- cartog-ci -->\n\nMore.\n\n"
    "Setext <script>alert(1)</script>\n---\n\nBody.\n\n"
    "## \x1b[31mred\x1b[0m \u2028 ~~x~~ **y**\n\nEnd.\n"
)
EVIL_PY = (
    "def persist(obj, note='<script>alert(1)</script> @octocat ](javascript:x) `|`'):\n"
    '    """<img src=x onerror=alert(1)> [x](javascript:alert(1)) @octocat"""\n'
    "    return obj\n"
)


def test_markdown_headings_and_python_strings_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {"docs/guide.md": HEADINGS.replace("Text.", "Text one."), "docs/other.md": "# Other\n\n[g](guide.md)\n"})
    commit(repo, "docs")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"docs/guide.md": HEADINGS.replace("Body.", "Body changed.").replace("End.", "End changed.")})
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("def persist(obj):\n    return obj\n", EVIL_PY))
    commit(repo, "hostile headings and strings")
    assert main(["report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--no-related"]) == 0
    markdown = capsys.readouterr().out
    assert "onerror" in markdown and "Setext" in markdown  # quoted, not dropped
    _assert_inert(markdown)
    assert main(["report", "--repo", str(repo), "--base", "main", "--no-related"]) == 0
    text = capsys.readouterr().out
    assert "?[31mred?[0m" in text
    _assert_terminal_clean(text)


def test_bidi_and_zero_width_characters_are_shown_escaped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """U+202E, U+200B, U+200D in a path, a heading, a default value and a
    docstring: the PR Markdown (rendered by GitHub's own cmark-gfm), the
    terminal report, `outline` and `search` show `\\u202e`, never the raw
    character; JSON keeps the value (written as a JSON escape)."""
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmark-gfm bindings (pip install cmarkgfm, the test extra)")
    from cmarkgfm.cmark import Options

    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {
        f"docs/{BIDI}.md": f"# Guide {BIDI}\n\nText.\n",
        f"shop/{BIDI}.py": f'def helper(x="{BIDI}"):\n    """{BIDI}"""\n    return x\n',
    })  # fmt: skip
    commit(repo, "invisible characters")
    assert main(["report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--no-related"]) == 0
    markdown = capsys.readouterr().out
    escaped = "admin\\u202etxt.exe\\u200bzero\\u200djoin"
    assert escaped in markdown and not _INVISIBLE.search(markdown)
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert escaped in html and not _INVISIBLE.search(html)
    assert main(["report", "--repo", str(repo), "--base", "main", "--no-related"]) == 0
    text = capsys.readouterr().out
    assert escaped in text
    _assert_terminal_clean(text)
    for args in (["outline", f"shop/{BIDI}.py"], ["search", "helper", "--no-rerank"], ["stats"]):
        assert main([*args, "--repo", str(repo)]) == 0
        out = capsys.readouterr().out
        assert not _INVISIBLE.search(out), (args, out)
    assert main(["outline", f"shop/{BIDI}.py", "--repo", str(repo)]) == 0
    assert escaped in capsys.readouterr().out
    assert main(["outline", f"shop/{BIDI}.py", "--json", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert not _INVISIBLE.search(out) and "\\u202e" in out
    assert BIDI in json.loads(out)[0]["file"]  # the value itself is kept
