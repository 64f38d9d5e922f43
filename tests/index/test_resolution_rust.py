"""Rust: a call on a value of a generic type goes to the trait that bounds it."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import graph_of


def test_a_generic_bounded_by_a_project_trait(tmp_path: Path) -> None:
    graph = graph_of(tmp_path, {
        "Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
        "src/lib.rs": (
            "pub trait Store {\n    fn get(&self) -> u32;\n}\n\n"
            "pub fn run<T: Store + Send>(s: &T) -> u32 {\n    s.get()\n}\n\n"
            "pub fn run2<T>(s: T) -> u32\nwhere\n    T: Store,\n{\n    s.get()\n}\n\n"
            "pub fn run3<T>(s: T) -> u32 {\n    s.get()\n}\n"
        ),
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    found = {e["line"]: e["target_id"] for e in edges if e["target_name"] == "get"}
    tiers = {e["line"]: e["resolution"] for e in edges if e["target_name"] == "get"}
    # An unbounded T says nothing about its methods: that call stays unresolved.
    assert found == {6: "src/lib.rs:method:Store.get", 13: "src/lib.rs:method:Store.get", 17: None}
    assert tiers == {6: "bound", 13: "bound", 17: None}


def test_a_workspace_crate_used_by_package_name(tmp_path: Path) -> None:
    # `my-core` is imported as `my_core`; `Repo::open` goes through the `use`
    graph = graph_of(tmp_path, {
        "Cargo.toml": "[workspace]\nmembers = [\"core\", \"app\"]\n",
        "core/Cargo.toml": "[package]\nname = \"my-core\"\nversion = \"0.1.0\"\n",
        "core/src/lib.rs": (
            "pub struct Repo;\nimpl Repo {\n    pub fn open() -> Repo { Repo }\n}\n"
            "pub fn helper() {}\n"
        ),
        "app/Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
        "app/src/main.rs": (
            "use my_core::Repo;\nuse my_core::helper;\n\nfn main() {\n"
            "    let _r = Repo::open();\n    helper();\n    my_core::helper();\n    std::process::exit(0);\n}\n"
        ),
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    calls = {(e["line"], e["target_id"], e["resolution"]) for e in edges if e["kind"] == "calls"}
    assert calls == {
        (5, "core/src/lib.rs:method:Repo.open", "import"),
        (6, "core/src/lib.rs:function:helper", "import"),
        (7, "core/src/lib.rs:function:helper", "import"),
        (8, None, "external"),
    }
