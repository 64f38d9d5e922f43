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

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.testing.fixtures import assert_as_cold, commit, exported, index, init_repo, write
from tests.testing.histories import RandomTree, replay_as_cold

NAMES = ("alpha", "beta", "gamma", "delta", "run")
MODULES = tuple(f"src/m{i}.ts" for i in range(4))


class _Project(RandomTree):
    """``files``: the modules; the barrel and the test files besides."""

    def _spec(self, path: str) -> str:
        return "./" + path.removeprefix("src/").removesuffix(".ts")

    def text(self, path: str) -> str:
        rng = self.rng
        own = rng.sample(NAMES, k=rng.randint(1, 3))
        others = sorted(self.files - {path})
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
        for path in sorted(self.files):
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
        source = self.rng.choice(["./index", *map(self._spec, sorted(self.files))])
        return (
            f'import {{ expect, test }} from "vitest";\nimport {{ {name} }} from "{source}";\n\n'
            f'test("{name}", () => {{\n  expect({name}()).toBe(1);\n}});\n'
        )

    def start(self) -> None:
        write(self.repo, {p: self.text(p) for p in MODULES})
        write(self.repo, {"src/index.ts": self.barrel_text(), "src/app.test.ts": self.test_text()})
        commit(self.repo, "initial")

    def operations(self) -> list[Callable[[], None]]:
        return [
            self.rewrite, self.rewrite, self.rewrite_barrel, self.add_test, self.delete_test,
            self.delete_module, self.restore, self.commit,
        ]  # fmt: skip

    def rewrite_barrel(self) -> None:
        write(self.repo, {"src/index.ts": self.barrel_text()})

    def add_test(self) -> None:
        write(self.repo, {f"src/t{self.rng.randint(0, 3)}.test.ts": self.test_text()})

    def delete_test(self) -> None:
        tests = sorted(p.name for p in (self.repo / "src").glob("*.test.ts"))
        if tests:
            (self.repo / "src" / self.rng.choice(tests)).unlink()

    def delete_module(self) -> None:  # down to one module (``delete`` keeps two)
        if len(self.files) > 1:
            path = self.rng.choice(sorted(self.files))
            self.files.discard(path)
            (self.repo / path).unlink()


@pytest.mark.parametrize("seed", range(10))
def test_random_ts_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(_Project(repo, seed, MODULES), tmp_path, f"seed {seed}", 15)


def test_a_namespace_re_export_revisits_only_the_names_its_module_binds_otherwise(tmp_path: Path) -> None:
    """`import * as z` of a module that now re-exports `one` from elsewhere:
    `z.one()` finds the new target; `z.two()` cannot change and is not
    revisited (zod HEAD~10 -> HEAD: 6,480 `z.` edges were)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "src/a.ts": "export function one() {}\nexport function two() {}\n",
        "src/b.ts": "export function one() {}\nexport function two() {}\n",
        "src/lib.ts": "export { one } from './a';\nexport { two } from './a';\n",
        "src/index.ts": "import * as z from './lib';\nexport { z };\n",
        "src/use.ts": "import { z } from './index';\n\nexport function go() {\n  z.one();\n  z.two();\n}\n",
    })  # fmt: skip
    commit(repo, "initial")
    index(repo)
    (repo / "src/lib.ts").write_text("export { one } from './b';\nexport { two } from './a';\n")
    result = index(repo)
    assert result.edges_resolved == 2  # lib's new import, use's z.one(), which read lib's binding of one
    calls = sorted((e["target_name"], e["target_id"]) for e in exported(repo)["edges"] if e["kind"] == "calls")
    assert calls == [("one", "src/b.ts:function:one"), ("two", "src/a.ts:function:two")]
    assert_as_cold(repo, tmp_path)


def test_a_class_edited_with_other_bases_re_resolves_calls_on_its_instances_elsewhere(tmp_path: Path) -> None:
    """A TS class edited in place does not make every call on a receiver
    resolve again (an interface or type alias never does): its methods stay
    in its body, its `extends` is a base compared as any other. Here its
    base changes with its body: `new Sub().run()` in another file follows."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "src/base.ts": "export class A {\n  run() {}\n}\n\nexport class B {\n  run() {}\n}\n",
        "src/sub.ts": (
            "import { A, B } from './base';\n\nexport interface Shape {\n  size: number;\n}\n\n"
            "export class Sub extends A {\n  go() {\n    this.run();\n  }\n}\n"
        ),
        "src/use.ts": "import { Sub } from './sub';\n\nexport function main() {\n  new Sub().run();\n}\n",
    })  # fmt: skip
    commit(repo, "initial")
    index(repo)

    def runs() -> list[tuple[str, str | None]]:
        return sorted((e["source_id"], e["target_id"]) for e in exported(repo)["edges"] if e["target_name"] == "run")

    sub = repo / "src/sub.ts"
    sub.write_text(sub.read_text().replace("  size: number;\n", "  size: number;\n  name: string;\n"))
    index(repo)  # an interface edited: nothing else to resolve again
    assert runs() == [("src/sub.ts:method:Sub.go", "src/base.ts:method:A.run"), ("src/use.ts:function:main", "src/base.ts:method:A.run")]
    sub.write_text(sub.read_text().replace("extends A {\n  go() {\n", "extends B {\n  go() {\n    const n = 1;\n"))
    index(repo)
    assert runs() == [("src/sub.ts:method:Sub.go", "src/base.ts:method:B.run"), ("src/use.ts:function:main", "src/base.ts:method:B.run")]
    assert_as_cold(repo, tmp_path)
