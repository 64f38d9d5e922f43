"""Patterns of the JS/TS tags queries whose inner steps stand in `#child?` and
`#within?` predicates (parse/predicates.py) rather than in the query: each
step with children costs tree-sitter's compile of the query an analysis of
the grammar's states (docs/languages.md, "The queries' compile"). Written
flat, they must extract what the nested patterns did: the same symbols and
edges, in the same order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cartog_ci.languages import LANGUAGES
from cartog_ci.parse.extract import extract_rows

# Every shape of the rewritten patterns, at module level and nested, beside
# shapes that look alike and must not match.
TYPESCRIPT = b"""\
import { helper } from "./helper";
const log = debug("x"), store = Store.create(), made = new Maker(), api = { get: helper };
const lib = require("./lib"), LIMIT = count(), Other = ns.Thing;
export const alias = api.get, deep = a.b.c, plain = api, called = a.b().c;
export const Drawer = Object.assign(Root, { Header });
const { first, second } = useThing(), { third } = ns.make(), { fourth } = require("./x");
class Service {
  #secret = () => 1;
  handler = () => this.run();
  named = function () { return 2; };
  repo = new Repo();
  other: Repo = make();
  value = 3;
  run() { return this.repo.find(); }
  #hidden() {}
  constructor(private readonly store: Store) {}
}
function factory() {
  const inner = { close: () => 1, open() { return 2; } };
  const { fifth } = helper();
  call!();
  obj.method!();
  use(value!);
  maybe!.run();
  (0, helper)();
  (0, api.get)();
  (1, 2, helper)();
  f((0, g));
  module.exports = inner;
  return { row() { return 1; }, column: (c) => c };
}
function typed() {
  return { batch() {} } as const;
}
function checked() {
  return { flush() {} } satisfies Api;
}
export const Api = { create: () => 1, remove() { return 2; } };
module.exports = Service;
module.other = Service;
exports.x = 1;
"""

JAVASCRIPT = b"""\
exports.parse = function () {};
exports.stringify = (v) => v;
module.exports.format = function* () {};
module.exports = function named() {};
var app = module.exports = function appFactory() {};
exports = module.exports = class Router {};
module.exports = class {};
module.exports = function () {};
Foo.prototype.start = function () {};
Foo.stop = function () {};
window.global = function () {};
exports.notAFunction = 1;
module.exports.value = 2;
let other = module.exports = helper, more = module.exports = Other;
const { sum } = require("./sum"), { a } = make();
const LIMIT = 10, store = Store.create(), made = new Maker();
function nested() {
  exports.inner = function () {};
  module.exports = function innerNamed() {};
  Foo.prototype.inner = function () {};
  (0, helper)();
  f((0, g));
  const obj = { close: () => 1, open() {} };
  return { row() {} };
}
class Plain { method() {} field = () => 1; }
"""

SOURCES = {"javascript": JAVASCRIPT, "typescript": TYPESCRIPT, "tsx": TYPESCRIPT}

_NESTED = {  # (the flat pattern, the nested one it stands for) per query file
    'ecmascript': [
        (
            '((program\n'
            '  (lexical_declaration\n'
            '    kind: "const"\n'
            '    (variable_declarator\n'
            '      name: (identifier) @name\n'
            '      value: [(call_expression) @_call (new_expression) (object)])) @definition.constant)\n'
            '  (#child? @_call "_callee" "function:member_expression"))',
            '(program\n'
            '  (lexical_declaration\n'
            '    kind: "const"\n'
            '    (variable_declarator\n'
            '      name: (identifier) @name\n'
            '      value: [(call_expression function: (member_expression)) (new_expression) (object)])) @definition.constant)',
        ),
        (
            '((program\n'
            '  (lexical_declaration\n'
            '    kind: "const"\n'
            '    (variable_declarator\n'
            '      name: (identifier) @name\n'
            '      value: (call_expression) @_call)) @definition.constant)\n'
            '  (#child? @_call "_callee" "function:identifier")\n'
            '  (#not-eq? @_callee "require"))',
            '((program\n'
            '  (lexical_declaration\n'
            '    kind: "const"\n'
            '    (variable_declarator\n'
            '      name: (identifier) @name\n'
            '      value: (call_expression function: (identifier) @_callee))) @definition.constant)\n'
            '  (#not-eq? @_callee "require"))',
        ),
        (
            '((variable_declarator\n'
            '  name: (object_pattern (shorthand_property_identifier_pattern) @bind.name)\n'
            '  value: (call_expression) @_call) @bind\n'
            '  (#child? @_call "bind.call" "function:identifier|member_expression")\n'
            '  (#not-eq? @bind.call "require"))',
            '(variable_declarator\n'
            '  name: (object_pattern (shorthand_property_identifier_pattern) @bind.name)\n'
            '  value: (call_expression function: [(identifier) (member_expression)] @bind.call)\n'
            '  (#not-eq? @bind.call "require")) @bind',
        ),
        (
            '((method_definition) @definition.method\n'
            '  (#within? @definition.method "object" "return_statement")\n'
            '  (#child? @definition.method "name" "name:property_identifier"))',
            '((method_definition name: (property_identifier) @name) @definition.method\n'
            '  (#within? @definition.method "object" "return_statement"))',
        ),
        (
            '((method_definition) @definition.method\n'
            '  (#within? @definition.method "object" "as_expression|satisfies_expression" "return_statement")\n'
            '  (#child? @definition.method "name" "name:property_identifier"))',
            '((method_definition name: (property_identifier) @name) @definition.method\n'
            '  (#within? @definition.method "object" "as_expression|satisfies_expression" "return_statement"))',
        ),
        (
            '((method_definition) @definition.function\n'
            '  (#within? @definition.function "object" "variable_declarator" "lexical_declaration")\n'
            '  (#child? @definition.function "name" "name:property_identifier"))',
            '((method_definition name: (property_identifier) @name) @definition.function\n'
            '  (#within? @definition.function "object" "variable_declarator" "lexical_declaration"))',
        ),
        (
            '((sequence_expression . (number) [(identifier) (member_expression)] @name .) @reference.call\n'
            '  (#within? @reference.call "parenthesized_expression" "call_expression"))',
            '(call_expression\n'
            '  function: (parenthesized_expression\n'
            '    (sequence_expression . (number) [(identifier) (member_expression)] @name .))) @reference.call',
        ),
        (
            '((variable_declarator value: [(identifier) (member_expression) @_member]) @reference.import\n'
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement")\n'
            '  (#child? @_member "_object" "object:identifier|member_expression")\n'
            '  (#child? @_member "_property" "property:property_identifier"))',
            '((lexical_declaration (variable_declarator value: [(identifier) (member_expression object: [(identifier) (member_expression)] property: (property_identifier))]) @reference.import) @_declaration\n'
            '  (#top-level? @_declaration "export_statement"))',
        ),
        (
            '((variable_declarator name: (identifier) @name value: (call_expression) @_call) @_declarator\n'
            '  (#child? @_call "_hook" "function:identifier")\n'
            '  (#eq? @_hook "useCallback")\n'
            '  (#child? @_call "_callback" "arguments:arguments" ".:arrow_function|function_expression")\n'
            '  (#child? @_declarator "definition.function" "^:lexical_declaration"))',
            '((lexical_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: (call_expression\n'
            '      function: (identifier) @_hook\n'
            '      arguments: (arguments . [(arrow_function) (function_expression)])))) @definition.function\n'
            '  (#eq? @_hook "useCallback"))',
        ),
        (
            '((variable_declarator\n'
            '  name: (identifier) @name\n'
            '  value: (object [(pair value: [(arrow_function) (function_expression)]) (method_definition)])) @_declarator\n'
            '  (#child? @_declarator "definition.constant" "^:lexical_declaration"))',
            '(lexical_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: (object [(pair value: [(arrow_function) (function_expression)]) (method_definition)]))) @definition.constant',
        ),
        (
            '((variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import\n'
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement"))',
            '((lexical_declaration (variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import) @_declaration\n'
            '  (#top-level? @_declaration "export_statement"))',
        ),
        (
            '((variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import\n'
            '  (#child? @reference.import "_declaration" "^:lexical_declaration")\n'
            '  (#top-level? @_declaration "export_statement")\n'
            '  (#eq? @_assign "Object.assign"))',
            '((lexical_declaration (variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import) @_declaration\n'
            '  (#top-level? @_declaration "export_statement")\n'
            '  (#eq? @_assign "Object.assign"))',
        ),
        (
            '((new_expression) @_new\n'
            '  (#child? @_new "bind" "^:assignment_expression")\n'
            '  (#child? @bind "_left" "left:member_expression")\n'
            '  (#child? @_left "bind.self" "object:this")\n'
            '  (#child? @_left "bind.name" "property:property_identifier")\n'
            '  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))',
            '((assignment_expression left: (member_expression) @_left right: (new_expression) @_new) @bind\n'
            '  (#child? @_left "bind.self" "object:this")\n'
            '  (#child? @_left "bind.name" "property:property_identifier")\n'
            '  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))',
        ),
    ],
    'typescript': [
        (
            '((arguments . (string) .) @_arguments\n'
            '  (#child? @_arguments "reference.import" "^:call_expression")\n'
            '  (#child? @reference.import "_function" "function:identifier|import")\n'
            '  (#any-of? @_function "require" "import"))',
            '(call_expression\n'
            '  function: [(identifier) @_require (import)]\n'
            '  arguments: (arguments . (string) .)\n'
            '  (#eq? @_require "require")) @reference.import',
        ),
        (
            '((public_field_definition) @bind\n'
            '  (#child? @bind "bind.name" "name:property_identifier")\n'
            '  (#child? @bind "bind.field" "name:property_identifier")\n'
            '  (#child? @bind "bind.type" "type:type_annotation" ":_"))',
            '(public_field_definition\n'
            '  name: (property_identifier) @bind.name @bind.field\n'
            '  type: (type_annotation (_) @bind.type)) @bind',
        ),
        (
            '((variable_declarator name: (identifier) @name value: (class)) @_declarator\n'
            '  (#child? @_declarator "definition.class" "^:lexical_declaration|variable_declaration"))',
            '(lexical_declaration\n'
            '  (variable_declarator name: (identifier) @name value: (class))) @definition.class\n'
            '(variable_declaration\n'
            '  (variable_declarator name: (identifier) @name value: (class))) @definition.class',
        ),
        (
            '((variable_declarator\n'
            '  name: (identifier) @name\n'
            '  value: [(arrow_function) (function_expression) (generator_function)]) @_declarator\n'
            '  (#child? @_declarator "definition.function" "^:lexical_declaration|variable_declaration"))',
            '(lexical_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function\n'
            '(variable_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function',
        ),
        (
            '((method_definition) @definition.function\n'
            '  (#within? @definition.function "class_body")\n'
            '  (#child? @definition.function "name" "name:property_identifier|private_property_identifier"))',
            '((method_definition\n'
            '  name: [(property_identifier) (private_property_identifier)] @name) @definition.function\n'
            '  (#within? @definition.function "class_body"))',
        ),
        (
            '((public_field_definition) @definition.function\n'
            '  (#within? @definition.function "class_body")\n'
            '  (#child? @definition.function "name" "name:property_identifier|private_property_identifier")\n'
            '  (#child? @definition.function "_value" "value:arrow_function|function_expression"))',
            '((public_field_definition\n'
            '  name: [(property_identifier) (private_property_identifier)] @name\n'
            '  value: [(arrow_function) (function_expression)]) @definition.function\n'
            '  (#within? @definition.function "class_body"))',
        ),
        (
            '((expression_statement . (assignment_expression) @reference.import) @_statement\n'
            '  (#top-level? @_statement)\n'
            '  (#child? @reference.import "_module" "left:member_expression" "object:identifier")\n'
            '  (#child? @reference.import "_exports" "left:member_expression" "property:property_identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
            '((expression_statement\n'
            '  (assignment_expression\n'
            '    left: (member_expression\n'
            '      object: (identifier) @_module\n'
            '      property: (property_identifier) @_exports)) @reference.import) @_statement\n'
            '  (#top-level? @_statement)\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
        ),
        (
            '((public_field_definition) @bind\n'
            '  (#child? @bind "_new" "value:new_expression")\n'
            '  (#child? @bind "bind.name" "name:property_identifier")\n'
            '  (#child? @bind "bind.field" "name:property_identifier")\n'
            '  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))',
            '((public_field_definition name: (property_identifier) @bind.name @bind.field value: (new_expression) @_new) @bind\n'
            '  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))',
        ),
        (
            '((non_null_expression [(identifier) (member_expression)] @name) @reference.call\n'
            '  (#within? @reference.call "call_expression"))',
            '(call_expression function: (non_null_expression [(identifier) (member_expression)] @name)) @reference.call',
        ),
    ],
    'javascript': [
        (
            '((variable_declarator name: (identifier) @name value: (class)) @_declarator\n'
            '  (#child? @_declarator "definition.class" "^:lexical_declaration|variable_declaration"))',
            '(lexical_declaration\n'
            '  (variable_declarator name: (identifier) @name value: (class))) @definition.class\n'
            '(variable_declaration\n'
            '  (variable_declarator name: (identifier) @name value: (class))) @definition.class',
        ),
        (
            '((variable_declarator\n'
            '  name: (identifier) @name\n'
            '  value: [(arrow_function) (function_expression) (generator_function)]) @_declarator\n'
            '  (#child? @_declarator "definition.function" "^:lexical_declaration|variable_declaration"))',
            '(lexical_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function\n'
            '(variable_declaration\n'
            '  (variable_declarator\n'
            '    name: (identifier) @name\n'
            '    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function',
        ),
        (
            '((arguments . (string) .) @_arguments\n'
            '  (#child? @_arguments "reference.import" "^:call_expression")\n'
            '  (#child? @reference.import "_function" "function:identifier|import")\n'
            '  (#any-of? @_function "require" "import"))',
            '(call_expression\n'
            '  function: [(identifier) @_require (import)]\n'
            '  arguments: (arguments . (string) .)\n'
            '  (#eq? @_require "require")) @reference.import',
        ),
        (
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(arrow_function) (function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#child? @_left "_exports" "object:identifier")\n'
            '  (#child? @_left "name" "property:property_identifier")\n'
            '  (#eq? @_exports "exports"))',
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression\n'
            '        object: (identifier) @_exports\n'
            '        property: (property_identifier) @name)\n'
            '      right: [(arrow_function) (function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#eq? @_exports "exports"))',
        ),
        (
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(arrow_function) (function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#child? @_left "_module" "object:member_expression" "object:identifier")\n'
            '  (#child? @_left "_exports" "object:member_expression" "property:property_identifier")\n'
            '  (#child? @_left "name" "property:property_identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression\n'
            '        object: (member_expression\n'
            '          object: (identifier) @_module\n'
            '          property: (property_identifier) @_exports)\n'
            '        property: (property_identifier) @name)\n'
            '      right: [(arrow_function) (function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
        ),
        (
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression) (generator_function)] @_right) @definition.function)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression) (generator_function)] @_right) @definition.function))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression) (generator_function)] @_right) @definition.function))])\n'
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n'
            '  (#child? @_right "name" "name:identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression name: (identifier) @name) (generator_function name: (identifier) @name)]) @definition.function)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression name: (identifier) @name) (generator_function name: (identifier) @name)]) @definition.function))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression name: (identifier) @name) (generator_function name: (identifier) @name)]) @definition.function))])\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
        ),
        (
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))])\n'
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports")\n'
            '  (#set! name "<file>"))',
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))])\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports")\n'
            '  (#set! name "<file>"))',
        ),
        (
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class) @_right) @definition.class)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class) @_right) @definition.class))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class) @_right) @definition.class))])\n'
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n'
            '  (#child? @_right "name" "name:identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class name: (identifier) @name)) @definition.class)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class name: (identifier) @name)) @definition.class))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class name: (identifier) @name)) @definition.class))])\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
        ),
        (
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class !name)) @definition.class)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class !name)) @definition.class))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: (class !name)) @definition.class))])\n'
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports")\n'
            '  (#set! name "<file>"))',
            '((program\n'
            '  [(expression_statement (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class !name)) @definition.class)\n'
            '   (expression_statement (assignment_expression right: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class !name)) @definition.class))\n'
            '   (_ (variable_declarator value: (assignment_expression\n'
            '      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)\n'
            '      right: (class !name)) @definition.class))])\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports")\n'
            '  (#set! name "<file>"))',
        ),
        (
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#child? @_left "owner" "object:member_expression" "object:identifier")\n'
            '  (#child? @_left "_prototype" "object:member_expression" "property:property_identifier")\n'
            '  (#child? @_left "name" "property:property_identifier")\n'
            '  (#eq? @_prototype "prototype"))',
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression\n'
            '        object: (member_expression\n'
            '          object: (identifier) @owner\n'
            '          property: (property_identifier) @_prototype)\n'
            '        property: (property_identifier) @name)\n'
            '      right: [(function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#eq? @_prototype "prototype"))',
        ),
        (
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression) @_left\n'
            '      right: [(function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#child? @_left "owner" "object:identifier")\n'
            '  (#child? @_left "name" "property:property_identifier")\n'
            '  (#not-match? @owner "^(exports|module|window|globalThis|self)$"))',
            '(program\n'
            '  (expression_statement\n'
            '    (assignment_expression\n'
            '      left: (member_expression\n'
            '        object: (identifier) @owner\n'
            '        property: (property_identifier) @name)\n'
            '      right: [(function_expression) (generator_function)]))\n'
            '  @definition.function\n'
            '  (#not-match? @owner "^(exports|module|window|globalThis|self)$"))',
        ),
        (
            '([(expression_statement\n'
            '   (assignment_expression\n'
            '     left: (member_expression) @_left) @reference.import)\n'
            '  (expression_statement\n'
            '   (assignment_expression\n'
            '     right: (assignment_expression\n'
            '       left: (member_expression) @_left) @reference.import))\n'
            '  (lexical_declaration (variable_declarator\n'
            '   value: (assignment_expression\n'
            '     left: (member_expression) @_left) @reference.import))\n'
            '  (variable_declaration (variable_declarator\n'
            '   value: (assignment_expression\n'
            '     left: (member_expression) @_left) @reference.import))] @_statement\n'
            '  (#top-level? @_statement)\n'
            '  (#child? @_left "_module" "object:identifier")\n'
            '  (#child? @_left "_exports" "property:property_identifier")\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
            '([(expression_statement\n'
            '   (assignment_expression\n'
            '     left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import)\n'
            '  (expression_statement\n'
            '   (assignment_expression\n'
            '     right: (assignment_expression\n'
            '       left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import))\n'
            '  (lexical_declaration (variable_declarator\n'
            '   value: (assignment_expression\n'
            '     left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import))\n'
            '  (variable_declaration (variable_declarator\n'
            '   value: (assignment_expression\n'
            '     left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)) @reference.import))] @_statement\n'
            '  (#top-level? @_statement)\n'
            '  (#eq? @_module "module")\n'
            '  (#eq? @_exports "exports"))',
        ),
    ],
}


def _nested(name: str) -> str:
    """The language's query with the nested patterns back."""
    query = LANGUAGES[name].syntax.load_query()
    for group in ("ecmascript", "typescript" if name == "tsx" else name):
        for flat, nested in _NESTED[group]:
            assert query.count(flat) == 1, flat
            query = query.replace(flat, nested)
    return query


@pytest.mark.parametrize("name", ["javascript", "typescript", "tsx"])
def test_the_flat_patterns_extract_what_the_nested_ones_did(name: str) -> None:
    syntax = LANGUAGES[name].syntax
    query = _nested(name)
    nested = replace(syntax, load_query=lambda: query)
    path = "src/shapes.js" if name == "javascript" else "src/shapes.ts"
    flat_rows = extract_rows(path, SOURCES[name], syntax)
    assert flat_rows == extract_rows(path, SOURCES[name], nested)
    assert len(flat_rows[0].symbols) > 10 and len(flat_rows[1]) > 10
