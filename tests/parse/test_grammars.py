"""A grammar's compiled module is loaded without its package's ``__init__``
(languages/grammars.py): the parse is the same, and a process that parses
Python and Markdown imports no ``importlib.resources`` (nor ``tempfile``)."""

from __future__ import annotations

import subprocess
import sys

from cartog_ci.languages.grammars import binding


def test_a_binding_gives_the_package_own_languages() -> None:
    """Loaded first, then the package: the package exports the same functions."""
    code = (
        "import sys\n"
        "import tree_sitter as ts\n"
        "from cartog_ci.languages.grammars import binding\n"
        "python, markdown = binding('tree_sitter_python'), binding('tree_sitter_markdown')\n"
        "print('tree_sitter_python' in sys.modules, 'tree_sitter_markdown' in sys.modules)\n"
        "import tree_sitter_markdown, tree_sitter_python\n"
        "print(tree_sitter_python.language is python.language, tree_sitter_markdown.language is markdown.language)\n"
        "print(ts.Language(python.language()) == ts.Language(tree_sitter_python.language()))\n"
        "print(ts.Language(markdown.inline_language()) == ts.Language(tree_sitter_markdown.inline_language()))\n"
        "tree = ts.Parser(ts.Language(python.language())).parse(b'def f(x):\\n    return g(x)\\n')\n"
        "print(tree.root_node.children[0].type)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout == "False False\nTrue True\nTrue\nTrue\nfunction_definition\n"


def test_a_package_without_a_binding_file_is_imported_whole() -> None:
    assert binding("json") is sys.modules["json"]


def test_parsing_python_and_markdown_imports_no_resources_reader() -> None:
    code = (
        "import sys\n"
        "from cartog_ci import languages\n"
        "python = languages.extract('a.py', b'def f():\\n    return 1\\n', 'python')\n"
        "markdown = languages.extract('README.md', b'# Title\\n\\n[x](a.py)\\n', 'markdown')\n"
        "assert [s.name for s in python.symbols][1:] == ['f'] and markdown.symbols, (python, markdown)\n"
        "print(sorted(m for m in ('importlib.resources', 'tempfile', 'tree_sitter_python', 'tree_sitter_markdown') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout == "[]\n"
