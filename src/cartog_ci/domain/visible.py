"""Characters that change how text reads without being seen: bidirectional
controls (U+202E turns ``txt.exe`` around, "Trojan Source") and zero-width
ones (U+200B, U+200D) that make two names look the same. Wherever text from
a repository is printed (the Markdown report, the terminal, ``outline`` …)
they are shown escaped, ``\\u202e``; JSON keeps the value and writes them
as JSON escapes (``commands/output.py``)."""

from __future__ import annotations

import re

INVISIBLE = re.compile(
    "[\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0]"
)


def escape_invisible(text: str) -> str:
    """``text`` with each invisible or bidirectional character as ``\\uXXXX``."""
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(text: str) -> str:
    """An error message as one printable line: invisible characters escaped,
    control characters (a newline or ESC in a path git allows) as ``?``."""
    return re.sub(r"[\x00-\x1f\x7f\x9b]", "?", escape_invisible(text))


# Names and paths from the repository inside the report's sentences (risk
# reasons, call-site verdicts) are set between these marks: the Markdown
# renders them as code spans, the terminal and JSON drop the marks
# (report/render.py). Here, not in domain/results.py: the languages' call
# checks name parameters too, and an index run should not build the
# report's classes (~7 ms at start-up).
NAME = "\x1f"


def named(value: object) -> str:
    text = str(value).replace(NAME, " ")  # a mark inside a name cannot end it early
    return f"{NAME}{text}{NAME}"
