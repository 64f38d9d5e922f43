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
    ("cli",),
    ("commands",),
    ("report", "search"),
    ("index",),
    ("graph", "embed", "workspace", "github"),
    ("languages",),
    ("parse",),
    ("store", "git", "config"),
    ("domain",),
    ("errors",),
    ("cartog_ci",),  # the package's __init__ (its version)
)
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else "cartog_ci"


def _imports(path: Path) -> list[tuple[str, int]]:
    """(imported cartog_ci module, line) of every import in a file."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "cartog_ci":
            names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "cartog_ci" else [node.module]
            found += [(name, node.lineno) for name in names]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "cartog_ci"]
    return found


def _violations() -> list[str]:
    out: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        source = _unit(".".join(rel.with_suffix("").parts))
        for module, line in _imports(path):
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
    assert [(_unit(m), line) for m, line in _imports(bad)] == [("report", 2)]
    assert RANK["report"] < RANK["index"]  # so index/bad.py would be a violation
