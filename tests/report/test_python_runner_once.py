"""A Python test's runner (languages/testrunners.py ``_python_runner``) is
decided by its file and class: asked of the graph once for all the
methods of a class."""

from __future__ import annotations

from pathlib import Path

from cartog_ci import languages
from cartog_ci.domain import Symbol


def test_a_python_test_class_runner_is_decided_once(tmp_path: Path) -> None:
    """languages/testrunners.py ``_python_runner``: what decides a method's
    runner is its file and class, asked of the graph once for all their
    methods (and once more for the whole-file count of the command)."""
    (tmp_path / "site" / "shop").mkdir(parents=True)
    (tmp_path / "site" / "manage.py").write_text("import sys\n")
    (tmp_path / "site" / "shop" / "tests.py").write_text("import unittest\n\n\nclass TestCalc(unittest.TestCase):\n")
    path = "site/shop/tests.py"
    cls = Symbol(
        id=f"{path}:class:TestCalc", name="TestCalc", qualified_name="TestCalc", kind="class", file=path,
        start_line=4, end_line=20, start_byte=0, end_byte=10, parent_id=None,
        signature="class TestCalc(unittest.TestCase)", language="python", content_hash="h", subtree_hash="h",
    )  # fmt: skip
    methods = [
        Symbol(
            id=f"{cls.id}.{name}", name=name, qualified_name=f"TestCalc.{name}", kind="method", file=path,
            start_line=5 + i, end_line=5 + i, start_byte=0, end_byte=10, parent_id=cls.id,
            signature=f"def {name}(self)", language="python", content_hash="h", subtree_hash="h",
        )  # fmt: skip
        for i, name in enumerate(("test_add", "test_mul", "test_sub", "test_div", "test_mod"))
    ]
    asked: list[str] = []

    def symbols_in_file(file: str) -> list[Symbol]:
        asked.append(file)
        return [cls, *methods] if file == path else []

    plan = languages.test_plan(methods[:2], root=str(tmp_path), symbols_in_file=symbols_in_file)
    assert [c.command for c in plan] == [
        "cd site && python manage.py test shop.tests.TestCalc.test_add shop.tests.TestCalc.test_mul"
    ]
    assert asked == [path, path]


def test_a_test_file_that_never_says_pytest_is_not_decoded_to_tell_it_imports_none(tmp_path: Path) -> None:
    """languages/testrunners.py ``Workspace.imports_pytest``: the word is
    looked for in the file's bytes first; a file without it is never read
    as text (its text is not kept), one with it is, and only an import line
    counts."""
    from cartog_ci.languages.testrunners import Workspace

    files = {
        "plain/tests.py": "import unittest\n\n\nclass TestCalc(unittest.TestCase):\n    pass\n",
        "marked/tests.py": "import os\nimport pytest\n\n\ndef test_a():\n    pass\n",
        "mentioned/tests.py": "# runs under pytest too\nimport unittest\n",
        "latin/tests.py": "# caf\xe9\nfrom pytest import fixture\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_bytes(text.encode("latin-1"))  # the last one is no UTF-8
    ws = Workspace(root=str(tmp_path))
    said = {path: ws.imports_pytest(path) for path in [*files, "missing/tests.py"]}
    assert said == {
        "plain/tests.py": False, "marked/tests.py": True, "mentioned/tests.py": False, "latin/tests.py": True,
        "missing/tests.py": False,
    }  # fmt: skip
    assert sorted(ws._texts) == ["latin/tests.py", "marked/tests.py", "mentioned/tests.py"]
