"""The few GitHub REST calls the Action needs: one sticky PR comment, and
the trusted half of the two-stage flow for fork PRs (``post_from_workflow_run``).

Standard library only (``urllib.request``), and nothing from cartog-ci but
``errors``, ``pr_artifact`` and ``pr_comment`` (standard library only too):
the posting action (``post/action.yml``) runs this module with a bare
Python (``python -I -S``), without installing anything. The token,
API base and repository come from the variables every Actions job has
(``from_env``); every failure is a one-line ``CartogError`` that says what
to fix.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from cartog_ci.errors import CartogError
from cartog_ci.pr_artifact import read_artifact
from cartog_ci.pr_comment import Where, render

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
PER_PAGE = 100
MAX_PAGES = 100  # 10,000 comments: a Link chain that never ends must not loop for ever
TIMEOUT_S = 30
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


# Who GITHUB_TOKEN (a GitHub App installation token) writes as: /user
# answers 403 for it, "Resource not accessible by integration".
ACTIONS_BOT = "github-actions[bot]"

DEFAULT_MARKER = "<!-- cartog-ci -->"
COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body (report/render.py GITHUB_COMMENT_LIMIT)
CUT_NOTE = "\n\n_Comment cut at GitHub's 65,536-character limit; run `cartog-ci report` for all of it._\n"

# The two-stage flow: the unprivileged PR run uploads pr.json and
# report.json as an artifact (action.yml, mode: artifact); the trusted
# workflow_run job reads them as data (post/action.yml, pr_artifact.py).
ARTIFACT_NAME = "cartog-ci-report"
MAX_ARTIFACT_BYTES = 1 << 20  # the zip as GitHub stores it; report.json is a few KB
DEFAULT_SERVER_URL = "https://github.com"
_SHA = re.compile(r"[0-9a-f]{40}")


def comment_body(text: str, marker: str, limit: int = COMMENT_LIMIT) -> str:
    """The marker first, then the report, cut at a line to fit ``limit``.

    The renderer already trims by priority to ~64,000 characters; this is the
    last guard, for a body that did not come from it.
    """
    body = text if text.startswith(marker) else f"{marker}\n{text}"
    if len(body) <= limit:
        return body
    kept = body[: limit - len(CUT_NOTE)]
    if "\n" in kept[len(marker) :]:
        kept = kept.rsplit("\n", 1)[0]
    return kept + CUT_NOTE


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

    def pull_request(self, number: int) -> dict[str, object]:
        data, _ = self._request("GET", f"{self.api_url}/repos/{self.repository}/pulls/{number}")
        if not isinstance(data, dict):
            raise CartogError(f"GitHub API returned something that is not pull request #{number}")
        return data

    # -- the Actions cache -----------------------------------------------------------

    def caches(self, key_prefix: str, ref: str) -> list[dict[str, object]]:
        """Cache entries whose key starts with ``key_prefix``, saved on ``ref``."""
        query = urlencode({"key": key_prefix, "ref": ref, "per_page": PER_PAGE})
        url: str | None = f"{self.api_url}/repos/{self.repository}/actions/caches?{query}"
        found: list[dict[str, object]] = []
        pages = 0
        while url is not None and pages < MAX_PAGES:
            pages += 1
            data, link = self._request("GET", url)
            entries = data.get("actions_caches") if isinstance(data, dict) else None
            if not isinstance(entries, list):
                raise CartogError("GitHub API returned something that is not a list of caches")
            found += [e for e in entries if isinstance(e, dict)]
            url = next_link(link)
        return found

    def delete_cache(self, cache_id: int) -> None:
        self._request("DELETE", f"{self.api_url}/repos/{self.repository}/actions/caches/{cache_id}")

    # -- artifacts of a workflow run ---------------------------------------------

    def run_artifacts(self, run_id: int, name: str) -> list[dict[str, object]]:
        url = f"{self.api_url}/repos/{self.repository}/actions/runs/{run_id}/artifacts?name={name}&per_page={PER_PAGE}"
        data, _ = self._request("GET", url)
        found = data.get("artifacts") if isinstance(data, dict) else None
        if not isinstance(found, list):
            raise CartogError("GitHub API returned something that is not a list of artifacts")
        return [a for a in found if isinstance(a, dict) and a.get("name") == name]

    def download_artifact(self, artifact_id: int, limit: int) -> bytes:
        """The artifact's zip, at most ``limit`` bytes. GitHub answers with a
        redirect to its storage: that request goes without the token."""
        url = f"{self.api_url}/repos/{self.repository}/actions/artifacts/{artifact_id}/zip"
        self._same_host(url)
        request = urllib.request.Request(url, headers=self._headers())
        try:
            with _NO_REDIRECTS.open(request, timeout=TIMEOUT_S) as response:
                return _read_at_most(response, limit)
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location") if exc.code in (301, 302, 303, 307, 308) else None
            if location is None:
                raise CartogError(_http_error("GET", url, exc)) from exc
        except (urllib.error.URLError, TimeoutError) as exc:
            raise CartogError(f"cannot reach the GitHub API at {self.api_url}: {getattr(exc, 'reason', exc)}") from exc
        if urlsplit(location).scheme not in ("https", urlsplit(self.api_url).scheme):
            raise CartogError(f"the artifact's download redirects to {location.split('?')[0]}: not https")
        try:  # no Authorization header: the storage URL carries its own signature
            blob = urllib.request.Request(location, headers={"User-Agent": "cartog-ci"})
            with urllib.request.urlopen(blob, timeout=TIMEOUT_S) as response:
                return _read_at_most(response, limit)
        except (urllib.error.URLError, TimeoutError) as exc:
            raise CartogError(f"cannot download the artifact: {getattr(exc, 'reason', exc)}") from exc

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


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would follow a redirect with the Authorization header to any
    host: here a redirect is an HTTPError, handled by the caller."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_NO_REDIRECTS = urllib.request.build_opener(_RefuseRedirects)


def _read_at_most(response: object, limit: int) -> bytes:
    data = response.read(limit + 1)  # type: ignore[attr-defined]
    if len(data) > limit:
        raise CartogError(f"the report artifact is larger than {limit:,} bytes: refused")
    return bytes(data)


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


# -- the trusted half of the two-stage flow (post/action.yml) ---------------------


@dataclass(frozen=True)
class Posted:
    action: str  # "created", "updated", or "skipped"
    message: str
    comment: Comment | None = None


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def post_from_workflow_run(
    client: GitHub,
    event: Mapping[str, object],
    *,
    marker: str = DEFAULT_MARKER,
    server_url: str = DEFAULT_SERVER_URL,
) -> Posted:
    """Post the report of the pull-request run that triggered this
    ``workflow_run`` event, as the sticky comment.

    The artifact was made by a run of the PR's own code: it is data, the
    pull request's claims. The pull request it names is only believed if
    GitHub says that pull request has exactly the commit the run was for as
    its head (``GET /pulls/N``; the event's own ``pull_requests`` list,
    empty for fork PRs, must agree when it is not empty); its size is
    capped before and after the download; it must fit the strict schema of
    ``pr_artifact``, and the comment is written here from the checked
    values (``pr_comment.render``), never taken from the artifact.
    """
    run = event.get("workflow_run")
    if not isinstance(run, dict):
        raise CartogError("not a workflow_run event: post/action.yml runs in a workflow `on: workflow_run`")
    if run.get("event") not in ("pull_request", "pull_request_target"):
        return Posted("skipped", f"the run was for a {run.get('event')} event, not a pull request: nothing to post")
    run_id, head_sha = run.get("id"), run.get("head_sha")
    if not isinstance(run_id, int) or not isinstance(head_sha, str) or not _SHA.fullmatch(head_sha):
        raise CartogError("the workflow_run event has no run id or head commit")
    found = client.run_artifacts(run_id, ARTIFACT_NAME)
    if not found:
        return Posted("skipped", f"run {run_id} uploaded no {ARTIFACT_NAME} artifact (the report step did not finish): nothing to post")
    artifact = found[0]
    size, artifact_id = artifact.get("size_in_bytes"), artifact.get("id")
    if artifact.get("expired"):
        return Posted("skipped", f"the {ARTIFACT_NAME} artifact of run {run_id} has expired: nothing to post")
    if not isinstance(artifact_id, int) or not isinstance(size, int):
        raise CartogError("GitHub API returned an artifact without id or size")
    if size > MAX_ARTIFACT_BYTES:
        raise CartogError(f"the {ARTIFACT_NAME} artifact is {size:,} bytes, more than {MAX_ARTIFACT_BYTES:,}: refused")
    claims = read_artifact(client.download_artifact(artifact_id, MAX_ARTIFACT_BYTES))
    number, claimed_head = claims.number, claims.head_sha

    listed = [p.get("number") for p in run.get("pull_requests") or [] if isinstance(p, dict)]
    if listed and number not in listed:
        raise CartogError(f"the artifact names #{number}, the run was for {', '.join(f'#{n}' for n in listed)}: refused")
    if claimed_head != head_sha:
        raise CartogError(f"the artifact was made for {claimed_head[:12]}, the run was for {head_sha[:12]}: refused")
    pull = client.pull_request(number)
    head = _dict(pull.get("head"))
    current = head.get("sha")
    if current != head_sha:
        # the same branch of the same repository: the PR got a newer push
        ran_from = (_dict(run.get("head_repository")).get("full_name"), run.get("head_branch"))
        if (_dict(head.get("repo")).get("full_name"), head.get("ref")) == ran_from and isinstance(current, str):
            return Posted("skipped", f"#{number} has moved on to {current[:12]} since this run: its newer run posts")
        raise CartogError(
            f"the artifact names #{number}, whose head is not {head_sha[:12]} (the commit of run {run_id}) "
            "nor on the run's branch: refused"
        )
    if pull.get("state") != "open":
        return Posted("skipped", f"#{number} is {pull.get('state')}: nothing to post")
    body = comment_body(render(claims, Where(server_url.rstrip("/"), client.repository, run_id)), marker)
    action, comment = upsert_comment(client, number=number, body=body, marker=marker)
    return Posted(action, f"{action} comment {comment.url or comment.id} on #{number}", comment)


def prune_caches(client: GitHub, *, prefix: str, keep: str, ref: str) -> list[str]:
    """Delete the cache entries of ``ref`` whose key starts with ``prefix``
    and that are older than ``keep``, the entry just saved: every later run
    restores that one, the others only take room in the repository's 10 GB.
    Nothing is deleted if ``keep`` is not listed (its save failed). Returns
    the deleted keys."""
    entries = client.caches(prefix, ref)
    kept = [e for e in entries if e.get("key") == keep]
    if not kept:
        return []
    newest = str(kept[0].get("created_at") or "")
    deleted = []
    for entry in entries:
        key, cache_id = str(entry.get("key") or ""), entry.get("id")
        if key != keep and key.startswith(prefix) and isinstance(cache_id, int) and str(entry.get("created_at") or "") <= newest:
            client.delete_cache(cache_id)
            deleted.append(key)
    return deleted


def prune_main(argv: Sequence[str]) -> int:
    """action.yml's last cache step: ``PREFIX KEEP REF``. A token without
    ``actions: write`` is a notice, not a failure: old entries then expire
    after 7 days without use."""
    prefix, keep, ref = argv
    try:
        deleted = prune_caches(GitHub.from_env(), prefix=prefix, keep=keep, ref=ref)
    except CartogError as exc:
        if "HTTP 403" in str(exc) or "HTTP 404" in str(exc):
            print(
                "::notice title=cartog-ci::older index caches were not deleted: the token needs `actions: write` "
                "(they expire after 7 days without use)"
            )
            return 0
        sys.stderr.write(f"cartog-ci: {exc}\n")
        print("::warning title=cartog-ci::older index caches were not deleted (see the line above)")
        return 0
    for key in deleted:
        print(f"cartog-ci: deleted the superseded index cache {key}")
    if not deleted:
        print("cartog-ci: no older index cache to delete")
    return 0


def drop_cache(client: GitHub, *, key: str, ref: str) -> list[str]:
    """Delete the cache entries of ``ref`` saved under exactly ``key``: an
    entry is never overwritten, so an index rebuilt by ``index --verify``
    could not be saved under the key of the one it replaces. Returns the
    deleted keys."""
    deleted = []
    for entry in client.caches(key, ref):
        cache_id = entry.get("id")
        if entry.get("key") == key and isinstance(cache_id, int):
            client.delete_cache(cache_id)
            deleted.append(key)
    return deleted


def drop_main(argv: Sequence[str]) -> int:
    """action.yml's step before saving an index that ``--verify`` rebuilt:
    ``KEY REF``. A failure is a warning: the job fails in its last step anyway."""
    key, ref = argv
    try:
        deleted = drop_cache(GitHub.from_env(), key=key, ref=ref)
    except CartogError as exc:
        sys.stderr.write(f"cartog-ci: {exc}\n")
        print(
            "::warning title=cartog-ci::the cached index that failed verification was not deleted (the token needs "
            "`actions: write`): later runs restore it until a change of the default branch saves another"
        )
        return 0
    for key in deleted:
        print(f"cartog-ci: deleted the index cache {key}, which failed verification: the rebuilt index replaces it")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -I -S -c '…main()' [EVENT_JSON]``: post/action.yml's step.
    The event defaults to ``GITHUB_EVENT_PATH``; one line, exit 2, on a refusal."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        path = args[0] if args else os.environ.get("GITHUB_EVENT_PATH", "")
        if not path:
            raise CartogError("no event: run in a workflow `on: workflow_run`, or give the event JSON's path")
        try:
            event = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CartogError(f"cannot read the event {path}: {exc}") from exc
        server_url = os.environ.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL
        posted = post_from_workflow_run(GitHub.from_env(), event if isinstance(event, dict) else {}, server_url=server_url)
    except CartogError as exc:
        sys.stderr.write(f"cartog-ci: {exc}\n")
        return 2
    print(f"cartog-ci: {posted.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
