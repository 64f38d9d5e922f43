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


def _calls(graph: dict[str, object]) -> set[tuple[str, int, str, str | None, str | None]]:
    edges = graph["edges"]
    assert isinstance(edges, list)
    return {
        (e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"]) for e in edges if e["kind"] == "calls"
    }


def test_the_value_of_a_call_through_its_return_type(tmp_path: Path) -> None:
    # regex-syntax 0.6.27: `TranslatorBuilder::new().allow_invalid_utf8(true)`,
    # with `allow_invalid_utf8` also a method of ParserBuilder (here Other);
    # `-> Self` is the impl's type, `-> Result<..>` gives std's methods
    graph = graph_of(tmp_path, {
        "Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
        "src/lib.rs": "pub mod builder;\npub mod other;\npub mod ext;\n",
        "src/builder.rs": (
            "pub struct Builder { yes: bool }\n\n"
            "impl Builder {\n"
            "    pub fn new() -> Builder { Builder { yes: false } }\n"
            "    pub fn allow(&mut self, yes: bool) -> &mut Builder { self }\n"
            "    pub fn fresh() -> Self { Builder::new() }\n"
            "}\n\n"
            "pub fn run() -> Result<Builder, ()> { Ok(Builder::new()) }\n\n"
            "fn use_it() {\n"
            "    Builder::new().allow(true);\n"
            "    Builder::fresh().allow(false);\n"
            "    run().allow(true);\n"
            "}\n"
        ),
        "src/other.rs": "pub struct Other;\n\nimpl Other {\n    pub fn allow(&mut self, yes: bool) {}\n}\n",
        "src/ext.rs": "",
    })  # fmt: skip
    new, allow = "src/builder.rs:method:Builder.new", "src/builder.rs:method:Builder.allow"
    assert _calls(graph) == {
        ("src/builder.rs", 6, "new", new, "same_file"),
        ("src/builder.rs", 9, "Ok", None, "external"),
        ("src/builder.rs", 9, "new", new, "same_file"),
        ("src/builder.rs", 12, "allow", allow, "same_file"),
        ("src/builder.rs", 12, "new", new, "same_file"),
        ("src/builder.rs", 13, "allow", allow, "same_file"),
        ("src/builder.rs", 13, "fresh", "src/builder.rs:method:Builder.fresh", "same_file"),
        ("src/builder.rs", 14, "allow", None, "external"),
        ("src/builder.rs", 14, "run", "src/builder.rs:function:run", "same_file"),
    }


def test_a_bare_name_is_never_a_method_of_an_impl_elsewhere(tmp_path: Path) -> None:
    # an `impl Other` away from `struct Other` puts `Other.helper` at the
    # file's level: `helper()` and `crate::ext::helper()` still mean the
    # function, whichever comes last in the file
    graph = graph_of(tmp_path, {
        "Cargo.toml": "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
        "src/lib.rs": "pub mod other;\npub mod ext;\n\nfn outside() {\n    crate::ext::helper();\n}\n",
        "src/other.rs": "pub struct Other;\n",
        "src/ext.rs": (
            "use crate::other::Other;\n\n"
            "pub fn helper() {}\n\n"
            "impl Other {\n    pub fn helper(&self) {}\n}\n\n"
            "fn call() {\n    helper();\n}\n"
        ),
    })  # fmt: skip
    helper = "src/ext.rs:function:helper"
    assert _calls(graph) == {
        ("src/lib.rs", 5, "helper", helper, "import"),
        ("src/ext.rs", 10, "helper", helper, "same_file"),
    }
