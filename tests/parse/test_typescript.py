"""TypeScript and TSX extraction and resolution on a real fixture repository
(a barrel index.ts, interfaces, a class hierarchy, default, aliased and
namespace imports, a .d.ts, generics, declaration merging): the exact symbol
set and the exact edge set."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.languages import LANGUAGES, extract, signature_verdict
from cartog_ci.languages import for_path as language_for_path
from tests.testing.exact_sets import (
    assert_edges_exact,
    assert_symbols_exact,
    edge_targets_by_line,
    indexed_graph,
)
from tests.testing.fixtures import RESOURCES, assert_as_cold, commit, exported, index, init_repo, write

SYMBOLS = {
    ('src/components/UserCard.tsx', 'module', 'src.components.UserCard', 1),
    ('src/components/UserCard.tsx', 'interface', 'UserCardProps', 6),
    ('src/components/UserCard.tsx', 'function', 'UserCard', 10),
    ('src/components/UserCard.tsx', 'function', 'isEntity', 15),
    ('src/env.d.ts', 'interface', 'AppEnv', 1),
    ('src/env.d.ts', 'module', 'src.env.d', 1),
    ('src/env.d.ts', 'function', 'track', 5),
    ('src/models/base.ts', 'module', 'src.models.base', 1),
    ('src/models/base.ts', 'class', 'Entity', 3),
    ('src/models/base.ts', 'method', 'Entity.constructor', 4),
    ('src/models/base.ts', 'method', 'Entity.save', 6),
    ('src/models/base.ts', 'method', 'Entity.validate', 10),
    ('src/models/base.ts', 'function', 'persist', 13),
    ('src/models/index.ts', 'module', 'src.models', 1),
    ('src/models/types.ts', 'module', 'src.models.types', 1),
    ('src/models/types.ts', 'type', 'UserId', 1),
    ('src/models/types.ts', 'interface', 'Identified', 3),
    ('src/models/types.ts', 'interface', 'Serializable', 8),
    ('src/models/types.ts', 'method', 'Serializable.toJSON', 9),
    ('src/models/types.ts', 'enum', 'Role', 12),
    ('src/models/user.ts', 'module', 'src.models.user', 1),
    ('src/models/user.ts', 'class', 'User', 4),
    ('src/models/user.ts', 'method', 'User.constructor', 7),
    ('src/models/user.ts', 'method', 'User.validate', 11),
    ('src/models/user.ts', 'method', 'User.promote', 15),
    ('src/models/user.ts', 'method', 'User.render', 21),
    ('src/models/user.ts', 'method', 'User.toJSON', 25),
    ('src/services/registry.ts', 'module', 'src.services.registry', 1),
    ('src/services/registry.ts', 'function', 'injectable', 7),
    ('src/services/registry.ts', 'class', 'Registry', 12),
    ('src/services/registry.ts', 'method', 'Registry.add', 16),
    ('src/services/registry.ts', 'method', 'Registry.isAdmin', 24),
    ('src/services/registry.ts', 'method', 'Registry.label', 28),
    ('src/services/registry.ts', 'constant', 'registry', 33),
    ('src/util/format.ts', 'constant', 'MAX_WIDTH', 1),
    ('src/util/format.ts', 'module', 'src.util.format', 1),
    ('src/util/format.ts', 'function', 'normalize', 3),
    ('src/util/format.ts', 'function', 'truncate', 7),
    ('src/util/format.ts', 'interface', 'Named', 11),
    ('src/util/format.ts', 'function', 'byName', 15),
    ('src/util/text.ts', 'function', 'normalize', 1),
    ('src/util/text.ts', 'module', 'src.util.text', 1),
    ('src/util/text.ts', 'class', 'Banner', 5),
    ('src/util/text.ts', 'method', 'Banner.render', 6),
    ('src/util/text.ts', 'interface', 'Slug', 12),
    ('src/util/text.ts', 'function', 'Slug', 16),
    ('src/util/text.ts', 'constant', 'HOME', 20),
}
EDGES = {
('src/components/UserCard.tsx:module:src.components.UserCard', None, 'default', 'imports', 'external'),
    ('src/components/UserCard.tsx:module:src.components.UserCard', 'src/models/base.ts:class:Entity', 'BaseEntity', 'imports', 'import'),
    ('src/components/UserCard.tsx:module:src.components.UserCard', 'src/models/user.ts:class:User', 'User', 'imports', 'import'),
    ('src/components/UserCard.tsx:module:src.components.UserCard', 'src/services/registry.ts:constant:registry', 'registry', 'imports', 'import'),
    ('src/components/UserCard.tsx:module:src.components.UserCard', 'src/util/format.ts:function:truncate', 'truncate', 'imports', 'import'),
    ('src/components/UserCard.tsx:interface:UserCardProps', 'src/models/user.ts:class:User', 'User', 'references', 'import'),
    ('src/components/UserCard.tsx:function:UserCard', None, 'FC', 'references', 'external'),
    ('src/components/UserCard.tsx:function:UserCard', 'src/components/UserCard.tsx:interface:UserCardProps', 'UserCardProps', 'references', 'same_file'),
    ('src/components/UserCard.tsx:function:UserCard', 'src/services/registry.ts:method:Registry.isAdmin', 'isAdmin', 'calls', 'import'),
    ('src/components/UserCard.tsx:function:UserCard', 'src/util/format.ts:function:truncate', 'truncate', 'calls', 'import'),
    ('src/components/UserCard.tsx:function:isEntity', 'src/models/base.ts:class:Entity', 'BaseEntity', 'references', 'import'),
    ('src/models/base.ts:module:src.models.base', 'src/models/types.ts:interface:Identified', 'Identified', 'imports', 'import'),
    ('src/models/base.ts:module:src.models.base', 'src/models/types.ts:type:UserId', 'UserId', 'imports', 'import'),
    ('src/models/base.ts:class:Entity', 'src/models/types.ts:interface:Identified', 'Identified', 'inherits', 'import'),
    ('src/models/base.ts:method:Entity.constructor', 'src/models/types.ts:type:UserId', 'UserId', 'references', 'import'),
    ('src/models/base.ts:method:Entity.save', 'src/models/base.ts:function:persist', 'persist', 'calls', 'same_file'),
    ('src/models/base.ts:method:Entity.save', 'src/models/base.ts:method:Entity.validate', 'validate', 'calls', 'parent_scope'),
    ('src/models/base.ts:function:persist', 'src/models/base.ts:class:Entity', 'Entity', 'references', 'same_file'),
    ('src/models/index.ts:module:src.models', 'src/models/user.ts:class:User', 'default', 'imports', 'import'),
    ('src/models/index.ts:module:src.models', 'src/models/types.ts:module:src.models.types', '*', 'imports', 'import'),
    ('src/models/index.ts:module:src.models', 'src/models/base.ts:class:Entity', 'Entity', 'imports', 'import'),
    ('src/models/types.ts:interface:Identified', 'src/models/types.ts:type:UserId', 'UserId', 'references', 'same_file'),
    ('src/models/types.ts:interface:Serializable', 'src/models/types.ts:interface:Identified', 'Identified', 'inherits', 'same_file'),
    ('src/models/types.ts:method:Serializable.toJSON', None, 'Record', 'references', 'external'),
    ('src/models/user.ts:module:src.models.user', 'src/models/base.ts:class:Entity', 'Entity', 'imports', 'import'),
    ('src/models/user.ts:module:src.models.user', 'src/models/types.ts:enum:Role', 'Role', 'imports', 'import'),
    ('src/models/user.ts:module:src.models.user', 'src/models/types.ts:interface:Serializable', 'Serializable', 'imports', 'import'),
    ('src/models/user.ts:module:src.models.user', 'src/models/user.ts:class:User', 'User', 'imports', 'import'),
    ('src/models/user.ts:class:User', 'src/models/base.ts:class:Entity', 'Entity', 'inherits', 'import'),
    ('src/models/user.ts:class:User', 'src/models/types.ts:interface:Serializable', 'Serializable', 'inherits', 'import'),
    ('src/models/user.ts:class:User', 'src/models/types.ts:enum:Role', 'Role', 'references', 'import'),
    ('src/models/user.ts:method:User.promote', 'src/models/user.ts:class:User', 'User', 'references', 'same_file'),
    ('src/models/user.ts:method:User.promote', 'src/models/base.ts:method:Entity.save', 'save', 'calls', 'parent_scope'),
    ('src/services/registry.ts:module:src.services.registry', 'src/models/user.ts:class:User', 'default', 'imports', 'import'),
    ('src/services/registry.ts:module:src.services.registry', 'src/models/types.ts:enum:Role', 'Role', 'imports', 'import'),
    ('src/services/registry.ts:module:src.services.registry', 'src/models/types.ts:type:UserId', 'UserId', 'imports', 'import'),
    ('src/services/registry.ts:module:src.services.registry', 'src/util/text.ts:function:normalize', 'normalize', 'imports', 'import'),
    ('src/services/registry.ts:module:src.services.registry', 'src/util/format.ts:module:src.util.format', '*', 'imports', 'import'),
    ('src/services/registry.ts:module:src.services.registry', None, 'EventEmitter', 'imports', 'external'),
    ('src/services/registry.ts:function:injectable', None, 'ClassDecorator', 'references', 'external'),
    ('src/services/registry.ts:module:src.services.registry', 'src/services/registry.ts:function:injectable', 'injectable', 'calls', 'same_file'),
    ('src/services/registry.ts:class:Registry', None, 'EventEmitter', 'inherits', 'external'),
    ('src/services/registry.ts:class:Registry', None, 'Map', 'calls', 'external'),
    ('src/services/registry.ts:class:Registry', 'src/models/user.ts:class:User', 'User', 'references', 'import'),
    ('src/services/registry.ts:class:Registry', 'src/models/types.ts:type:UserId', 'UserId', 'references', 'import'),
    ('src/services/registry.ts:method:Registry.add', 'src/env.d.ts:interface:AppEnv', 'AppEnv', 'references', 'unique'),
    ('src/services/registry.ts:method:Registry.add', 'src/models/user.ts:class:User', 'User', 'references', 'import'),
    ('src/services/registry.ts:method:Registry.add', 'src/models/user.ts:class:User', 'User', 'calls', 'import'),
    ('src/services/registry.ts:method:Registry.add', 'src/util/text.ts:function:normalize', 'clean', 'calls', 'import'),
    ('src/services/registry.ts:method:Registry.add', 'src/util/format.ts:function:truncate', 'truncate', 'calls', 'import'),
    ('src/services/registry.ts:method:Registry.add', 'src/env.d.ts:function:track', 'track', 'calls', 'unique'),
    ('src/services/registry.ts:method:Registry.add', None, 'set', 'calls', 'external'),
    ('src/services/registry.ts:method:Registry.add', None, 'emit', 'calls', None),
    ('src/services/registry.ts:method:Registry.add', 'src/models/user.ts:method:User.promote', 'promote', 'calls', 'import'),
    ('src/services/registry.ts:method:Registry.isAdmin', 'src/models/user.ts:class:User', 'User', 'references', 'import'),
    ('src/services/registry.ts:method:Registry.label', None, 'render', 'calls', None),
    ('src/services/registry.ts:constant:registry', 'src/services/registry.ts:class:Registry', 'Registry', 'calls', 'same_file'),
    ('src/util/format.ts:function:normalize', None, 'toLowerCase', 'calls', None),
    ('src/util/format.ts:function:normalize', None, 'trim', 'calls', None),
    ('src/util/format.ts:function:truncate', 'src/util/format.ts:function:normalize', 'normalize', 'calls', 'same_file'),
    ('src/util/format.ts:function:truncate', None, 'slice', 'calls', None),
    ('src/util/format.ts:function:byName', None, 'Map', 'references', 'external'),
    ('src/util/format.ts:function:byName', 'src/util/format.ts:interface:Named', 'Named', 'references', 'same_file'),
    ('src/util/format.ts:function:byName', None, 'Map', 'calls', 'external'),
    ('src/util/format.ts:function:byName', None, 'map', 'calls', None),
    ('src/util/text.ts:function:normalize', None, 'normalize', 'calls', None),
    ('src/util/text.ts:function:Slug', 'src/util/text.ts:interface:Slug', 'Slug', 'references', 'same_file'),
    ('src/util/text.ts:function:Slug', 'src/util/text.ts:function:normalize', 'normalize', 'calls', 'same_file'),
    ('src/util/text.ts:constant:HOME', 'src/util/text.ts:function:Slug', 'Slug', 'calls', 'same_file'),
    ('src/util/text.ts:constant:HOME', 'src/util/text.ts:interface:Slug', 'Slug', 'references', 'same_file'),
}


@pytest.mark.parametrize("language", ["typescript", "tsx"])
def test_typescript_query_compiles_for_both_grammars(language: str) -> None:
    assert LANGUAGES[language].syntax.query.pattern_count > 0


def test_typescript_symbols_exact(tmp_path: Path) -> None:
    assert_symbols_exact(indexed_graph(tmp_path, "tsproj"), SYMBOLS)


def test_typescript_edges_exact(tmp_path: Path) -> None:
    assert_edges_exact(indexed_graph(tmp_path, "tsproj"), EDGES)


def test_typescript_resolution_cases(tmp_path: Path) -> None:
    edges = edge_targets_by_line(indexed_graph(tmp_path, "tsproj"))
    add = "src/services/registry.ts:method:Registry.add"
    # default import of `export default class User`, then `new User(...)`
    assert edges[(add, "User", "calls", 17)] == ("src/models/user.ts:class:User", "import")
    # `normalize` exists in two modules; `import {normalize as clean} from
    # '../util/text.js'` picks text.ts (a `.js` specifier naming a `.ts` file)
    assert edges[(add, "clean", "calls", 17)] == ("src/util/text.ts:function:normalize", "import")
    # `import * as fmt`; `fmt.truncate()`
    assert edges[(add, "truncate", "calls", 17)] == ("src/util/format.ts:function:truncate", "import")
    # through the barrel: `export {default as User}`, `export *`, `export {Entity as BaseEntity}`
    card = "src/components/UserCard.tsx"
    assert edges[(f"{card}:module:src.components.UserCard", "User", "imports", 2)] == (
        "src/models/user.ts:class:User", "import")
    assert edges[("src/services/registry.ts:module:src.services.registry", "Role", "imports", 2)] == (
        "src/models/types.ts:enum:Role", "import")
    assert edges[(f"{card}:function:isEntity", "BaseEntity", "references", 15)] == (
        "src/models/base.ts:class:Entity", "import")
    # `this.save()` in User is found on its base class Entity, in another module
    assert edges[("src/models/user.ts:method:User.promote", "save", "calls", 17)] == (
        "src/models/base.ts:method:Entity.save", "parent_scope")
    # extends / implements, interface extends interface
    assert edges[("src/models/user.ts:class:User", "Serializable", "inherits", 4)] == (
        "src/models/types.ts:interface:Serializable", "import")
    assert edges[("src/models/types.ts:interface:Serializable", "Identified", "inherits", 8)] == (
        "src/models/types.ts:interface:Identified", "same_file")
    # `export const registry = new Registry()`: its methods are Registry's
    assert edges[(f"{card}:function:UserCard", "isAdmin", "calls", 11)] == (
        "src/services/registry.ts:method:Registry.isAdmin", "import")
    # global declarations of a .d.ts are visible without an import
    assert edges[(add, "track", "calls", 18)] == ("src/env.d.ts:function:track", "unique")
    # `render` is a method of User and of Banner: `item.render()` stays unresolved
    assert edges[("src/services/registry.ts:method:Registry.label", "render", "calls", 29)] == (None, None)
    # a type parameter is bound in its declaration: `Item` makes no edge
    assert edges[("src/util/format.ts:function:byName", "Named", "references", 15)] == (
        "src/util/format.ts:interface:Named", "same_file")
    assert not [key for key in edges if key[1] == "Item"]
    # `interface Slug` and `function Slug` (declaration merging): a call means
    # the function, an annotation the interface
    assert edges[("src/util/text.ts:constant:HOME", "Slug", "calls", 20)] == (
        "src/util/text.ts:function:Slug", "same_file")
    assert edges[("src/util/text.ts:constant:HOME", "Slug", "references", 20)] == (
        "src/util/text.ts:interface:Slug", "same_file")
    # bare specifiers and lib types are outside the project
    assert edges[("src/services/registry.ts:class:Registry", "EventEmitter", "inherits", 13)] == (
        None, "external")
    assert edges[(f"{card}:function:UserCard", "FC", "references", 10)] == (None, "external")


def test_typescript_decorators_docstrings_ranges() -> None:
    path = "src/services/registry.ts"
    source = (RESOURCES / "tsproj" / path).read_bytes()
    symbols = {s.qualified_name: s for s in extract(path, source, "typescript").symbols}
    registry = symbols["Registry"]
    assert registry.decorators == ("@injectable()",)
    assert registry.docstring == "Keeps users by id."
    assert source[registry.start_byte :].startswith(b"@injectable()\nexport class Registry")
    assert registry.signature == "class Registry extends EventEmitter"
    path = "src/models/types.ts"
    source = (RESOURCES / "tsproj" / path).read_bytes()
    symbols = {s.qualified_name: s for s in extract(path, source, "typescript").symbols}
    assert symbols["Serializable"].docstring == "Something that can be written out."
    assert symbols["Serializable.toJSON"].kind == "method"


def test_typescript_fixture_parses_cleanly() -> None:
    for file in sorted((RESOURCES / "tsproj").rglob("*.ts*")):
        rel = file.relative_to(RESOURCES / "tsproj").as_posix()
        spec = language_for_path(rel)
        assert spec is not None, rel
        assert extract(rel, file.read_bytes(), spec.name).error == "", rel


# --- parameters, read from the syntax tree (languages/esparams.py) ----------

PARAMETERS_TS = """\
export function afterCallback(fn: (a: string) => void, b: number): void {}
export function bounded<T extends (x: A) => B>(make: T, ...rest: T[]): void {}
export function defaults(cb = (x: number, y: number) => x + y, c?: string, d: D = new D(1, 2)) {}
export function shapes(this: Window, { a, b = 2 }: Opts = {}, [c, d]: [number, number]) {}
export function gap(a = 1, b: number) {}
export function over(a: string): string;
export function over(
  a: number,
  b: (e: Error) => void,
): number;
export function over(a: any, b?: any): any { return a; }
export const arrow = async <T,>(
  value: T,
  map: (v: T, i: number) => T,
): Promise<T> => value;
export const lone = x => x;
export const typed: (input?: string) => number = (...args: any[]) => 0;
export class Store {
  constructor(private readonly db: Db, public name = "main", @Inject() plain: P) {}
  get(key: string, fallback: () => Value): Value { return fallback(); }
  static of<K>(pairs: Array<[K, V]>): Store { return new Store(pairs as any, "", null as any); }
  handle = (event: Event, done: (err?: Error) => void) => done();
  private async sync?(): Promise<void> {}
}
export abstract class Base {
  abstract run(
    job: Job,
    report: (progress: number) => void,
  ): void;
}
export interface Api {
  call(path: string, ...args: unknown[]): Promise<unknown>;
}
"""


def _parameter_sets(source: str, path: str = "src/params.ts") -> dict[str, list[list[tuple[str, str, bool, str]]]]:
    """Qualified name -> the signatures callers bind, each its parameters
    as (name, kind, default, annotation): the reader's whole answer."""
    language = language_for_path(path)
    assert language is not None
    out = {}
    for symbol in extract(path, source.encode(), language.name).symbols:
        if symbol.kind in ("function", "method"):
            read = language.parameters(symbol.signature)  # type: ignore[attr-defined]
            assert read is not None, symbol.signature
            out[symbol.qualified_name] = [
                [(p.name, p.kind, p.default, p.annotation) for p in s.parameters] for s in read.callable
            ]
    return out


