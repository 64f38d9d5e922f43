; TypeScript tags, shared by .ts and .tsx: only node types both grammars have
; (JSX calls are in tsx.scm, for .tsx alone; no `<T>x` type assertions). @definition.<kind> around the
; whole definition, @name inside; `export` and `declare` are wrappers
; (LanguageSpec.wrappers), so a symbol's range and JSDoc include them.

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

; `const Foo = class [Bar] {}`: the class is known by the binding. (The
; declaration around the declarator is `#child?`'s `^` step, parse/predicates.py:
; rooted at it, a match stays open over all of the declaration, which every
; node of it is tried against; see the same below and in ecmascript.scm.)
((variable_declarator name: (identifier) @name value: (class)) @_declarator
  (#child? @_declarator "definition.class" "^:lexical_declaration|variable_declaration"))

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum

; `namespace util { export function assertEqual() {} }`: `util.assertEqual()`
; reaches its members (zod v3's helpers); `declare module "x"` is no symbol.
(internal_module name: (identifier) @name) @definition.namespace

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; `declare function f(): T;`, and `export function f(): T;` in a .d.ts. An
; overload signature followed by another of its name or by the implementation
; is no symbol of its own: the last of the set is, and folds the ones before
; it (parse/extract.py `_overloads`).
(function_signature name: (identifier) @name) @definition.function

; `const f = () => {}` / `let f = function () {}` at any level. The whole
; declaration is the definition so `export const f` widens to `export`.
((variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @_declarator
  (#child? @_declarator "definition.function" "^:lexical_declaration|variable_declaration"))

; (The class or interface body around a member is `#within?`, parse/predicates.py:
; the outer steps of these six patterns cost TypeScript's compile 30 M instructions.)
((method_definition) @definition.function
  (#within? @definition.function "class_body")
  (#child? @definition.function "name" "name:property_identifier|private_property_identifier"))
((abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function
  (#within? @definition.function "class_body"))
; `handler = () => {}` class fields are methods with a bound `this`.
((public_field_definition) @definition.function
  (#within? @definition.function "class_body")
  (#child? @definition.function "name" "name:property_identifier|private_property_identifier")
  (#child? @definition.function "_value" "value:arrow_function|function_expression"))
; Methods without a body: of `declare class`, of a .d.ts `export class`, and
; a .ts class's overload signatures (folded into the implementation, as above).
((method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.function
  (#within? @definition.function "class_body|interface_body"))

; Module-level `const UPPER_CASE = <value>`, and any exported module-level
; `const` (it is the module's API: `export const config = {...}`), where the
; value is data, not a function or a class (a query cannot negate a node
; type, so the values are listed; anything else is simply not a constant).
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [
        (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
        (object) (array) (identifier) (member_expression) (subscript_expression)
        (call_expression) (new_expression) (binary_expression) (unary_expression)
        (ternary_expression) (parenthesized_expression) (await_expression)
        (as_expression) (satisfies_expression) (non_null_expression)
      ])) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(program
  (export_statement
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [
          (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
          (object) (array) (identifier) (member_expression) (subscript_expression)
          (call_expression) (new_expression) (binary_expression) (unary_expression)
          (ternary_expression) (parenthesized_expression) (await_expression)
          (as_expression) (satisfies_expression) (non_null_expression)
        ])) @definition.constant))


; Decorators are applied (called) at definition time; `@Dec()` is a call above.
(decorator [(identifier) (member_expression)] @name) @reference.call

(extends_clause value: [(identifier) (member_expression)] @name) @reference.inherits
(implements_clause [
  (type_identifier) @name
  (nested_type_identifier) @name
  (generic_type name: [(type_identifier) (nested_type_identifier)] @name)]) @reference.inherits
(extends_type_clause type: [
  (type_identifier) @name
  (nested_type_identifier) @name
  (generic_type name: [(type_identifier) (nested_type_identifier)] @name)]) @reference.inherits

; Type parameters and mapped-type keys are bound in their declaration only:
; the extractor drops references to them, as it would a local variable's.
; (`@local.within`: the scope is the parent of the `type_parameters`, always in
; that field of it; a wildcard parent step costs TypeScript's compile 22 M instructions)
(type_parameters (type_parameter name: (type_identifier) @local.definition)) @local.within
(index_signature (mapped_type_clause name: (type_identifier) @local.definition)) @local.scope

; Types used: annotations, generic arguments, unions, `as`, constraints...
; Declared names (class, interface, type parameter, mapped key) are not
; references; neither is a one-letter name (`infer U` deep in a conditional
; type is out of a query's reach) nor `bigint` (parsed as a type name).
([
  (type_annotation [(type_identifier) (nested_type_identifier)] @name)
  (type_arguments [(type_identifier) (nested_type_identifier)] @name)
  (generic_type name: [(type_identifier) (nested_type_identifier)] @name)
  (union_type [(type_identifier) (nested_type_identifier)] @name)
  (intersection_type [(type_identifier) (nested_type_identifier)] @name)
  (array_type [(type_identifier) (nested_type_identifier)] @name)
  (tuple_type [(type_identifier) (nested_type_identifier)] @name)
  (optional_type [(type_identifier) (nested_type_identifier)] @name)
  (rest_type [(type_identifier) (nested_type_identifier)] @name)
  (readonly_type [(type_identifier) (nested_type_identifier)] @name)
  (parenthesized_type [(type_identifier) (nested_type_identifier)] @name)
  (lookup_type [(type_identifier) (nested_type_identifier)] @name)
  (index_type_query [(type_identifier) (nested_type_identifier)] @name)
  (constraint [(type_identifier) (nested_type_identifier)] @name)
  (default_type [(type_identifier) (nested_type_identifier)] @name)
  (conditional_type [(type_identifier) (nested_type_identifier)] @name)
  (function_type return_type: [(type_identifier) (nested_type_identifier)] @name)
  (constructor_type type: [(type_identifier) (nested_type_identifier)] @name)
  (type_predicate type: [(type_identifier) (nested_type_identifier)] @name)
  (mapped_type_clause type: [(type_identifier) (nested_type_identifier)] @name)
  (type_alias_declaration value: [(type_identifier) (nested_type_identifier)] @name)
  (as_expression [(type_identifier) (nested_type_identifier)] @name)
  (satisfies_expression [(type_identifier) (nested_type_identifier)] @name)
] @reference.type
  (#not-match? @name "^([A-Z][0-9]?|bigint)$"))

; Imports: ESM, re-exports, CommonJS `require('./x')` and TS
; `import x = require('./x')`, dynamic `import('./x')`, and the module's own
; default / aliased exports (decoded in parse/imports.py).
(import_statement) @reference.import
(export_statement source: (_)) @reference.import
(export_statement ["default" "="]) @reference.import
(export_statement (export_clause) !source) @reference.import
; (One pattern for both, rooted at the arguments, the call reached by
; `#child?`'s `^` step: a step under `call_expression` costs the compile ~28 M
; instructions on TypeScript's grammar, docs/languages.md "The queries'
; compile"; `import` is the text of the `import` node.)
((arguments . (string) .) @_arguments
  (#child? @_arguments "reference.import" "^:call_expression")
  (#child? @reference.import "_function" "function:identifier|import")
  (#any-of? @_function "require" "import"))
; `module.exports = X` (and TS `export = X`) is the CommonJS default export.
; (At module level: `#top-level?`, parse/predicates.py. The assignment is the
; statement's first named child, `.`: unanchored, a match stayed open over
; every statement's expression, which each node of it was tried against.)
((expression_statement . (assignment_expression) @reference.import) @_statement
  (#top-level? @_statement)
  (#child? @reference.import "_module" "left:member_expression" "object:identifier")
  (#child? @reference.import "_exports" "left:member_expression" "property:property_identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
((public_field_definition) @bind
  (#child? @bind "_new" "value:new_expression")
  (#child? @bind "bind.name" "name:property_identifier")
  (#child? @bind "bind.field" "name:property_identifier")
  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))

; Declared types of receivers: a field `private s: Stats`, a parameter
; `g: Stats` (a parameter property `private readonly o: Stats` is a field
; too), a local `const l: Stats = ...`, a cast `const c = y as Stats`, and the
; value of a call `const m = make()` (the callee's return type), so that
; `this.s.inc()`, `g.inc()`, `l.inc()` resolve to `Stats.inc`. A declared type
; wins over the value in the same declaration (the extractor's rule); any
; other value makes the name hold something unknown. (A field's parts are
; `#child?`'s steps: under `public_field_definition`, a step cost the compile
; ~25 M instructions.)
((public_field_definition) @bind
  (#child? @bind "bind.name" "name:property_identifier")
  (#child? @bind "bind.field" "name:property_identifier")
  (#child? @bind "bind.type" "type:type_annotation" ":_"))
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(required_parameter
  (accessibility_modifier)
  pattern: (identifier) @bind.name @bind.field
  type: (type_annotation (_) @bind.type)) @bind
(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(variable_declarator name: (identifier) @bind.name value: (as_expression (_) (_) @bind.type)) @bind
; The value of a call and any other value: one pattern, its value read by
; its kind (parse/extract.py `_bound_value`, `@bind.result`): a call of a name
; or a member gives what the callee returns, a `new` or a cast is read by
; the patterns above, anything else is unknown. (Two patterns before: a
; declaration that calls matched both, zod 4.1.12: 2,814 matches.)
(variable_declarator name: (identifier) @bind.name value: (_) @bind.result) @bind
; A parameter destructured from a type of the file (`({ matrix }: Options<T>)`
; with `type Options<T> = { matrix: Matrix<T> }`): the names hold what the
; type's members are declared as, read by the members' own bindings.
((property_signature name: (property_identifier) @bind.name @bind.member type: (type_annotation [(type_identifier) (generic_type)] @bind.type)) @bind
  (#within? @bind "interface_body" "interface_declaration"))
((property_signature name: (property_identifier) @bind.name @bind.member type: (type_annotation [(type_identifier) (generic_type)] @bind.type)) @bind
  (#within? @bind "object_type" "type_alias_declaration"))
(required_parameter
  pattern: (object_pattern (shorthand_property_identifier_pattern) @bind.name)
  type: (type_annotation [(type_identifier) (generic_type)] @bind.typed)) @bind
((non_null_expression [(identifier) (member_expression)] @name) @reference.call
  (#within? @reference.call "call_expression"))
