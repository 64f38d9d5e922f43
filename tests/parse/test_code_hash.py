"""The code hash the report tells documentation-only edits by
(docs/report.md): the symbol's own code without its docstring, comments and
white space. A reformatted or re-documented symbol keeps it; any change of
code, of a docstring's place in the code, or of a child does not."""

from __future__ import annotations

from cartog_ci import languages


def _hashes(path: str, source: str) -> dict[str, tuple[str, str]]:
    """qualified name -> (content hash, code hash) of the symbols below the module."""
    language = languages.for_path(path)
    assert language is not None
    extraction = language.extract(path, source.encode("utf-8"))
    return {s.qualified_name: (s.content_hash, s.code_hash) for s in extraction.symbols[1:]}


PYTHON = (
    "class Stats:\n"
    '    """Counters."""\n\n'
    "    def inc(self, key, count=1):\n"
    '        """Add ``count``."""\n'
    "        self.d[key] = self.d.get(key, 0) + count  # no overflow\n"
    "        return self.d[key]\n"
)
PYTHON_REDOCUMENTED = (
    "class Stats:\n"
    '    """The counters of a run."""\n\n'
    "    def inc(self, key, count = 1):\n"
    '        """Add ``count`` to ``key``\n\n        and return it."""\n'
    "        # one line\n"
    "        self.d[key] = self.d.get(key,\n"
    "                                 0) + count\n\n"
    "        return self.d[key]\n"
)
PYTHON_CHANGED = PYTHON.replace("+ count", "- count")

TYPESCRIPT = (
    "export class Stats {\n"
    "  /** Adds `count`. */\n"
    "  inc(key: string, count = 1): number {\n"
    "    // no overflow\n"
    "    this.d[key] = (this.d[key] ?? 0) + count;\n"
    "    return this.d[key];\n"
    "  }\n"
    "}\n"
)
TYPESCRIPT_REFORMATTED = (
    "export class Stats {\n"
    "  inc(key: string, count = 1): number\n"
    "  {\n"
    "    this.d[key] =\n"
    "      (this.d[key] ?? 0) + count;  /* no overflow */\n\n"
    "    return this.d[key];\n"
    "  }\n"
    "}\n"
)


def test_a_python_docstring_comment_or_white_space_edit_keeps_the_code_hash() -> None:
    before, after = _hashes("stats.py", PYTHON), _hashes("stats.py", PYTHON_REDOCUMENTED)
    assert sorted(before) == sorted(after) == ["Stats", "Stats.inc"]
    for name in before:
        assert before[name][0] != after[name][0]  # the content hash sees docstrings and layout
        assert before[name][1] == after[name][1]


def test_a_python_code_edit_changes_the_code_hash_of_that_symbol_only() -> None:
    before, after = _hashes("stats.py", PYTHON), _hashes("stats.py", PYTHON_CHANGED)
    assert before["Stats.inc"][1] != after["Stats.inc"][1]
    assert before["Stats"][1] == after["Stats"][1]  # a child's code is not its parent's


def test_a_typescript_comment_or_layout_edit_keeps_the_code_hash() -> None:
    before, after = _hashes("stats.ts", TYPESCRIPT), _hashes("stats.ts", TYPESCRIPT_REFORMATTED)
    assert sorted(before) == sorted(after) == ["Stats", "Stats.inc"]
    assert before["Stats.inc"][0] != after["Stats.inc"][0]
    assert before["Stats.inc"][1] == after["Stats.inc"][1]
    changed = _hashes("stats.ts", TYPESCRIPT.replace("+ count", "- count"))
    assert changed["Stats.inc"][1] != before["Stats.inc"][1]
