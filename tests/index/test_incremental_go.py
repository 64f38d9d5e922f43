"""Random edits of a small Go module: packages of several files sharing one
namespace, methods declared in another file than their type, imports of
another package of the module, files deleted and brought back. After every
step the incremental index equals a cold build of the same tree (the Go
rules of index/cascade.py: a package is a directory, a method is found
through its type)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.fixtures import init_repo
from tests.testing.histories import RandomTree, replay_as_cold

FUNCS = ("Alpha", "Beta", "Gamma", "run")
TYPES = ("Server", "Client")
FILES = ("app/a.go", "app/b.go", "app/c.go", "lib/x.go", "lib/y.go")


class _Module(RandomTree):
    def fixed(self) -> dict[str, str]:
        return {"go.mod": "module example.com/m\n\ngo 1.21\n"}

    def text(self, path: str) -> str:
        rng = self.rng
        package = path.split("/")[0]
        other = "lib" if package == "app" else "app"
        lines = [f"package {package}", ""]
        uses_other = package == "app" and rng.random() < 0.7
        if uses_other:
            lines += [f'import "example.com/m/{other}"', ""]
        for name in rng.sample(FUNCS, k=rng.randint(0, 2)):
            calls = [f"{c}()" for c in rng.sample(FUNCS, k=2)]
            if uses_other:
                calls.append(f"{other}.{rng.choice(FUNCS)}()")
            if rng.random() < 0.5:
                calls.append(f"s := {rng.choice(TYPES)}{{}}\n\ts.{rng.choice(['Start', 'Stop'])}()")
            body = "\n\t".join(calls)
            lines.append(f"func {name}() {{\n\t{body}\n}}\n")
        if rng.random() < 0.4:
            lines.append(f"type {rng.choice(TYPES)} struct{{}}\n")
        if rng.random() < 0.5:
            receiver = rng.choice(TYPES)
            method = rng.choice(["Start", "Stop"])
            lines.append(f"func (s *{receiver}) {method}() {{\n\ts.{rng.choice(['Start', 'Stop'])}()\n}}\n")
        return "\n".join(lines)


@pytest.mark.parametrize("seed", range(20, 32))
def test_random_go_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(_Module(repo, seed, FILES), tmp_path, f"seed {seed}", 16)


class _MethodSets(RandomTree):
    """Types whose method sets change at every edit (methods in another file
    than the type, embedded fields promoting them): which types satisfy
    `Runner`, so where `r.Start()` may dispatch, changes with them."""

    def fixed(self) -> dict[str, str]:
        return {
            "go.mod": "module example.com/m\n\ngo 1.21\n",
            "app/runner.go": (
                "package app\n\n"
                "type Runner interface {\n\tStart()\n\tStop()\n}\n\n"
                "func Drive(r Runner) {\n\tr.Start()\n\tr.Stop()\n}\n"
            ),
        }

    def text(self, path: str) -> str:
        rng = self.rng
        lines = ["package app", ""]
        for name in rng.sample(TYPES, k=rng.randint(0, 2)):
            embedded = rng.choice([t for t in TYPES if t != name]) if rng.random() < 0.4 else ""
            lines.append(f"type {name} struct{{\n\t{embedded}\n}}\n")
        for _ in range(rng.randint(1, 4)):
            star = "*" if rng.random() < 0.5 else ""
            lines.append(f"func (s {star}{rng.choice(TYPES)}) {rng.choice(['Start', 'Stop'])}() {{}}\n")
        return "\n".join(lines)


class _ResultTypes(_MethodSets):
    """Methods whose result types change at every edit: a type satisfies
    `Runner` only while `Start` gives an `error` as the interface says."""

    def fixed(self) -> dict[str, str]:
        fixed = super().fixed()
        fixed["app/runner.go"] = fixed["app/runner.go"].replace("\tStart()\n", "\tStart() error\n")
        return fixed

    def text(self, path: str) -> str:
        rng = self.rng
        lines = ["package app", ""]
        for name in rng.sample(TYPES, k=rng.randint(0, 2)):
            lines.append(f"type {name} struct{{}}\n")
        for _ in range(rng.randint(1, 4)):
            result = rng.choice(["", " error", " int"])
            body = {"": "{}", " error": "{ return nil }", " int": "{ return 0 }"}[result]
            lines.append(f"func (s *{rng.choice(TYPES)}) {rng.choice(['Start', 'Stop'])}(){result} {body}\n")
        return "\n".join(lines)


@pytest.mark.parametrize(
    ("tree", "seed"), [(_MethodSets, seed) for seed in range(40, 46)] + [(_ResultTypes, seed) for seed in range(50, 54)]
)
def test_method_set_edits_dispatch_as_cold(tmp_path: Path, tree: type[_MethodSets], seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(tree(repo, seed, ("app/a.go", "app/b.go", "app/c.go")), tmp_path, f"seed {seed}", 12)
