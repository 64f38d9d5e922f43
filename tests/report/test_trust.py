"""Report verdicts on changes that real history holds, where a wrong answer
would be a false alarm."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import branched, commit, git, init_repo, write

HEADERS_BEFORE = (
    "class CaselessDict(dict):\n"
    "    def __init__(self, seq=None):\n        super().__init__()\n        self.update(seq or {})\n\n"
    "    def get(self, key, default=None):\n        return dict.get(self, key.lower(), default)\n\n"
    "    def setdefault(self, key, default=None):\n        return dict.setdefault(self, key.lower(), default)\n\n\n"
    "class Headers(CaselessDict):\n"
    "    def __init__(self, seq=None, encoding='utf-8'):\n        self.encoding = encoding\n        super().__init__(seq)\n"
)
# scrapy df64fe32f: Headers no longer derives from CaselessDict, which is gone
HEADERS_AFTER = (
    "class Headers(dict):\n"
    "    def __init__(self, seq=None, encoding='utf-8'):\n        self.encoding = encoding\n        super().__init__(seq or {})\n\n"
    "    def setdefault(self, key, default=None):\n        return dict.setdefault(self, key.lower(), default)\n"
)


def test_a_base_class_replaced_by_a_builtin_breaks_no_super_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"http/headers.py": HEADERS_BEFORE, "http/__init__.py": ""})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"http/headers.py": HEADERS_AFTER})
    commit(repo, "headers derive from dict")
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related", "--fail-on", "broken-refs"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["broken_references"] == []
    # CaselessDict.setdefault moved to Headers; CaselessDict.get is gone, not "renamed to setdefault"
    pairs = {(c["old"]["qualified_name"], c["symbol"]["qualified_name"]) for c in data["changed"] if c["category"] == "renamed"}
    removed = {c["old"]["qualified_name"] for c in data["changed"] if c["category"] == "removed"}
    assert pairs == {("CaselessDict.setdefault", "Headers.setdefault")}
    assert {"CaselessDict.get", "CaselessDict.__init__", "CaselessDict"} <= removed


STATS_BEFORE = (
    "class StatsCollector:\n"
    "    def __init__(self, crawler):\n        self._stats = {}\n\n"
    "    def get_value(self, key, default=None, spider=None):\n        return self._stats.get(key, default)\n\n"
    "    def inc_value(self, key, count=1, start=0, spider=None):\n"
    "        d = self._stats\n        d[key] = d.setdefault(key, start) + count\n"
)
# scrapy #8072: docstrings added, one method reformatted; no code changed
STATS_AFTER = (
    "class StatsCollector:\n"
    '    """Collects the statistics of a crawl."""\n\n'
    "    def __init__(self, crawler):\n        self._stats = {}  # key -> value\n\n"
    "    def get_value(self, key, default=None, spider=None):\n"
    '        """The value of ``key``, else ``default``."""\n'
    "        return self._stats.get(key, default)\n\n"
    "    def inc_value(\n        self, key, count=1, start=0, spider=None\n    ):\n"
    "        d = self._stats\n        d[key] = d.setdefault(key,\n                              start) + count\n"
)


def test_documentation_and_formatting_edits_are_docs_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    users = "from stats import StatsCollector\n\n\ndef use(s: StatsCollector):\n    s.inc_value('a')\n    return s.get_value('a')\n"
    write(repo, {"stats.py": STATS_BEFORE, "use.py": users})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"stats.py": STATS_AFTER})
    commit(repo, "docstrings")
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    changes = {(c["symbol"]["qualified_name"], c["category"]) for c in data["changed"] if c["category"] != "children_changed"}
    assert changes == {
        ("StatsCollector", "docs"),
        ("StatsCollector.get_value", "docs"),
        ("StatsCollector.inc_value", "docs"),
    }
    assert data["risk"]["level"] == "low"
    assert all(c["callers"] == [] for c in data["changed"])


def test_type_annotations_are_no_callers_and_unresolved_call_sites_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "stats.py": "class StatsCollector:\n    def inc_value(self, key):\n        return key\n",
        "a.py": "from stats import StatsCollector\n\n\ndef keep(s: StatsCollector) -> StatsCollector:\n    return s\n",
        "b.py": "from stats import StatsCollector\n\n\ndef make():\n    return StatsCollector()\n",
        "util.py": "def arg_to_iter(arg):\n    return [arg]\n",
        "c.py": "def run(x, obj):\n    obj.arg_to_iter(x)\n    obj.arg_to_iter(x)\n    return helpers().arg_to_iter(x)\n",
        "tests/test_c.py": "def test_run(obj):\n    obj.arg_to_iter(1)\n",
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {
        "stats.py": "class StatsCollector:\n    scale = 2\n\n    def inc_value(self, key):\n        return key\n",
        "util.py": "def arg_to_iter(arg):\n    return list(arg)\n",
    })  # fmt: skip
    commit(repo, "change")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    by_name = {c["symbol"]["qualified_name"]: c for c in data["changed"]}
    stats = by_name["StatsCollector"]
    assert [c["id"] for c in stats["callers"]] == ["b.py:function:make"]
    assert stats["type_uses"] == 2
    util = by_name["arg_to_iter"]
    assert (util["callers_total"], util["possible_callers"]) == (0, 4)
    # three sites outside tests for the project's only arg_to_iter: likely callers
    assert data["risk"]["reasons"][0] == (
        "4 call site(s) named arg_to_iter could not be resolved, 3 outside tests: "
        "arg_to_iter may have callers the graph does not show"
    )
    assert data["risk"]["level"] == "medium"


def test_a_compatible_signature_change_is_no_risk_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    callers = "".join(f"def caller_{i}(engine):\n    return engine.close_async()\n\n\n" for i in range(5))
    write(repo, {
        "engine.py": "class Engine:\n    async def close_async(self):\n        return None\n",
        "use.py": "from engine import Engine\n\n\n" + callers.replace("(engine)", "(engine: Engine)"),
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    # scrapy c285f4cb1: a keyword-only parameter with a default breaks no call
    write(repo, {"engine.py": "class Engine:\n    async def close_async(self, *, reason='shutdown'):\n        return reason\n"})
    commit(repo, "reason")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    change = next(c for c in data["changed"] if c["symbol"]["qualified_name"] == "Engine.close_async")
    assert (change["signature_verdict"], change["callers_total"]) == ("compatible", 5)
    assert change["old_signature"] == "async def close_async(self)"
    assert change["new_signature"] == "async def close_async(self, *, reason='shutdown')"
    # the signature is no reason, nor is the graph's "no test within 2 calls"
    # (issue 30: only recorded coverage says "untested"); it is said as what it is
    assert data["risk"]["reasons"] == ["no broken reference and no call site that no longer fits"]
    assert (change["unreached"], change["untested"]) == (True, False)


def test_an_added_class_has_its_callers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # scrapy RemoteControl: added with its callers in the same change, "0 callers" was said
    repo = init_repo(tmp_path / "repo")
    write(repo, {"ext.py": "def other():\n    return 1\n"})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {
        "ext.py": "class RemoteControl:\n    def start(self):\n        return 1\n",
        "a.py": "from ext import RemoteControl\n\n\ndef boot():\n    return RemoteControl().start()\n",
        "b.py": "from ext import RemoteControl\n\n\ndef again():\n    return RemoteControl()\n",
    })  # fmt: skip
    commit(repo, "remote control")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    added = next(c for c in data["changed"] if c["symbol"] and c["symbol"]["qualified_name"] == "RemoteControl")
    assert added["category"] == "added"
    assert sorted(c["id"] for c in added["callers"]) == ["a.py:function:boot", "b.py:function:again"]


def test_the_pr_comment_folds_low_signal_rows_and_draws_caller_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "core.py": "def parse(x):\n    return x\n",
        "api.py": "from core import parse\n\n\ndef handle(x):\n    return parse(x)\n",
        "web.py": "from api import handle\n\n\ndef view(x):\n    return handle(x)\n",
        "tests/test_core.py": "from core import parse\n\n\ndef test_parse():\n    assert parse(1) == 1\n",
        "README.md": "# Title\n\nText.\n",
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {
        "core.py": "def parse(x):\n    return str(x)\n",
        "tests/test_core.py": "from core import parse\n\n\ndef test_parse():\n    assert parse(1) == '1'\n",
        "README.md": "# Title\n\nMore text.\n",
    })  # fmt: skip
    commit(repo, "parse returns a string")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "markdown", "--no-related"])
    markdown = capsys.readouterr().out
    table = markdown.split("### Changed symbols", 1)[1].split("\n\n", 2)[1]
    assert [row.split(" | ")[0] for row in table.splitlines()[2:]] == ["| `parse`"]  # the one production row
    folded = markdown.split("<details><summary>Low-signal changes", 1)[1]
    assert folded.split("</details>")[0].splitlines()[2:] == [
        "- test code (1): `test_parse`",
        "- Markdown sections (1): `Title`",
    ]
    picture = markdown.split("```mermaid\n", 1)[1].split("```", 1)[0]
    # parse <- handle <- view: the path drawn edge by edge, the test too
    assert picture.splitlines()[:1] == ["flowchart RL"]
    nodes = dict(line.strip().split("[", 1) for line in picture.splitlines() if "[" in line)
    names = {k: v.strip('"]') for k, v in nodes.items()}
    edges = sorted((names[a], names[b]) for a, _, b in (line.split() for line in picture.splitlines() if "-->" in line))
    assert edges == [("handle", "parse"), ("test_parse", "parse"), ("view", "handle")]


def test_typescript_widened_parameter_types_are_compatible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"errors.ts": (
        "export class Err<T = unknown> {}\n\n"
        "export function flatten(error: Err, label: string): string {\n  return label;\n}\n\n"
        "export function narrow(value: string | number): void {}\n"
    )})  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"errors.ts": (
        "export class Err<T = unknown> {}\n\n"
        "export function flatten<T>(error: Err<T>, label: string | null): string {\n  return label ?? '';\n}\n\n"
        "export function narrow(value: string): void {}\n"
    )})  # fmt: skip
    commit(repo, "generic")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    verdicts = {c["symbol"]["qualified_name"]: c["signature_verdict"] for c in data["changed"] if c["signature_changed"]}
    assert verdicts == {"flatten": "compatible", "narrow": "breaking"}


def test_typescript_parameters_retyped_to_an_alias_that_widens_them_are_compatible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """immer 10.0.3 -> 10.1.1: `shallowCopy(base: any, strict: boolean)` took
    `strict: StrictMode` where `type StrictMode = boolean | "class_only"`, and
    `applyPatches(base, patches: Patch[])` took `readonly Patch[]`: every call
    that worked still works. An alias that narrows, or one two files define
    differently, is no proof."""
    base = {
        "copy.ts": (
            "export interface Patch { op: string }\n\n"
            "export function shallowCopy(base: any, strict: boolean): any {\n  return base;\n}\n\n"
            "export function applyPatches(base: any, patches: Patch[]): any {\n  return base;\n}\n\n"
            "export function pick(key: string): void {}\n\n"
            "export function mode(value: number): void {}\n"
        ),
        "other.ts": "export function unused(): void {}\n",
    }
    edit = {
        "copy.ts": (
            "export interface Patch { op: string }\n\n"
            'export type StrictMode = boolean | "class_only";\n\n'
            'export type Key = "a" | "b";\n\n'
            "export type Mode = number | string;\n\n"
            "export function shallowCopy(base: any, strict: StrictMode): any {\n  return base;\n}\n\n"
            "export function applyPatches(base: any, patches: readonly Patch[]): any {\n  return base;\n}\n\n"
            "export function pick(key: Key): void {}\n\n"
            "export function mode(value: Mode): void {}\n"
        ),
        "other.ts": "export type Mode = string;\n\nexport function unused(): void {}\n",
    }
    data = _feature_report(tmp_path, capsys, base, edit)
    verdicts = {c["symbol"]["qualified_name"]: c["signature_verdict"] for c in data["changed"] if c["signature_changed"]}
    assert verdicts == {"shallowCopy": "compatible", "applyPatches": "compatible", "pick": "breaking", "mode": "breaking"}


def test_a_typescript_parameter_widened_to_property_key_is_compatible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """zod 4.5.4 -> 4.6.0: `own(inst: object, key: string, …)` (and `hide`,
    `defineBound`) took `key: PropertyKey`, TypeScript's own alias of
    `string | number | symbol`: every call that worked still works; the
    report said "breaking signature change of own: 9 of its 9 call site(s)
    could not be checked". Narrowed to it it breaks, and where the change's
    files define their own `PropertyKey`, theirs is read."""
    base = {
        "util.ts": (
            "export function own(inst: object, key: string, value: number): number {\n  return value;\n}\n\n"
            "export function back(key: PropertyKey): void {}\n"
        ),
    }
    edit = {
        "util.ts": (
            "export function own(inst: object, key: PropertyKey, value: number): number {\n  return value;\n}\n\n"
            "export function back(key: string): void {}\n"
        ),
    }
    verdicts = _signature_verdicts(_feature_report(tmp_path / "lib", capsys, base, edit))
    assert verdicts == {"own": "compatible", "back": "breaking"}
    edit["keys.ts"] = "export type PropertyKey = 'a';\n"
    verdicts = _signature_verdicts(_feature_report(tmp_path / "own", capsys, base, edit))
    assert verdicts == {"own": "breaking", "back": "breaking"}


def test_typescript_type_parameters_renamed_change_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """redux-toolkit 2.2.5 -> 2.2.7 renamed the type parameter `Dispatch` to
    `DispatchType` (its bound's import alias `ReduxDispatch` became
    `Dispatch`) in a function and in the one around an arrow function that
    reads it: no call changes. A parameter retyped from another type to the
    type parameter is still a change."""
    base = {
        "mw.ts": (
            'import type { Dispatch as ReduxDispatch, Mw, Entry, Ctx } from "./types";\n\n'
            "export const entry = <State = any, Dispatch extends ReduxDispatch = ReduxDispatch>(\n"
            "  middleware: Mw<State, Dispatch>,\n): Entry<State, Dispatch> => {\n  return { middleware };\n};\n\n"
            "export const make = <Dispatch extends ReduxDispatch = ReduxDispatch>() => {\n"
            "  const hook = (context: Ctx<Dispatch> | null = null) => context;\n  return hook;\n};\n\n"
            "export function pick<T>(value: T, other: Ctx<T>): T {\n  return value;\n}\n"
        ),
    }
    edit = {
        "mw.ts": (
            'import type { Dispatch, Mw, Entry, Ctx } from "./types";\n\n'
            "export const entry = <State = any, DispatchType extends Dispatch = Dispatch>(\n"
            "  middleware: Mw<State, DispatchType>,\n): Entry<State, DispatchType> => {\n  return { middleware };\n};\n\n"
            "export const make = <DispatchType extends Dispatch = Dispatch>() => {\n"
            "  const hook = (context: Ctx<DispatchType> | null = null) => context;\n  return hook;\n};\n\n"
            "export function pick<U>(value: U, other: Ctx<Dispatch>): U {\n  return value;\n}\n"
        ),
    }
    verdicts = _signature_verdicts(_feature_report(tmp_path, capsys, base, edit))
    assert verdicts == {"mw": None, "entry": None, "make": None, "make.hook": None, "pick": "breaking"}


NOTIFY_BEFORE = """\
const wrap = <F>(fn: F): F => fn

