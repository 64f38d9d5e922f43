"""Go receivers whose type is known: constructors' result types, composite
literals, `var x T`, parameters, struct fields through the method's receiver."""

from __future__ import annotations

from pathlib import Path

from cartog_ci import graph
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.exact_sets import graph_of
from tests.testing.fixtures import commit, index, init_repo, write


def test_go_receivers_whose_type_is_known(tmp_path: Path) -> None:
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "store/store.go": (
            "package store\n\n"
            "type DB struct{}\n\n"
            "func Open() (*DB, error) {\n\treturn &DB{}, nil\n}\n\n"
            "func (d *DB) Query() {}\n"
        ),
        "server/server.go": (
            "package server\n\n"
            "import \"example.com/app/store\"\n\n"
            "type Server struct {\n\tdb *store.DB\n}\n\n"
            "func New() *Server {\n\treturn &Server{}\n}\n\n"
            "func (s *Server) Stop() {}\n\n"
            "func (s *Server) Run(d *store.DB) {\n"
            "\ts.db.Query()\n"
            "\td.Query()\n"
            "\tx := New()\n"
            "\tx.Stop()\n"
            "\tvar y Server\n"
            "\ty.Stop()\n"
            "\tz := &Server{}\n"
            "\tz.Stop()\n"
            "\tdb, _ := store.Open()\n"
            "\tdb.Query()\n"
            "\ts.Stop()\n"
            "}\n"
        ),
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    found = {e["line"]: (e["target_id"], e["resolution"]) for e in edges if e["target_name"] in ("Query", "Stop")}
    query, stop = "store/store.go:method:DB.Query", "server/server.go:method:Server.Stop"
    assert found == {
        16: (query, "import"), 17: (query, "import"), 19: (stop, "same_file"), 21: (stop, "same_file"),
        23: (stop, "same_file"), 25: (query, "import"), 26: (stop, "parent_scope"),
    }  # fmt: skip


def test_callers_of_an_interface_method_reach_the_types_that_satisfy_it(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "store/store.go": (
            "package store\n\n"
            "type Store interface {\n\tGet(k string) string\n\tPut(k, v string)\n}\n\n"
            "type Full interface {\n\tStore\n\tClose()\n}\n\n"
            "type Mem struct{}\n\n"
            "func (m *Mem) Get(k string) string { return k }\n"
        ),
        "store/put.go": "package store\n\nfunc (m *Mem) Put(k, v string) {}\n",
        "store/half.go": "package store\n\ntype Half struct{}\n\nfunc (h Half) Get(k string) string { return k }\n",
        "store/disk.go": (
            "package store\n\ntype Disk struct{}\n\n"
            "func (d Disk) Get(k string) string { return k }\n\n"
            "func (d Disk) Put(k, v string) {}\n\n"
            "func (d Disk) Close() {}\n\n"
            "func (m *Mem) Flush() {}\n"
        ),
        "app/app.go": (
            "package app\n\n"
            "import \"example.com/app/store\"\n\n"
            "func Serve(s store.Store) string {\n\treturn s.Get(\"a\")\n}\n\n"
            "func Stop(f store.Full) {\n\tf.Close()\n}\n"
        ),
    })  # fmt: skip
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as db:
        def callers(method: str) -> set[tuple[str, int, str]]:
            return {(n.symbol.id, n.depth, n.via) for n in graph.impact(db, [method], depth=2)}

        # Mem has Get and Put (in two files of its package): it satisfies Store
        assert callers("store/store.go:method:Mem.Get") == {("app/app.go:function:Serve", 1, "interface")}
        # Half has Get alone: no Store
        assert callers("store/half.go:method:Half.Get") == set()
        # Disk satisfies Full, whose method set includes the embedded Store's
        assert callers("store/disk.go:method:Disk.Close") == {("app/app.go:function:Stop", 1, "interface")}
        assert callers("store/disk.go:method:Mem.Flush") == set()


def test_a_composite_literal_receiver(tmp_path: Path) -> None:
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "a/a.go": "package a\n\ntype C struct{}\n\nfunc (c C) Foo() {}\n\nfunc g() {\n\tC{}.Foo()\n\t(&C{}).Foo()\n}\n",
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    assert {(e["line"], e["target_id"]) for e in edges if e["target_name"] == "Foo"} == {
        (8, "a/a.go:method:C.Foo"), (9, None),
    }  # fmt: skip


