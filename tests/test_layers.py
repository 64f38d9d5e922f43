"""The package's imports point downward only (docs/architecture.md): a
module imports its own package and the layers below, never a layer above
nor a sibling of its layer. Every import counts, also those inside
functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

import cartog_ci

PACKAGE = Path(cartog_ci.__file__).resolve().parent
# Top first; units on one line are siblings and must not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("launch",),  # the executable: starts git, then runs the CLI
    ("cli",),
    ("commands",),
    ("report", "search"),
    ("precise",),  # the compiler tier: the TypeScript language service, jedi (report time only)
    ("index",),
    ("graph", "embed", "workspace", "github"),
    ("pr_comment",),  # the fork-PR comment from a checked artifact: the standard library and errors only
    ("pr_artifact",),
    ("languages",),
    ("parse",),
    ("store", "git", "config", "codecache"),
    ("domain",),
    ("errors",),
    ("cartog_ci",),  # the package's __init__ (its version)
)
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else "cartog_ci"


def _imports(path: Path, module: str) -> list[tuple[str, int]]:
    """(imported cartog_ci module, line) of every import in the file of
    ``module`` (dotted, ``__init__`` for a package's own file); a relative
    import is taken from the module's package."""
    package = module.split(".")[:-1]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(anchor + (node.module.split(".") if node.module else []))
            if target.split(".")[0] != "cartog_ci":
                continue
            names = [f"{target}.{a.name}" for a in node.names] if target == "cartog_ci" else [target]
            found += [(name, node.lineno) for name in names]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "cartog_ci"]
    return found


def _violations() -> list[str]:
    out: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        name = ".".join(rel.with_suffix("").parts)
        source = _unit(name)
        for module, line in _imports(path, name):
            target = _unit(module)
            if target != source and RANK[target] <= RANK[source]:
                out.append(f"{rel}:{line} ({source}) imports {module} ({target})")
    return out


def test_every_module_belongs_to_a_layer() -> None:
    units = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    units -= {"__init__", "__pycache__", "templates"}
    assert units <= set(RANK), sorted(units - set(RANK))


def test_imports_point_downward_only() -> None:
    assert _violations() == []


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from cartog_ci.report import build\n")
    assert [(_unit(m), line) for m, line in _imports(bad, "cartog_ci.index.bad")] == [("report", 2)]
    assert RANK["report"] < RANK["index"]  # so index/bad.py would be a violation


def test_relative_imports_are_read_from_the_module_package(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from ..report import build\nfrom . import files\nfrom .. import search\nfrom .cascade import run\n")
    assert _imports(bad, "cartog_ci.index.bad") == [
        ("cartog_ci.report", 1),
        ("cartog_ci.index", 2),
        ("cartog_ci.search", 3),
        ("cartog_ci.index.cascade", 4),
    ]
    init = tmp_path / "__init__.py"
    init.write_text("from .sqlite import SqliteStore\nfrom .. import domain\n")
    assert _imports(init, "cartog_ci.store.__init__") == [("cartog_ci.store.sqlite", 1), ("cartog_ci.domain", 2)]
