"""The few GitHub REST calls the Action needs: one sticky PR comment.

``urllib.request`` only, no new dependency. The token, API base and
repository come from the variables every Actions job has (``from_env``);
every failure is a one-line ``CartogError`` that says what to fix.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from cartog_ci.errors import CartogError

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
PER_PAGE = 100
MAX_PAGES = 100  # 10,000 comments: a Link chain that never ends must not loop for ever
TIMEOUT_S = 30
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


# Who GITHUB_TOKEN (a GitHub App installation token) writes as: /user
# answers 403 for it, "Resource not accessible by integration".
ACTIONS_BOT = "github-actions[bot]"


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    url: str
    by_bot: bool = False
    author: str = ""


def _comment(data: object) -> Comment:
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise CartogError("GitHub API returned something that is not a comment")
    user = data.get("user") or {}
    return Comment(
        id=data["id"],
        body=str(data.get("body") or ""),
        url=str(data.get("html_url") or ""),
        by_bot=isinstance(user, dict) and user.get("type") == "Bot",
        author=str(user.get("login") or "") if isinstance(user, dict) else "",
    )


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header (GitHub's pagination)."""
    match = _NEXT_LINK.search(header or "")
    return match.group(1) if match else None


class GitHub:
    def __init__(self, *, token: str, repository: str, api_url: str = DEFAULT_API_URL) -> None:
        if not token:
            raise CartogError("GITHUB_TOKEN is not set: pass the action's github-token, or export GITHUB_TOKEN")
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
            raise CartogError(f"GITHUB_REPOSITORY must be OWNER/NAME, got {repository!r}")
        self.token = token
        self.repository = repository
        self.api_url = api_url.rstrip("/")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> GitHub:
        return cls(
            token=environ.get("GITHUB_TOKEN", ""),
            repository=environ.get("GITHUB_REPOSITORY", ""),
            api_url=environ.get("GITHUB_API_URL") or DEFAULT_API_URL,
        )

    def identity(self) -> str:
        """The login the token writes as: ``GET /user`` for a person's token;
        GITHUB_TOKEN, an installation token, may not read it (403) and
        writes as github-actions[bot]."""
        try:
            data, _ = self._request("GET", f"{self.api_url}/user")
        except _Forbidden:
            return ACTIONS_BOT
        login = data.get("login") if isinstance(data, dict) else None
        if not isinstance(login, str) or not login:
            raise CartogError("GitHub API GET /user returned no login")
        return login

    # -- issue comments (a pull request is an issue for comments) -------------

    def issue_comments(self, number: int) -> list[Comment]:
        url: str | None = f"{self.api_url}/repos/{self.repository}/issues/{number}/comments?per_page={PER_PAGE}"
        comments: list[Comment] = []
        pages = 0
        while url is not None:
            pages += 1
            if pages > MAX_PAGES:
                raise CartogError(f"more than {MAX_PAGES} pages of comments on #{number}: giving up")
            data, link = self._request("GET", url)
            if not isinstance(data, list):
                raise CartogError("GitHub API returned something that is not a list of comments")
            comments += [_comment(item) for item in data]
            url = next_link(link)
        return comments

    def create_comment(self, number: int, body: str) -> Comment:
        url = f"{self.api_url}/repos/{self.repository}/issues/{number}/comments"
        return _comment(self._request("POST", url, {"body": body})[0])

    def update_comment(self, comment_id: int, body: str) -> Comment:
        url = f"{self.api_url}/repos/{self.repository}/issues/comments/{comment_id}"
        return _comment(self._request("PATCH", url, {"body": body})[0])

    # -- transport -------------------------------------------------------------

    def _request(self, method: str, url: str, payload: object = None) -> tuple[object, str | None]:
        self._same_host(url)
        request = urllib.request.Request(url, method=method, headers=self._headers())
        if payload is not None:
            request.data = json.dumps(payload).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                return json.loads(response.read() or b"null"), response.headers.get("Link")
        except urllib.error.HTTPError as exc:
            if exc.code in (403, 404) and urlsplit(url).path.endswith("/user"):
                raise _Forbidden from exc
            raise CartogError(_http_error(method, url, exc)) from exc
        except (urllib.error.URLError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise CartogError(f"cannot reach the GitHub API at {self.api_url}: {reason}") from exc
        except json.JSONDecodeError as exc:
            raise CartogError(f"GitHub API {method} {url}: the answer is not JSON") from exc

    def _headers(self) -> dict[str, str]:
        return {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "cartog-ci",
        }

    def _same_host(self, url: str) -> None:
        """The token is only ever sent to the API it was given for (a Link
        header pointing elsewhere is refused, not followed)."""
        want, got = urlsplit(self.api_url), urlsplit(url)
        if (got.scheme, got.netloc) != (want.scheme, want.netloc):
            raise CartogError(f"refusing to send the token to {got.scheme}://{got.netloc}: not {self.api_url}")


class _Forbidden(Exception):
    """``GET /user`` refused: an installation token (GITHUB_TOKEN)."""


def _http_error(method: str, url: str, exc: urllib.error.HTTPError) -> str:
    try:
        message = str(json.loads(exc.read() or b"{}").get("message", ""))
    except (ValueError, AttributeError):
        message = ""
    where = f"GitHub API {method} {urlsplit(url).path}: HTTP {exc.code}{f' {message}' if message else ''}"
    if exc.code in (401, 403, 404):
        return (
            f"{where} (the token cannot write PR comments here: the job needs "
            "`permissions: pull-requests: write`; fork PRs only get a read-only token)"
        )
    return where


def upsert_comment(client: GitHub, *, number: int, body: str, marker: str) -> tuple[str, Comment]:
    """Update the comment that carries ``marker``, or create it: ("updated"|"created", comment).

    Only a comment written by the token's own identity (``GitHub.identity``)
    is ours: a participant's comment quoting the marker, or another bot's, is
    never edited. When several of ours carry it (a race between two runs),
    the oldest.
    """
    me = client.identity().lower()
    ours = [c for c in client.issue_comments(number) if marker in c.body and c.author.lower() == me]
    if not ours:
        return "created", client.create_comment(number, body)
    return "updated", client.update_comment(ours[0].id, body)