def test_typescript_parameters_exact() -> None:
    assert _parameter_sets(PARAMETERS_TS) == {
        # the callback's `=>` and its own parameter hide nothing after it
        "afterCallback": [[("fn", "positional", False, "(_0:string)=>void"), ("b", "positional", False, "number")]],
        # a function type in a generic bound is no parameter; a function's own type
        # parameters are read by position (§0, §1: a rename changes no call)
        "bounded": [[("make", "positional", False, "§0"), ("rest", "variadic", True, "§0[]")]],
        "defaults": [[("cb", "positional", True, ""), ("c", "positional", True, "string"), ("d", "positional", True, "D")]],
        "shapes": [[
            ("this", "this", False, "Window"),
            ("{a,b=2}", "positional", True, "Opts"),
            ("[c,d]", "positional", False, "[number,number]"),
        ]],
        "gap": [[("a", "positional", True, ""), ("b", "positional", False, "number")]],
        # an overload set: the implementation is not what callers bind
        "over": [
            [("a", "positional", False, "string")],
            [("a", "positional", False, "number"), ("b", "positional", False, "(_0:Error)=>void")],
        ],
        "arrow": [[("value", "positional", False, "§0"), ("map", "positional", False, "(_0:§0,_1:number)=>§0")]],
        "lone": [[("x", "positional", False, "")]],
        # a const's declared type is what callers bind, not the value's own list
        "typed": [[("input", "positional", True, "string")]],
        # parameter properties and a decorated parameter
        "Store.constructor": [[("db", "positional", False, "Db"), ("name", "positional", True, ""), ("plain", "positional", False, "P")]],
        "Store.get": [[("key", "positional", False, "string"), ("fallback", "positional", False, "()=>Value")]],
        "Store.of": [[("pairs", "positional", False, "Array<[§0,V]>")]],
        "Store.handle": [[("event", "positional", False, "Event"), ("done", "positional", False, "(_0?:Error)=>void")]],
        "Store.sync": [[]],
        "Base.run": [[("job", "positional", False, "Job"), ("report", "positional", False, "(_0:number)=>void")]],
        "Api.call": [[("path", "positional", False, "string"), ("args", "variadic", True, "unknown[]")]],
    }


