"""`cartog-ci comment --pr N --body-file report.md`: one sticky PR comment.

The comment that carries the hidden marker is updated in place, or created
if there is none, so a pull request never collects one report per push.
Token, API and repository come from GITHUB_TOKEN, GITHUB_API_URL and
GITHUB_REPOSITORY, as every Actions job has them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cartog_ci import github
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.errors import CartogError
from cartog_ci.github import CUT_NOTE, DEFAULT_MARKER, comment_body

__all__ = ["CUT_NOTE", "DEFAULT_MARKER", "add_arguments", "comment_body", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pr", type=int, required=True, help="pull request number")
    parser.add_argument("--body-file", required=True, help="Markdown to post (e.g. from `report -o report.md`)")
    parser.add_argument("--marker", default=DEFAULT_MARKER, help=f"hidden marker (default {DEFAULT_MARKER})")


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CartogError(f"cannot read --body-file {path}: {exc.strerror or exc}") from exc


def run(args: argparse.Namespace) -> int:
    if not args.marker.strip():
        raise CartogError("--marker must not be empty: it is how the comment is found again")
    body = comment_body(_read(args.body_file), args.marker)
    client = github.GitHub.from_env()
    action, comment = github.upsert_comment(client, number=args.pr, body=body, marker=args.marker)
    if args.json:
        emit_json({"action": action, "id": comment.id, "url": comment.url, "chars": len(body)})
    else:
        echo(f"{action} comment {comment.url or comment.id}")
    return 0