def _calls(graph: dict[str, object]) -> set[tuple[str, int, str, str | None, str | None]]:
    edges = graph["edges"]
    assert isinstance(edges, list)
    return {
        (e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"]) for e in edges if e["kind"] == "calls"
    }


def test_a_bare_or_package_qualified_name_is_never_a_method(tmp_path: Path) -> None:
    # afero 1.9.3: `func (a Afero) ReadFile` in ioutil.go beside `func
    # ReadFile(fs Fs, ...)`; the method must not take the function's callers
    # (it did: `fs.ReadFile(x)` from another package, and `ReadFile(x)` inside
    # the method as a recursion) nor hide it (`ReadFile(x)` in the package).
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "fs/fs.go": "package fs\n\ntype Afero struct{}\n",
        "fs/ioutil.go": (
            "package fs\n\n"
            "func (a Afero) ReadFile(name string) ([]byte, error) {\n\treturn ReadFile(name)\n}\n\n"
            "func ReadFile(name string) ([]byte, error) {\n\treturn nil, nil\n}\n"
        ),
        "fs/use.go": "package fs\n\nfunc Use(a Afero) {\n\tReadFile(\"x\")\n\ta.ReadFile(\"y\")\n}\n",
        "app/app.go": "package app\n\nimport \"example.com/app/fs\"\n\nfunc Run() {\n\tfs.ReadFile(\"x\")\n}\n",
    })  # fmt: skip
    function, method = "fs/ioutil.go:function:ReadFile", "fs/ioutil.go:method:Afero.ReadFile"
    assert _calls(graph) == {
        ("fs/ioutil.go", 4, "ReadFile", function, "same_file"),
        ("fs/use.go", 4, "ReadFile", function, "same_dir"),
        ("fs/use.go", 5, "ReadFile", method, "same_dir"),
        ("app/app.go", 6, "ReadFile", function, "import"),
    }


def test_a_type_assertion_types_its_variable(tmp_path: Path) -> None:
    # afero symlink_test.go: `if fs, ok := l.(Fs); ok { fs.MkdirAll(dir) }`;
    # Mem.MkdirAll keeps the name from being the project's only one
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "fs/fs.go": (
            "package fs\n\n"
            "type Fs interface {\n\tMkdirAll(p string) error\n}\n\n"
            "type Linker interface {\n\tLink(o, n string) error\n}\n\n"
            "type Mem struct{}\n\n"
            "func (m Mem) MkdirAll(p string) error { return nil }\n"
        ),
        "fs/use.go": (
            "package fs\n\n"
            "func Use(l Linker, x interface{}) {\n"
            "\tif fs, ok := l.(Fs); ok {\n\t\tfs.MkdirAll(\"d\")\n\t}\n"
            "\ty := x.(int)\n"
            "\ty.MkdirAll(\"e\")\n"
            "}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("fs/use.go", 5, "MkdirAll", "fs/fs.go:method:Fs.MkdirAll", "same_dir"),
        ("fs/use.go", 5, "MkdirAll", "fs/fs.go:method:Mem.MkdirAll", "dispatch"),  # Mem satisfies Fs
        ("fs/use.go", 8, "MkdirAll", None, "external"),
    }


def test_a_type_conversion_is_no_call(tmp_path: Path) -> None:
    # `HandlerFunc(f)`, `Celsius(1.5)`: calling a type converts a value; the
    # edge reaches the type with its own tier, so no function gains a caller
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "h/h.go": (
            "package h\n\n"
            "type H func()\n\n"
            "type Celsius float64\n\n"
            "func f() {}\n\n"
            "func Use() {\n\tg := H(f)\n\t_ = Celsius(1.5)\n\tg()\n\tf()\n}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("h/h.go", 10, "H", "h/h.go:type:H", "conversion"),
        ("h/h.go", 11, "Celsius", "h/h.go:type:Celsius", "conversion"),
        ("h/h.go", 12, "g", None, None),
        ("h/h.go", 13, "f", "h/h.go:function:f", "same_file"),
    }


def test_a_standard_library_import_is_never_a_project_directory(tmp_path: Path) -> None:
    # the Go side of the stdlib-shadow repro: `import "net/http"` with a
    # project directory `http/` (GOPATH layout, no go.mod: matched by path
    # suffix only outside the standard library) gives no edge into it
    graph = graph_of(tmp_path, {
        "http/http.go": "package http\n\nfunc Get(url string) {}\n",
        "app/app.go": "package app\n\nimport \"net/http\"\n\nfunc Run() {\n\thttp.Get(\"x\")\n}\n",
        "web/web.go": "package web\n\nimport \"example.com/http\"\n\nfunc Run() {\n\thttp.Get(\"y\")\n}\n",
    })  # fmt: skip
    assert _calls(graph) == {
        ("app/app.go", 6, "Get", None, "external"),
        ("web/web.go", 6, "Get", "http/http.go:function:Get", "import"),
    }


def test_function_literal_parameters_and_package_variables_type_their_receivers(tmp_path: Path) -> None:
    # `run := func(cmd *Command) { cmd.Name() }` (cobra's tests), `var root = &Cmd{}`;
    # `Other.Name` shares the name, so no edge here is a name guess
    graph = graph_of(tmp_path, {
        "go.mod": "module example.com/lit\n\ngo 1.22\n",
        "a/a.go": (
            "package a\n\n"
            "type Cmd struct{}\n\n"
            "func (c *Cmd) Name() string { return \"\" }\n\n"
            "type Other struct{}\n\n"
            "func (o *Other) Name() string { return \"\" }\n\n"
            "var root = &Cmd{}\n\n"
            "func Run() {\n"
            "\tf := func(c *Cmd, n int) {\n\t\tc.Name()\n\t}\n"
            "\tf(nil, 1)\n"
            "\troot.Name()\n"
            "}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("a/a.go", 15, "Name", "a/a.go:method:Cmd.Name", "same_file"),
        ("a/a.go", 17, "f", None, None),
        ("a/a.go", 18, "Name", "a/a.go:method:Cmd.Name", "same_file"),
    }
