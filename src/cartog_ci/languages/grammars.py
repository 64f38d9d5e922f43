"""A grammar package's compiled module, loaded without the package.

The grammar packages (``tree_sitter_python``, ``tree_sitter_markdown``, …)
import ``importlib.resources`` in their ``__init__`` for query files that
cartog-ci never reads, and with it ``tempfile`` and ``random`` (~7M
instructions of a Django report's start-up, measured while its Markdown
form was rendered without Jinja2, whose bytecode cache imports
``tempfile`` anyway: docs/report.md, "Start-up"). Their ``_binding``
extension, what ``language()`` comes from, needs none of it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType


def binding(package: str) -> ModuleType:
    """``<package>._binding``, loaded from the package's folder without
    running the package's ``__init__``; the package itself (which exports the
    same functions) where it holds no such file."""
    name = f"{package}._binding"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            if os.path.isfile(path):
                loader = importlib.machinery.ExtensionFileLoader(name, path)
                found = importlib.util.spec_from_file_location(name, path, loader=loader)
                if found is None:
                    continue
                module = importlib.util.module_from_spec(found)
                loader.exec_module(module)
                sys.modules[name] = module
                return module
    return importlib.import_module(package)
