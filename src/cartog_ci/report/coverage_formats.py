"""The coverage formats ``cartog-ci coverage import`` reads besides
coverage.py's (docs/coverage.md, "What each format gives, and cannot"),
told apart by their content:

- V8 coverage JSON (``NODE_V8_COVERAGE=DIR``: a file, or the directory of
  one test file's run): ``{"result": [{"url", "functions": [{"ranges":
  [{"startOffset", "endOffset", "count"}]}]}]}``, offsets in UTF-16 code
  units of the script's source, block ranges nested in their function's;
- istanbul ``coverage-final.json`` (c8, vitest and jest ``--coverage``
  with the ``json`` reporter): ``{path: {"statementMap", "s", "fnMap",
  "f"}}``;
- a Go cover profile (``go test -coverprofile``): ``mode: set|count|atomic``
  then ``file:startLine.startCol,endLine.endCol statements count`` lines;
- JaCoCo XML (``jacococli report --xml``, ``jacoco:report``):
  ``<report name><package name="com/shop"><sourcefile name="Foo.java">
  <line nr ci .../>``.

Each gives the lines executed by one *unit* (a test file, a Go package, a
Java test class) run on its own; V8 and istanbul also give each function's
call count (``UnitRecording.functions``), which tells a function never
called from the lines its definer ran (``const half = (x) => x / 2;``,
the ``};`` or ``},`` that closes a function expression or an object
literal's method): the unit is named by the file's content
where it can be (the test files a V8 or istanbul recording executed, the
one package a profile measures, the JaCoCo report's name), else by the
user (``UNIT=FILE``). A recording's contexts are ``file PATH``,
``package DIR`` and ``class NAME``; ``report/coverage.py`` resolves them
to the unit's tests.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from cartog_ci.errors import CartogError

# measured file (as recorded) -> line -> the contexts that executed it
Lines = dict[str, dict[int, set[str]]]
_GO_LINE = re.compile(r"^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$")
_WORDS = re.compile(r"\S+")
# the context prefixes of the per-unit formats, by format
UNIT_KINDS = {"v8": "file", "istanbul": "file", "go": "package", "jacoco": "class"}
FORMAT_NAMES = {
    "coverage.py": "coverage.py data",
    "v8": "V8 coverage JSON",
    "istanbul": "istanbul coverage JSON",
    "go": "Go cover profile",
    "jacoco": "JaCoCo XML",
}
_HOW = (
    "pass a coverage.py data file (.coverage), V8 coverage JSON (NODE_V8_COVERAGE), istanbul coverage-final.json, "
    "a Go cover profile (go test -coverprofile) or a JaCoCo XML report (docs/coverage.md)"
)


@dataclass
class UnitRecording:
    """What one file of a per-unit format recorded: the lines each measured
    file executed, and what names its unit."""

    format: str
    lines: dict[str, set[int]] = field(default_factory=dict)  # measured path -> executed lines
    # the measured paths a V8 or istanbul recording executed (its test files among them)
    executed_files: list[str] = field(default_factory=list)
    name: str = ""  # JaCoCo: the report's name (jacococli report --name, the Maven plugin's title)
    # V8 and istanbul: measured path -> (start byte, end byte, calls) of each
    # function the recording lists, in UTF-8 bytes of the file's text (a
    # script run twice, in two processes of one unit, lists it twice)
    functions: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)


def detect(path: Path) -> str:
    """The format of a coverage file (or a NODE_V8_COVERAGE directory), by its
    content; one line naming what is accepted for anything else."""
    if path.is_dir():
        if any(path.glob("coverage-*.json")):
            return "v8"
        raise CartogError(f"{path} is a directory without V8 coverage files (coverage-*.json): {_HOW}")
    if not path.is_file():
        raise CartogError(f"no coverage file {path}: {_HOW}")
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise CartogError(f"cannot read {path} ({exc.strerror}): {_HOW}") from exc
    if head.startswith(b"SQLite format 3\0"):
        return "coverage.py"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"mode:"):
        return "go"
    if text.startswith(b"<") and b"<report" in head:
        return "jacoco"
    if text.startswith(b"{"):
        data = _json(path)
        if isinstance(data.get("result"), list):
            return "v8"
        first = next(iter(data.values()), None)
        if not data or isinstance(first, dict) and "statementMap" in first:
            return "istanbul"
    raise CartogError(f"{path} is no coverage format cartog-ci reads: {_HOW}")


def _json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CartogError(f"{path} is damaged JSON ({exc}): {_HOW}") from exc
    if not isinstance(data, dict):
        raise CartogError(f"{path} is no coverage format cartog-ci reads: {_HOW}")
    return data


def _damaged(path: Path, kind: str, what: str) -> CartogError:
    return CartogError(f"{path} is damaged {FORMAT_NAMES[kind]} ({what}): record it again")


# -- V8 ----------------------------------------------------------------------


def _v8_file(url: str) -> str | None:
    """The path of a script's ``file://`` URL (node's own scripts, ``node:``, none)."""
    if not url.startswith("file://"):
        return None
    return unquote(urlparse(url).path)


def read_v8(path: Path, text_of: Callable[[str], str | None]) -> UnitRecording:
    """The lines with an executed character that is not white space, of
    each script; ``text_of`` reads a measured file's source (None: not one
    of the repository's, skipped)."""
    files = sorted(path.glob("coverage-*.json")) if path.is_dir() else [path]
    out = UnitRecording("v8")
    for one in files:
        data = _json(one)
        scripts = data.get("result")
        if not isinstance(scripts, list):
            raise _damaged(one, "v8", "no result list")
        for script in scripts:
            try:
                measured = _v8_file(str(script["url"]))
                functions = script["functions"]
                if measured is None:
                    continue
                text = text_of(measured)
                if text is None:
                    continue
                ranges = [
                    (int(r["startOffset"]), int(r["endOffset"]), int(r["count"])) for f in functions for r in f["ranges"]
                ]
                # a function's first range is the function's own, with its call count
                own = [(int(f["ranges"][0]["startOffset"]), int(f["ranges"][0]["endOffset"]), int(f["ranges"][0]["count"]))
                       for f in functions if f["ranges"]]  # fmt: skip
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise _damaged(one, "v8", f"a script without url, functions or ranges: {exc}") from exc
            executed = _v8_lines(text, ranges)
            if executed:
                out.lines.setdefault(measured, set()).update(executed)
            to_byte = _utf16_to_byte(text)
            out.functions.setdefault(measured, []).extend((to_byte(a), to_byte(b), n) for a, b, n in own)
    out.executed_files = sorted(out.lines)
    return out


