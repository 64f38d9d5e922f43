"""JavaScript/TypeScript module resolution on layouts of real projects:
tsconfig path aliases and baseUrl (through `extends`), package.json
subpath imports, workspace packages imported by name."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import edges_named as _edges
from tests.testing.exact_sets import graph_of as _graph


def test_tsconfig_path_aliases_and_base_url(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "ui/tsconfig.base.json": '{\n  // shared\n  "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./src/*"],},},\n}\n',
        "ui/tsconfig.json": '{"extends": "./tsconfig.base.json", "include": ["src"]}\n',
        "ui/src/lib/format.ts": "export function formatDate(d: Date): string {\n  return d.toISOString();\n}\n",
        "ui/src/lib/index.ts": "export { formatDate } from './format';\n",
        "ui/src/api/client.ts": "export function fetchFlows(): number {\n  return 1;\n}\n",
        "ui/src/pages/flows.tsx": (
            "import { formatDate } from '@/lib';\n"
            "import * as api from '@/api/client';\n"
            "import { helper } from 'src/util/helper';\n"
            "import React from 'react';\n\n"
            "export function Flows() {\n"
            "  helper();\n"
            "  api.fetchFlows();\n"
            "  return formatDate(new Date());\n"
            "}\n"
        ),
        "ui/src/util/helper.ts": "export function helper(): void {}\n",
    })  # fmt: skip
    flows = "ui/src/pages/flows.tsx:function:Flows"
    assert _edges(graph, "formatDate") == {(flows, "ui/src/lib/format.ts:function:formatDate", "import")}
    assert _edges(graph, "fetchFlows") == {(flows, "ui/src/api/client.ts:function:fetchFlows", "import")}
    assert _edges(graph, "helper") == {(flows, "ui/src/util/helper.ts:function:helper", "import")}
    assert ("ui/src/pages/flows.tsx:module:ui.src.pages.flows", None, "external") in _edges(graph, "default", "imports")


def test_workspace_packages_and_subpath_imports(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "package.json": '{"name": "monorepo", "private": true, "workspaces": ["packages/*"]}\n',
        "packages/core/package.json": '{"name": "@acme/core", "exports": {".": "./src/index.ts", "./util": "./src/util.ts"}}\n',
        "packages/core/src/index.ts": "export function boot(): void {}\n",
        "packages/core/src/util.ts": "export function clamp(x: number): number {\n  return x;\n}\n",
        "packages/app/package.json": '{"name": "app", "imports": {"#config/*": "./src/config/*.ts"}}\n',
        "packages/app/src/config/flags.ts": "export function flag(): boolean {\n  return true;\n}\n",
        "packages/app/src/main.ts": (
            "import { boot } from '@acme/core';\n"
            "import { clamp } from '@acme/core/util';\n"
            "import { flag } from '#config/flags';\n"
            "import { missing } from '@acme/other';\n\n"
            "export function main(): void {\n  boot();\n  clamp(flag() ? 1 : 0);\n  missing();\n}\n"
        ),
    })  # fmt: skip
    main = "packages/app/src/main.ts:function:main"
    assert _edges(graph, "boot") == {(main, "packages/core/src/index.ts:function:boot", "import")}
    assert _edges(graph, "clamp") == {(main, "packages/core/src/util.ts:function:clamp", "import")}
    assert _edges(graph, "flag") == {(main, "packages/app/src/config/flags.ts:function:flag", "import")}
    assert _edges(graph, "missing") == {(main, None, "external")}


def test_typescript_receivers_whose_type_is_declared(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/stats.ts": "export class Stats {\n  inc(): void {}\n}\n",
        "src/crawler.ts": (
            "import { Stats } from './stats';\n\n"
            "function create(): Stats {\n  return new Stats();\n}\n\n"
            "export class Crawler {\n"
            "  private stats: Stats;\n"
            "  constructor(private readonly other: Stats) {\n    this.stats = other;\n  }\n"
            "  run(given: Stats, maybe?: Stats): void {\n"
            "    this.stats.inc();\n"
            "    this.other.inc();\n"
            "    given.inc();\n"
            "    maybe.inc();\n"
            "    const local: Stats = create();\n"
            "    local.inc();\n"
            "    const made = create();\n"
            "    made.inc();\n"
            "    const cast = JSON.parse('{}') as Stats;\n"
            "    cast.inc();\n"
            "    let count = 3;\n"
            "    count.inc();\n"
            "  }\n"
            "}\n"
        ),
    })  # fmt: skip
    run = "src/crawler.ts:method:Crawler.run"
    lines = {e["line"]: (e["target_id"], e["resolution"]) for e in graph["edges"] if e["target_name"] == "inc"}  # type: ignore[index,union-attr]
    inc = "src/stats.ts:method:Stats.inc"
    assert lines == {
        13: (inc, "import"), 14: (inc, "import"), 15: (inc, "import"), 16: (inc, "import"),
        18: (inc, "import"), 20: (inc, "same_file"), 22: (inc, "import"),
        24: (inc, "unique"),  # an untyped value: only the name-unique guess is left
    }  # fmt: skip
    assert _edges(graph, "inc") == {(run, inc, "import"), (run, inc, "same_file"), (run, inc, "unique")}


def test_jsx_in_tsx_object_literal_methods_module_constants_and_wrapped_callees(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/errors.ts": (
            "export const AgentRuntimeError = {\n"
            "  createError: (t: string) => ({ t }),\n"
            "  wrap(x: number) {\n    return x;\n  },\n"
            "};\n"
        ),
        "src/log.ts": "import debug from 'debug';\n\nexport const log = debug('app');\n",
        "src/Card.tsx": "export function Card(): JSX.Element {\n  return <div />;\n}\n",
        "src/page.tsx": (
            "import { Card } from './Card';\n"
            "import { AgentRuntimeError } from './errors';\n"
            "import { log } from './log';\n\n"
            "export function Page(handler?: () => void) {\n"
            "  AgentRuntimeError.createError('x');\n"
            "  AgentRuntimeError.wrap(1);\n"
            "  log('rendering');\n"
            "  handler!();\n"
            "  return <Card />;\n"
            "}\n"
        ),
    })  # fmt: skip
    page = "src/page.tsx:function:Page"
    assert _edges(graph, "Card") == {(page, "src/Card.tsx:function:Card", "import")}
    assert _edges(graph, "createError") == {(page, "src/errors.ts:function:AgentRuntimeError.createError", "import")}
    assert _edges(graph, "wrap") == {(page, "src/errors.ts:function:AgentRuntimeError.wrap", "import")}
    assert _edges(graph, "log") == {(page, "src/log.ts:constant:log", "import")}
    assert _edges(graph, "handler") == {(page, None, None)}


def test_a_class_declared_again_in_each_test_is_the_one_before_the_call(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/agent.test.ts": (
            "describe('a', () => {\n"
            "  class FakeAgent {\n    run(): number {\n      return 1;\n    }\n  }\n"
            "  it('runs', () => {\n    new FakeAgent().run();\n  });\n"
            "});\n"
            "describe('b', () => {\n"
            "  class FakeAgent {\n    run(): number {\n      return 2;\n    }\n  }\n"
            "  it('runs', () => {\n    new FakeAgent().run();\n  });\n"
            "});\n"
        ),
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    found = {e["line"]: e["target_id"] for e in edges if e["target_name"] in ("FakeAgent", "run")}
    assert found == {
        8: "src/agent.test.ts:method:FakeAgent.run",
        18: "src/agent.test.ts:method:FakeAgent.run#2",
    }


def test_members_of_exported_objects_and_default_instances(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/selectors.ts": (
            "const nickName = (s: string): string => s;\n"
            "function save(x: number): number {\n  return x;\n}\n"
            "export const userSelectors = { nickName, put: save };\n"
        ),
        "src/keys.ts": "export class ApiKeyManager {\n  pick(): string {\n    return 'k';\n  }\n}\n\nexport default new ApiKeyManager();\n",
        "src/use.ts": (
            "import keys from './keys';\n"
            "import { userSelectors } from './selectors';\n\n"
            "export function use(): void {\n"
            "  userSelectors.nickName('a');\n"
            "  userSelectors.put(1);\n"
            "  keys.pick();\n"
            "}\n"
        ),
    })  # fmt: skip
    use = "src/use.ts:function:use"
    assert _edges(graph, "nickName") == {(use, "src/selectors.ts:function:nickName", "import")}
    assert _edges(graph, "put") == {(use, "src/selectors.ts:function:save", "import")}
    assert _edges(graph, "pick") == {(use, "src/keys.ts:method:ApiKeyManager.pick", "import")}


def _calls(graph: dict[str, object]) -> set[tuple[str, int, str, str | None, str | None]]:
    edges = graph["edges"]
    assert isinstance(edges, list)
    return {
        (e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"]) for e in edges if e["kind"] == "calls"
    }


def test_overload_signatures_are_one_symbol_the_implementation(tmp_path: Path) -> None:
    graph = _graph(tmp_path, {
        "src/parse.ts": (
            "export function parse(x: string): number;\n"
            "export function parse(x: number): number;\n"
            "export function parse(x: any): number {\n  return 1;\n}\n\n"
            "export class Box {\n"
            "  get(k: string): string;\n"
            "  get(k: number): number;\n"
            "  get(k: any): any {\n    return k;\n  }\n"
            "}\n"
        ),
        "src/use.ts": "import { parse, Box } from './parse';\n\nexport function run(b: Box) {\n  parse('a');\n  b.get(1);\n}\n",
    })  # fmt: skip
    symbols = graph["symbols"]
    assert isinstance(symbols, list)
    assert {(s["id"], s["start_line"]) for s in symbols if s["file"] == "src/parse.ts"} == {
        ("src/parse.ts:module:src.parse", 1),
        ("src/parse.ts:function:parse", 3),
        ("src/parse.ts:class:Box", 7),
        ("src/parse.ts:method:Box.get", 10),
    }
    assert _calls(graph) == {
        ("src/use.ts", 4, "parse", "src/parse.ts:function:parse", "import"),
        ("src/use.ts", 5, "get", "src/parse.ts:method:Box.get", "import"),
    }


def test_commonjs_require_called_in_place(tmp_path: Path) -> None:
    # `require('./x').f()` reaches f of that module; a package's is external,
    # a missing project module unresolved
    graph = _graph(tmp_path, {
        "lib/util.js": "exports.pad = function (s) {\n  return s;\n};\n\nexports.trim = function (s) {\n  return s;\n};\n",
        "lib/main.js": (
            "function go() {\n  return require('./util').pad('x');\n}\n\n"
            "function other() {\n  require('lodash').map([]);\n  require('./util')\n    .trim('y');\n"
            "  require('./missing').f();\n}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("lib/main.js", 2, "pad", "lib/util.js:function:pad", "import"),
        ("lib/main.js", 6, "map", None, "external"),
        ("lib/main.js", 7, "trim", "lib/util.js:function:trim", "import"),
        ("lib/main.js", 9, "f", None, None),
    }
