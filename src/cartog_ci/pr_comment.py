"""The PR comment of a fork's pull request, written by the trusted
``workflow_run`` job from the checked claims of ``pr_artifact`` (never from
Markdown the pull request's run wrote; docs/integrations.md, "Pull
requests from forks").

Our words, numbers and enumerated values are the only text outside code
spans; every string of the artifact is inside one; the only links are built
here from trusted facts (``Where``) and go into this repository. Standard
library only: ``post/action.yml`` runs it with ``python -I -S``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from cartog_ci.pr_artifact import Claims, Row


def code(value: str) -> str:
    """An inline code span showing ``value`` literally: CommonMark makes no
    link, image, HTML, emphasis or mention inside one, and GitHub links no
    @name, #number or URL there. The fence is longer than any run of
    backticks inside; ``|`` is escaped so that a table keeps its columns.
    (``value`` has passed the schema: no control or invisible character.)"""
    text = value.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text.strip():
        text = f" {text} "
    return f"{fence}{text}{fence}"


@dataclass(frozen=True)
class Where:
    """The trusted facts the comment links with: from the workflow_run job's
    own environment and event, never from the artifact."""

    server_url: str  # GITHUB_SERVER_URL
    repository: str  # OWNER/NAME
    run_id: int

    def blob(self, head_sha: str, path: str, line: int) -> str:
        return f"{self.server_url}/{self.repository}/blob/{head_sha}/{quote(path, safe='/')}#L{line}"

    def run(self) -> str:
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"


# Under GitHub's 65,536 characters with room for the marker: rows that do
# not fit are counted in "…and N more", so the comment is never cut.
BUDGET = 60_000


class _Budget:
    def __init__(self, chars: int) -> None:
        self.left = chars

    def fit(self, rows: list[str], share: float = 1.0) -> list[str]:
        """The first rows that fit in ``share`` of what is left (each with
        its newline)."""
        room = int(self.left * share)
        kept = []
        for row in rows:
            if len(row) + 1 > room:
                break
            room -= len(row) + 1
            self.left -= len(row) + 1
            kept.append(row)
        return kept


def render(claims: Claims, where: Where, budget: int = BUDGET) -> str:
    """The comment's Markdown. Our words, the numbers and enumerated values
    are the only text outside code spans; the only links go into this
    repository (a line of a file at the run's commit, the run itself)."""
    lines = [
        "## cartog-ci impact report",
        "",
        f"> **Figures from the pull request's own run** ([run {where.run_id}]({where.run()}), "
        f"commit {claims.head_sha[:12]}): that run executed the pull request's code, so what follows is what "
        "the pull request's run reports, not a check made by this repository. Names and paths are shown as "
        "written, in code.",
        "",
        f"**Risk reported by the run: {claims.level.upper()}** · {claims.files} file(s) changed · "
        f"{claims.changed_total} symbol change(s)",
    ]
    room = _Budget(budget - 2_000)  # our own lines take less than 2,000 characters
    reasons = room.fit([f"- {code(reason)}" for reason in claims.reasons])
    if reasons:
        lines += ["", *reasons]
    if claims.will_break_total:
        rows = room.fit(
            [f"| {_where(row, claims, where)} | {code(row.name)} | {code(row.why)} |" for row in claims.will_break],
            share=0.5,  # the other half for the changed symbols
        )
        lines += ["", f"### Will break ({claims.will_break_total}, as reported)", ""]
        lines += ["| call site | calls | why |", "|---|---|---|", *rows]
        lines += _more(claims.will_break_total, len(rows), "call site(s)")
    if claims.changed:
        rows = room.fit([
            f"| {code(row.name)} | {code(row.kind)} | {_change(row)} | {_where(row, claims, where)} | {row.callers} |"
            for row in claims.changed
        ], share=0.8)  # fmt: skip
        lines += ["", f"### Changed symbols ({claims.changed_total}, as reported)", ""]
        lines += ["| symbol | kind | change | where | callers |", "|---|---|---|---|---|", *rows]
        lines += _more(claims.changed_total, len(rows), "changed symbol(s)")
        signatures = room.fit([
            f"- {code(row.name)}: {code(row.old_signature)} → {code(row.new_signature)}"
            for row in claims.changed[: len(rows)] if row.old_signature and row.new_signature
        ])  # fmt: skip
        if signatures:
            lines += ["", "Signature changes:", "", *signatures]
    if claims.tests_total or claims.commands:
        lines += ["", "### Tests to run", ""]
        lines += [f"{claims.tests_total} test(s) within 2 calls of the change, as reported:"]
        commands = room.fit([f"- {code(command)}" for command in claims.commands])
        lines += ["", *commands] if commands else []
    return "\n".join(lines) + "\n"


def _where(row: Row, claims: Claims, where: Where) -> str:
    span = code(f"{row.file}:{row.line}")
    if row.change == "removed":  # not in the commit the link would show
        return span
    return f"[{span}]({where.blob(claims.head_sha, row.file, row.line)})"


def _change(row: Row) -> str:
    text = row.change.replace("_", " ")
    if row.breaking:
        text += ", **breaking signature**"
    elif row.signature_changed:
        text += ", compatible signature"
    return text + (", untested" if row.untested else "")


def _more(total: int, shown: int, what: str) -> list[str]:
    return ["", f"…and {total - shown} more {what} (in the run's JSON report)."] if total > shown else []
