"""Random edits of a small TypeScript project with barrels, re-exports,
namespace imports and test files: after every step the incremental index
equals a cold build of the same tree.

JS/TS have rules of their own in the incremental run (index/cascade.py): an
imported name is never a module file, and the names a file's imports bind
are re-resolved across the project only when some import names that file
(``_seen_elsewhere``). Every edit here exercises one of them: a module
rewritten with other exports and imports, the barrel re-exporting other
modules, test files added and deleted, modules deleted and brought back.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.testing.fixtures import commit, exported, git, index, init_repo, write

NAMES = ("alpha", "beta", "gamma", "delta", "run")
MODULES = tuple(f"src/m{i}.ts" for i in range(4))


class _Project:
    def __init__(self, repo: Path, seed: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.modules = set(MODULES)

    def _spec(self, path: str) -> str:
        return "./" + path.removeprefix("src/").removesuffix(".ts")

    def module_text(self, path: str) -> str:
        rng = self.rng
        own = rng.sample(NAMES, k=rng.randint(1, 3))
        others = sorted(self.modules - {path})
        lines: list[str] = []
        visible = list(own)
        for _ in range(rng.randint(0, 3)):
            source = rng.choice([*map(self._spec, others), "./index", "vitest"]) if others else "./index"
            name = rng.choice(NAMES)
            if rng.random() < 0.3:
                alias = f"ns{len(lines)}"
                lines.append(f'import * as {alias} from "{source}";')
                visible.append(f"{alias}.{name}")
            elif name not in own:
                lines.append(f'import {{ {name} }} from "{source}";')
                visible.append(name)
        if rng.random() < 0.3 and others:
            lines.append(f'export {{ {rng.choice(NAMES)} }} from "{self._spec(rng.choice(others))}";')
        lines.append("")
        for name in own:
            calls = " + ".join(f"{c}()" for c in rng.sample(visible, k=min(2, len(visible))))
            lines.append(f"export function {name}(): number {{\n  return {calls or '0'};\n}}\n")
        return "\n".join(lines)

    def barrel_text(self) -> str:
        lines = []
        for path in sorted(self.modules):
            kind = self.rng.random()
            if kind < 0.5:
                lines.append(f'export * from "{self._spec(path)}";')
            elif kind < 0.7:
                lines.append(f'export * as {path.removeprefix("src/").removesuffix(".ts")} from "{self._spec(path)}";')
            elif kind < 0.85:
                lines.append(f'export {{ {self.rng.choice(NAMES)} }} from "{self._spec(path)}";')
        return "\n".join(lines) + "\n"

    def test_text(self) -> str:
        name = self.rng.choice(NAMES)
        source = self.rng.choice(["./index", *map(self._spec, sorted(self.modules))])
        return (
            f'import {{ expect, test }} from "vitest";\nimport {{ {name} }} from "{source}";\n\n'
            f'test("{name}", () => {{\n  expect({name}()).toBe(1);\n}});\n'
        )

    def start(self) -> None:
        write(self.repo, {p: self.module_text(p) for p in MODULES})
        write(self.repo, {"src/index.ts": self.barrel_text(), "src/app.test.ts": self.test_text()})
        commit(self.repo, "initial")

    def step(self) -> str:
        op = self.rng.choice(
            [self.rewrite_module, self.rewrite_module, self.rewrite_barrel, self.add_test, self.delete_test,
             self.delete_module, self.restore_module, self.commit]
        )  # fmt: skip
        op()
        return op.__name__

    def rewrite_module(self) -> None:
        path = self.rng.choice(sorted(self.modules))
        write(self.repo, {path: self.module_text(path)})

    def rewrite_barrel(self) -> None:
        write(self.repo, {"src/index.ts": self.barrel_text()})

    def add_test(self) -> None:
        write(self.repo, {f"src/t{self.rng.randint(0, 3)}.test.ts": self.test_text()})

    def delete_test(self) -> None:
        tests = sorted(p.name for p in (self.repo / "src").glob("*.test.ts"))
        if tests:
            (self.repo / "src" / self.rng.choice(tests)).unlink()

    def delete_module(self) -> None:
        if len(self.modules) > 1:
            path = self.rng.choice(sorted(self.modules))
            self.modules.discard(path)
            (self.repo / path).unlink()

    def restore_module(self) -> None:
        missing = sorted(set(MODULES) - self.modules)
        if missing:
            path = self.rng.choice(missing)
            self.modules.add(path)
            write(self.repo, {path: self.module_text(path)})

    def commit(self) -> None:
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "step")


@pytest.mark.parametrize("seed", range(10))
def test_random_ts_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    project = _Project(repo, seed)
    project.start()
    index(repo)
    cold = tmp_path / "cold.db"
    resolved = 0
    for step in range(15):
        op = project.step()
        result = index(repo)
        resolved += result.edges_resolved
        index(repo, force=True, db=cold)
        assert exported(repo) == exported(repo, cold), f"seed {seed}, step {step}: {op}"
        cold.unlink()
    assert resolved  # the edits changed what resolves
