"""Go extraction and resolution on a real fixture module (go.mod, three
packages): the exact symbol set and the exact edge set, tier by tier, then
the cases that make Go different, by name."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.languages import extract
from tests.testing.exact_sets import (
    assert_edges_exact,
    assert_symbols_exact,
    edge_targets,
    indexed_graph,
)
from tests.testing.fixtures import RESOURCES, commit, exported, index, make_repo

SYMBOLS = {
    ('cmd/app/main.go', 'module', 'cmd.app.main', 1),
    ('cmd/app/main.go', 'function', 'main', 12),
    ('internal/server/base.go', 'module', 'internal.server.base', 1),
    ('internal/server/base.go', 'struct', 'Base', 6),
    ('internal/server/base.go', 'method', 'Base.Close', 10),
    ('internal/server/handlers.go', 'module', 'internal.server.handlers', 1),
    ('internal/server/handlers.go', 'method', 'Server.register', 5),
    ('internal/server/handlers.go', 'method', 'Server.Dispatch', 10),
    ('internal/server/handlers.go', 'struct', 'healthHandler', 18),
    ('internal/server/handlers.go', 'method', 'healthHandler.Serve', 20),
    ('internal/server/handlers.go', 'function', 'logRoute', 24),
    ('internal/server/server.go', 'module', 'internal.server.server', 1),
    ('internal/server/server.go', 'interface', 'Handler', 11),
    ('internal/server/server.go', 'method', 'Handler.Serve', 12),
    ('internal/server/server.go', 'interface', 'LoggingHandler', 16),
    ('internal/server/server.go', 'method', 'LoggingHandler.Log', 18),
    ('internal/server/server.go', 'struct', 'Server', 22),
    ('internal/server/server.go', 'function', 'NewServer', 30),
    ('internal/server/server.go', 'method', 'Server.Start', 34),
    ('internal/server/server_test.go', 'module', 'internal.server.server_test', 1),
    ('internal/server/server_test.go', 'function', 'TestStart', 5),
    ('internal/server/server_test.go', 'function', 'mustStart', 13),
    ('internal/strutil/strutil.go', 'module', 'internal.strutil.strutil', 1),
    ('internal/strutil/strutil.go', 'function', 'Normalize', 4),
    ('internal/strutil/strutil.go', 'function', 'Reverse', 8),
    ('internal/util/util.go', 'module', 'internal.util.util', 1),
    ('internal/util/util.go', 'constant', 'MaxRetries', 7),
    ('internal/util/util.go', 'constant', 'defaultSep', 10),
    ('internal/util/util.go', 'constant', 'version', 11),
    ('internal/util/util.go', 'type', 'ID', 15),
    ('internal/util/util.go', 'method', 'ID.String', 18),
    ('internal/util/util.go', 'type', 'Text', 23),
    ('internal/util/util.go', 'function', 'Normalize', 26),
    ('internal/util/util.go', 'function', 'Join', 30),
    ('internal/util/util.go', 'function', 'notify', 36),
}
EDGES = {
    ('cmd/app/main.go:module:cmd.app.main', 'internal/strutil/strutil.go:module:internal.strutil.strutil', '*', 'imports', 'import'),
    ('cmd/app/main.go:module:cmd.app.main', None, 'embed', 'imports', 'external'),
    ('cmd/app/main.go:module:cmd.app.main', 'internal/server/server.go:module:internal.server.server', 'example.com/goproj/internal/server', 'imports', 'import'),
    ('cmd/app/main.go:module:cmd.app.main', 'internal/util/util.go:module:internal.util.util', 'example.com/goproj/internal/util', 'imports', 'import'),
    ('cmd/app/main.go:module:cmd.app.main', None, 'os', 'imports', 'external'),
    ('cmd/app/main.go:function:main', 'internal/server/server.go:function:NewServer', 'NewServer', 'calls', 'import'),
    ('cmd/app/main.go:function:main', 'internal/util/util.go:function:Normalize', 'Normalize', 'calls', 'import'),
    ('cmd/app/main.go:function:main', 'internal/server/server.go:method:Server.Start', 'Start', 'calls', 'import'),
    ('cmd/app/main.go:function:main', None, 'panic', 'calls', 'external'),
    ('cmd/app/main.go:function:main', 'internal/strutil/strutil.go:function:Reverse', 'Reverse', 'calls', 'import'),
    ('cmd/app/main.go:function:main', None, 'println', 'calls', 'external'),
    ('internal/server/base.go:module:internal.server.base', None, 'io', 'imports', 'external'),
    ('internal/server/base.go:struct:Base', None, 'Closer', 'references', 'external'),
    ('internal/server/base.go:method:Base.Close', None, 'error', 'references', 'external'),
    ('internal/server/handlers.go:module:internal.server.handlers', 'internal/strutil/strutil.go:module:internal.strutil.strutil', 'example.com/goproj/internal/strutil', 'imports', 'import'),
    ('internal/server/handlers.go:method:Server.register', 'internal/server/server.go:interface:Handler', 'Handler', 'references', 'same_dir'),
    ('internal/server/handlers.go:method:Server.register', None, 'string', 'references', 'external'),
    ('internal/server/handlers.go:method:Server.register', 'internal/strutil/strutil.go:function:Normalize', 'Normalize', 'calls', 'import'),
    ('internal/server/handlers.go:method:Server.register', 'internal/server/handlers.go:function:logRoute', 'logRoute', 'calls', 'same_file'),
    ('internal/server/handlers.go:method:Server.Dispatch', None, 'error', 'references', 'external'),
    ('internal/server/handlers.go:method:Server.Dispatch', None, 'string', 'references', 'external'),
    ('internal/server/handlers.go:method:Server.Dispatch', None, 'Serve', 'calls', None),
    ('internal/server/handlers.go:method:healthHandler.Serve', None, 'error', 'references', 'external'),
    ('internal/server/handlers.go:method:healthHandler.Serve', None, 'string', 'references', 'external'),
    ('internal/server/handlers.go:function:logRoute', None, 'string', 'references', 'external'),
    ('internal/server/handlers.go:function:logRoute', None, 'notify', 'calls', None),
    ('internal/server/server.go:module:internal.server.server', None, 'errors', 'imports', 'external'),
    ('internal/server/server.go:module:internal.server.server', 'internal/util/util.go:module:internal.util.util', 'example.com/goproj/internal/util', 'imports', 'import'),
    ('internal/server/server.go:module:internal.server.server', None, 'fmt', 'imports', 'external'),
    ('internal/server/server.go:method:Handler.Serve', None, 'error', 'references', 'external'),
    ('internal/server/server.go:method:Handler.Serve', None, 'string', 'references', 'external'),
    ('internal/server/server.go:interface:LoggingHandler', 'internal/server/server.go:interface:Handler', 'Handler', 'inherits', 'same_file'),
    ('internal/server/server.go:method:LoggingHandler.Log', None, 'string', 'references', 'external'),
    ('internal/server/server.go:struct:Server', 'internal/server/base.go:struct:Base', 'Base', 'inherits', 'same_dir'),
    ('internal/server/server.go:struct:Server', None, 'string', 'references', 'external'),
    ('internal/server/server.go:struct:Server', 'internal/server/server.go:interface:Handler', 'Handler', 'references', 'same_file'),
    ('internal/server/server.go:module:internal.server.server', None, 'New', 'calls', 'external'),
    ('internal/server/server.go:function:NewServer', 'internal/server/server.go:struct:Server', 'Server', 'references', 'same_file'),
    ('internal/server/server.go:function:NewServer', None, 'string', 'references', 'external'),
    ('internal/server/server.go:function:NewServer', 'internal/util/util.go:function:Normalize', 'Normalize', 'calls', 'import'),
    ('internal/server/server.go:function:NewServer', 'internal/server/server.go:interface:Handler', 'Handler', 'references', 'same_file'),
    ('internal/server/server.go:method:Server.Start', None, 'error', 'references', 'external'),
    ('internal/server/server.go:method:Server.Start', None, 'Println', 'calls', 'external'),
    ('internal/server/server.go:method:Server.Start', 'internal/server/handlers.go:method:Server.register', 'register', 'calls', 'parent_scope'),
    ('internal/server/server.go:method:Server.Start', 'internal/server/handlers.go:struct:healthHandler', 'healthHandler', 'references', 'same_dir'),
    ('internal/server/server.go:method:Server.Start', 'internal/server/base.go:method:Base.Close', 'Close', 'calls', 'parent_scope'),
    ('internal/server/server_test.go:module:internal.server.server_test', None, 'testing', 'imports', 'external'),
    ('internal/server/server_test.go:function:TestStart', None, 'T', 'references', 'external'),
    ('internal/server/server_test.go:function:TestStart', 'internal/server/server.go:function:NewServer', 'NewServer', 'calls', 'same_dir'),
    ('internal/server/server_test.go:function:TestStart', 'internal/server/server.go:method:Server.Start', 'Start', 'calls', 'same_dir'),
    ('internal/server/server_test.go:function:TestStart', None, 'Fatal', 'calls', 'external'),
    ('internal/server/server_test.go:function:mustStart', 'internal/server/server.go:struct:Server', 'Server', 'references', 'same_dir'),
    ('internal/server/server_test.go:function:mustStart', None, 'T', 'references', 'external'),
    ('internal/server/server_test.go:function:mustStart', None, 'Helper', 'calls', 'external'),
    ('internal/server/server_test.go:function:mustStart', 'internal/server/server.go:method:Server.Start', 'Start', 'calls', 'same_dir'),
    ('internal/server/server_test.go:function:mustStart', None, 'FailNow', 'calls', 'external'),
    ('internal/strutil/strutil.go:function:Normalize', None, 'string', 'references', 'external'),
    ('internal/strutil/strutil.go:function:Normalize', 'internal/strutil/strutil.go:function:Reverse', 'Reverse', 'calls', 'same_file'),
    ('internal/strutil/strutil.go:function:Reverse', None, 'string', 'references', 'external'),
    ('internal/strutil/strutil.go:function:Reverse', None, 'rune', 'references', 'external'),
    ('internal/strutil/strutil.go:function:Reverse', None, 'len', 'calls', 'external'),
    ('internal/strutil/strutil.go:function:Reverse', None, 'string', 'calls', 'external'),
    ('internal/util/util.go:module:internal.util.util', None, 'strings', 'imports', 'external'),
    ('internal/util/util.go:type:ID', None, 'int', 'references', 'external'),
    ('internal/util/util.go:method:ID.String', None, 'string', 'references', 'external'),
    ('internal/util/util.go:method:ID.String', 'internal/util/util.go:function:Join', 'Join', 'calls', 'same_file'),
    ('internal/util/util.go:method:ID.String', 'internal/util/util.go:type:Text', 'Text', 'references', 'same_file'),
    ('internal/util/util.go:type:Text', None, 'string', 'references', 'external'),
    ('internal/util/util.go:function:Normalize', None, 'string', 'references', 'external'),
    ('internal/util/util.go:function:Normalize', None, 'ToLower', 'calls', 'external'),
    ('internal/util/util.go:function:Normalize', None, 'TrimSpace', 'calls', 'external'),
    ('internal/util/util.go:function:Join', 'internal/util/util.go:type:Text', 'Text', 'references', 'same_file'),
    ('internal/util/util.go:function:Join', None, 'Join', 'calls', 'external'),
    ('internal/util/util.go:function:notify', None, 'string', 'references', 'external'),
}


def test_go_symbols_exact(tmp_path: Path) -> None:
    assert_symbols_exact(indexed_graph(tmp_path, "goproj"), SYMBOLS)


def test_go_edges_exact(tmp_path: Path) -> None:
    assert_edges_exact(indexed_graph(tmp_path, "goproj"), EDGES)


def test_go_resolution_cases(tmp_path: Path) -> None:
    edges = edge_targets(indexed_graph(tmp_path, "goproj"))
    main = "cmd/app/main.go:function:main"
    start = "internal/server/server.go:method:Server.Start"
    # `Normalize` exists in two packages: the import (aliased `u`) decides
    assert edges[(main, "Normalize", "calls")] == ("internal/util/util.go:function:Normalize", "import")
    register = "internal/server/handlers.go:method:Server.register"
    assert edges[(register, "Normalize", "calls")] == (
        "internal/strutil/strutil.go:function:Normalize", "import")
    # dot import: `Reverse` used bare
    assert edges[(main, "Reverse", "calls")] == ("internal/strutil/strutil.go:function:Reverse", "import")
    # `s.register()`: the receiver's method, declared in another file of the package
    assert edges[(start, "register", "calls")] == (register, "parent_scope")
    # `s.Close()`: promoted from the embedded struct Base (another file)
    assert edges[(start, "Close", "calls")] == ("internal/server/base.go:method:Base.Close", "parent_scope")
    # embedded struct and embedded interface are `inherits`
    assert edges[("internal/server/server.go:struct:Server", "Base", "inherits")] == (
        "internal/server/base.go:struct:Base", "same_dir")
    assert edges[("internal/server/server.go:interface:LoggingHandler", "Handler", "inherits")] == (
        "internal/server/server.go:interface:Handler", "same_file")
    # same package, other file: the test calls NewServer through the directory
    test = "internal/server/server_test.go:function:TestStart"
    assert edges[(test, "NewServer", "calls")] == ("internal/server/server.go:function:NewServer", "same_dir")
    # the standard library and builtins are external, never guessed
    assert edges[(start, "Println", "calls")] == (None, "external")
    assert edges[(main, "panic", "calls")] == (None, "external")
    assert edges[(test, "T", "references")] == (None, "external")
    # `t.Fatal()`: t is declared `*testing.T`, so the call is external, not a guess
    assert edges[(test, "Fatal", "calls")] == (None, "external")
    # `testing *testing.T`: the parameter shadows the package, its type does not
    must = "internal/server/server_test.go:function:mustStart"
    assert edges[(must, "Helper", "calls")] == (None, "external")
    # `s *Server` as a parameter: `s.Start()` is Server's, by its declared type
    assert edges[(must, "Start", "calls")] == ("internal/server/server.go:method:Server.Start", "same_dir")
    # a closure `notify` is not util's unexported `notify`: no project-wide guess in Go
    assert edges[("internal/server/handlers.go:function:logRoute", "notify", "calls")] == (None, None)
    # `h.Serve()` on an interface value: two `Serve` methods, so unresolved
    assert edges[("internal/server/handlers.go:method:Server.Dispatch", "Serve", "calls")] == (None, None)


def test_go_import_triples() -> None:
    source = (RESOURCES / "goproj" / "cmd" / "app" / "main.go").read_bytes()
    got = {(e.qualifier, e.target_name, e.alias) for e in extract("cmd/app/main.go", source, "go").edges
           if e.kind == "imports"}
    assert got == {
        ("embed", "embed", "_"),
        ("os", "os", "os"),
        ("example.com/goproj/internal/strutil", "*", None),
        ("example.com/goproj/internal/server", "example.com/goproj/internal/server", "server"),
        ("example.com/goproj/internal/util", "example.com/goproj/internal/util", "u"),
    }


def test_go_docstrings_and_constants() -> None:
    source = (RESOURCES / "goproj" / "internal" / "util" / "util.go").read_bytes()
    symbols = {s.qualified_name: s for s in extract("internal/util/util.go", source, "go").symbols}
    # the comment sits before `type`/`const`, outside the spec node
    assert symbols["ID"].docstring == "ID identifies a record."
    assert symbols["MaxRetries"].docstring.startswith("MaxRetries is exported")
    # lower-case constants are constants too (Go exports by case, not by `const`)
    assert symbols["defaultSep"].kind == "constant"
    assert symbols["Text"].kind == "type"
    # a method of `type ID int` is `ID.String`, a child of the type
    assert symbols["ID.String"].kind == "method"
    assert symbols["ID.String"].parent_id == "internal/util/util.go:type:ID"


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    target = repo / path
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new))


def test_go_incremental_embedding_reaches_other_files(tmp_path: Path) -> None:
    """`s.Close()` in handlers.go: only Server's new embedded Base (server.go)
    gives it a target. handlers.go is not re-parsed and no name changed, so
    the receiver `s` must count like `self` when the hierarchy changes."""
    repo = make_repo(tmp_path, "goproj")
    _edit(repo, "internal/server/server.go", "type Server struct {\n\tBase\n", "type Server struct {\n")
    _edit(repo, "internal/server/server.go", "\treturn s.Close()\n", "\treturn nil\n")
    _edit(repo, "internal/server/handlers.go", "\tlogRoute(path)\n", "\tlogRoute(path)\n\t_ = s.Close()\n")
    commit(repo, "no embedding yet")
    index(repo)
    _edit(repo, "internal/server/server.go", "type Server struct {\n", "type Server struct {\n\tBase\n")
    commit(repo, "embed Base")
    index(repo)
    closes = {
        (e["target_id"], e["resolution"])
        for e in exported(repo)["edges"]
        if e["source_id"] == "internal/server/handlers.go:method:Server.register" and e["target_name"] == "Close"
    }
    assert closes == {("internal/server/base.go:method:Base.Close", "parent_scope")}


def test_a_parameter_renamed_breaks_no_caller() -> None:
    """Go passes arguments by position: the names of parameters, results
    and the receiver are no part of what callers see (`func F(a int)` ->
    `func F(b int)` was called breaking); their types and order still are."""
    from cartog_ci.languages import signature_verdict

    def signature(source: str) -> str:
        found = extract("p/p.go", ("package p\n\n" + source).encode(), "go").symbols
        return next(s for s in found if s.kind in ("function", "method")).signature

    before = signature("func (s *S) F(a, b int, c string) (n int, err error) {\n\treturn 0, nil\n}\n")
    for after, verdict in (
        ("func (srv *S) F(x, y int, z string) (m int, e error) {\n\treturn 0, nil\n}\n", ""),
        ("func (*S) F(int, int, string) (int, error) {\n\treturn 0, nil\n}\n", ""),
        ("func (s *S) F(a int, b, c string) (n int, err error) {\n\treturn 0, nil\n}\n", "breaking"),
        ("func (s *S) F(a, b int, c string) (n int64, err error) {\n\treturn 0, nil\n}\n", "breaking"),
        ("func (s S) F(a, b int, c string) (n int, err error) {\n\treturn 0, nil\n}\n", "breaking"),
    ):
        assert signature_verdict(before, signature(after), "go", {}) == verdict, after
