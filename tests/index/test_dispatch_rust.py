"""Rust receivers whose type the code tells (`let` with a constructor, a type
or a struct literal, tuples, `match` / `if let` bindings of an enum's
variants, `self` fields) and trait dispatch (graph.py ``dispatch_edges``,
languages/rust.py ``implementations``): the exact set of edges each call
gets, negatives included. A second type (`Tree`) has methods of the same
names, so that no call here resolves by a name guess."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import calls_by_site, graph_of

FILES = {
    "Cargo.toml": "[package]\nname = \"figs\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": "pub mod app;\npub mod shapes;\n",
    "src/shapes.rs": (
        "pub trait Shape {\n"
        "    fn area(&self) -> u32;\n"
        "    fn describe(&self) -> String {\n        String::new()\n    }\n"
        "}\n\n"
        "pub struct Square {\n    pub side: u32,\n}\n\n"
        "impl Square {\n"
        "    pub fn new(side: u32) -> Self {\n        Square { side }\n    }\n"
        "    pub fn grow(&mut self) {}\n"
        "}\n\n"
        "impl Shape for Square {\n    fn area(&self) -> u32 {\n        self.side\n    }\n}\n\n"
        "pub struct Circle(pub u32);\n\n"
        "impl Circle {\n"
        "    pub fn make() -> Circle {\n        Circle(1)\n    }\n"
        "    pub fn spin(&self) {}\n"
        "}\n\n"
        "impl Shape for Circle {\n"
        "    fn area(&self) -> u32 {\n        3\n    }\n"
        "    fn describe(&self) -> String {\n        String::new()\n    }\n"
        "}\n\n"
        "pub enum Figure {\n    Sq(Square),\n    Ci(Circle),\n}\n\n"
        "pub struct Tree;\n\n"
        "impl Tree {\n    pub fn grow(&mut self) {}\n    pub fn spin(&self) {}\n    pub fn area(&self) -> u32 {\n        0\n    }\n}\n\n"
        "pub fn visit(fig: Figure, other: Figure) {\n"
        "    match fig {\n"
        "        Figure::Sq(mut q) => q.grow(),\n"
        "        Figure::Ci(ref k) => k.spin(),\n"
        "    }\n"
        "    if let Figure::Ci(k2) = other {\n        k2.spin();\n    }\n"
        "}\n"
    ),
    "src/app.rs": (
        "use crate::shapes::{Circle, Shape, Square, Tree};\n\n"
        "pub struct Canvas {\n    main: Square,\n    other: Circle,\n}\n\n"
        "impl Canvas {\n"
        "    pub fn draw(&self) {\n        self.main.grow();\n        self.other.spin();\n    }\n"
        "}\n\n"
        "pub fn run(s: &dyn Shape) {\n"
        "    let mut a = Square::new(2);\n"
        "    a.grow();\n"
        "    let b: Circle = Circle::make();\n"
        "    b.spin();\n"
        "    let c = Square { side: 1 };\n"
        "    c.grow();\n"
        "    let (d, e) = (Square::new(1), Circle::make());\n"
        "    d.grow();\n"
        "    e.spin();\n"
        "    a.area();\n"
        "    a.describe();\n"
        "    s.area();\n"
        "    s.describe();\n"
        "}\n\n"
        "pub fn shadow(t: Tree) {\n"
        "    let x = Square::new(1);\n"
        "    x.grow();\n"
        "    let x = t;\n"
        "    x.spin();\n"
        "    let y = x.area();\n"
        "    y.grow();\n"
        "}\n\n"
        "pub fn paint(c: &Canvas) {\n    c.other.spin();\n}\n"
    ),
}

S = "src/shapes.rs:method:"
RUN = "src/app.rs:function:run"
SHADOW = "src/app.rs:function:shadow"
VISIT = "src/shapes.rs:function:visit"


def test_rust_receivers_whose_type_the_code_tells_and_trait_dispatch(tmp_path: Path) -> None:
    calls = calls_by_site(graph_of(tmp_path, FILES))
    grow, spin = {(S + "Square.grow", "import")}, {(S + "Circle.spin", "import")}
    assert calls == {
        ("src/app.rs:method:Canvas.draw", 10): grow,  # self.main: Square
        ("src/app.rs:method:Canvas.draw", 11): spin,  # self.other: Circle
        (RUN, 16): {(S + "Square.new", "import")},
        (RUN, 17): grow,  # let mut a = Square::new(2) (-> Self)
        (RUN, 18): {(S + "Circle.make", "import")},
        (RUN, 19): spin,  # let b: Circle = ..
        (RUN, 21): grow,  # let c = Square { .. }
        (RUN, 22): {(S + "Circle.make", "import"), (S + "Square.new", "import")},
        (RUN, 23): grow,  # let (d, e) = (Square::new(1), Circle::make())
        (RUN, 24): spin,
        (RUN, 25): {(S + "Square.area", "import")},  # impl Shape for Square
        (RUN, 26): {(S + "Shape.describe", "import")},  # the trait's provided method: no dispatch
        # s: &dyn Shape: the trait's method, and what each impl runs
        (RUN, 27): {(S + "Shape.area", "import"), (S + "Square.area", "dispatch"), (S + "Circle.area", "dispatch")},
        (RUN, 28): {(S + "Shape.describe", "import"), (S + "Circle.describe", "dispatch")},
        (SHADOW, 32): {(S + "Square.new", "import")},
        # `x` is bound twice in the function, `y` to a method's value: unknown
        (SHADOW, 33): {(None, None)},
        (SHADOW, 35): {(None, None)},
        (SHADOW, 36): {(None, None)},
        (SHADOW, 37): {(None, None)},
        ("src/app.rs:function:paint", 41): spin,  # c: &Canvas, Canvas.other: Circle
        ("src/shapes.rs:method:Shape.describe", 4): {(None, "external")},
        ("src/shapes.rs:method:Circle.make", 29): {("src/shapes.rs:struct:Circle", "same_file")},
        ("src/shapes.rs:method:Circle.describe", 39): {(None, "external")},
        # Figure::Sq(mut q), Figure::Ci(ref k), if let Figure::Ci(k2): the variant's field
        (VISIT, 60): {(S + "Square.grow", "same_file")},
        (VISIT, 61): {(S + "Circle.spin", "same_file")},
        (VISIT, 64): {(S + "Circle.spin", "same_file")},
    }  # fmt: skip