export function createNotifyManager() {
  let queue: Array<() => void> = []
  const batch = <T>(callback: () => T): T => {
    return callback()
  }
  const setScheduler = (fn: () => void) => {
    queue.push(fn)
  }
  const schedule = (fn: () => void) => {
    queue.push(fn)
  }
  const flush = (): void => {
    queue = []
  }
  return {
    batch,
    setScheduler,
    schedule,
    flush,
  } as const
}

export const notifyManager = createNotifyManager()
"""
# @tanstack/query-core 5.51 -> 5.56: the locals moved into the returned object
# (`as const`); `schedule` is returned as a wrapped value, `flush` no more
NOTIFY_AFTER = """\
const wrap = <F>(fn: F): F => fn

export function createNotifyManager() {
  let queue: Array<() => void> = []
  const schedule = wrap((fn: () => void) => {
    queue.push(fn)
  })
  return {
    batch: <T>(callback: () => T): T => {
      return callback()
    },
    setScheduler(fn: () => void) {
      queue.push(fn)
    },
    schedule,
  } as const
}

export const notifyManager = createNotifyManager()
"""


def test_a_factory_local_moved_into_the_returned_object_is_still_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """@tanstack/query-core 5.56 moved `createNotifyManager`'s `const batch =
    …` into `return { batch: … } as const`: the 27 call sites of
    `notifyManager.batch(…)` were "will break" (risk HIGH). The function
    became a method of the returned object under its name: modified; a
    local the returned object still has (`schedule`, now a wrapped value)
    is no broken reference; one it no longer has (`flush`) is."""
    base = {
        "notifyManager.ts": NOTIFY_BEFORE,
        "cache.ts": (
            'import { notifyManager } from "./notifyManager"\n\n'
            "export function clear(): void {\n  notifyManager.batch(() => 1)\n  notifyManager.setScheduler(() => {})\n"
            "  notifyManager.schedule(() => {})\n  notifyManager.flush()\n}\n"
        ),
    }
    data = _feature_report(tmp_path, capsys, base, {"notifyManager.ts": NOTIFY_AFTER})
    broken = [(b["file"], b["line"], b["name"], b["change"]) for b in data["broken_references"]]
    assert broken == [("cache.ts", 7, "flush", "removed")]
    changes = {(c["old"] or c["symbol"])["qualified_name"]: c["category"] for c in data["changed"] if "." in (c["old"] or c["symbol"])["qualified_name"]}
    assert changes == {
        "createNotifyManager.batch": "modified",
        "createNotifyManager.setScheduler": "modified",
        "createNotifyManager.schedule": "removed",
        "createNotifyManager.flush": "removed",
    }


def test_typescript_generic_given_any_type_arguments_is_widened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """@tanstack/query-core 5.56: `queries: Array<QueryObserverOptions>` took
    `Array<QueryObserverOptions<any, any>>`: every value that fit the
    defaults fits `any`. Another type argument is no proof."""
    base = {
        "observer.ts": (
            "export interface Options<A = unknown, B = Error> { a?: A; b?: B }\n\n"
            "export function watch(queries: Array<Options>): void {}\n\n"
            "export function pin(queries: Array<Options>): void {}\n"
        ),
    }
    edit = {
        "observer.ts": (
            "export interface Options<A = unknown, B = Error> { a?: A; b?: B }\n\n"
            "export function watch(queries: Array<Options<any, any>>): void {}\n\n"
            "export function pin(queries: Array<Options<string, any>>): void {}\n"
        ),
    }
    data = _feature_report(tmp_path, capsys, base, edit)
    verdicts = {c["symbol"]["qualified_name"]: c["signature_verdict"] for c in data["changed"] if c["signature_changed"]}
    assert verdicts == {"watch": "compatible", "pin": "breaking"}


def test_definitions_in_lines_the_grammar_cannot_read_are_not_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """redux-toolkit 2.2.7: tree-sitter-typescript 0.23 reads no three
    generic call signatures of an interface in a row; the declarations after
    them looked removed (and their callers "still called removed code")."""
    signature = "  <P extends Base<S>>(\n    predicate: P,{}\n  ): Out<S, P>\n"
    pattern = "export interface TakePattern<S> {{\n{}}}\n\n".format(
        "".join(signature.format(t) for t in ("", "\n    timeout: number,", "\n    timeout?: number | undefined,"))
    )
    options = "export interface Options {\n  cancel?: true\n}\n"
    repo = init_repo(tmp_path / "repo")
    write(repo, {"types.ts": options, "use.ts": "import type { Options } from './types'\n\nexport function f(o: Options): void {}\n"})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"types.ts": pattern + options})
    commit(repo, "call signatures")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    assert [(c["category"], c["symbol"]["qualified_name"]) for c in data["changed"] if c["symbol"]["kind"] != "module"] == [
        ("added", "TakePattern")  # before: Options removed, 3 call sites "still call removed code" (HIGH)
    ]
    assert data["broken_references"] == []
    assert data["risk"]["level"] == "medium"
    assert data["risk"]["reasons"][0] == (
        "1 definition(s) in 1 file(s) not compared: the grammar cannot read their lines at the head "
        "(e.g. types.ts, lines 5-17): their impact is unknown"
    )
    assert "types.ts: lines 5-17 are a syntax error to its tree-sitter grammar at the head; 1 definition(s) of the base written there are not compared" in data["notes"]


def test_a_site_guessed_by_its_name_alone_is_no_broken_call_while_the_name_is_defined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """redux-toolkit 2.2.7 bundled dist/*.d.ts into one file: a test's
    `selectIdValue` (from `await import('../utils')`) had been guessed to
    dist/entities/utils.d.ts, while src/entities/utils.ts still defines it.
    A name no other file defines still makes the broken call."""
    data = _feature_report(tmp_path, capsys, {
        "src/utils.ts": "export function selectIdValue(x: number): number {\n  return x\n}\n",
        "dist/utils.d.ts": "export declare function selectIdValue(x: number): number;\nexport declare function gone(): void;\n",
        "src/utils.test.ts": (
            "it('selects', async () => {\n  const { selectIdValue } = await import('./utils')\n  selectIdValue(1)\n  gone()\n})\n"
        ),
    }, {"dist/utils.d.ts": ""})  # fmt: skip
    assert [(b["name"], b["line"]) for b in data["broken_references"]] == [("gone", 4)]


def test_a_typescript_member_of_the_object_type_an_interface_became_is_still_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """redux-toolkit 2.2.7: `interface PromiseWithKnownReason { catch(…) }`
    became `type PromiseWithKnownReason = Omit<…> & { catch(…) }`."""
    data = _feature_report(tmp_path, capsys, {
        "types.ts": "export interface Known<T> {\n  catch(handler: () => void): Promise<T>\n  done(): void\n}\n",
        "use.ts": "import type { Known } from './types'\n\nexport function wait(p: Known<number>): void {\n  p.catch(() => {})\n  p.done()\n}\n",
    }, {"types.ts": "export type Known<T> = Omit<Promise<T>, 'then'> & {\n  catch(handler: () => void): Promise<T>\n}\n"})  # fmt: skip
    assert [(b["name"], b["line"]) for b in data["broken_references"]] == [("done", 5)]


def test_a_type_that_changed_kind_is_modified_with_its_members(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """redux-toolkit 2.2.7: `interface InjectedSlice {…}` became `type
    InjectedSlice = {…}`: one type modified, not removed and added; its
    methods, now members of an object type, are not removed."""
    data = _feature_report(tmp_path, capsys, {
        "slice.ts": "export interface Slice<S> {\n  getSelectors(): S\n  get selectors(): S\n  drop(): void\n}\n",
    }, {
        "slice.ts": "export type Slice<S> = {\n  getSelectors(): S\n  get selectors(): S\n}\n",
    })  # fmt: skip
    rows = [(c["category"], (c["old"] or {}).get("kind"), c["symbol"] and c["symbol"]["kind"], (c["old"] or c["symbol"])["qualified_name"]) for c in data["changed"]]
    assert [r for r in rows if r[3] != "slice"] == [("removed", "method", None, "Slice.drop"), ("modified", "interface", "type", "Slice")]


def test_renames_of_one_name_are_one_sentence_and_many_moves_fold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trpc 11.0.0-rc.477: a constant of src/ and of its dist/ copy renamed
    together made two equal sentences; redux-toolkit 2.2.7 moved
    the declarations of 26 files into one: one sentence for the moves past
    the first three."""
    repo = init_repo(tmp_path / "repo")
    files = {
        "src/jsonl.ts": "export function DONE(): number {\n  return 0\n}\n",
        "src/use.ts": "import { DONE } from './jsonl'\n\nexport const done = DONE()\n",
        "dist/jsonl.js": "export function DONE() {\n  return 0\n}\n",
        "dist/use.js": "import { DONE } from './jsonl.js'\n\nexport const done = DONE()\n",
        "use.py": "from parts import *\n\n\ndef run():\n    return " + " + ".join(f"f{i}()" for i in range(6)) + "\n",
        "parts/__init__.py": "".join(f"from .p{i} import f{i}\n" for i in range(6)),
    }
    files |= {f"parts/p{i}.py": f"def f{i}():\n    return {i} * {i} + {i}\n" for i in range(6)}
    write(repo, files)
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {
        "src/jsonl.ts": "export function RETURN(): number {\n  return 0\n}\n",
        "src/use.ts": "import { RETURN } from './jsonl'\n\nexport const done = RETURN()\n",
        "dist/jsonl.js": "export function RETURN() {\n  return 0\n}\n",
        "dist/use.js": "import { RETURN } from './jsonl.js'\n\nexport const done = RETURN()\n",
    })  # fmt: skip
    for i in range(6):
        git(repo, "rm", "-q", f"parts/p{i}.py")
    write(repo, {
        "parts/__init__.py": "".join(f"from .all import f{i}\n" for i in range(6)),
        "parts/all.py": "\n\n".join(f"def f{i}():\n    return {i} * {i} + {i}\n" for i in range(6)),
    })  # fmt: skip
    commit(repo, "moves")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    reasons = json.loads(capsys.readouterr().out)["risk"]["reasons"]
    assert [r for r in reasons if "renamed" in r or "moved" in r] == [
        "DONE was renamed to RETURN (2 definitions); their 4 reference(s) follow them",
        "f0 was moved to parts/all.py; its 2 reference(s) follow it",
        "f1 was moved to parts/all.py; its 2 reference(s) follow it",
        "f2 was moved to parts/all.py; its 2 reference(s) follow it",
        "3 more symbols were moved, from 3 file(s): f3, f4, f5; their 6 reference(s) follow them",
    ]


def test_a_renamed_file_takes_its_symbols_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # zod 4.1: locales/ua.ts became uk.ts and kh.ts became km.ts, all alike
    locale = "export default function error() {\n  return getSizing();\n}\n\nfunction getSizing() {\n  return 1;\n}\n"
    repo = init_repo(tmp_path / "repo")
    write(repo, {"locales/ua.ts": locale, "locales/kh.ts": locale})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "mv", "locales/ua.ts", "locales/uk.ts")
    git(repo, "mv", "locales/kh.ts", "locales/km.ts")
    commit(repo, "rename")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    moves = sorted((c["old"]["file"], c["symbol"]["file"], c["symbol"]["qualified_name"]) for c in data["changed"] if c["category"] == "renamed")
    assert moves == [
        ("locales/kh.ts", "locales/km.ts", "error"),
        ("locales/kh.ts", "locales/km.ts", "getSizing"),
        ("locales/ua.ts", "locales/uk.ts", "error"),
        ("locales/ua.ts", "locales/uk.ts", "getSizing"),
    ]


def test_equal_small_bodies_are_no_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """click 8.1.7 -> 8.1.8 deleted examples/ (many `def cli(): pass`) and a
    test gained a local `def cli(): pass`: that is no move ("cli was renamed
    to test_flag_default_map.cli; its references follow it"), neither into a
    function nor, among several equal bodies, into a file that was there."""
    stub = "import click\n\n\n@click.group()\ndef cli():\n    pass\n"
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "examples/aliases.py": stub,
        "examples/colors.py": stub,
        "examples/solo.py": "def helper():\n    return 1\n",
        "tests/test_defaults.py": "def test_basic():\n    assert True\n",
        "src/cli.py": "def main():\n    return 0\n",
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "examples/aliases.py", "examples/colors.py", "examples/solo.py")
    write(repo, {
        "tests/test_defaults.py": (
            "import click\n\n\ndef test_basic():\n    assert True\n\n\n"
            "def test_flag_default_map():\n    @click.group()\n    def cli():\n        pass\n\n"
            "    def helper():\n        return 1\n\n    assert cli\n"
        ),
        "src/cli.py": "def main():\n    return 0\n\n\n@click.group()\ndef cli():\n    pass\n",
    })  # fmt: skip
    commit(repo, "drop examples")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    assert [c for c in data["changed"] if c["category"] == "renamed"] == []
    assert not [r for r in data["risk"]["reasons"] if "renamed" in r or "moved" in r]
    removed = sorted(c["old"]["id"] for c in data["changed"] if c["category"] == "removed" and c["old"]["kind"] == "function")
    assert removed == ["examples/aliases.py:function:cli", "examples/colors.py:function:cli", "examples/solo.py:function:helper"]


def test_a_package_moved_under_src_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """requests 2.31 -> 2.32 moved `requests/` under `src/`: every symbol
    was paired as a move (not 600 x 600 bodies compared, nor skipped as too
    many: 570 "removed"), and the risk says it once, not once a symbol."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n",
        "pkg/b.py": "from pkg.a import g\n\n\ndef h():\n    return g()\n",
        "tests/test_b.py": "from pkg.b import h\n\n\ndef test_h():\n    assert h() == 1\n",
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for name in ("__init__.py", "a.py", "b.py"):
        (repo / "src/pkg").mkdir(parents=True, exist_ok=True)
        git(repo, "mv", f"pkg/{name}", f"src/pkg/{name}")
    commit(repo, "src layout")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    moves = sorted((c["old"]["file"], c["symbol"]["id"]) for c in data["changed"] if c["category"] == "renamed")
    assert moves == [
        ("pkg/a.py", "src/pkg/a.py:function:f"),
        ("pkg/a.py", "src/pkg/a.py:function:g"),
        ("pkg/b.py", "src/pkg/b.py:function:h"),
    ]
    assert [c["old"]["id"] for c in data["changed"] if c["category"] == "removed" and c["old"]["kind"] != "module"] == []
    assert [r for r in data["risk"]["reasons"] if "moved" in r] == [
        "3 symbols were moved from pkg/ to src/pkg/ (2 files): f, g, h; their 5 reference(s) follow them"
    ]


def test_a_name_defined_in_several_files_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """@tanstack/query-core ships build/legacy and build/modern copies of
    src/: the risk named `createNotifyManager.batch` three times over."""
    lib = "class Manager:\n    def batch(self, items):\n        return items\n"
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "build/legacy/notify.py": lib, "build/modern/notify.py": lib, "src/notify.py": lib,
        "app.py": "def run(manager, items):\n    return manager.batch(items)\n",
    })  # fmt: skip
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    changed = lib.replace("return items", "return list(items)")
    write(repo, {"build/legacy/notify.py": changed, "build/modern/notify.py": changed, "src/notify.py": changed})
    commit(repo, "change")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    assert [r for r in data["risk"]["reasons"] if "could not be resolved" in r] == [
        "1 call site(s) named batch could not be resolved, 1 outside tests: Manager.batch (3 definitions) may have "
        "callers the graph does not show"
    ]


def _feature_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: dict[str, str], edit: dict[str, str]
) -> dict[str, Any]:
    """The JSON report of ``edit`` committed on a branch from ``base``."""
    repo = branched(tmp_path / "repo", dict(base), dict(edit))
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _signature_verdicts(data: dict[str, Any]) -> dict[str, str | None]:
    """The signature verdict of each modified symbol, by qualified name."""
    return {c["symbol"]["qualified_name"]: c["signature_verdict"] for c in data["changed"] if c["category"] == "modified"}


def _breaking_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: dict[str, str], edit: dict[str, str]
) -> list[str]:
    """The risk's sentences about breaking changes, for ``edit`` on ``base``."""
    return [r for r in _feature_report(tmp_path, capsys, base, edit)["risk"]["reasons"] if "breaking" in r]


def _call_sites(data: dict[str, Any]) -> list[tuple[str, str, int, str | None]]:
    """(changed symbol, file, line, verdict) of each call site checked, sorted."""
    return sorted(
        (c["symbol"]["qualified_name"], s["file"], s["line"], s["verdict"])
        for c in data["changed"] for s in c.get("call_sites") or []
    )  # fmt: skip


def _bundle(names: list[str]) -> str:
    """A minified bundle: one line, one-letter names (what a build writes)."""
    return "!function(){" + ";".join(f"function {n}{i}(e){{return e+{i}}}" for n in names for i in range(200)) + "}();\n"


def test_a_minified_bundle_is_skipped_not_diffed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """@tanstack/table-core 8.20.5 -> 8.21.3 ships build/umd/index.production.js
    (12 lines of 4.8 KB): the report said "G.createHeader.n was renamed to
    D.createHeader.n" and raised the risk for a file it "could not parse"."""
    source = "export function header(column) {\n  return column.id;\n}\n"
    data = _feature_report(
        tmp_path, capsys,
        {"src/header.js": source, "build/app.min.js": _bundle(["G", "n"])},
        {"src/header.js": source.replace("column.id", "column.key"), "build/app.min.js": _bundle(["D", "n"])},
    )  # fmt: skip
    assert [(c["category"], c["symbol"]["qualified_name"]) for c in data["changed"]] == [
        ("modified", "header"), ("children_changed", "src.header"),
    ]
    size = len(_bundle(["D", "n"]))
    assert data["notes"] == [f"build/app.min.js: skipped (minified (1 line(s) of {size:,} bytes on average))"]
    assert data["risk"]["level"] == "low" and not any("could not be parsed" in r for r in data["risk"]["reasons"])


def test_breaking_changes_whose_call_sites_all_fit_are_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """httpx 0.27.2 -> 0.28.1 dropped the `proxies` keyword of 23 functions,
    every call site updated: the risk said it in 23 sentences."""
    names = ["get", "post", "put"]
    api = "".join(f"def {n}(url, *, proxies=None, timeout=5):\n    return url\n\n\n" for n in names)
    calls = "".join(f"    {n}('u', timeout=1)\n" for n in names)
    app = f"from api import {', '.join(names)}\n\n\ndef run():\n{calls}"
    edit = {"api.py": api.replace("proxies=None, ", "")}
    assert _breaking_reasons(tmp_path, capsys, {"api.py": api, "app.py": app}, edit) == [
        "breaking signature change of 3 functions: all 3 call site(s) in the repository still fit (callers outside "
        "it may not): get, post, put"
    ]


def test_one_name_changed_in_several_files_is_one_unchecked_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """viper 1.10 -> 1.12 changed `Codec.Encode` of its hcl, json and yaml
    packages alike: the risk said the same sentence three times."""
    codec = "class Codec:\n    def encode(self, value):\n        return value\n"
    app = "from hcl.codec import Codec as H\nfrom json.codec import Codec as J\n\n\ndef run(x):\n    return H.encode(x, 1), J.encode(x, 2)\n"
    changed = codec.replace("(self, value)", "(self, value, *, strict)")
    data = _feature_report(
        tmp_path, capsys,
        {"hcl/codec.py": codec, "json/codec.py": codec, "app.py": app},
        {"hcl/codec.py": changed, "json/codec.py": changed},
    )  # fmt: skip
    assert [r for r in data["risk"]["reasons"] if "breaking" in r] == [
        "breaking signature change of Codec.encode (2 definitions): 2 of their 2 call site(s) could not be checked"
    ]


def test_layout_that_means_something_is_a_code_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The code hash dropped every white space: humanize's `" "` -> `""` in
    an f-string was "docs", and so was a call moved out of an `if` by its
    indentation. A line wrapped or spaced otherwise is still no code change."""
    lib = (
        "def size(n, sep):\n    return f'{n}{sep} B'.replace(' ', '_')\n\n\n"
        "def save(record, log):\n    if record:\n        log(record)\n        record.flush()\n    return record\n\n\n"
        "def area(width, height):\n    return width*height\n"
    )
    after = (
        "def size(n, sep):\n    return f'{n}{sep} B'.replace('', '_')\n\n\n"
        "def save(record, log):\n    if record:\n        log(record)\n    record.flush()\n    return record\n\n\n"
        "def area(width,\n         height):\n    return width * height\n"
    )
    data = _feature_report(tmp_path, capsys, {"lib.py": lib}, {"lib.py": after})
    changes = {(c["symbol"]["qualified_name"], c["category"]) for c in data["changed"] if c["category"] != "children_changed"}
    assert changes == {("size", "modified"), ("save", "modified"), ("area", "docs")}


def test_a_changed_stub_is_not_said_to_be_untested(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """more-itertools 10.1 -> 10.2 changed `ilen` and `batched` in its .pyi
    stubs: "no test calls these" named them while the tests call the
    implementations hundreds of times (a stub runs no code)."""
    lib = "def ilen(iterable):\n    return sum(1 for _ in iterable)\n"
    stub = "from typing import Iterable\n\ndef ilen(iterable: Iterable[object]) -> int: ...\n"
    test = "import pkg\n\n\ndef test_ilen():\n    assert pkg.ilen([1, 2]) == 2\n"
    data = _feature_report(
        tmp_path, capsys,
        {"pkg/__init__.py": "from .more import *\n", "pkg/more.py": lib, "pkg/more.pyi": stub, "tests/test_lib.py": test},
        {"pkg/more.pyi": stub.replace("Iterable[object]", "Iterable[int]")},
    )  # fmt: skip
    rows = [(c["symbol"]["file"], c["category"], c["unreached"]) for c in data["changed"] if c["symbol"]["name"] == "ilen"]
    assert rows == [("pkg/more.pyi", "modified", False)]


def test_a_breaking_change_whose_call_sites_are_all_unresolved_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pino 9.4 put a parameter before the others of `child`, whose 72 call
    sites (`logger.child(…)`) the graph could not resolve: the risk said
    nothing about it."""
    lib = "def child(bindings, options=None):\n    return dict(bindings)\n"
    app = "def run(logger):\n    return logger.child({'a': 1})\n"
    edit = {"lib.py": lib.replace("(bindings,", "(set_opts, bindings,")}
    assert _breaking_reasons(tmp_path, capsys, {"lib.py": lib, "app.py": app}, edit) == [
        "breaking signature change of child: no call site resolved to it; 1 call site(s) named child stayed "
        "unresolved (1 outside tests)"
    ]


def test_unresolved_sites_of_a_name_with_resolved_callers_are_no_second_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ajv 8.17: `UriResolver.parse` changed in lib/types/index.ts (one caller,
    fitting) and in dist/types/index.d.ts (none): the risk said both "all 1
    call site(s) still fit" and "no call site resolved to it"."""
    lib = "def child(bindings, options=None):\n    return dict(bindings)\n"
    stub = "def child(bindings: dict, options: dict | None = None) -> dict: ...\n"
    app = "import lib\n\n\ndef run(logger):\n    lib.child({'b': 2})\n    return logger.child({'a': 1})\n"
    data = _feature_report(
        tmp_path, capsys, {"lib.py": lib, "lib.pyi": stub, "app.py": app},
        {"lib.py": lib.replace("(bindings,", "(bindings, set_opts=None,"), "lib.pyi": stub.replace("(bindings: dict,", "(set_opts: int, bindings: dict,")},
    )  # fmt: skip
    assert [r for r in data["risk"]["reasons"] if "child" in r] == [
        "breaking signature change of child: all 1 call site(s) in the repository still fit (callers outside it may not)"
    ]


def test_a_definition_replaced_by_an_assignment_of_its_name_breaks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyparsing 3.1.2 replaced `@replaced_by_pep8(set_parse_action) def
    setParseAction(self): ...` by `setParseAction = replaced_by_pep8(…)` in
    the class body, and `def oneOf` by a module-level assignment: the report
    said HIGH, "1184 call site(s) still call removed or renamed code"."""
    base = (
        "def alias(fn):\n    return fn\n\n\n"
        "class Element:\n"
        "    def set_action(self, fn):\n        return fn\n\n"
        "    @alias\n    def setAction(self, fn):\n        return self.set_action(fn)\n\n\n"
        "def one_of(words):\n    return words\n\n\n"
        "def oneOf(words):\n    return one_of(words)\n"
    )
    head = (
        "def alias(fn):\n    return fn\n\n\n"
        "class Element:\n"
        "    def set_action(self, fn):\n        return fn\n\n"
        "    setAction = alias(set_action)\n\n\n"
        "def one_of(words):\n    return words\n\n\n"
        "oneOf = alias(one_of)\n"
    )
    app = "from core import Element, oneOf\n\n\ndef build():\n    Element().setAction(print)\n    return oneOf('a b')\n"
    data = _feature_report(tmp_path, capsys, {"core.py": base, "app.py": app}, {"core.py": head})
    assert data["broken_references"] == []
    assert data["risk"]["level"] == "low"


def test_a_class_of_hundreds_of_methods_moved_is_still_a_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """python-dateutil 2.9 moved `dateutil/test/` to `tests/`: a test class
    of some 500 methods made more same-parent (rename) pairs than the limit,
    and every symbol of the change was "removed" and "added" (1,626 and
    1,637), none moved. Moves alone are compared then."""
    methods = "".join(f"    def test_{i}(self):\n        assert {i} == {i}\n\n" for i in range(210))
    repo = init_repo(tmp_path / "repo")
    write(repo, {"pkg/__init__.py": "", "pkg/test/__init__.py": "", "pkg/test/test_big.py": f"class TestBig:\n{methods}"})
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "tests").mkdir()
    git(repo, "mv", "pkg/test/test_big.py", "tests/test_big.py")
    commit(repo, "tests apart")
    main(["report", "--repo", str(repo), "--base", "main", "--format", "json", "--no-related"])
    data = json.loads(capsys.readouterr().out)
    categories = Counter(c["category"] for c in data["changed"] if (c["symbol"] or c["old"])["kind"] != "module")
    assert categories == {"renamed": 211}


def test_java_overloads_reordered_and_annotated_are_no_signature_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """commons-lang3 3.12 -> 3.17 swapped overloads of `indexOf` (their IDs
    number them in source order), put @Deprecated on methods and `final` on
    parameters: 117 "breaking signature changes", 29 risk sentences. None
    of that changes a call; a new body of one overload is a body change."""
    base = (
        "package p;\n\npublic class Chars {\n"
        "    static int indexOf(CharSequence cs, int searchChar, int start) {\n        return start;\n    }\n\n"
        "    static int indexOf(CharSequence cs, CharSequence searchChar, int start) {\n        return start + 1;\n    }\n\n"
        "    public static String random(int count) {\n        return \"\";\n    }\n}\n"
    )
    head = (
        "package p;\n\npublic class Chars {\n"
        "    static int indexOf(final CharSequence cs, final CharSequence searchChar, final int start) {\n        return start + 2;\n    }\n\n"
        "    static int indexOf(final CharSequence cs, final int searchChar, int start) {\n        return start;\n    }\n\n"
        "    @Deprecated\n    public static String random(final int count) {\n        return \"\";\n    }\n}\n"
    )
    app = (
        "package p;\n\npublic class App {\n    int run() {\n"
        "        Chars.random(3);\n        return Chars.indexOf(\"ab\", 'a', 0) + Chars.indexOf(\"ab\", \"b\", 0);\n    }\n}\n"
    )
    data = _feature_report(tmp_path, capsys, {"src/p/Chars.java": base, "src/p/App.java": app}, {"src/p/Chars.java": head})
    rows = sorted(
        (c["category"], c["old"]["signature"], c["symbol"]["signature"], c["signature_verdict"])
        for c in data["changed"] if c["symbol"] and c["symbol"]["kind"] == "method"
    )  # fmt: skip
    assert rows == [
        ("modified", "public static String random(int count)", "@Deprecated public static String random(final int count)", None),
        (
            "modified", "static int indexOf(CharSequence cs, CharSequence searchChar, int start)",
            "static int indexOf(final CharSequence cs, final CharSequence searchChar, final int start)", None,
        ),
        (
            "modified", "static int indexOf(CharSequence cs, int searchChar, int start)",
            "static int indexOf(final CharSequence cs, final int searchChar, int start)", None,
        ),
    ]  # fmt: skip
    assert not any("breaking" in r for r in data["risk"]["reasons"])


def test_many_unchecked_breaking_changes_are_a_few_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """commons-lang3 3.12 -> 3.17 gave 29 "breaking signature change of …:
    N of its N call site(s) could not be checked" sentences, one a line:
    past three names of a level, the rest are one sentence."""
    names = [f"f{i}" for i in range(5)]
    api = "".join(f"def {n}(a, b=1):\n    return a\n\n\n" for n in names)
    calls = "".join(f"    {n}(*args)\n" for n in names)
    app = f"from api import {', '.join(names)}\n\n\ndef run(args):\n{calls}"
    edit = {"api.py": api.replace("(a, b=1)", "(a, *, b=1)")}
    assert _breaking_reasons(tmp_path, capsys, {"api.py": api, "app.py": app}, edit) == [
        "breaking signature change of f0: 1 of its 1 call site(s) could not be checked",
        "breaking signature change of f1: 1 of its 1 call site(s) could not be checked",
        "breaking signature change of f2: 1 of its 1 call site(s) could not be checked",
        "breaking signature change of 2 more functions: 2 of their 2 call site(s) could not be checked: f3, f4",
    ]


def test_a_typescript_function_passed_as_a_value_is_an_unchecked_call_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ns.map(format)` calls `format(value, index, array)`: a parameter
    added to `format` takes the index, and the report said "no broken
    reference and no call site that no longer fits" (risk LOW): the index
    records no TypeScript value references. The places that name it as a
    value (an argument, an object's shorthand or value, a `bind`, an
    imported alias, `fm.format` of a namespace import; `this.handle` for a
    method) are call sites that cannot be told; its import, its export, its
    calls and a comment are not."""
    fmt = "export function format(n: number): string {\n  return n.toFixed(2);\n}\n"
    use = (
        "import { format, format as f } from './fmt';\n\n"
        "export function show(ns: number[]): string[] {\n  return ns.map(format);\n}\n\n"
        "// format(ns) is not called here\n"
        "export const table = { format, other: f };\n\n"
        "export function direct(n: number): string {\n  return format(n);\n}\n\n"
        "export const bound = format.bind(null);\n"
    )
    widget = (
        "export class Widget {\n  handle(e: number): number {\n    return e;\n  }\n\n"
        "  attach(xs: number[]): number[] {\n    const first = this.handle(1);\n    return xs.map(this.handle).concat(first);\n  }\n}\n"
    )
    edit = {
        "src/fmt.ts": fmt.replace("(n: number)", "(n: number, digits: number)"),
        "src/widget.ts": widget.replace("handle(e: number)", "handle(e: number, scale: number)"),
    }
    space = "import * as fm from './fmt';\n\nexport const all = (ns: number[]) => ns.map(fm.format);\n"
    data = _feature_report(
        tmp_path,
        capsys,
        {"src/fmt.ts": fmt, "src/use.ts": use, "src/space.ts": space, "src/widget.ts": widget, "package.json": "{}\n"},
        edit,
    )
    assert _call_sites(data) == [
        ("Widget.handle", "src/widget.ts", 7, "will break"),
        ("Widget.handle", "src/widget.ts", 8, None),
        ("format", "src/space.ts", 3, None),
        ("format", "src/use.ts", 4, None),
        ("format", "src/use.ts", 8, None),
        ("format", "src/use.ts", 11, "will break"),
        ("format", "src/use.ts", 14, None),
    ]
    assert data["risk"]["level"] == "high"


def test_a_go_function_passed_as_a_value_is_an_unchecked_call_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`apply(Double, 3)` and `mapInts(xs, calc.Double)` call `Double`
    where no call is written: with a parameter added, the report said "no
    call site that no longer fits". The places in its package (by name)
    and in a package importing it (`calc.Double`, under the import's
    name) are call sites not told; its calls are checked, a method of
    another type named alike is not it."""
    calc = (
        "package calc\n\nfunc Double(x int) int {\n\treturn 2 * x\n}\n\n"
        "func apply(f func(int) int, x int) int {\n\treturn f(x)\n}\n\n"
        "func Six() int {\n\treturn apply(Double, 3)\n}\n"
    )
    app = (
        'package app\n\nimport c "example.com/m/calc"\n\n'
        "type T struct{}\n\nfunc (T) Double(x int) int {\n\treturn x\n}\n\n"
        "func mapInts(xs []int, f func(int) int) []int {\n\tfor i, x := range xs {\n\t\txs[i] = f(x)\n\t}\n\treturn xs\n}\n\n"
        "func Run(xs []int) []int {\n\tvar t T\n\t_ = t.Double(1) + c.Double(2)\n\treturn mapInts(xs, c.Double)\n}\n"
    )
    files = {"go.mod": "module example.com/m\n\ngo 1.22\n", "calc/calc.go": calc, "app/app.go": app}
    edit = {"calc/calc.go": calc.replace("func Double(x int) int", "func Double(x, y int) int")}
    data = _feature_report(tmp_path, capsys, files, edit)
    assert _call_sites(data) == [
        ("Double", "app/app.go", 20, "will break"), ("Double", "app/app.go", 21, None), ("Double", "calc/calc.go", 12, None)
    ]  # fmt: skip