def _v8_lines(text: str, ranges: list[tuple[int, int, int]]) -> set[int]:
    """Block coverage to lines: ranges are painted outermost first, so an
    inner range's count wins where it nests (a function never called, a
    branch never taken); offsets are UTF-16 code units."""
    units = text.encode("utf-16-le")
    size = len(units) // 2
    flags = bytearray(size)
    for start, end, count in sorted(ranges, key=lambda r: (r[0], -r[1])):
        start, end = max(start, 0), min(end, size)
        if start < end:
            flags[start:end] = (b"\x01" if count > 0 else b"\x00") * (end - start)
    executed: set[int] = set()
    offset = 0  # in UTF-16 units
    for number, line in enumerate(text.split("\n"), 1):
        wide = line if line.isascii() else None
        for word in _WORDS.finditer(line):
            if wide is None:  # a line with characters outside ASCII: count its UTF-16 units
                a = offset + len(line[: word.start()].encode("utf-16-le")) // 2
                b = a + len(word.group().encode("utf-16-le")) // 2
            else:
                a, b = offset + word.start(), offset + word.end()
            if 1 in flags[a:b]:
                executed.add(number)
                break
        offset += (len(line) if wide is not None else len(line.encode("utf-16-le")) // 2) + 1
    return executed


def _utf16_to_byte(text: str) -> Callable[[int], int]:
    """An offset in UTF-16 code units of ``text`` (V8's, JavaScript's
    string indices) as one in UTF-8 bytes (the index's ``start_byte``)."""
    if text.isascii():
        return lambda at: at
    starts = [0]  # the byte offset of each UTF-16 unit, and of the end
    for ch in text:
        size = len(ch.encode("utf-8", "surrogatepass"))
        if ord(ch) > 0xFFFF:  # two UTF-16 units: the second one starts where the character does
            starts.append(starts[-1])
        starts.append(starts[-1] + size)
    return lambda at: starts[min(max(at, 0), len(starts) - 1)]


# -- istanbul ----------------------------------------------------------------


def read_istanbul(path: Path, text_of: Callable[[str], str | None] | None = None) -> UnitRecording:
    """The first line of each statement executed, and the last line of each
    function called (a function without statements is called too); each
    function's call count where ``text_of`` reads the measured file."""
    out = UnitRecording("istanbul")
    for key, entry in _json(path).items():
        if not isinstance(entry, dict):
            raise _damaged(path, "istanbul", f"{key}: not an object")
        try:
            measured = str(entry.get("path") or key)
            statements, counts = entry["statementMap"], entry["s"]
            lines = {int(statements[i]["start"]["line"]) for i, n in counts.items() if int(n) > 0}
            functions, calls = entry.get("fnMap", {}), entry.get("f", {})
            lines |= {int(functions[i]["loc"]["end"]["line"]) for i, n in calls.items() if int(n) > 0}
            text = text_of(measured) if text_of is not None and calls else None
            if text is not None:
                at = _line_column_to_byte(text)
                out.functions[measured] = [
                    (at(functions[i]["loc"]["start"]), at(functions[i]["loc"]["end"]), int(n)) for i, n in calls.items()
                ]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise _damaged(path, "istanbul", f"{key}: {exc!r}") from exc
        out.lines.setdefault(measured, set()).update(lines)  # measured even where nothing ran
    out.executed_files = sorted(m for m, lines in out.lines.items() if lines)
    return out


def _line_column_to_byte(text: str) -> Callable[[dict[str, object]], int]:
    """istanbul's ``{"line": 1-based, "column": 0-based in UTF-16 units}``
    as an offset in UTF-8 bytes of ``text``."""
    to_byte = _utf16_to_byte(text)
    starts = [0]  # UTF-16 offset of each line's start
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line.encode("utf-16-le")) // 2 + 1)

    def at(position: dict[str, object]) -> int:
        line = min(max(int(position["line"]), 1), len(starts) - 1)  # type: ignore[call-overload]
        return to_byte(starts[line - 1] + max(int(position.get("column") or 0), 0))  # type: ignore[call-overload]

    return at