DECLARATIONS_DTS = (
    "export class Command {\n"
    "  name(): string;\n"
    "  // the setter\n"
    "  name(str: string): this;\n"
    "  alias(a: string): this;\n"
    "}\n"
    "export interface Help {\n  wrap(s: string): string;\n  wrap(s: string, width: number): string;\n}\n"
    "export function create(): Command;\n"
    "export function create(name: string): Command;\n"
    "export declare function one(a: string): void;\n"
)


def test_typescript_declaration_file_overload_sets() -> None:
    """A .d.ts `export class`'s bodiless methods are symbols, and a set of
    signatures without an implementation is one symbol (its last), every
    signature callable; in a .ts class the signatures fold into the body."""
    assert _parameter_sets(DECLARATIONS_DTS, "typings/index.d.ts") == {
        "Command.name": [[], [("str", "positional", False, "string")]],
        "Command.alias": [[("a", "positional", False, "string")]],
        "Help.wrap": [[("s", "positional", False, "string")], [("s", "positional", False, "string"), ("width", "positional", False, "number")]],
        "create": [[], [("name", "positional", False, "string")]],
        "one": [[("a", "positional", False, "string")]],
    }  # fmt: skip
    symbols = extract("typings/index.d.ts", DECLARATIONS_DTS.encode(), "typescript").symbols
    assert sorted((s.id, s.start_line) for s in symbols if s.kind in ("function", "method")) == [
        ("typings/index.d.ts:function:create", 12),
        ("typings/index.d.ts:function:one", 13),
        ("typings/index.d.ts:method:Command.alias", 5),
        ("typings/index.d.ts:method:Command.name", 4),
        ("typings/index.d.ts:method:Help.wrap", 9),
    ]
    in_class = "class C {\n  m(a: string): void;\n  m(a: number): void;\n  m(a: any): void {}\n}\n"
    assert _parameter_sets(in_class) == {"C.m": [[("a", "positional", False, "string")], [("a", "positional", False, "number")]]}