def test_a_rust_function_or_method_passed_as_a_value_is_an_unchecked_call_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`.map(double)` and `.map(Version::parse)` call them where no call is
    written. Its own file and the files importing it (the type, for a
    method named `Type::m`) are read; a call inside a macro's tokens, its
    `use` and its definition are not values."""
    lib = (
        "pub mod num;\n\npub struct Version(pub u32);\n\nimpl Version {\n"
        "    pub fn parse(text: &str) -> Version {\n        Version(text.len() as u32)\n    }\n}\n\n"
        "pub fn all(xs: &[&str]) -> Vec<Version> {\n    let first = Version::parse(\"a\");\n"
        "    let mut out: Vec<Version> = xs.iter().copied().map(Version::parse).collect();\n"
        "    out.push(first);\n    out\n}\n"
    )
    num = (
        "use crate::Version;\n\npub fn double(x: u32) -> u32 {\n    x * 2\n}\n\n"
        "pub fn doubled(xs: &[u32]) -> Vec<u32> {\n    assert_eq!(double(1), 2);\n"
        "    xs.iter().copied().map(double).collect()\n}\n\n"
        "pub fn versions(xs: &[&str]) -> Vec<Version> {\n    xs.iter().copied().map(Version::parse).collect()\n}\n"
    )
    files = {"Cargo.toml": '[package]\nname = "rsv"\nversion = "0.1.0"\nedition = "2021"\n', "src/lib.rs": lib, "src/num.rs": num}
    edit = {
        "src/lib.rs": lib.replace("parse(text: &str)", "parse(text: &str, strict: bool)"),
        "src/num.rs": num.replace("double(x: u32)", "double(x: u32, y: u32)"),
    }
    data = _feature_report(tmp_path, capsys, files, edit)
    assert _call_sites(data) == [
        ("Version.parse", "src/lib.rs", 12, "will break"),
        ("Version.parse", "src/lib.rs", 13, None),
        ("Version.parse", "src/num.rs", 13, None),
        ("double", "src/num.rs", 8, None),
        ("double", "src/num.rs", 9, None),
    ]
    reasons = {s["line"]: s["reason"] for c in data["changed"] for s in c.get("call_sites") or [] if s["file"] == "src/num.rs"}
    assert reasons[8] == "no call read at that line"  # the call in assert_eq!'s tokens: the graph's edge, no tree call


def test_a_central_function_defined_twice_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """zod 3.22.4 -> 3.23.8 (npm): `addIssueToContext` changed in
    lib/index.mjs and lib/index.umd.js, two builds of one function, and the
    risk said "addIssueToContext is central: 27 direct callers outside
    tests" twice."""
    helper = "def add_issue(ctx):\n    return ctx\n"
    callers = "".join(f"def f{i}(ctx):\n    return add_issue(ctx)\n\n\n" for i in range(10))
    base = {
        "esm/util.py": helper, "esm/api.py": f"from esm.util import add_issue\n\n\n{callers}",
        "umd/util.py": helper, "umd/api.py": f"from umd.util import add_issue\n\n\n{callers}def g(ctx):\n    return add_issue(ctx)\n",
    }  # fmt: skip
    changed = helper.replace("return ctx", "return ctx or {}")
    data = _feature_report(tmp_path, capsys, base, {"esm/util.py": changed, "umd/util.py": changed})
    assert [r for r in data["risk"]["reasons"] if "central" in r] == [
        "add_issue (2 definitions) is central: up to 11 direct callers outside tests"
    ]