# -- Go ----------------------------------------------------------------------


def read_go(path: Path) -> UnitRecording:
    """The lines of each block run at least once (a block never spans two
    functions: the profile's blocks are a function body's statements)."""
    out = UnitRecording("go")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise _damaged(path, "go", str(exc)) from exc
    if not lines or not re.match(r"^mode: (set|count|atomic)$", lines[0].strip()):
        raise _damaged(path, "go", "its first line is not mode: set, count or atomic")
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        found = _GO_LINE.match(line.strip())
        if found is None:
            raise _damaged(path, "go", f"line {number} is not file:line.col,line.col statements count")
        measured, start, end, count = found.group(1), int(found.group(2)), int(found.group(4)), int(found.group(7))
        into = out.lines.setdefault(measured, set())  # measured even where nothing ran
        if count > 0:
            into.update(range(start, end + 1))
    return out


# -- JaCoCo ------------------------------------------------------------------


def read_jacoco(path: Path) -> UnitRecording:
    """The lines with a covered instruction (``ci`` > 0), by source file
    (``package/File.java``); the report's name."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(path).getroot()  # expat: no external DTD or entity is fetched
    except (OSError, ET.ParseError) as exc:
        raise _damaged(path, "jacoco", str(exc)) from exc
    if root.tag != "report":
        raise CartogError(f"{path} is no coverage format cartog-ci reads: {_HOW}")
    out = UnitRecording("jacoco", name=root.get("name", ""))
    try:
        for package in root.iter("package"):
            folder = package.get("name", "")
            for source in package.iter("sourcefile"):
                measured = posixpath.join(folder, source.get("name", ""))
                into = out.lines.setdefault(measured, set())
                into.update(int(line.get("nr", "0")) for line in source.iter("line") if int(line.get("ci", "0")) > 0)
    except ValueError as exc:
        raise _damaged(path, "jacoco", f"a line's nr or ci is no number: {exc}") from exc
    return out


def read_unit(kind: str, path: Path, text_of: Callable[[str], str | None]) -> UnitRecording:
    if kind == "v8":
        return read_v8(path, text_of)
    if kind == "istanbul":
        return read_istanbul(path, text_of)
    if kind == "go":
        return read_go(path)
    return read_jacoco(path)
