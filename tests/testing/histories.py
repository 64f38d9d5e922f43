"""Random edit histories of a small project, for the property that an
incremental index equals a cold build of the same tree after every step
(tests/index/test_incremental_ts.py, _go.py, _rust_java.py).

A subclass says what a file holds (``text``, new random content each time)
and what never changes (``fixed``); the history rewrites, deletes, brings
back and commits files at random, and may add operations of its own."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from tests.testing.fixtures import commit, exported, git, index, write


class RandomTree:
    def __init__(self, repo: Path, seed: int, files: tuple[str, ...]) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.all = files
        self.files = set(files)

    def text(self, path: str) -> str:
        raise NotImplementedError

    def fixed(self) -> dict[str, str]:
        return {}

    def start(self) -> None:
        write(self.repo, self.fixed())
        write(self.repo, {p: self.text(p) for p in self.all})
        commit(self.repo, "initial")

    def operations(self) -> list[Callable[[], None]]:
        return [self.rewrite, self.rewrite, self.rewrite, self.delete, self.restore, self.commit]

    def step(self) -> str:
        op = self.rng.choice(self.operations())
        op()
        return op.__name__

    def rewrite(self) -> None:
        path = self.rng.choice(sorted(self.files))
        write(self.repo, {path: self.text(path)})

    def delete(self) -> None:
        if len(self.files) > 2:
            path = self.rng.choice(sorted(self.files))
            self.files.discard(path)
            (self.repo / path).unlink()

    def restore(self) -> None:
        missing = sorted(set(self.all) - self.files)
        if missing:
            path = self.rng.choice(missing)
            self.files.add(path)
            write(self.repo, {path: self.text(path)})

    def commit(self) -> None:
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "step")


def replay_as_cold(tree: RandomTree, tmp_path: Path, label: str, steps: int) -> None:
    """``steps`` random edits, each indexed incrementally, then compared with
    a cold build of the same tree (``export``: symbols, edges, targets)."""
    tree.start()
    index(tree.repo)
    cold = tmp_path / "cold.db"
    resolved = 0
    for step in range(steps):
        op = tree.step()
        resolved += index(tree.repo).edges_resolved
        index(tree.repo, force=True, db=cold)
        assert exported(tree.repo) == exported(tree.repo, cold), f"{label}, step {step}: {op}"
        cold.unlink()
    assert resolved  # the edits changed what resolves
