"""The call-site check: each direct call of a function whose signature
changed is bound against the new signature, per language, in a real
repository with a real change (docs/report.md, "Call-site check")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import branched, commit, git, init_repo, write


def _report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], before: dict[str, str], after: dict[str, str], *extra: str
) -> tuple[int, dict[str, object]]:
    repo = branched(tmp_path / "repo", dict(before), dict(after))
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related", *extra])
    return code, json.loads(capsys.readouterr().out)


def _sites(data: dict[str, object]) -> list[tuple[str, int, str | None, str | None]]:
    """(file, line, verdict, reason) of every checked call site."""
    out = []
    for item in data["changed"]:  # type: ignore[attr-defined]
        for s in item["call_sites"]:
            out.append((s["file"], s["line"], s["verdict"], s["reason"]))
    return sorted(out)


PY_LIB = (
    "def close(reason):\n    return reason\n\n\n"
    "class Engine:\n"
    "    def __init__(self, crawler):\n        self.crawler = crawler\n\n"
    "    def stop(self):\n        return 1\n\n"
    "    @classmethod\n    def build(cls, crawler):\n        return cls(crawler)\n\n"
    "    @staticmethod\n    def version(major):\n        return major\n"
)
PY_APP = (
    "from lib import Engine, close\n\n\n"
    "def run(args, opts):\n"
    "    close('a')\n"  # 5
    "    close(reason='b')\n"  # 6
    "    close(*args)\n"  # 7
    "    e = Engine(1)\n"  # 8
    "    e.stop()\n"  # 9
    "    Engine.build(2)\n"  # 10
    "    Engine.version(3)\n"  # 11
    "    Engine.stop(e)\n"  # 12
)


def test_python_calls_bound_against_the_new_signature(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after = (
        PY_LIB.replace("def close(reason):", "def close(why, *, force):")
        .replace("def __init__(self, crawler):", "def __init__(self, crawler, settings):")
        .replace("def stop(self):", "def stop(self, *, reason='shutdown'):")
        .replace("def build(cls, crawler):", "def build(cls, crawler, extra=None):")
        .replace("def version(major):", "def version(major, minor):")
    )
    code, data = _report(tmp_path, capsys, {"lib.py": PY_LIB, "app.py": PY_APP}, {"lib.py": after}, "--fail-on", "broken-refs")
    assert _sites(data) == [
        ("app.py", 5, "will break", "missing required argument force"),
        ("app.py", 6, "will break", "no parameter named reason"),
        ("app.py", 7, None, "arguments spread from a sequence or mapping"),
        ("app.py", 8, "will break", "missing required argument settings"),  # Engine(1) calls __init__
        ("app.py", 9, "fine", None),  # e.stop(): self is bound
        ("app.py", 10, "fine", None),  # classmethod: cls is bound
        ("app.py", 11, "will break", "missing required argument minor"),  # staticmethod: nothing bound
        ("app.py", 12, "fine", None),  # Engine.stop(e): self passed explicitly
        ("lib.py", 14, "will break", "missing required argument settings"),  # cls(crawler) in build
    ]
    assert [(s["file"], s["line"]) for s in data["will_break"]] == [  # type: ignore[attr-defined]
        ("app.py", 5),
        ("app.py", 6),
        ("app.py", 8),
        ("app.py", 11),
        ("lib.py", 14),
    ]
    assert data["risk"]["level"] == "high"  # type: ignore[index]
    assert code == 1  # --fail-on broken-refs counts call sites that will break


def test_compatible_change_with_every_call_fine_raises_no_risk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # scrapy c285f4cb1: close_async(self) -> close_async(self, *, reason="shutdown")
    before = {
        "engine.py": "class Engine:\n    async def close_async(self):\n        return 1\n",
        "crawler.py": "from engine import Engine\n\n\nasync def stop(e: Engine):\n    await e.close_async()\n",
    }
    after = {"engine.py": before["engine.py"].replace("close_async(self)", 'close_async(self, *, reason="shutdown")')}
    _, data = _report(tmp_path, capsys, before, after)
    (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
    assert (item["signature_verdict"], item["old_signature"], item["new_signature"]) == (
        "compatible",
        "async def close_async(self)",
        'async def close_async(self, *, reason="shutdown")',
    )
    assert _sites(data) == [("crawler.py", 5, "fine", None)]
    assert data["risk"]["level"] == "low"  # type: ignore[index]


def test_a_call_that_did_not_fit_before_is_not_this_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {"lib.py": "def f(a):\n    return a\n", "app.py": "from lib import f\n\n\ndef g():\n    return f(1, 2)\n"}
    _, data = _report(tmp_path, capsys, before, {"lib.py": "def f(a, b=None, *, c=None):\n    return a\n"})
    assert _sites(data) == [("app.py", 5, "fine", None)]
    _, data = _report(
        tmp_path / "again", capsys, before, {"lib.py": "def f(a, *, c=None):\n    return a\n"}
    )
    assert _sites(data) == [("app.py", 5, None, "did not fit the old signature either (2 positional argument(s) for at most 1)")]


PICK_APP = (
    "from lib import pick\n\n\n"
    "def run():\n"
    "    pick(1, 2)\n"  # 5
    "    pick(1, b=2)\n"  # 6
    "    pick(a=1, b=2)\n"  # 7
)


def test_positional_only_parameters_are_never_passed_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Python's ``/``: a call that names a parameter before it no longer binds
    (unless ``**kwargs`` takes the name, and then the parameter is missing)."""
    before = {"lib.py": "def pick(a, b):\n    return a\n", "app.py": PICK_APP}
    _, data = _report(tmp_path, capsys, before, {"lib.py": "def pick(a, /, b):\n    return a\n"})
    (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
    assert item["signature_verdict"] == "breaking"
    assert _sites(data) == [
        ("app.py", 5, "fine", None),
        ("app.py", 6, "fine", None),
        ("app.py", 7, "will break", "positional-only parameter a passed by name"),
    ]
    _, data = _report(tmp_path / "kwargs", capsys, before, {"lib.py": "def pick(a, /, b, **kw):\n    return a\n"})
    assert _sites(data) == [
        ("app.py", 5, "fine", None),
        ("app.py", 6, "fine", None),
        ("app.py", 7, "will break", "missing required argument a"),
    ]


def test_a_positional_only_parameter_renamed_breaks_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """flask 3.0.3: ``decorator(__ctx, *args, **kwargs)`` became
    ``decorator(ctx, /, *args, **kwargs)``; here the name before ``/`` changes."""
    app = "from lib import pick\n\n\ndef run():\n    pick(1, 2)\n    pick(1, b=2)\n"
    before = {"lib.py": "def pick(a, /, b):\n    return a\n", "app.py": app}
    _, data = _report(tmp_path, capsys, before, {"lib.py": "def pick(first, /, b):\n    return first\n"})
    (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
    assert item["signature_verdict"] == "compatible"
    assert _sites(data) == [("app.py", 5, "fine", None), ("app.py", 6, "fine", None)]
    assert data["will_break"] == [] and data["risk"]["level"] == "low"  # type: ignore[index]


def test_a_parameter_named_with_two_underscores_is_positional_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """flask 3.0.3 itself: ``decorator(__ctx, *args, **kwargs)`` became
    ``decorator(ctx, /, *args, **kwargs)``. PEP 484 makes a leading ``__x``
    positional-only, so the name changes no call; a ``__x__`` or an ``__x``
    after a plain parameter is no such parameter (renamed: breaking)."""
    app = "from lib import pick\n\n\ndef run():\n    pick(1, 2)\n"
    before = {"lib.py": "def pick(__ctx, *args, **kwargs):\n    return __ctx\n", "app.py": app}
    _, data = _report(tmp_path, capsys, before, {"lib.py": "def pick(ctx, /, *args, **kwargs):\n    return ctx\n"})
    (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
    assert item["signature_verdict"] == "compatible"
    assert _sites(data) == [("app.py", 5, "fine", None)]
    assert data["will_break"] == [] and data["risk"]["level"] == "low"  # type: ignore[index]
    for name in ("__ctx__", "a, __ctx"):
        before = {"lib.py": f"def pick({name}, *args):\n    return 1\n", "app.py": app}
        after = {"lib.py": f"def pick({name.replace('__ctx', 'ctx')}, *args):\n    return 1\n"}
        _, data = _report(tmp_path / name.replace(", ", "-"), capsys, before, after)
        (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
        assert item["signature_verdict"] == "breaking", name


OVERLOADED = (
    "import typing as t\n\n\n"
    "class Attr:\n"
    "    @t.overload\n"
    "    def get(self, obj: None, owner: None) -> 'Attr': ...\n\n"
    "    @t.overload\n"
    "    def get(self, obj: object, owner: type) -> int: ...\n\n"
    "    def get(self, obj, owner=None):\n"
    "        return obj\n"
)


def test_a_function_that_gains_overloads_is_compared_with_its_implementation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """flask 3.0.3 ``ConfigAttribute.__get__`` gained two ``@t.overload``
    stubs above an unchanged implementation: the report compared the old
    function with the first stub and called it a breaking signature."""
    before = {
        "lib.py": "class Attr:\n    def get(self, obj, owner=None):\n        return obj\n",
        "app.py": "from lib import Attr\n\n\ndef run():\n    return Attr().get(1)\n",
    }
    _, data = _report(tmp_path, capsys, before, {"lib.py": OVERLOADED})
    changes = sorted((c["category"], c["symbol"]["id"], c["signature_changed"]) for c in data["changed"])  # type: ignore[attr-defined]
    assert changes == [
        ("added", "lib.py:method:Attr.get#2", False),
        ("added", "lib.py:method:Attr.get#3", False),
        ("children_changed", "lib.py:class:Attr", False),
        ("modified", "lib.py:module:lib", False),  # its import
    ]
    assert data["will_break"] == [] and data["risk"]["level"] == "low"  # type: ignore[index]
    assert main(["refs", "get", "--json", "--repo", str(tmp_path / "repo")]) == 0
    found = {r["symbol"]: [(e["source_id"], e["line"]) for e in r["refs"]] for r in json.loads(capsys.readouterr().out)}
    assert found == {  # the call reaches the implementation
        "lib.py:method:Attr.get": [("app.py:function:run", 5)],
        "lib.py:method:Attr.get#2": [],
        "lib.py:method:Attr.get#3": [],
    }


def test_overload_stubs_reworded_are_one_docs_only_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """click 8.1.8 reformatted the `@t.overload` stubs of `Context.invoke`:
    the text report named it twice in "docs only"."""
    before = {"lib.py": OVERLOADED.replace("class Attr:\n", "class Attr:\n    def other(self):\n        return 1\n\n")}
    after = {"lib.py": before["lib.py"].replace("obj: None, owner: None", "obj:None,owner:None").replace(
        "obj: object, owner: type", "obj:object,owner:type")}  # fmt: skip
    repo = branched(tmp_path / "repo", dict(before), dict(after))
    main(["report", "--repo", str(repo), "--base", "main", "--format", "text", "--no-related"])
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if "docs only" in line] == ["  docs only (2): Attr.get (2 definitions)"]


def test_a_decorator_that_may_change_the_signature_is_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {
        "lib.py": "import click\n\n\n@click.pass_context\ndef f(ctx, a):\n    return a\n",
        "app.py": "from lib import f\n\n\ndef g():\n    return f(1)\n",
    }
    _, data = _report(tmp_path, capsys, before, {"lib.py": before["lib.py"].replace("(ctx, a)", "(ctx, a, b)")})
    assert _sites(data) == [("app.py", 5, None, "a decorator may change how it is called")]


def test_typescript_arity_and_optional_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "src/lib.ts": (
            "export function add(a: number, b?: number): number {\n  return a + (b ?? 0);\n}\n\n"
            "export class Store {\n  constructor(private name: string) {}\n\n"
            "  put(key: string, value: string): void {}\n}\n"
        ),
        "src/app.ts": (
            "import { add, Store } from './lib';\n\n"
            "export function run(xs: number[]): void {\n"
            "  add(1);\n"  # 4
            "  add(1, 2);\n"  # 5
            "  add(...xs);\n"  # 6
            "  const s = new Store('a');\n"  # 7
            "  s.put('k', 'v');\n"  # 8
            "}\n"
        ),
    }
    after = {
        "src/lib.ts": before["src/lib.ts"]
        .replace("add(a: number, b?: number)", "add(a: number, b: number, c?: number)")
        .replace("constructor(private name: string)", "constructor(private name: string, size = 1)")
        .replace("put(key: string, value: string)", "put(key: string)")
    }
    _, data = _report(tmp_path, capsys, before, after)
    assert _sites(data) == [
        ("src/app.ts", 4, "will break", "1 argument(s) where 2 are required"),
        ("src/app.ts", 5, "fine", None),
        ("src/app.ts", 6, None, "arguments spread from a sequence or mapping"),
        ("src/app.ts", 7, "fine", None),
        ("src/app.ts", 8, "will break", "2 argument(s) for at most 1"),
    ]


TS_CALLBACKS = {
    "src/lib.ts": (
        "export function f2(fn: (a: string) => void): void {}\n"  # 1
        "export const on = (event: string, handler: (e: Event) => void) => {};\n"  # 2
        "export class Bus {\n"
        "  subscribe(topic: string, cb: (m: string, at?: number) => void): void {}\n"  # 4
        "}\n"
        "export function parse(s: string): number;\n"  # 6
        "export function parse(s: string, radix: number): number;\n"
        "export function parse(s: string, radix?: number): number {\n  return parseInt(s, radix);\n}\n"
        "export declare function fmt(a: string): string;\n"  # 11
        "export declare function fmt(a: string, width: number): string;\n"
    ),
    "src/app.ts": (
        "import { f2, on, Bus, parse, fmt } from './lib';\n\n"
        "export function run(bus: Bus, cb: (a: string) => void): void {\n"
        "  f2((a: string) => console.log(a));\n"  # 4
        "  f2(cb);\n"  # 5
        "  on('click', (e) => e);\n"  # 6
        "  bus.subscribe('t', (m, at) => m);\n"  # 7
        "  parse('1');\n"  # 8
        "  parse('1', 10);\n"  # 9
        "  fmt('a');\n"  # 10
        "  fmt('a', 2);\n"  # 11
        "}\n"
    ),
}


def test_typescript_required_parameter_after_a_callback_will_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29: a parameter of function type hid every parameter after it,
    so a required one added after a callback was no signature change."""
    after = {
        "src/lib.ts": TS_CALLBACKS["src/lib.ts"]
        .replace("f2(fn: (a: string) => void)", "f2(fn: (a: string) => void, b: number)")
        .replace("handler: (e: Event) => void)", "handler: (e: Event) => void, once: boolean)")
        .replace("cb: (m: string, at?: number) => void)", "cb: (m: string, at?: number) => void, priority: number)")
        .replace("export function parse(s: string): number;\n", "")
        .replace("fmt(a: string, width: number)", "fmt(a: string, width: number, fill: string)")
    }
    _, data = _report(tmp_path, capsys, TS_CALLBACKS, after)
    verdicts = {c["symbol"]["qualified_name"]: c["signature_verdict"] for c in data["changed"] if c["signature_changed"]}  # type: ignore[attr-defined]
    assert verdicts == {"f2": "breaking", "on": "breaking", "Bus.subscribe": "breaking", "parse": "breaking", "fmt": "breaking"}
    assert _sites(data) == [
        ("src/app.ts", 4, "will break", "1 argument(s) where 2 are required"),
        ("src/app.ts", 5, "will break", "1 argument(s) where 2 are required"),
        ("src/app.ts", 6, "will break", "2 argument(s) where 3 are required"),
        ("src/app.ts", 7, "will break", "2 argument(s) where 3 are required"),
        # the overload that took one argument is gone; the one left takes two
        ("src/app.ts", 8, "will break", "1 argument(s) where 2 are required"),
        ("src/app.ts", 9, None, "the function was overloaded: which signature the call bound is not told"),
        # `declare function` overloads, each a symbol: one still takes a single argument
        ("src/app.ts", 10, None, "the function is overloaded"),
        ("src/app.ts", 11, "will break", "2 argument(s) fit none of 2 overload signature(s)"),
    ]
    assert [(s["file"], s["line"]) for s in data["will_break"]] == [  # type: ignore[attr-defined]
        ("src/app.ts", line) for line in (4, 5, 6, 7, 8, 11)
    ]


def test_typescript_one_overload_declaration_is_the_signature_callers_bind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """immer 10.1 dropped `enumerableOnly?` from `each`, declared once above
    its implementation `each(obj: any, iter: any)`: its 6 calls were "could
    not be checked: the function is overloaded" and the risk HIGH, though
    callers can bind only that one declaration."""
    lib = (
        "export function each<T>(obj: T, iter: (key: string) => void, enumerableOnly?: boolean): void\n"
        "export function each(obj: any, iter: any) {\n  return iter(obj)\n}\n"
    )
    app = 'import { each } from "./lib"\n\neach({}, k => k)\neach({}, k => k, true)\n'
    _, data = _report(
        tmp_path, capsys, {"src/lib.ts": lib, "src/app.ts": app}, {"src/lib.ts": lib.replace(", enumerableOnly?: boolean", "")}
    )
    assert _sites(data) == [
        ("src/app.ts", 3, "fine", None),
        ("src/app.ts", 4, "will break", "3 argument(s) for at most 2"),
    ]


def test_typescript_reformatted_callback_is_no_signature_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after = {
        "src/lib.ts": TS_CALLBACKS["src/lib.ts"]
        .replace("f2(fn: (a: string) => void)", "f2(\n  fn: (value: string)\n    => void,\n)")
        # a formatter's trailing comma inside a callback type (commander 12's typings)
        .replace("cb: (m: string, at?: number) => void)", "cb: (m: string,at?: number,)=>void,)")
    }
    # the quotes of a string, a formatter's choice (@trpc/server 10.45.2's typings)
    quoted = (
        'export function caller<T extends { _def: unknown }>(r: T): T["_def"] {\n  return r._def;\n}\n'
        "export function pick(mode: 'a' | \"b\" = 'a', sep = \"it's\"): string {\n  return mode + sep;\n}\n"
    )
    requoted = quoted.replace('T["_def"]', "T['_def']").replace("'a' | \"b\" = 'a'", "\"a\" | 'b' = \"a\"").replace(
        '"it\'s"', "'it\\'s'"
    )
    assert requoted != quoted
    before = TS_CALLBACKS | {"src/quoted.ts": quoted}
    _, data = _report(tmp_path, capsys, before, after | {"src/quoted.ts": requoted})
    assert [c for c in data["changed"] if c["signature_changed"]] == []  # type: ignore[attr-defined]
    assert _sites(data) == []


TS_TYPINGS = {
    # a JavaScript package's hand-written typings (commander 11.1.0 -> 12.1.0):
    # an `export class` of a .d.ts declares its methods without bodies
    "typings/index.d.ts": (
        "export class Command {\n"
        "  addHelpCommand(enableOrNameAndArgs?: string | boolean, description?: string): this;\n"  # 2
        "  name(str: string): this;\n"
        "  name(): string;\n"  # 4
        "  fullDescription(): string;\n"  # 5
        "}\n"
        "export function createCommand(name?: string): Command;\n"  # 7
    ),
    "src/app.ts": (
        "import { Command, createCommand } from '../typings';\n\n"
        "export function run(cmd: Command): void {\n"
        "  cmd.addHelpCommand(true, 'help');\n"  # 4
        "  cmd.addHelpCommand(false, 'help', 'x');\n"  # 5
        "  cmd.name();\n"  # 6
        "  createCommand('a');\n"  # 7
        "}\n"
    ),
}


def test_typescript_declaration_file_methods_and_overload_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The methods of a .d.ts `export class` are compared: a method that
    becomes an overload set is one symbol whose every signature is callable
    (not its first signature against the old one), reordered overloads are
    no change, and a removed method is said."""
    after = {
        "typings/index.d.ts": TS_TYPINGS["typings/index.d.ts"]
        .replace(
            "  addHelpCommand(enableOrNameAndArgs?: string | boolean, description?: string): this;\n",
            "  addHelpCommand(nameAndArgs: string, description?: string): this;\n  addHelpCommand(enable?: boolean): this;\n",
        )
        .replace("  name(str: string): this;\n  name(): string;\n", "  name(): string;\n  name(str: string): this;\n")
        .replace("  fullDescription(): string;\n", "")
        .replace("createCommand(name?: string)", "createCommand(name?: string, opts?: object)")
    }
    _, data = _report(tmp_path, capsys, TS_TYPINGS, after)
    changed = {
        (c["symbol"] or c["old"])["qualified_name"]: (c["category"], c["signature_verdict"], c["new_signature"])  # type: ignore[index]
        for c in data["changed"]  # type: ignore[attr-defined]
        if (c["symbol"] or c["old"])["kind"] in ("function", "method")  # type: ignore[index]
    }
    assert changed == {
        # `string | boolean` fits neither new signature
        "Command.addHelpCommand": (
            "modified", "breaking",
            "addHelpCommand(nameAndArgs: string, description?: string): this; addHelpCommand(enable?: boolean): this;",
        ),
        "Command.name": ("modified", None, None),
        "Command.fullDescription": ("removed", None, None),
        "createCommand": ("modified", "compatible", "function createCommand(name?: string, opts?: object): Command;"),
    }  # fmt: skip
    assert _sites(data) == [
        ("src/app.ts", 4, None, "the function is overloaded"),  # 2 arguments fit `(nameAndArgs, description?)`
        # a call that was already wrong is not the change's breakage
        ("src/app.ts", 5, None, "did not fit the old signature either (3 argument(s) for at most 2)"),
        ("src/app.ts", 7, "fine", None),
    ]


def test_javascript_calls_are_never_said_to_break(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "lib.js": "export function add(a, b) {\n  return a + b;\n}\n",
        "app.js": "import { add } from './lib.js';\n\nexport function run() {\n  return add(1);\n}\n",
    }
    _, data = _report(tmp_path, capsys, before, {"lib.js": before["lib.js"].replace("add(a, b)", "add(a, b, c)")})
    assert _sites(data) == [("app.js", 4, None, None)]  # JavaScript checks no arity


GO_MOD = "module example.com/app\n\ngo 1.21\n"


def test_go_argument_counts_and_variadics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "go.mod": GO_MOD,
        "srv/srv.go": (
            "package srv\n\n"
            "type Server struct{}\n\n"
            "func New(name string) *Server { return &Server{} }\n\n"
            "func (s *Server) Start(port int) error { return nil }\n\n"
            "func Log(msg string) {}\n"
        ),
        "main.go": (
            "package main\n\n"
            'import "example.com/app/srv"\n\n'
            "func main() {\n"
            '\ts := srv.New("a")\n'  # 6
            "\ts.Start(80)\n"  # 7
            '\tsrv.Log("x")\n'  # 8
            "}\n"
        ),
    }
    after = {
        "srv/srv.go": before["srv/srv.go"]
        .replace("func New(name string)", "func New(name string, port int)")
        .replace("func (s *Server) Start(port int)", "func (s *Server) Start(port int, opts ...string)")
        .replace("func Log(msg string)", "func Log(msg string, args ...any)")
    }
    _, data = _report(tmp_path, capsys, before, after)
    assert _sites(data) == [
        ("main.go", 6, "will break", "1 argument(s) where 2 are required"),
        ("main.go", 7, "fine", None),
        ("main.go", 8, "fine", None),
    ]


def test_go_inline_func_type_becoming_a_named_type_is_compatible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # cobra 6c3c116: a parameter's inline func type became a named type of the same shape
    before = {
        "go.mod": GO_MOD,
        "cmd.go": (
            "package app\n\n"
            "type Command struct{}\n\n"
            "func (c *Command) Register(name string, f func(cmd *Command, args []string) ([]string, error)) error {\n"
            "\treturn nil\n}\n"
        ),
        "use.go": (
            "package app\n\n"
            "func setup(c *Command) {\n"
            '\tc.Register("x", func(cmd *Command, args []string) ([]string, error) { return nil, nil })\n'
            "}\n"
        ),
    }
    after = {
        "cmd.go": (
            "package app\n\n"
            "type Command struct{}\n\n"
            "type CompletionFunc func(cmd *Command, args []string) ([]string, error)\n\n"
            "func (c *Command) Register(name string, f CompletionFunc) error {\n\treturn nil\n}\n"
        )
    }
    _, data = _report(tmp_path, capsys, before, after)
    (item,) = [c for c in data["changed"] if c["signature_changed"]]  # type: ignore[attr-defined]
    assert item["signature_verdict"] == "compatible"
    assert data["risk"]["level"] == "low"  # type: ignore[index]


def test_rust_self_is_filled_by_the_receiver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
        "src/lib.rs": (
            "pub struct Store;\n\n"
            "impl Store {\n"
            "    pub fn new() -> Self { Store }\n"
            "    pub fn put(&mut self, key: &str) {}\n"
            "}\n\n"
            "pub fn run() {\n"
            "    let mut s = Store::new();\n"  # 9
            '    s.put("k");\n'  # 10
            '    Store::put(&mut s, "k");\n'  # 11
            "}\n"
        ),
    }
    after = {
        "src/lib.rs": before["src/lib.rs"]
        .replace("pub fn new() -> Self", "pub fn new(cap: usize) -> Self")
        .replace("pub fn put(&mut self, key: &str)", "pub fn put(&mut self, key: &str, value: &str)")
    }
    _, data = _report(tmp_path, capsys, before, after)
    assert _sites(data) == [
        ("src/lib.rs", 9, "will break", "0 argument(s) where 1 are required"),
        ("src/lib.rs", 10, "will break", "1 argument(s) where 2 are required"),
        ("src/lib.rs", 11, "will break", "2 argument(s) where 3 are required"),
    ]


