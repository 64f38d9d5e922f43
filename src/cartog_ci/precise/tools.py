"""Which compiler-grade tools this repository and machine have (docs/report.md,
"The compiler tier"): the TypeScript language service when the repository
has ``typescript`` in its ``node_modules`` and ``node`` is on PATH; jedi
when it is installed beside cartog-ci (the ``precise`` extra). Neither is
ever downloaded; when one is missing, why, in one line."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TS_EXTENSIONS = (".ts", ".mts", ".cts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")
PY_EXTENSIONS = (".py",)
# the files besides the sources that change what the tool answers
TS_CONFIG_FILES = ("tsconfig.json", "package.json", "node_modules/typescript/package.json")
PY_CONFIG_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


@dataclass(frozen=True)
class Tool:
    name: str  # "typescript" | "jedi": the cache's key and the report's word
    label: str  # the languages it answers for, as the report says them
    languages: frozenset[str]  # cartog-ci language names of the changed symbols it answers for
    extensions: tuple[str, ...]  # the files whose call sites it is asked about
    config_files: tuple[str, ...]
    version: str  # its package's version; "" when unavailable
    why: str  # "" when available, else why not, in one line
    argv: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return not self.why


def typescript(root: Path) -> Tool:
    package = root / "node_modules" / "typescript" / "package.json"
    node = shutil.which("node")
    version, why = "", ""
    if node is None:
        why = "no `node` on PATH"
    elif not package.is_file():
        why = "no node_modules/typescript in the repository (`npm install --save-dev typescript` adds it)"
    else:
        try:
            version = str(json.loads(package.read_text("utf-8")).get("version", ""))
        except (OSError, ValueError, AttributeError) as exc:
            why = f"node_modules/typescript/package.json cannot be read ({type(exc).__name__})"
    argv = (node or "node", str(HERE / "ts_service.mjs"), str(package.parent), str(root))
    return Tool(
        "typescript", "TypeScript/JavaScript", frozenset({"typescript", "tsx", "javascript"}),
        TS_EXTENSIONS, TS_CONFIG_FILES, version, why, argv,
    )  # fmt: skip


def jedi(root: Path) -> Tool:
    version, why = "", ""
    spec = importlib.util.find_spec("jedi")
    if spec is None:
        why = "jedi is not installed (`pip install 'cartog-ci[precise]'` adds it)"
    else:
        version = _declared_version(spec.origin) or _installed_version("jedi")
    argv = (sys.executable, str(HERE / "jedi_service.py"), str(root))
    return Tool("jedi", "Python", frozenset({"python"}), PY_EXTENSIONS, PY_CONFIG_FILES, version, why, argv)


_VERSION = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.M)


def _declared_version(origin: str | None) -> str:
    """The ``__version__`` a package's ``__init__.py`` declares: a read of
    one file, where ``importlib.metadata`` scans every installed
    distribution (~35 ms a report)."""
    try:
        found = _VERSION.search(Path(origin).read_text("utf-8")) if origin else None
    except (OSError, UnicodeDecodeError):
        return ""
    return found.group(1) if found else ""


def _installed_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed(name)
    except PackageNotFoundError:
        return "?"


def detect(root: Path) -> tuple[Tool, ...]:
    return (typescript(root), jedi(root))
