"""Report verdicts on changes that real history holds, where a wrong answer
would be a false alarm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, git, init_repo, write

HEADERS_BEFORE = (
    "class CaselessDict(dict):\n"
    "    def __init__(self, seq=None):\n        super().__init__()\n        self.update(seq or {})\n\n"
    "    def get(self, key, default=None):\n        return dict.get(self, key.lower(), default)\n\n"
    "    def setdefault(self, key, default=None):\n        return dict.setdefault(self, key.lower(), default)\n\n\n"
    "class Headers(CaselessDict):\n"
    "    def __init__(self, seq=None, encoding='utf-8'):\n        self.encoding = encoding\n        super().__init__(seq)\n"
)
# scrapy df64fe32f: Headers no longer derives from CaselessDict, which is gone
HEADERS_AFTER = (
    "class Headers(dict):\n"
    "    def __init__(self, seq=None, encoding='utf-8'):\n        self.encoding = encoding\n        super().__init__(seq or {})\n\n"
    "    def setdefault(self, key, default=None):\n        return dict.setdefault(self, key.lower(), default)\n"
)


def test_a_base_class_replaced_by_a_builtin_breaks_no_super_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"http/headers.py": HEADERS_BEFORE, "http/__init__.py": ""})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"http/headers.py": HEADERS_AFTER})
    commit(repo, "headers derive from dict")
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related", "--fail-on", "broken-refs"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["broken_references"] == []
