"""What a JavaScript/TypeScript receiver holds, on the shapes of real
libraries (issue 29): an interface and a const of one name (zod v4's
`ZodString`), a const alias of a static method re-exported under another
name (zod v3's `z.string`), an overload set whose implementation declares no
return type, a namespace import of a barrel of `export *`, and a top-level
`const g = new Foo()`. Each: the exact set of call edges, negatives
included, then an edit of the file the answer depends on, indexed
incrementally, equal to a cold build."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import call_rows as _calls
from tests.testing.exact_sets import edited_calls as _edited
from tests.testing.exact_sets import indexed_files as _indexed
from tests.testing.fixtures import exported


# -- an interface and a const of one name ----------------------------------

SCHEMAS = (
    "export interface ZodType {\n  optional(): ZodType;\n}\n"  # 1-3
    "export interface ZodString extends ZodType {\n  min(n: number): this;\n}\n"  # 4-6
    "export const ZodString = makeClass();\n"  # 7
    "function makeClass(): any {\n  return null;\n}\n"  # 8-10
    "export class Other {\n  min(n: number): void {}\n  optional(): void {}\n}\n"  # 11-14
    "export function string(): ZodString {\n  return new ZodString();\n}\n"  # 15-17
)
USE_SCHEMAS = (
    "import { string, ZodString } from './schemas';\n\n"
    "export function go(s: ZodString) {\n"
    "  string().min(1);\n"
    "  string().optional();\n"
    "  s.min(2);\n"
    "  string().max(3);\n"
    "}\n"
)


def test_an_interface_beside_a_const_of_its_name_types_what_a_call_returns(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, {"src/schemas.ts": SCHEMAS, "src/use.ts": USE_SCHEMAS})
    schemas = "src/schemas.ts"
    assert _calls(exported(repo)) == {
        (schemas, 7, "makeClass", f"{schemas}:function:makeClass", "same_file"),
        (schemas, 16, "ZodString", f"{schemas}:constant:ZodString", "same_file"),  # a call: the value
        ("src/use.ts", 4, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 4, "min", f"{schemas}:method:ZodString.min", "import"),
        ("src/use.ts", 5, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 5, "optional", f"{schemas}:method:ZodType.optional", "import"),  # through `extends`
        ("src/use.ts", 6, "min", f"{schemas}:method:ZodString.min", "import"),  # a parameter of the type
        ("src/use.ts", 7, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 7, "max", None, None),  # declared nowhere: no guess
    }
    edited = SCHEMAS.replace("  min(n: number): this;\n", "  max(n: number): this;\n")
    assert {c for c in _edited(repo, tmp_path, {"src/schemas.ts": edited}) if c[0] == "src/use.ts"} == {
        ("src/use.ts", 4, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 4, "min", None, None),  # the interface has no `min` now; Other's is not a guess
        ("src/use.ts", 5, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 5, "optional", f"{schemas}:method:ZodType.optional", "import"),
        ("src/use.ts", 6, "min", None, None),
        ("src/use.ts", 7, "string", f"{schemas}:function:string", "import"),
        ("src/use.ts", 7, "max", f"{schemas}:method:ZodString.max", "import"),
    }


# -- a const alias of a static method, re-exported under another name ------

TYPES = (
    "export class ZodString {\n"  # 1
    "  static create = (): ZodString => {\n    return new ZodString();\n  };\n"  # 2-4
    "  static make(): ZodString {\n    return new ZodString();\n  }\n"  # 5-7
    "  min(n: number): ZodString {\n    return this;\n  }\n"  # 8-10
    "}\n"  # 11
    "export class Other {\n  min(n: number): void {}\n}\n"  # 12-14
    "const stringType = ZodString.create;\n"  # 15
    "const otherType = Other;\n"  # 16
    "export { stringType as string, otherType as other };\n"  # 17
)
BARREL = "export * from './types';\n"
INDEX = "import * as z from './external';\nexport { z };\nexport default z;\n"
USE_TYPES = (
    "import { z } from './index';\n"
    "import { string } from './external';\n\n"
    "export function go() {\n"
    "  z.string().min(1);\n"
    "  string().min(2);\n"
    "  z.other();\n"
    "}\n"
)


def test_a_const_alias_of_a_static_method_re_exported_under_another_name(tmp_path: Path) -> None:
    files = {"src/types.ts": TYPES, "src/external.ts": BARREL, "src/index.ts": INDEX, "src/use.ts": USE_TYPES}
    repo = _indexed(tmp_path, files)
    types = "src/types.ts"
    assert _calls(exported(repo)) == {
        (types, 3, "ZodString", f"{types}:class:ZodString", "same_file"),
        (types, 6, "ZodString", f"{types}:class:ZodString", "same_file"),
        ("src/use.ts", 5, "string", f"{types}:method:ZodString.create", "import"),
        ("src/use.ts", 5, "min", f"{types}:method:ZodString.min", "import"),
        ("src/use.ts", 6, "string", f"{types}:method:ZodString.create", "import"),
        ("src/use.ts", 6, "min", f"{types}:method:ZodString.min", "import"),
        ("src/use.ts", 7, "other", f"{types}:class:Other", "import"),  # `const otherType = Other`
    }
    edited = TYPES.replace("const stringType = ZodString.create;", "const stringType = ZodString.make;")
    assert {c for c in _edited(repo, tmp_path, {"src/types.ts": edited}) if c[2] == "string"} == {
        ("src/use.ts", 5, "string", f"{types}:method:ZodString.make", "import"),
        ("src/use.ts", 6, "string", f"{types}:method:ZodString.make", "import"),
    }


# -- an overload set whose implementation declares no return type ----------

BOX = (
    "export class Box {\n  get(): number {\n    return 1;\n  }\n}\n"  # 1-5
    "export class Crate {\n  get(): number {\n    return 2;\n  }\n}\n"  # 6-10
    "export function make(x: string): Box;\n"  # 11
    "export function make(x: number): Box;\n"  # 12
    "export function make(x: any) {\n  return new Box();\n}\n"  # 13-15
    "export function mixed(x: string): Box;\n"  # 16
    "export function mixed(x: number): Crate;\n"  # 17
    "export function mixed(x: any) {\n  return x;\n}\n"  # 18-20
)
USE_BOX = "import { make, mixed } from './box';\n\nexport function go() {\n  make('a').get();\n  mixed(1).get();\n}\n"


def test_an_overload_set_without_an_implementation_return_type_gives_what_its_overloads_agree_on(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, {"src/box.ts": BOX, "src/use.ts": USE_BOX})
    box = "src/box.ts"
    assert _calls(exported(repo)) == {
        (box, 14, "Box", f"{box}:class:Box", "same_file"),
        ("src/use.ts", 4, "make", f"{box}:function:make", "import"),
        ("src/use.ts", 4, "get", f"{box}:method:Box.get", "import"),
        ("src/use.ts", 5, "mixed", f"{box}:function:mixed", "import"),
        ("src/use.ts", 5, "get", None, None),  # the overloads disagree: Box or Crate
    }
    edited = BOX.replace("export function make(x: number): Box;", "export function make(x: number): Crate;")
    assert {c for c in _edited(repo, tmp_path, {"src/box.ts": edited}) if c[2] == "get"} == {
        ("src/use.ts", 4, "get", None, None),
        ("src/use.ts", 5, "get", None, None),
    }


# -- a top-level const holding an instance ---------------------------------

FOO = (
    "class Foo {\n  test() {\n    return 1;\n  }\n}\n"  # 1-5
    "class Bar {\n  test() {\n    return 2;\n  }\n}\n"  # 6-10
    "const g = new Foo();\n"  # 11
    "g.test();\n"  # 12
    "let h = new Bar();\n"  # 13
    "h.test();\n"  # 14
    "function f() {\n  const g = new Bar();\n  g.test();\n}\n"  # 15-18: a local shadows the module's
    "module.exports = { f };\n"
)


def test_a_top_level_const_holding_an_instance_types_its_calls(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, {"lib/foo.js": FOO})
    module, f = "lib/foo.js:module:lib.foo", "lib/foo.js:function:f"
    foo, bar = "lib/foo.js:method:Foo.test", "lib/foo.js:method:Bar.test"
    calls = {(c[1], c[2], c[3], c[4]) for c in _calls(exported(repo))}
    assert calls == {
        (11, "Foo", "lib/foo.js:class:Foo", "same_file"),
        (12, "test", foo, "same_file"),
        (13, "Bar", "lib/foo.js:class:Bar", "same_file"),
        (14, "test", bar, "same_file"),
        (16, "Bar", "lib/foo.js:class:Bar", "same_file"),
        (17, "test", bar, "same_file"),
    }
    sources = {e["source_id"] for e in exported(repo)["edges"] if e["target_name"] == "test"}  # type: ignore[index,union-attr]
    assert sources == {module, f}
    edited = FOO.replace("const g = new Foo();", "const g = new Bar();")
    assert {(c[1], c[3]) for c in _edited(repo, tmp_path, {"lib/foo.js": edited}) if c[2] == "test"} == {
        (12, bar), (14, bar), (17, bar),
    }  # fmt: skip


# -- a namespace import of a barrel of `export *` --------------------------

BARREL_FILES = {
    "src/core.ts": "export function parse(): void {}\nexport function config(): void {}\n",
    "src/schemas.ts": (
        "import * as core from './core';\n"
        "import * as parse from './parse';\n\n"
        "export function string(): void {\n  core.config();\n  parse.safeParse();\n}\n"
    ),
    "src/parse.ts": (
        "export const parse = wrap(1);\nexport const safeParse = wrap(2);\n\n"
        "function wrap(n: number): any {\n  return n;\n}\n"
    ),
    "src/external.ts": "export * as core from './core';\nexport * from './schemas';\nexport * from './parse';\n",
    "src/index.ts": "export * from './external';\n",
    "src/use.ts": (
        "import * as z from './index';\n\n"
        "export function go() {\n"
        "  z.parse('a');\n"
        "  z.safeParse();\n"
        "  z.core.parse();\n"
        "  z.string();\n"
        "}\n"
    ),
}


def test_a_namespace_import_of_a_barrel_finds_the_export_not_a_module_imported_beside_it(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, BARREL_FILES)
    use = {c for c in _calls(exported(repo)) if c[0] == "src/use.ts"}
    assert use == {
        ("src/use.ts", 4, "parse", "src/parse.ts:constant:parse", "import"),  # not schemas.ts's `import * as parse`
        ("src/use.ts", 5, "safeParse", "src/parse.ts:constant:safeParse", "import"),
        ("src/use.ts", 6, "parse", "src/core.ts:function:parse", "import"),  # `export * as core`: a namespace
        ("src/use.ts", 7, "string", "src/schemas.ts:function:string", "import"),
    }
    # parse.ts no longer defines `parse`: schemas.ts's namespace import is all that is left
    edited = {"src/parse.ts": "export const safeParse = wrap(2);\n\nfunction wrap(n: number): any {\n  return n;\n}\n"}
    assert {c for c in _edited(repo, tmp_path, edited) if c[0] == "src/use.ts" and c[1] == 4} == {
        ("src/use.ts", 4, "parse", "src/parse.ts:module:src.parse", "import"),
    }


# -- chains of calls, compound components ----------------------------------

CHAIN = (
    "export class ZodType {\n"  # 1
    "  parse(x: unknown): string {\n    return '';\n  }\n"  # 2-4
    "  optional(): this {\n    return this;\n  }\n"  # 5-7
    "  loose() {\n    return this;\n  }\n"  # 8-10: no declared return type
    "}\n"  # 11
    "export class ZodString extends ZodType {\n"  # 12
    "  static create = (): ZodString => {\n    return new ZodString();\n  };\n"  # 13-15
    "  min(n: number): ZodString {\n    return this;\n  }\n"  # 16-18
    "  outside(): Promise<string> {\n    return Promise.resolve('');\n  }\n"  # 19-21
    "}\n"  # 22
    "export class Other {\n  parse(): void {}\n  then(): void {}\n}\n"  # 23-26
)
USE_CHAIN = (
    "import { ZodString } from './types';\n\n"
    "export function go() {\n"
    "  ZodString.create().min(1).optional().parse(2);\n"  # 4
    "  const s = ZodString.create().min(3);\n"  # 5
    "  s.parse(4);\n"  # 6
    "  ZodString.create().loose().parse(5);\n"  # 7: loose() gives no declared type
    "  ZodString.create().outside().then();\n"  # 8: a library's type
    "}\n"
)


def test_a_chain_of_calls_is_typed_a_call_at_a_time(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, {"src/types.ts": CHAIN, "src/use.ts": USE_CHAIN})
    types = "src/types.ts"
    create, min_, parse = f"{types}:method:ZodString.create", f"{types}:method:ZodString.min", f"{types}:method:ZodType.parse"
    assert {c for c in _calls(exported(repo)) if c[0] == "src/use.ts"} == {
        ("src/use.ts", 4, "create", create, "import"),
        ("src/use.ts", 4, "min", min_, "import"),
        ("src/use.ts", 4, "optional", f"{types}:method:ZodType.optional", "import"),
        ("src/use.ts", 4, "parse", parse, "import"),  # `optional(): this` keeps ZodString
        ("src/use.ts", 5, "create", create, "import"),
        ("src/use.ts", 5, "min", min_, "import"),
        ("src/use.ts", 6, "parse", parse, "import"),
        ("src/use.ts", 7, "create", create, "import"),
        ("src/use.ts", 7, "loose", f"{types}:method:ZodType.loose", "import"),
        ("src/use.ts", 7, "parse", None, None),  # Other.parse is no guess for a typed language's chain
        ("src/use.ts", 8, "create", create, "import"),
        ("src/use.ts", 8, "outside", f"{types}:method:ZodString.outside", "import"),
        ("src/use.ts", 8, "then", None, "external"),
    }
    edited = CHAIN.replace("  min(n: number): ZodString {", "  min(n: number): Other {")
    assert {c for c in _edited(repo, tmp_path, {"src/types.ts": edited}) if c[0] == "src/use.ts" and c[2] == "parse"} == {
        ("src/use.ts", 4, "parse", None, None),  # Other has no `optional`
        ("src/use.ts", 6, "parse", f"{types}:method:Other.parse", "import"),
        ("src/use.ts", 7, "parse", None, None),
    }


COMPOUND = {
    "src/form.tsx": "export function ModalForm(): JSX.Element {\n  return <form />;\n}\n",
    "src/drawer.tsx": (
        "import { ModalForm } from './form';\n\n"
        "function Root(): JSX.Element {\n  return <div />;\n}\n"
        "function Header(): JSX.Element {\n  return <div />;\n}\n\n"
        "const Form = ModalForm;\n\n"
        "export const Drawer = Object.assign(Root, {\n  Header,\n  Form,\n});\n"
    ),
    "src/page.tsx": (
        "import { Drawer } from './drawer';\n\n"
        "export function Page(): JSX.Element {\n"
        "  return (\n    <Drawer>\n      <Drawer.Header />\n      <Drawer.Form />\n      <Drawer.Footer />\n    </Drawer>\n  );\n"
        "}\n"
    ),
}


def test_members_of_a_compound_component_built_by_object_assign(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, COMPOUND)
    page = {(c[1], c[2], c[3], c[4]) for c in _calls(exported(repo)) if c[0] == "src/page.tsx"}
    assert page == {
        (5, "Drawer", "src/drawer.tsx:constant:Drawer", "import"),
        (6, "Header", "src/drawer.tsx:function:Header", "import"),
        (7, "Form", "src/form.tsx:function:ModalForm", "import"),
        (8, "Footer", None, None),
    }
    edited = {"src/drawer.tsx": COMPOUND["src/drawer.tsx"].replace("  Header,\n", "  Header,\n  Footer: Header,\n")}
    assert {(c[1], c[3]) for c in _edited(repo, tmp_path, edited) if c[0] == "src/page.tsx" and c[1] == 8} == {
        (8, "src/drawer.tsx:function:Header"),
    }


NAMESPACE = {
    "src/util.ts": (
        "export namespace util {\n"  # 1
        "  export const assertEqual = (a: number): void => {};\n"  # 2
        "  export function joinValues(xs: string[]): string {\n    return check(xs);\n  }\n"  # 3-5
        "  function check(xs: string[]): string {\n    return '';\n  }\n"  # 6-8
        "}\n"  # 9
        "export function joinValues(): void {}\n"  # 10: no member of util
    ),
    "src/use.ts": (
        "import { util } from './util';\n\n"
        "export function go() {\n  util.assertEqual(1);\n  util.joinValues([]);\n  util.missing();\n}\n"
    ),
}


def test_members_of_a_typescript_namespace(tmp_path: Path) -> None:
    repo = _indexed(tmp_path, NAMESPACE)
    assert _calls(exported(repo)) == {
        ("src/util.ts", 4, "check", "src/util.ts:function:util.check", "same_file"),
        ("src/use.ts", 4, "assertEqual", "src/util.ts:function:util.assertEqual", "import"),
        ("src/use.ts", 5, "joinValues", "src/util.ts:function:util.joinValues", "import"),
        ("src/use.ts", 6, "missing", None, None),
    }
    edited = {"src/util.ts": NAMESPACE["src/util.ts"].replace("export namespace util {", "export namespace utils {")}
    assert {c for c in _edited(repo, tmp_path, edited) if c[0] == "src/use.ts"} == {
        ("src/use.ts", 4, "assertEqual", None, None),
        ("src/use.ts", 5, "joinValues", None, None),
        ("src/use.ts", 6, "missing", None, None),
    }


# -- an object of functions a function keeps (trpc's stream controller) ----

STREAM = (
    "export function createStreamController() {\n"  # 1
    "  const options = { depth: 1 }\n"  # 2: data only, no symbol
    "  const controller = {\n"  # 3
    "    enqueue: (v: number) => v,\n"  # 4
    "    close: () => {\n"  # 5
    "      clear()\n"  # 6
    "    },\n"
    "    closed: false,\n"
    "    resource() {\n"  # 9
    "      controller.close()\n"  # 10
    "      return controller.closed\n"
    "    },\n"
    "  }\n"
    "  function clear() {}\n"  # 14
    "  controller.enqueue(options.depth)\n"  # 15
    "  controller.open()\n"  # 16: no such member
    "  close()\n"  # 17: a member is no name in scope
    "  return controller\n"
    "}\n"
    "\n"
    "const api = { get: () => 1 }\n"  # 21
    "export function top() {\n"
    "  api.get()\n"  # 23
    "}\n"
)


def test_an_object_of_functions_a_function_keeps(tmp_path: Path) -> None:
    stream = "src/stream.ts"
    repo = _indexed(tmp_path, {stream: STREAM})
    controller = f"{stream}:function:createStreamController.controller"
    fixed = {
        (stream, 6, "clear", f"{stream}:function:createStreamController.clear", "same_file"),
        (stream, 15, "enqueue", f"{controller}.enqueue", "same_file"),
        (stream, 16, "open", None, None),
        (stream, 17, "close", None, None),
        (stream, 23, "get", f"{stream}:function:api.get", "same_file"),
    }
    assert _calls(exported(repo)) == fixed | {(stream, 10, "close", f"{controller}.close", "same_file")}
    edited = STREAM.replace("    close: () => {\n", "    shut: () => {\n")
    assert _edited(repo, tmp_path, {stream: edited}) == fixed | {(stream, 10, "close", None, None)}
