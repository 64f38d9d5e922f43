"""The report of a pull request run carried to the trusted ``workflow_run``
job as data, never as Markdown (docs/integrations.md, "Pull requests from
forks").

The run that makes the artifact executed the pull request's code, so every
byte of the artifact is the pull request's claim. The trusted job
(``post/action.yml``, ``github.post_from_workflow_run``) therefore:

- reads the zip in memory with a refusal for every trick (encrypted,
  symlinked, duplicated, nested or traversing members, other compressions,
  broken deflate streams, bombs), each a one-line ``CartogError``;
- parses ``pr.json`` and ``report.json`` against a strict, size-bounded
  schema (``SCHEMA``): exact keys, types, lengths, counts, nesting, no
  control or invisible character, relative paths without ``..``;
- writes the comment itself (``pr_comment.render``): every string from the
  artifact is an inert code span, the only links are its own, into this
  repository, and the comment says that its figures are the pull request
  run's.

Standard library only, and nothing from cartog-ci but ``errors``: the
posting action runs it with a bare Python (``python -I -S``). The untrusted
side (``action.yml``, mode ``artifact``) writes the files with
``write_main`` from the report's JSON form (``report --json-output``).
"""

from __future__ import annotations

import io
import json
import re
import stat
import sys
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cartog_ci.errors import CartogError

SCHEMA = "cartog-ci/pr-report/1"
ARTIFACT_FILES = ("pr.json", "report.json")
MAX_FILE_BYTES = 256 * 1024  # each file, uncompressed; report.json is a few KB at its caps
MAX_DEPTH = 5  # the schema's deepest value is 4 levels down
MAX_COUNT = 10**7
# At most this many of each list; the totals say how many there were.
MAX_REASONS = 5
MAX_ROWS = 25
MAX_COMMANDS = 5
# Longest string of each sort, in characters.
NAME_CHARS = 300
PATH_CHARS = 300
TEXT_CHARS = 500
COMMAND_CHARS = 1000
LEVELS = ("low", "medium", "high")
CHANGES = ("added", "modified", "removed", "renamed", "docs", "children_changed")
_SHA = re.compile(r"[0-9a-f]{40}")
_KIND = re.compile(r"[a-z_]{1,30}")
# Control, format (bidi overrides, zero-width joiners), surrogate, private
# use, line and paragraph separators: none has a place in a name or a path.
_BANNED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _refuse(message: str) -> CartogError:
    return CartogError(f"{message}: refused")


# -- the artifact's zip ----------------------------------------------------------------


def read_zip(data: bytes) -> dict[str, str]:
    """``pr.json`` and ``report.json`` from the artifact's zip, as text:
    exactly those two regular files at its top, stored or deflated, not
    encrypted, each at most ``MAX_FILE_BYTES`` however small its header
    says it is, UTF-8."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, NotImplementedError) as exc:
        raise _refuse(f"the report artifact is not a readable zip ({_said(exc)})") from exc
    names = [m.filename for m in members]
    for member in members:
        _check_member(member, names)
    missing = [n for n in ARTIFACT_FILES if n not in names]
    if missing:
        hint = " (report.md: Markdown from an older cartog-ci action; use one commit of cartog-ci for both workflows)"
        raise CartogError(f"the report artifact has no {missing[0]}{hint if 'report.md' in names else ''}: refused")
    return {m.filename: _read_member(archive, m) for m in members}


def _check_member(member: zipfile.ZipInfo, names: list[str]) -> None:
    name = member.filename
    shown = ascii(name)[1:-1][:80]
    if names.count(name) > 1:
        raise _refuse(f"the report artifact holds {shown} twice")
    if name not in ARTIFACT_FILES:
        raise _refuse(f"the report artifact holds {shown}, not only {' and '.join(ARTIFACT_FILES)}")
    kind = stat.S_IFMT(member.external_attr >> 16)  # 0: a zip tool that records no Unix mode
    if member.is_dir() or kind not in (0, stat.S_IFREG):
        raise _refuse(f"{name} in the report artifact is not a regular file (a link or a directory)")
    if member.flag_bits & 0x1:
        raise _refuse(f"{name} in the report artifact is encrypted")
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _refuse(f"{name} in the report artifact uses compression method {member.compress_type}, not deflate")
    if member.file_size > MAX_FILE_BYTES:
        raise _refuse(f"{name} in the report artifact is larger than {MAX_FILE_BYTES:,} bytes")


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> str:
    name = member.filename
    try:
        with archive.open(member) as stream:
            content = stream.read(MAX_FILE_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, ValueError, OSError) as exc:
        raise _refuse(f"{name} in the report artifact cannot be read ({_said(exc)})") from exc
    if len(content) > MAX_FILE_BYTES:
        raise _refuse(f"{name} in the report artifact is larger than {MAX_FILE_BYTES:,} bytes")
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(f"{name} in the report artifact is not UTF-8 text") from exc


def _said(exc: BaseException) -> str:
    """An exception's message as a short printable phrase."""
    text = re.sub(r"[^\x20-\x7e]", "?", str(exc) or type(exc).__name__)
    return text[:120]