def test_a_rename_in_test_code_is_folded_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Django 5.1 -> 5.1.4 (HEAD~10): a test class renamed
    (BaseUserCreationFormTest -> CustomUserCreationFormTest) renamed the
    classes defined in its methods, and "…CustomUserCreationForm was renamed
    to …; its 1 reference(s) follow it" were four of the risk's first
    reasons, before a breaking signature change. A rename in test code is
    low-signal, like the rest of test code; one in the code under test
    is still said."""
    tests = (
        "from app import make\n\n\nclass BaseFormTest:\n    def test_custom(self):\n"
        "        class Custom:\n            pass\n\n        return make(Custom())\n"
    )
    app = "def make(x):\n    return x\n\n\ndef run():\n    return make(1)\n"
    edit = {
        "tests/test_forms.py": tests.replace("BaseFormTest", "CustomFormTest").replace("make", "build"),
        "app.py": app.replace("make", "build"),
    }
    reasons = _feature_report(tmp_path, capsys, {"app.py": app, "tests/test_forms.py": tests}, edit)["risk"]["reasons"]
    assert [r for r in reasons if "renamed" in r] == ["make was renamed to build; its 3 reference(s) follow it"]


def test_a_ruby_method_replaced_by_an_attribute_reader_breaks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """addressable 2.8.1 -> 2.8.7 replaced `def scheme; return defined?(@scheme)
    ? @scheme : nil; end` (and user, password, host, port, path, query,
    fragment) by `attr_reader :scheme`: the report said HIGH, "127 call
    site(s) in 1 file(s) still call removed or renamed code". An
    `attr_accessor` (or `attr_writer`) also defines `name=`; a method
    removed with no such declaration still breaks its callers."""
    base = (
        "class Uri\n"
        "  def scheme\n    @scheme\n  end\n\n"
        "  def scheme=(value)\n    @scheme = value\n  end\n\n"
        "  def host\n    @host\n  end\n\n"
        "  def port\n    @port\n  end\n\n"
        "  def normalized\n    [self.scheme.downcase, self.host, self.port]\n  end\nend\n"
    )
    head = (
        "class Uri\n"
        "  attr_accessor :scheme\n"
        "  attr_reader :user,\n              :host\n\n"
        "  def normalized\n    [self.scheme.downcase, self.host, self.port]\n  end\nend\n"
    )
    data = _feature_report(tmp_path, capsys, {"lib/uri.rb": base}, {"lib/uri.rb": head})
    assert [(b["file"], b["line"], b["name"], b["old_target"]) for b in data["broken_references"]] == [
        ("lib/uri.rb", 7, "port", "lib/uri.rb:method:Uri.port")
    ]


def test_ruby_signature_changes_that_change_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """addressable 2.8.1 -> 2.8.7 changed the default of `character_class` in
    `def self.encode_component(component, character_class= CharacterClasses::RESERVED
    + CharacterClasses::UNRESERVED, upcase_encoded='')`: "breaking signature
    change … 33 of its 33 call site(s) could not be checked". A Ruby caller
    passes positional arguments by place, never by name; keywords, arity,
    splats are what a call depends on."""
    base = {
        "lib/codec.rb": (
            "module Codec\n"
            "  def self.encode(component, klass = A + B, upcase = '')\n    component\n  end\n\n"
            "  def self.decode(text, strict)\n    text\n  end\n\n"
            "  def self.split(text, on: ',')\n    text\n  end\n\n"
            "  def self.join(parts, sep)\n    parts\n  end\n\n"
            "  def self.wrap(text, *rest, &block)\n    text\n  end\n\n"
            "  def self.quote(text, mark:)\n    text\n  end\nend\n"
        ),
    }
    edit = {
        "lib/codec.rb": (
            "module Codec\n"
            "  def self.encode(component, klass=Regexps::BOTH, upcase='')\n    component\n  end\n\n"
            "  def self.decode(source, lenient)\n    source\n  end\n\n"
            "  def self.split(text, by: ',')\n    text\n  end\n\n"
            "  def self.join(parts, sep, last)\n    parts\n  end\n\n"
            "  def self.wrap(text, *others, &blk)\n    text\n  end\n\n"
            "  def self.quote(text, mark)\n    text\n  end\nend\n"
        ),
    }
    verdicts = _signature_verdicts(_feature_report(tmp_path, capsys, base, edit))
    assert verdicts == {
        "Codec.encode": None, "Codec.decode": None, "Codec.split": "breaking", "Codec.join": "breaking",
        "Codec.wrap": None, "Codec.quote": "breaking",
    }  # fmt: skip


def test_java_type_parameters_renamed_change_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """commons-lang3 3.12 -> 3.17 renamed `<R> R rethrow(final Throwable
    throwable)` to `<T> T rethrow(…)` and the class `FailableStream<O extends
    Object>` to `FailableStream<T>`, whose `filter(final FailablePredicate<O,
    ?> predicate)` became `FailablePredicate<T, ?>`: "breaking signature
    change" for each, and "no call site resolved to it; 26 call site(s) named
    filter stayed unresolved". A type parameter renamed by position changes
    no call; a parameter retyped from another type to it still does."""
    base = {
        "src/p/Utils.java": (
            "package p;\n\npublic class Utils {\n"
            "    public static <R> R rethrow(final Throwable throwable) {\n        return null;\n    }\n\n"
            "    public static <R> R cast(final Object value) {\n        return null;\n    }\n\n"
            "    public static class Stream<O extends Object> {\n"
            "        public Stream<O> filter(final Predicate<O, ?> predicate) {\n            return this;\n        }\n\n"
            "        public Stream<O> limit(final long max) {\n            return this;\n        }\n    }\n}\n"
        ),
    }
    edit = {
        "src/p/Utils.java": (
            "package p;\n\npublic class Utils {\n"
            "    public static <T> T rethrow(final Throwable throwable) {\n        return null;\n    }\n\n"
            "    public static <T> T cast(final T value) {\n        return null;\n    }\n\n"
            "    public static class Stream<T> {\n"
            "        public Stream<T> filter(final Predicate<T, ?> predicate) {\n            return this;\n        }\n\n"
            "        public Stream<T> limit(final int max) {\n            return this;\n        }\n    }\n}\n"
        ),
    }
    verdicts = _signature_verdicts(_feature_report(tmp_path, capsys, base, edit))
    assert verdicts == {
        "Utils.rethrow": None, "Utils.cast": "breaking", "Utils.Stream": None, "Utils.Stream.filter": None,
        "Utils.Stream.limit": "breaking",
    }  # fmt: skip


def test_java_changes_that_widen_what_callers_may_do_are_compatible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """commons-lang3 3.12 -> 3.17 made `compare(Comparable<T> a, …)` take a
    `Comparable<? super T>`, bound `Range.is`'s `<T extends Comparable<T>>`
    by `Comparable<? super T>` and made private methods package-private:
    "breaking" before, though every call that compiled still does. A
    narrowed access, a wildcard made exact, a return type's wildcard and a
    new throws clause stay breaking."""
    base = {
        "src/p/Utils.java": (
            "package p;\n\nimport java.util.List;\n\npublic class Utils {\n"
            "    public static <T> int compare(final Comparable<T> a, final T b) {\n        return 0;\n    }\n\n"
            "    private static int helper(final int a) {\n        return a;\n    }\n\n"
            "    public static int run(final int a) {\n        return a;\n    }\n\n"
            "    public static <T> void take(final List<? extends T> xs) {\n    }\n\n"
            "    public static <T> List<T> give() {\n        return null;\n    }\n\n"
            "    public static <T> void load(final List<T> xs) {\n    }\n\n"
            "    public static <T extends Comparable<T>> T is(final T e) {\n        return e;\n    }\n}\n"
        ),
    }
    edit = {
        "src/p/Utils.java": (
            "package p;\n\nimport java.util.List;\n\npublic class Utils {\n"
            "    public static <T> int compare(final Comparable<? super T> a, final T b) {\n        return 0;\n    }\n\n"
            "    static int helper(final int a) {\n        return a;\n    }\n\n"
            "    protected static int run(final int a) {\n        return a;\n    }\n\n"
            "    public static <T> void take(final List<T> xs) {\n    }\n\n"
            "    public static <T> List<? extends T> give() {\n        return null;\n    }\n\n"
            "    public static <T> void load(final List<? extends T> xs) throws Exception {\n    }\n\n"
            "    public static <T extends Comparable<? super T>> T is(final T e) {\n        return e;\n    }\n}\n"
        ),
    }
    verdicts = _signature_verdicts(_feature_report(tmp_path, capsys, base, edit))
    assert verdicts == {
        "Utils.compare": "compatible", "Utils.helper": "compatible", "Utils.run": "breaking",
        "Utils.take": "breaking", "Utils.give": "breaking", "Utils.load": "breaking", "Utils.is": "compatible",
    }  # fmt: skip