def test_typescript_declaration_file_yields_to_the_implementation(tmp_path: Path) -> None:
    """A JavaScript package with hand-written typings (commander): the
    typings' `export class Help` declares `visibleOptions` again, but a
    name-only guess of a call still finds the one implementation."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "lib/help.js": "class Help {\n  visibleOptions(cmd) {\n    return [];\n  }\n}\nexports.Help = Help;\n",
        "lib/command.js": "function run(helper, cmd) {\n  return helper.visibleOptions(cmd);\n}\nexports.run = run;\n",
    })  # fmt: skip
    commit(repo, "base")
    index(repo)
    # the typings come later: the incremental run answers as a cold one
    write(repo, {"typings/index.d.ts": "export class Help {\n  visibleOptions(cmd: object): string[];\n}\n"})
    index(repo)
    edges = edge_targets_by_line(exported(repo))
    assert edges[("lib/command.js:function:run", "visibleOptions", "calls", 2)] == (
        "lib/help.js:method:Help.visibleOptions", "unique")
    assert_as_cold(repo, tmp_path)


def test_typescript_signature_texts_keep_every_parameter() -> None:
    """A multi-line arrow function, abstract method or overload set is
    stored whole (up to the body), not cut at its first line."""
    signatures = {
        s.qualified_name: s.signature for s in extract("src/params.ts", PARAMETERS_TS.encode(), "typescript").symbols
    }
    assert signatures["arrow"] == "const arrow = async <T,>( value: T, map: (v: T, i: number) => T, ): Promise<T> =>"
    assert signatures["Base.run"] == "abstract run( job: Job, report: (progress: number) => void, ): void"
    assert signatures["over"] == (
        "function over(a: string): string; function over( a: number, b: (e: Error) => void, ): number; "
        "function over(a: any, b?: any): any"
    )
    assert signatures["lone"] == "const lone = x =>"


def test_typescript_parameters_negatives() -> None:
    read = LANGUAGES["typescript"].parameters  # type: ignore[attr-defined]
    # not a function's head: no parameters, not an empty list
    assert read("class Store") is None
    assert read("const LIMIT = 5") is None
    assert read("") is None
    # `f(a = 1, b)`: a default before a required parameter still takes an argument
    (gap,) = read("function gap(a = 1, b: number)").callable
    assert [(p.name, p.default) for p in gap.arity] == [("a", False), ("b", False)]
    # `this:` is declared, but no argument fills it
    (shapes,) = read("function f(this: Window, a: number)").callable
    assert [p.name for p in shapes.filled] == ["a"]


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        # a required parameter after a callback: the false all-clear
        ("function f2(fn: (a: string) => void)", "function f2(fn: (a: string) => void, b: number)", "breaking"),
        ("function f2(fn: (a: string) => void)", "function f2(fn: (a: string) => void, b?: number)", "compatible"),
        ("function f2(fn: (a: string) => void, b = 1)", "function f2(fn: (a: string) => void, b: number)", "breaking"),
        # white space and a callback's own parameter names are no change
        ("function f2(fn: (a: string) => void, b: number)", "function f2(fn: (a:string)=>void,\n  b: number)", ""),
        ("function f2(fn: (a: string) => void, b: number)", "function f2(fn: (value: string) => void, b: number)", ""),
        # the callback's type is part of the contract
        ("function f2(fn: (a: string) => void)", "function f2(fn: (a: string, i: number) => void)", "breaking"),
        ("function f2(fn: (a: string) => void)", "function f2(fn: ((a: string) => void) | null)", "compatible"),
        ("const f = (a: number) =>", "const f = (a: number, cb: () => void) =>", "breaking"),
        ("m(a: number, cb: () => void): void", "m(a: number, cb?: () => void): void", "compatible"),
        ("constructor(private readonly db: Db)", "constructor(private readonly db: Db, log: Log)", "breaking"),
        ("constructor(private readonly db: Db)", "constructor(public db: Db)", ""),
        # overload sets: only the signatures callers bind count
        ("function o(a: string): void; function o(a: any)", "function o(a: string): void; function o(a: any, b?: any)", ""),
        ("function o(a: string): void; function o(a: any)", "function o(a: string, b: number): void; function o(a: any)", "breaking"),
        ("function o(a: string): void; function o(a: any)", "function o(a: string): void; function o(a: number): void; function o(a: any)", "compatible"),
        ("function o(a: string): void; function o(a: number): void; function o(a: any)", "function o(a: string): void; function o(a: any)", "breaking"),
        ("function t(a: number)", "function t(this: Window, a: number)", "breaking"),
    ],
)
def test_typescript_signature_verdicts(old: str, new: str, verdict: str) -> None:
    assert signature_verdict(old, new, "typescript") == verdict


def test_typescript_reformatted_callback_keeps_the_code_hash() -> None:
    """The stored signature is white space aside in the code hash: a
    callback type laid out on several lines is the same symbol."""
    before = "export function f(fn: (a: string) => void, b: number) {\n  return b;\n}\n"
    after = "export function f(\n  fn: (a: string)\n    => void,\n  b: number\n) {\n  return b;\n}\n"
    changed = "export function f(fn: (a: string) => void, b: number, c: number) {\n  return b;\n}\n"
    hashes = [
        next(s for s in extract("src/f.ts", text.encode(), "typescript").symbols if s.kind == "function")
        for text in (before, after, changed)
    ]
    assert hashes[0].code_hash == hashes[1].code_hash != hashes[2].code_hash
    assert signature_verdict(hashes[0].signature, hashes[1].signature, "typescript") == ""
    assert signature_verdict(hashes[0].signature, hashes[2].signature, "typescript") == "breaking"
    # a trailing comma is written text (the hash changes) but no change for callers
    trailing = hashes[1].signature.replace("b: number", "b: number,")
    assert signature_verdict(hashes[0].signature, trailing, "typescript") == ""


def test_typescript_one_line_arrow_body_is_not_its_signature() -> None:
    """The signature of `const f = (...) => expr` ends at `=>`: an edit of
    the expression was a "breaking" signature change (a return type read
    from the text after the last parenthesis)."""
    before, after = (
        next(s for s in extract("src/f.ts", text.encode(), "typescript").symbols if s.kind == "function")
        for text in ("export const f = (a: number): number => a + 1;\n", "export const f = (a: number): number => a + 2;\n")
    )
    assert before.signature == after.signature == "const f = (a: number): number =>"
    assert before.code_hash != after.code_hash
    assert signature_verdict(before.signature, after.signature, "typescript") == ""