# -- JSON, strictly ----------------------------------------------------------------------


def parse_json(name: str, text: str) -> object:
    """``text`` as JSON: no nesting deeper than ``MAX_DEPTH`` (checked
    before parsing: 200,000 ``[`` would exhaust the parser's stack), no
    repeated key, no NaN or Infinity, no integer of more than 12 digits."""
    depth = deepest = 0
    for bracket in re.sub(r"[^\[\]{}]", "", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            raise _refuse(f"{name} in the report artifact nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(
            text, object_pairs_hook=_unique_keys(name), parse_constant=_no_constant(name), parse_int=_short_int(name)
        )
    except CartogError:
        raise
    except (ValueError, RecursionError) as exc:
        raise _refuse(f"{name} in the report artifact is not JSON ({_said(exc)})") from exc


def _unique_keys(name: str) -> Callable[[list[tuple[str, object]]], dict[str, object]]:
    def build(pairs: list[tuple[str, object]]) -> dict[str, object]:
        out = dict(pairs)
        if len(out) != len(pairs):
            raise _refuse(f"{name} in the report artifact repeats a key")
        return out

    return build


def _short_int(name: str) -> Callable[[str], int]:
    def parse(digits: str) -> int:
        if len(digits) > 12:
            raise _refuse(f"{name} in the report artifact holds a number of {len(digits):,} digits")
        return int(digits)

    return parse


def _no_constant(name: str) -> Callable[[str], object]:
    def refuse(constant: str) -> object:
        raise _refuse(f"{name} in the report artifact holds {constant}")

    return refuse


# -- the schema ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """A changed symbol, or a call site that will break."""

    name: str
    file: str
    line: int
    kind: str = ""
    change: str = ""
    why: str = ""
    callers: int = 0
    breaking: bool = False
    signature_changed: bool = False
    untested: bool = False
    old_signature: str | None = None
    new_signature: str | None = None


@dataclass(frozen=True)
class Claims:
    """What the pull request's run says, checked against the schema."""

    number: int
    head_sha: str
    level: str
    reasons: tuple[str, ...]
    files: int
    changed_total: int
    changed: tuple[Row, ...]
    will_break_total: int
    will_break: tuple[Row, ...]
    tests_total: int
    commands: tuple[str, ...]


class _Reader:
    """Typed reads of one JSON document; every mismatch is a one-line refusal
    that names the field (``report.json: changed.items[3].file``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, what: str) -> CartogError:
        return _refuse(f"{self.name} in the report artifact: {where} {what}")

    def fields(self, value: object, where: str, keys: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, "is not an object")
        if set(value) != set(keys):
            extra = sorted(set(value) - set(keys))
            absent = sorted(set(keys) - set(value))
            said = f"has an unknown key {ascii(extra[0])[:60]}" if extra else f"has no key {absent[0]}"
            raise self.fail(where, said)
        return value

    def array(self, value: object, where: str, most: int) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, "is not a list")
        if len(value) > most:
            raise self.fail(where, f"has {len(value):,} items, more than {most}")
        return value

    def count(self, value: object, where: str, least: int = 0, most: int = MAX_COUNT) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, "is not a whole number")
        if not least <= value <= most:
            raise self.fail(where, f"is {value}, not between {least} and {most:,}")
        return value

    def flag(self, value: object, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "is not true or false")
        return value

    def text(self, value: object, where: str, most: int) -> str:
        if not isinstance(value, str):
            raise self.fail(where, "is not a string")
        if not value or len(value) > most:
            raise self.fail(where, f"has {len(value):,} characters, not 1 to {most}")
        for ch in value:
            if unicodedata.category(ch) in _BANNED_CATEGORIES:
                raise self.fail(where, f"holds the control or invisible character U+{ord(ch):04X}")
        return value

    def optional_text(self, value: object, where: str, most: int) -> str | None:
        return None if value is None else self.text(value, where, most)

    def path(self, value: object, where: str) -> str:
        path = self.text(value, where, PATH_CHARS)
        parts = path.split("/")
        if "\\" in path or any(part in ("", ".", "..") for part in parts):
            raise self.fail(where, "is not a relative path inside the repository (no .., no leading /)")
        return path

    def choice(self, value: object, where: str, allowed: Sequence[str]) -> str:
        if value not in allowed:
            raise self.fail(where, f"is not one of {', '.join(allowed)}")
        return str(value)


def read_claim(text: str) -> tuple[int, str]:
    """``pr.json``: ``{"number": N, "head_sha": SHA}``."""
    reader = _Reader("pr.json")
    claim = reader.fields(parse_json("pr.json", text), "the top level", ("number", "head_sha"))
    number = reader.count(claim["number"], "number", 1, (1 << 31) - 1)
    head = claim["head_sha"]
    if not isinstance(head, str) or not _SHA.fullmatch(head):
        raise reader.fail("head_sha", "is not a commit (40 hex digits)")
    return number, head


def read_report(text: str, number: int, head_sha: str) -> Claims:
    """``report.json`` (the schema ``SCHEMA``, made by ``claims_from_report``)."""
    r = _Reader("report.json")
    keys = ("schema", "risk", "files", "changed", "will_break", "tests")
    top = r.fields(parse_json("report.json", text), "the top level", keys)
    if top["schema"] != SCHEMA:
        raise r.fail("schema", f"is not {SCHEMA} (use one commit of cartog-ci for both workflows)")
    risk = r.fields(top["risk"], "risk", ("level", "reasons"))
    changed = r.fields(top["changed"], "changed", ("total", "items"))
    broken = r.fields(top["will_break"], "will_break", ("total", "items"))
    tests = r.fields(top["tests"], "tests", ("total", "commands"))
    reasons = r.array(risk["reasons"], "risk.reasons", MAX_REASONS)
    commands = r.array(tests["commands"], "tests.commands", MAX_COMMANDS)
    changed_rows = r.array(changed["items"], "changed.items", MAX_ROWS)
    broken_rows = r.array(broken["items"], "will_break.items", MAX_ROWS)
    claims = Claims(
        number=number,
        head_sha=head_sha,
        level=r.choice(risk["level"], "risk.level", LEVELS),
        reasons=tuple(r.text(v, f"risk.reasons[{i}]", TEXT_CHARS) for i, v in enumerate(reasons)),
        files=r.count(top["files"], "files"),
        changed_total=r.count(changed["total"], "changed.total"),
        changed=tuple(_changed_row(r, v, f"changed.items[{i}]") for i, v in enumerate(changed_rows)),
        will_break_total=r.count(broken["total"], "will_break.total"),
        will_break=tuple(_broken_row(r, v, f"will_break.items[{i}]") for i, v in enumerate(broken_rows)),
        tests_total=r.count(tests["total"], "tests.total"),
        commands=tuple(r.text(v, f"tests.commands[{i}]", COMMAND_CHARS) for i, v in enumerate(commands)),
    )
    if claims.changed_total < len(claims.changed) or claims.will_break_total < len(claims.will_break):
        raise r.fail("a total", "is smaller than its list")
    return claims


_CHANGED_KEYS = (
    "name", "kind", "change", "file", "line", "callers", "breaking", "signature_changed", "untested",
    "old_signature", "new_signature",
)  # fmt: skip


def _changed_row(r: _Reader, value: object, where: str) -> Row:
    row = r.fields(value, where, _CHANGED_KEYS)
    kind = r.text(row["kind"], f"{where}.kind", 30)
    if not _KIND.fullmatch(kind):
        raise r.fail(f"{where}.kind", "is not a kind of symbol")
    return Row(
        name=r.text(row["name"], f"{where}.name", NAME_CHARS),
        kind=kind,
        change=r.choice(row["change"], f"{where}.change", CHANGES),
        file=r.path(row["file"], f"{where}.file"),
        line=r.count(row["line"], f"{where}.line", 1),
        callers=r.count(row["callers"], f"{where}.callers"),
        breaking=r.flag(row["breaking"], f"{where}.breaking"),
        signature_changed=r.flag(row["signature_changed"], f"{where}.signature_changed"),
        untested=r.flag(row["untested"], f"{where}.untested"),
        old_signature=r.optional_text(row["old_signature"], f"{where}.old_signature", TEXT_CHARS),
        new_signature=r.optional_text(row["new_signature"], f"{where}.new_signature", TEXT_CHARS),
    )


def _broken_row(r: _Reader, value: object, where: str) -> Row:
    row = r.fields(value, where, ("name", "file", "line", "why"))
    return Row(
        name=r.text(row["name"], f"{where}.name", NAME_CHARS),
        file=r.path(row["file"], f"{where}.file"),
        line=r.count(row["line"], f"{where}.line", 1),
        why=r.text(row["why"], f"{where}.why", TEXT_CHARS),
    )


def read_artifact(data: bytes) -> Claims:
    """The artifact's zip, checked whole: the claims it makes."""
    files = read_zip(data)
    number, head = read_claim(files["pr.json"])
    return read_report(files["report.json"], number, head)


# -- the untrusted side: the report's JSON form into the schema ----------------------------


def claims_from_report(report: Mapping[str, Any]) -> dict[str, object]:
    """``report.json`` from ``cartog-ci report``'s JSON form, cut to the
    schema's caps (the totals keep the whole counts)."""
    rows = [item for item in report.get("changed", []) if _worth_a_row(item)]
    rows.sort(key=lambda item: -int(item.get("callers_total") or 0))
    broken = [
        {"name": b["name"], "file": b["file"], "line": b["line"],
         "why": f"renamed to {b['new_name']}" if b.get("change") == "renamed" and b.get("new_name") else "removed"}
        for b in report.get("broken_references", [])
    ] + [
        {"name": s["name"], "file": s["file"], "line": s["line"], "why": s.get("reason") or "no longer fits"}
        for s in report.get("will_break", [])
    ]  # fmt: skip
    return {
        "schema": SCHEMA,
        "risk": {
            "level": report["risk"]["level"],
            "reasons": [_cut(r, TEXT_CHARS) for r in report["risk"]["reasons"][:MAX_REASONS]],
        },
        "files": len(report.get("files", [])),
        "changed": {"total": len(rows), "items": [_changed_claim(item) for item in rows[:MAX_ROWS]]},
        "will_break": {"total": len(broken), "items": [_cut_row(b) for b in broken[:MAX_ROWS]]},
        "tests": {
            "total": len(report.get("tests", [])),
            "commands": [_cut(c, COMMAND_CHARS) for c in report.get("test_commands", [])[:MAX_COMMANDS]],
        },
    }


def _worth_a_row(item: Mapping[str, Any]) -> bool:
    """What the Markdown report's main table shows: not documentation-only
    changes, nor modules and sections."""
    symbol = item.get("symbol") or item.get("old") or {}
    return item.get("category") not in ("docs", "children_changed") and symbol.get("kind") not in ("module", "section")


def _changed_claim(item: Mapping[str, Any]) -> dict[str, object]:
    symbol = item.get("symbol") or item.get("old") or {}
    return {
        "name": _cut(symbol.get("qualified_name") or "?", NAME_CHARS),
        "kind": str(symbol.get("kind") or "symbol"),
        "change": item["category"],
        "file": _cut_path(symbol.get("file") or "?"),
        "line": max(1, int(symbol.get("start_line") or 1)),
        "callers": int(item.get("callers_total") or 0),
        "breaking": item.get("signature_verdict") == "breaking",
        "signature_changed": bool(item.get("signature_changed")),
        "untested": bool(item.get("untested")),
        "old_signature": _cut(item["old_signature"], TEXT_CHARS) if item.get("old_signature") else None,
        "new_signature": _cut(item["new_signature"], TEXT_CHARS) if item.get("new_signature") else None,
    }


def _cut_row(row: dict[str, Any]) -> dict[str, object]:
    return {
        "name": _cut(row["name"], NAME_CHARS),
        "file": _cut_path(row["file"]),
        "line": max(1, int(row["line"])),
        "why": _cut(row["why"], TEXT_CHARS),
    }


def _cut(value: object, most: int) -> str:
    """One line of at most ``most`` characters, without the characters the
    schema refuses (they would make the whole artifact refused)."""
    text = "".join(ch if unicodedata.category(ch) not in _BANNED_CATEGORIES else " " for ch in str(value))
    text = text.strip() or "?"
    return text if len(text) <= most else text[: most - 1] + "…"


def _cut_path(value: object) -> str:
    """A path the schema takes: git allows a backslash in a name, the
    schema does not (it could mean a way out of the repository's URL)."""
    return _cut(str(value).replace("\\", "_"), PATH_CHARS)


def write_main(argv: Sequence[str]) -> int:
    """action.yml, mode ``artifact``: ``REPORT_JSON NUMBER HEAD_SHA DIR``
    writes ``DIR/pr.json`` and ``DIR/report.json``."""
    source, number, head, folder = argv
    try:
        report = json.loads(Path(source).read_text(encoding="utf-8"))
        claims = claims_from_report(report)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        sys.stderr.write(f"cartog-ci: cannot read the report's JSON form {source}: {_said(exc)}\n")
        return 2
    out = Path(folder)
    (out / "pr.json").write_text(json.dumps({"number": int(number), "head_sha": head}) + "\n", encoding="utf-8")
    (out / "report.json").write_text(json.dumps(claims, ensure_ascii=True, indent=1) + "\n", encoding="utf-8")
    return 0
