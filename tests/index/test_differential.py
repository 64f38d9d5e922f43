"""The differential benchmark's steps (benchmarks/differential.py), a fast
seeded subset: small projects from tests/resources/ instead of release
histories, each walked by the same step generator (checkouts, edits,
reorderings, renames, deletions and restores, moves, file <-> directory
swaps, symlinks, ``kill -9`` and edits during a run), and after every step
the incremental index equals a cold build of the same tree.

The steps the index checks run in this process; a killed run and a run
edited under are the CLI's, as a subprocess. The second "release" a
checkout may go to is a commit of a few of the walk's own edits.

A seed that ends otherwise than a cold build is marked xfail, strict,
with its cause, so that it fails once the cause is fixed and the mark must
go."""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType
from pathlib import Path

import pytest

from tests.testing.fixtures import git, make_repo


def _load_steps() -> ModuleType:
    """benchmarks/differential.py, loaded by path: benchmarks/ is no package,
    and on sys.path its scripts (index.py, report.py ...) would shadow names."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "differential.py"
    spec = importlib.util.spec_from_file_location("differential", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["differential"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


differential = _load_steps()

STEPS = 12
RESOURCES = {
    "python": "pyproj",
    "typescript": "tsproj",
    "go": "goproj",
    "java": "javaproj",
    "rust": "rustproj",
}


def _case(language: str, seed: int, cause: str | None = None) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=cause)] if cause else []
    return pytest.param(language, seed, id=f"{language}-{seed}", marks=marks)


# Seeds 19 and 36 (Python), 16 (Java), 6 and 30 (Rust) ended otherwise than
# a cold build on 76bcc46 (a renamed import restored by a checkout, a package
# that stops being one, a module back from being a directory, a crate root
# deleted); they equal it since the recorded dependencies (docs/incremental.md).
CASES = [
    _case("python", 1),
    _case("python", 19),
    _case("python", 36),
    _case("typescript", 1),
    _case("go", 1),
    _case("java", 1),
    _case("java", 16),
    _case("rust", 1),
    _case("rust", 6),
    _case("rust", 30),
]


def walk(tmp_path: Path, language: str, seed: int, steps: int = STEPS) -> list[differential.StepResult]:
    repo = make_repo(tmp_path, RESOURCES[language])
    git(repo, "tag", "v1")
    index = tmp_path / "incremental.db"
    indexer = differential.InProcessIndexer(repo, dict(os.environ))
    walker = differential.Walker(repo, differential.SYNTAXES[language], f"test:{language}:{seed}", indexer, index, ["v1"])
    for _ in range(3):  # a second release: edits of the walk's own kinds, committed
        walker.step_of(differential.EDITS)
    walker.commit()
    git(repo, "checkout", "-q", "-f", "v1")
    differential.first_index(indexer, index)
    return differential.walk(walker, steps, tmp_path / "cold.db")


@pytest.mark.parametrize(("language", "seed"), CASES)
def test_every_step_equals_a_cold_build(tmp_path: Path, language: str, seed: int) -> None:
    differing = [
        f"step {r.step} {r.kind} ({r.detail}): "
        + "; ".join(f"{cause} x{n}, e.g. {r.differences.examples[cause]}" for cause, n in r.differences.counts.items())
        for r in walk(tmp_path, language, seed)
        if r.differences
    ]
    assert not differing, "\n".join(differing)


def _edge(line: int, target: str | None, name: str = "f", kind: str = "calls") -> dict[str, object]:
    return {"source_id": "a.py:function:g", "target_id": target, "target_name": name, "kind": kind,
            "file": "a.py", "line": line, "resolution": "exact" if target else None}  # fmt: skip


def _snapshot(edges: list[dict[str, object]], sha: str = "1", content: str = "def g(): f()") -> dict[str, list[dict[str, object]]]:
    return {
        "symbols": [{"id": "a.py:function:g", "name": "g", "in_degree": 0}],
        "edges": edges,
        "files": [{"path": "a.py", "sha256": sha}],
        "search": [{"symbol_id": "a.py:function:g", "content": content}],
    }


def test_compare_names_each_cause() -> None:
    """The harness sees a drift: each kind of difference gets its cause."""
    cold = _snapshot([_edge(1, "b.py:function:f"), _edge(2, None, "h"), _edge(3, "c.py:function:k", "k", "imports")])
    stored = _snapshot(
        [_edge(1, "x.py:function:f"), _edge(5, None, "h"), _edge(4, None, "z")], sha="2", content="def g(): pass"
    )
    stored["symbols"].append({"id": "gone.py:function:old", "name": "old", "in_degree": 0})
    found = differential.compare(stored, cold)
    assert dict(found.counts) == {
        "edge target differs [calls]": 1,
        "edge line differs [calls]": 1,
        "edge extra [calls]": 1,
        "edge missing [imports]": 1,
        "symbol extra": 1,
        "file sha256 differs": 1,
        "search row content differs": 1,
    }
    assert found.examples["edge target differs [calls]"].endswith("stored x.py:function:f (exact), cold b.py:function:f (exact)")
    assert not differential.compare(cold, cold)


def test_compare_sees_the_order_of_edges() -> None:
    a, b = _edge(1, "b.py:function:f"), _edge(1, None, "h")
    assert dict(differential.compare(_snapshot([a, b]), _snapshot([b, a])).counts) == {"edge order differs": 1}
