"""Random edits of a small Rust crate and a small Java project: after every
step the incremental index equals a cold build of the same tree.

Rust: modules declared in lib.rs, `use crate::...` and `pub use`
re-exports, `impl` blocks away from their type, paths called without a
`use`. Java: one class a file in package directories, imports (static ones
too), subclasses in other files, calls through `this` and inherited
methods."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.fixtures import init_repo
from tests.testing.histories import RandomTree, replay_as_cold

RUST_FILES = ("src/a.rs", "src/b.rs", "src/util/mod.rs", "src/util/deep.rs")
RUST_FNS = ("alpha", "beta", "run")
JAVA_FILES = ("src/com/x/A.java", "src/com/x/B.java", "src/com/y/C.java", "src/com/y/D.java")
JAVA_METHODS = ("alpha", "beta", "run")


class _Crate(RandomTree):
    MODULES = {"src/a.rs": "a", "src/b.rs": "b", "src/util/mod.rs": "util", "src/util/deep.rs": "util::deep"}

    def fixed(self) -> dict[str, str]:
        return {
            "Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub mod a;\npub mod b;\npub mod util;\n\npub struct Server;\n",
        }

    def text(self, path: str) -> str:
        rng = self.rng
        others = [m for p, m in self.MODULES.items() if p != path]
        lines: list[str] = []
        if path == "src/util/mod.rs":
            lines.append("pub mod deep;")
        for _ in range(rng.randint(0, 2)):
            lines.append(f"{rng.choice(['use', 'pub use'])} crate::{rng.choice(others)}::{rng.choice(RUST_FNS)};")
        lines.append("")
        for name in rng.sample(RUST_FNS, k=rng.randint(1, 2)):
            calls = [f"{c}();" for c in rng.sample(RUST_FNS, k=1)]
            calls.append(f"crate::{rng.choice(others)}::{rng.choice(RUST_FNS)}();")
            if rng.random() < 0.5:
                calls.append("let s = crate::Server;\n    s.start();")
            lines.append(f"pub fn {name}() {{\n    " + "\n    ".join(calls) + "\n}\n")
        if rng.random() < 0.4:
            lines.append("impl crate::Server {\n    pub fn start(&self) {\n        self.start();\n    }\n}\n")
        return "\n".join(lines)


class _Java(RandomTree):
    def text(self, path: str) -> str:
        rng = self.rng
        package = ".".join(path.split("/")[1:-1])
        name = Path(path).stem
        others = [p for p in self.all if p != path]
        lines = [f"package {package};", ""]
        base = None
        for other in rng.sample(others, k=rng.randint(0, 2)):
            cls = Path(other).stem
            full = ".".join(other.split("/")[1:-1]) + "." + cls
            if rng.random() < 0.3:
                lines.append(f"import static {full}.{rng.choice(JAVA_METHODS)};")
            else:
                lines.append(f"import {full};")
                base = base or (cls if rng.random() < 0.4 else None)
        lines.append("")
        lines.append(f"public class {name}" + (f" extends {base}" if base else "") + " {")
        for method in rng.sample(JAVA_METHODS, k=rng.randint(1, 2)):
            calls = [f"{c}();" for c in rng.sample(JAVA_METHODS, k=2)]
            calls.append(f"this.{rng.choice(JAVA_METHODS)}();")
            lines.append(f"    public static void {method}() {{\n        " + "\n        ".join(calls) + "\n    }")
        lines.append("}")
        return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(14))
def test_random_rust_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(_Crate(repo, seed, RUST_FILES), tmp_path, f"seed {seed}", 15)


# 112: `import static com.x.B.alpha` and its call `alpha()` once B lost the base declaring alpha
@pytest.mark.parametrize("seed", [*range(10, 24), 112])
def test_random_java_edits_index_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(_Java(repo, seed, JAVA_FILES), tmp_path, f"seed {seed}", 15)


class _Traits(RandomTree):
    """`impl Runner for T` blocks that come and go, with or without their own
    `stop` (else the trait's provided one runs), and receivers typed by
    `let`, tuples and `self` fields: where `r.start()` may dispatch and what
    `x.start()` calls change with them."""

    def fixed(self) -> dict[str, str]:
        return {
            "Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": (
                "pub mod a;\npub mod b;\n\n"
                "pub trait Runner {\n    fn start(&self);\n    fn stop(&self) {}\n}\n\n"
                "pub fn drive(r: &dyn Runner) {\n    r.start();\n    r.stop();\n}\n"
            ),
        }

    def text(self, path: str) -> str:
        rng = self.rng
        lines = ["use crate::Runner;", "", "pub struct Local {\n    inner: Other,\n}\n", "pub struct Other;\n"]
        for owner in rng.sample(["Local", "Other"], k=rng.randint(0, 2)):
            stop = "    fn stop(&self) {}\n" if rng.random() < 0.5 else ""
            lines.append(f"impl Runner for {owner} {{\n    fn start(&self) {{}}\n{stop}}}\n")
        if rng.random() < 0.5:
            lines.append("impl Local {\n    pub fn go(&self) {\n        self.inner.start();\n    }\n}\n")
        body = rng.choice(["let x = Other;", "let (x, _n) = (Other, 1);", "let x: Local = make();"])
        lines.append(f"pub fn make() -> Local {{\n    Local {{ inner: Other }}\n}}\n")
        lines.append(f"pub fn run() {{\n    {body}\n    x.start();\n    x.stop();\n}}\n")
        return "\n".join(lines)


@pytest.mark.parametrize("seed", range(30, 36))
def test_trait_impl_edits_dispatch_as_cold(tmp_path: Path, seed: int) -> None:
    repo = init_repo(tmp_path / "repo")
    replay_as_cold(_Traits(repo, seed, ("src/a.rs", "src/b.rs")), tmp_path, f"seed {seed}", 12)
