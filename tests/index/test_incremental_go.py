"""Random edits of a small Go module: packages of several files sharing one
namespace, methods declared in another file than their type, imports of
another package of the module, files deleted and brought back. After every
step the incremental index equals a cold build of the same tree (the Go
rules of index/cascade.py: a package is a directory, a method is found
through its type)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.testing.fixtures import commit, exported, git, index, init_repo, write

FUNCS = ("Alpha", "Beta", "Gamma", "run")
TYPES = ("Server", "Client")
FILES = ("app/a.go", "app/b.go", "app/c.go", "lib/x.go", "lib/y.go")


class _Module:
    def __init__(self, repo: Path, seed: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.files = set(FILES)

    def file_text(self, path: str) -> str:
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

    def start(self) -> None:
        write(self.repo, {"go.mod": "module example.com/m\n\ngo 1.21\n"})
        write(self.repo, {p: self.file_text(p) for p in FILES})
        commit(self.repo, "initial")

    def step(self) -> str:
        op = self.rng.choice([self.rewrite, self.rewrite, self.rewrite, self.delete, self.restore, self.commit])
        op()
        return op.__name__

    def rewrite(self) -> None:
        path = self.rng.choice(sorted(self.files))
        write(self.repo, {path: self.file_text(path)})

    def delete(self) -> None:
        if len(self.files) > 2:
            path = self.rng.choice(sorted(self.files))
            self.files.discard(path)
            (self.repo / path).unlink()

    def restore(self) -> None:
        missing = sorted(set(FILES) - self.files)
        if missing:
            path = self.rng.choice(missing)
            self.files.add(path)
            write(self.repo, {path: self.file_text(path)})

    def commit(self) -> None:
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "step")


@pytest.mark.parametrize("seed", range(20, 32))
def test_random_go_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    module = _Module(repo, seed)
    module.start()
    index(repo)
    cold = tmp_path / "cold.db"
    resolved = 0
    for step in range(16):
        op = module.step()
        resolved += index(repo).edges_resolved
        index(repo, force=True, db=cold)
        assert exported(repo) == exported(repo, cold), f"seed {seed}, step {step}: {op}"
        cold.unlink()
    assert resolved  # the edits changed what resolves
