"""Go interface dispatch: a call of an interface method may run the method
of every type of the project whose method set satisfies the interface
(graph.py ``dispatch_edges``, languages/go.py ``implementations``): a VTA-style
micro-suite with the exact set of edges each call gets, negatives included."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.exact_sets import calls_by_site, graph_of
from tests.testing.fixtures import commit, index, init_repo, write

FILES = {
    "go.mod": "module example.com/vta\n\ngo 1.22\n",
    "shapes/shapes.go": (
        "package shapes\n\n"
        "type Shape interface {\n\tArea() int\n\tName() string\n}\n\n"
        "type Named interface {\n\tName() string\n}\n\n"
        "type Solid interface {\n\tShape\n\tVolume() int\n}\n\n"
        "type Square struct{ side int }\n\n"
        "func (q Square) Area() int { return q.side * q.side }\n\n"
        "func (q Square) Name() string { return \"square\" }\n\n"
        "type Circle struct{ r int }\n\n"
        "func (c *Circle) Area() int { return 3 * c.r * c.r }\n\n"
        "func (c *Circle) Name() string { return \"circle\" }\n\n"
        "type Cube struct {\n\tSquare\n}\n\n"
        "func (c Cube) Volume() int { return 0 }\n\n"
        "type Label struct{}\n\n"
        "func (l Label) Name() string { return \"label\" }\n\n"
        "func Make() Shape { return Square{} }\n"
    ),
    "shapes/base.go": (
        "package shapes\n\n"
        "type Base struct{}\n\n"
        "func (b *Base) Name() string { return \"base\" }\n\n"
        "type Derived struct {\n\t*Base\n}\n\n"
        "func (d Derived) Area() int { return 1 }\n\n"
        "type Wrapper struct {\n\tShape\n}\n"
    ),
    "use/use.go": (
        "package use\n\n"
        "import \"example.com/vta/shapes\"\n\n"
        "type Canvas struct {\n\tmain shapes.Shape\n}\n\n"
        "func Describe(s shapes.Shape) string {\n\treturn s.Name()\n}\n\n"
        "func Tag(n shapes.Named) string {\n\treturn n.Name()\n}\n\n"
        "func Measure(x shapes.Solid) int {\n\treturn x.Volume() + x.Area()\n}\n\n"
        "func Local() int {\n\tvar s shapes.Shape\n\treturn s.Area()\n}\n\n"
        "func Made() string {\n\tm := shapes.Make()\n\treturn m.Name()\n}\n\n"
        "func (c *Canvas) Draw() int {\n\treturn c.main.Area()\n}\n\n"
        "func Wrapped(w shapes.Wrapper) int {\n\treturn w.Area()\n}\n\n"
        "func Direct(q shapes.Cube) int {\n\treturn q.Area()\n}\n"
    ),
}


S = "shapes/shapes.go:method:"
B = "shapes/base.go:method:"
U = "use/use.go:"
AREA = {(S + "Square.Area", "dispatch"), (S + "Circle.Area", "dispatch"), (B + "Derived.Area", "dispatch")}
NAME = {(S + "Square.Name", "dispatch"), (S + "Circle.Name", "dispatch"), (B + "Base.Name", "dispatch")}


def test_a_call_of_an_interface_method_may_run_every_implementation(tmp_path: Path) -> None:
    calls = calls_by_site(graph_of(tmp_path, FILES))
    assert calls == {
        # a parameter of the interface type: Square (value receivers), Circle
        # (pointer receivers), Derived (its own Area, Name promoted from the
        # embedded *Base); Cube runs Square's promoted methods; Label (Name
        # alone) does not satisfy Shape; Wrapper's Area is its field's value
        (U + "function:Describe", 10): {(S + "Shape.Name", "import")} | NAME,
        # Label satisfies Named
        (U + "function:Tag", 14): {(S + "Named.Name", "import"), (S + "Label.Name", "dispatch")} | NAME,
        # Solid embeds Shape: the call binds Shape.Area, whose implementations
        # are Shape's (the receiver's own interface is not kept: a superset)
        (U + "function:Measure", 18): {
            (S + "Solid.Volume", "import"), (S + "Cube.Volume", "dispatch"), (S + "Shape.Area", "import")
        } | AREA,
        (U + "function:Local", 23): {(S + "Shape.Area", "import")} | AREA,  # `var s shapes.Shape`
        (U + "function:Made", 27): {("shapes/shapes.go:function:Make", "import")},
        (U + "function:Made", 28): {(S + "Shape.Name", "import")} | NAME,  # the result of `Make() Shape`
        (U + "method:Canvas.Draw", 32): {(S + "Shape.Area", "import")} | AREA,  # a struct field
        (U + "function:Wrapped", 36): {(S + "Shape.Area", "import")} | AREA,  # promoted from an embedded interface
        (U + "function:Direct", 40): {(S + "Square.Area", "import")},  # a concrete type: no dispatch
    }  # fmt: skip


def test_callees_list_what_an_interface_call_may_run_under_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, FILES)
    commit(repo)
    index(repo)
    capsys.readouterr()
    assert main(["callees", "Describe", "--repo", str(repo)]) == 0
    assert capsys.readouterr().out == (
        "use/use.go:function:Describe: 1 call(s)\n"
        "  use/use.go:10  -> shapes/shapes.go:method:Shape.Name\n"
        "      may run shapes/base.go:method:Base.Name\n"
        "      may run shapes/shapes.go:method:Circle.Name\n"
        "      may run shapes/shapes.go:method:Square.Name\n"
    )


# afero 1.11, reduced: HttpFs has Fs's method names, but its Open gives an
# http.File; a type in another package names the interface's types through it
AFERO = {
    "go.mod": "module example.com/m\n\ngo 1.19\n",
    "fs.go": (
        "package m\n\n"
        "import \"net/http\"\n\n"
        "type File interface {\n\tName() string\n}\n\n"
        "type Fs interface {\n\tOpen(name string) (File, error)\n\tMkdir(name string, perm int) error\n}\n\n"
        "type MemFs struct{}\n\n"
        "func (m *MemFs) Open(name string) (File, error) { return nil, nil }\n"
        "func (m *MemFs) Mkdir(path string, mode int) error { return nil }\n\n"  # other parameter names
        "type HttpFs struct{ source Fs }\n\n"
        "func (h HttpFs) Open(name string) (http.File, error) { return nil, nil }\n"
        "func (h HttpFs) Mkdir(name string, perm int) error { return nil }\n\n"
        "type ByteFs struct{}\n\n"
        "func (b ByteFs) Open(name []byte) (File, error) { return nil, nil }\n"  # another parameter type: no Fs
        "func (b ByteFs) Mkdir(name string, perm int) error { return nil }\n\n"
        "func use(fs Fs) {\n\tfs.Open(\"a\")\n\tfs.Mkdir(\"b\", 0)\n}\n"
    ),
    "zip/zip.go": (
        "package zip\n\n"
        "import \"example.com/m\"\n\n"
        "type ZipFs struct{}\n\n"
        "func (z *ZipFs) Open(name string) (m.File, error) { return nil, nil }\n"
        "func (z *ZipFs) Mkdir(name string, perm int) (err error) { return nil }\n"  # a named result
    ),
}


def test_a_type_satisfies_an_interface_only_with_its_parameter_and_result_types(tmp_path: Path) -> None:
    calls = calls_by_site(graph_of(tmp_path, AFERO))
    assert calls[("fs.go:function:use", 30)] == {
        ("fs.go:method:Fs.Open", "same_file"),
        ("fs.go:method:MemFs.Open", "dispatch"),
        ("zip/zip.go:method:ZipFs.Open", "dispatch"),
    }
    assert calls[("fs.go:function:use", 31)] == {
        ("fs.go:method:Fs.Mkdir", "same_file"),
        ("fs.go:method:MemFs.Mkdir", "dispatch"),
        ("zip/zip.go:method:ZipFs.Mkdir", "dispatch"),
    }
