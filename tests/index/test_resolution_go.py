"""Go receivers whose type is known: constructors' result types, composite
literals, `var x T`, parameters, struct fields through the method's receiver."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import graph_of


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