def test_java_overloads_by_arity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "src/main/java/shop/Repo.java": (
            "package shop;\n\n"
            "public class Repo {\n"
            "    public void save(String key) {}\n"
            "    public void save(String key, int ttl) {}\n"
            "    public void drop(String key) {}\n"
            "}\n"
        ),
        "src/main/java/shop/App.java": (
            "package shop;\n\n"
            "public class App {\n"
            "    void run(Repo repo) {\n"
            '        repo.save("a");\n'  # 5
            '        repo.drop("b");\n'  # 6
            "    }\n"
            "}\n"
        ),
    }
    after = {
        "src/main/java/shop/Repo.java": before["src/main/java/shop/Repo.java"]
        .replace("public void save(String key) {}", "public void save(String key, boolean sync) {}")
        .replace("public void drop(String key) {}", "public void drop(String key, boolean sync) {}")
    }
    _, data = _report(tmp_path, capsys, before, after)
    sites = _sites(data)
    assert ("src/main/java/shop/App.java", 6, "will break", "no overload takes 1 argument(s)") in sites
    # save(String) is gone but save(String, int) remains: 1 argument fits no overload either
    assert ("src/main/java/shop/App.java", 5, "will break", "no overload takes 1 argument(s)") in sites


def test_python_explicit_base_calls_pass_self(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {
        "base.py": "class Base:\n    def __init__(self, a):\n        self.a = a\n",
        "sub.py": (
            "from base import Base\n\n\n"
            "class Sub(Base):\n"
            "    def __init__(self, a):\n"
            "        Base.__init__(self, a)\n"  # 6: self passed explicitly
            "        super().__init__(a)\n"  # 7: bound
            "\n\n"
            "def make():\n"
            "    return Base(1)\n"  # 11
        ),
    }
    after = {"base.py": before["base.py"].replace("def __init__(self, a):", "def __init__(self, a, b):")}
    _, data = _report(tmp_path, capsys, before, after)
    # taking Base.__init__(self, a) as bound would see (a, b) filled: a false all-clear
    assert [s for s in _sites(data) if s[0] == "sub.py"] == [
        ("sub.py", 6, "will break", "missing required argument b"),
        ("sub.py", 7, "will break", "missing required argument b"),
        ("sub.py", 11, "will break", "missing required argument b"),
    ]


def test_a_long_parameter_list_is_judged_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # scrapy 2.12 Request.__init__: 700 characters of parameters, annotations rewritten
    params = ", ".join(f"option_{i}: Optional[int] = None" for i in range(30))
    before = {
        "req.py": f"from typing import Optional\n\n\nclass Request:\n    def __init__(self, url: str, {params}):\n        self.url = url\n",
        "use.py": "from req import Request\n\n\ndef make():\n    return Request('u', option_29=1)\n",
    }
    after = {"req.py": before["req.py"].replace("Optional[int]", "int | None") + "\n    def copy(self):\n        return self\n"}
    _, data = _report(tmp_path, capsys, before, after)
    init = next(c for c in data["changed"] if c["symbol"] and c["symbol"]["qualified_name"] == "Request.__init__")  # type: ignore[attr-defined]
    assert len(init["symbol"]["signature"]) > 400 and not init["signature_changed"]  # annotations only
    after = {"req.py": before["req.py"].replace("option_29: Optional[int] = None", "option_29: Optional[int] = None, *, extra")}
    _, data = _report(tmp_path / "again", capsys, before, after)
    assert _sites(data) == [("use.py", 5, "will break", "missing required argument extra")]


def test_java_call_of_a_method_without_overloads_whose_types_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """commons-lang3 3.17's `DiffResult(lhs, rhs, diffList, style)` gained
    `toStringFormat`, and its one caller passes the five: "which overload it
    binds to depends on argument types" said the site, of a constructor with
    no overload. The types of the arguments decide; no overload is involved."""
    before = {
        "src/main/java/shop/Repo.java": (
            "package shop;\n\npublic class Repo {\n    public void put(String key) {}\n\n"
            "    public void save(String key) {}\n\n    public void save(int key) {}\n}\n"
        ),
        "src/main/java/shop/App.java": (
            "package shop;\n\npublic class App {\n    void run(Repo repo) {\n"
            '        repo.put("a");\n        repo.save("b");\n    }\n}\n'
        ),
    }
    after = {
        "src/main/java/shop/Repo.java": before["src/main/java/shop/Repo.java"]
        .replace("put(String key)", "put(String key, int ttl)")
        .replace("save(String key)", "save(Object key)"),
        "src/main/java/shop/App.java": before["src/main/java/shop/App.java"].replace('put("a")', 'put("a", 3)'),
    }
    _, data = _report(tmp_path, capsys, before, after)
    assert _sites(data) == [
        ("src/main/java/shop/App.java", 5, None, "its parameter types changed: the arguments' types decide"),
        ("src/main/java/shop/App.java", 6, None, "which overload it binds to depends on argument types"),
    ]
