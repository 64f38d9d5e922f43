"""Nothing quoted from a repository can inject Markdown or HTML into a report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cartog_ci.cli import main
from cartog_ci.domain import Symbol
from cartog_ci.domain.results import BrokenRef, ChangedSymbol, ChangeSet, ImpactNode, Report, Risk, Side, SymbolChange, named
from cartog_ci.report.build import is_unreached
from cartog_ci.report.render import code, mermaid_label, render_markdown
from tests.testing.fixtures import commit, git, make_repo, write

HOSTILE = [
    "<script>alert(1)</script>",
    "](javascript:alert(1))",
    "[x](https://evil.example)",
    "`` ` ```",
    "a|b|c",
    "@octocat",
    "<img src=x onerror=alert(1)>",
    "**bold** _em_ ~~s~~",
    "line\nbreak\r\n# heading",
    "<!-- cartog-ci -->",
    "&lt;b&gt;",
    "\\`escaped\\`",
    "```mermaid",
    "x\u2028y",
]
_ALPHABET = st.sampled_from(list("<>[]()`|@*_~#!&;:/\\\"'=\n\r\t -.aZ0") + ["javascript:", "<script>", "](", "```"])
hostile_text = st.lists(_ALPHABET, min_size=1, max_size=30).map("".join)


def _code_spans_removed(markdown: str) -> str:
    """The Markdown with our inert regions blanked out: code spans (by their
    real fence rule), fenced code blocks, and our own HTML skeleton tags."""
    out: list[str] = []
    in_fence = False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
            out.append("")
            continue
        if in_fence:
            out.append("")
            continue
        out.append(_strip_spans(line))
    text = "\n".join(out)
    # our <code> inside <summary> (an HTML block: no Markdown there), with
    # the name HTML-escaped
    text = re.sub(r"<code>[^<]*</code>", "CODE", text)
    for tag in ("<details>", "</details>", "<summary>", "</summary>", "<sub>", "</sub>"):
        text = text.replace(tag, "")
    return text


def _strip_spans(line: str) -> str:
    result = []
    i = 0
    while i < len(line):
        if line[i] == "`":
            run = re.match(r"`+", line[i:]).group(0)  # type: ignore[union-attr]
            end = line.find(run, i + len(run))
            while end != -1 and (line[end + len(run) : end + len(run) + 1] == "`" or line[end - 1] == "`"):
                end = line.find(run, end + 1)
            assert end != -1, f"unclosed code span in {line!r}"
            i = end + len(run)
            result.append("CODE")
            continue
        result.append(line[i])
        i += 1
    return "".join(result)


def _assert_inert(markdown: str, link_base: str | None = None) -> None:
    live = _code_spans_removed(markdown)
    if link_base:
        # our own links to lines: the base we were given, then a percent-encoded path
        live = re.sub(rf"\[CODE\]\({re.escape(link_base)}/[A-Za-z0-9%/._~-]+#L\d+\)", "LINK", live)
    assert "<" not in live.replace("<-", ""), live
    assert "](" not in live
    assert "javascript:" not in live
    assert "@" not in live
    for line in live.split("\n"):  # fenced blocks are blank here
        if line.startswith("|"):
            # every row of a table has the header's number of unescaped pipes
            assert len(re.findall(r"(?<!\\)\|", line)) in (5, 6), line


@given(hostile_text)
@settings(max_examples=300, deadline=None)
def test_code_span_is_always_closed_and_literal(text: str) -> None:
    span = code(text)
    assert "\n" not in span and "\r" not in span
    assert _strip_spans(span) == "CODE"
    assert "|" not in span.replace("\\|", "")


@given(hostile_text)
@settings(max_examples=200, deadline=None)
def test_mermaid_label_has_no_markup(text: str) -> None:
    label = mermaid_label(text)
    inner = label[1:-1]
    assert re.fullmatch(r"[\w .:/#;-]*", inner, re.UNICODE), inner
    assert '"' not in inner


def _symbol(name: str, path: str, kind: str = "function") -> Symbol:
    return Symbol(
        id=f"{path}:{kind}:{name}", name=name, qualified_name=name, kind=kind, file=path,
        start_line=3, end_line=9, start_byte=0, end_byte=10, parent_id=None,
        signature=f"def {name}()", language="python", content_hash="c", subtree_hash="s",
    )  # fmt: skip


def _hostile_report(name: str, path: str) -> Report:
    changed = _symbol(name, path)
    caller = _symbol(name + "_caller", path)
    removed = _symbol(name + "_gone", path)
    from cartog_ci.domain import Edge

    edge = Edge(caller.id, removed.name, "calls", path, 4)
    cs = ChangeSet(f"base {name}", name, "0" * 40, Side("commit", "1" * 40, name), files=[path])
    items = [
        ChangedSymbol(SymbolChange("modified", changed, changed, True), [ImpactNode(caller, 1, (changed.id, caller.id))], 1, [], [(caller, 0.5)], 2),
        ChangedSymbol(SymbolChange("removed", None, removed), [], 0),
        ChangedSymbol(SymbolChange("renamed", changed, removed, False, removed.id), [], 0),
    ]  # fmt: skip
    for item in items:
        item.unreached = is_unreached(item)
    return Report(
        changes=cs, changed=items, broken=[BrokenRef(edge, removed, "renamed", name)], tests=[caller],
        test_commands=[f"pytest '{path}::{name}'"], risk=Risk("high", [f"reason {named(name)}"]), depth=3,
        unresolved_edges=1, total_edges=2, related_available=True, notes=[f"{path}: skipped ({name})"],
    )  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_names_and_paths_render_inert(text: str) -> None:
    base = "https://example.com/tree/x"
    markdown = render_markdown(_hostile_report(text, f"src/{text}.py"), link_base=base)
    _assert_inert(markdown, base)


@given(hostile_text, hostile_text)
@settings(max_examples=150, deadline=None)
def test_fuzzed_report_renders_inert(name: str, path: str) -> None:
    _assert_inert(render_markdown(_hostile_report(name, path)))


def test_hostile_file_names_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    evil = "shop/<script>alert(1)<|script> @octocat `x` ](javascript:x).py"
    write(repo, {evil: "from shop.models.base import persist\n\n\ndef evil():\n    return persist(1)\n"})
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("def persist(obj):", "def persist(obj, flag):"))
    commit(repo, "evil file name")
    assert main(["report", "--repo", str(repo), "--base", "main", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "alert(1)" in markdown  # it is there, quoted
    _assert_inert(markdown)
