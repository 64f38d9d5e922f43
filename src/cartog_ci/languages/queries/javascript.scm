; JavaScript tags (also .jsx, .mjs, .cjs): @definition.<kind> around the whole
; definition, @name inside. A function whose parent is a class becomes a
; method in the extractor; `export` is a wrapper (LanguageSpec.wrappers), so
; an exported symbol's range starts at `export` and its JSDoc is found.

(class_declaration name: (identifier) @name) @definition.class

; `const Foo = class [Bar] {}`: the class is known by the binding. (The
; declaration around the declarator is `#child?`'s `^` step, as in typescript.scm.)
((variable_declarator name: (identifier) @name value: (class)) @_declarator
  (#child? @_declarator "definition.class" "^:lexical_declaration|variable_declaration"))

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; `const f = () => {}` / `let f = function () {}` at any level. The whole
; declaration is the definition so `export const f` widens to `export`.
((variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @_declarator
  (#child? @_declarator "definition.function" "^:lexical_declaration|variable_declaration"))

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
; `handler = () => {}` class fields are methods with a bound `this`.
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression)]) @definition.function)

; CommonJS named exports: `exports.f = function () {}`, `module.exports.f = ...`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_left
      right: [(arrow_function) (function_expression) (generator_function)]))
  @definition.function
  (#child? @_left "_exports" "object:identifier")
  (#child? @_left "name" "property:property_identifier")
  (#eq? @_exports "exports"))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_left
      right: [(arrow_function) (function_expression) (generator_function)]))
  @definition.function
  (#child? @_left "_module" "object:member_expression" "object:identifier")
  (#child? @_left "_exports" "object:member_expression" "property:property_identifier")
  (#child? @_left "name" "property:property_identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; CommonJS default export: `module.exports = function [name] (…) {}` / `= (…) =>
; …` / `= class [Name] {}` at module level, also as `exports = module.exports =
; f` and `var proto = module.exports = function`, is a callable symbol of the
; module, named by its own name, else by the file's (`<file>`: parse/extract.py
; names it, `lib/parse.js` -> `parse`, `lib/index.js` -> `lib`);
; `require('./parse')` binds it (languages/esimports.py, _commonjs_default).
((program
  [(expression_statement (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression) (generator_function)] @_right) @definition.function)
   (expression_statement (assignment_expression right: (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression) (generator_function)] @_right) @definition.function))
   (_ (variable_declarator value: (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression) (generator_function)] @_right) @definition.function))])
  (#child? @_left "_module" "object:identifier")
  (#child? @_left "_exports" "property:property_identifier")
  (#child? @_right "name" "name:identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
((program
  [(expression_statement (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function)
   (expression_statement (assignment_expression right: (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))
   (_ (variable_declarator value: (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function))])
  (#child? @_left "_module" "object:identifier")
  (#child? @_left "_exports" "property:property_identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports")
  (#set! name "<file>"))
((program
  [(expression_statement (assignment_expression
      left: (member_expression) @_left
      right: (class) @_right) @definition.class)
   (expression_statement (assignment_expression right: (assignment_expression
      left: (member_expression) @_left
      right: (class) @_right) @definition.class))
   (_ (variable_declarator value: (assignment_expression
      left: (member_expression) @_left
      right: (class) @_right) @definition.class))])
  (#child? @_left "_module" "object:identifier")
  (#child? @_left "_exports" "property:property_identifier")
  (#child? @_right "name" "name:identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
((program
  [(expression_statement (assignment_expression
      left: (member_expression) @_left
      right: (class !name)) @definition.class)
   (expression_statement (assignment_expression right: (assignment_expression
      left: (member_expression) @_left
      right: (class !name)) @definition.class))
   (_ (variable_declarator value: (assignment_expression
      left: (member_expression) @_left
      right: (class !name)) @definition.class))])
  (#child? @_left "_module" "object:identifier")
  (#child? @_left "_exports" "property:property_identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports")
  (#set! name "<file>"))

; Pre-class methods: `Foo.prototype.m = function () {}` and `Foo.m = ...` at
; module level; @owner names the type (the extractor qualifies `Foo.m`).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression) (generator_function)]))
  @definition.function
  (#child? @_left "owner" "object:member_expression" "object:identifier")
  (#child? @_left "_prototype" "object:member_expression" "property:property_identifier")
  (#child? @_left "name" "property:property_identifier")
  (#eq? @_prototype "prototype"))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_left
      right: [(function_expression) (generator_function)]))
  @definition.function
  (#child? @_left "owner" "object:identifier")
  (#child? @_left "name" "property:property_identifier")
  (#not-match? @owner "^(exports|module|window|globalThis|self)$"))

; Module-level `const UPPER_CASE = <value>`, and any exported module-level
; `const` (it is the module's API: `export const config = {...}`), where the
; value is data, not a function or a class (a query cannot negate a node
; type, so the values are listed; anything else is simply not a constant).
; `const LRU = require('./lru')` is an import binding, not a constant: as one
; it shadowed the import, so `new LRU()` was the constant (semver 7.6).
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
      ] @_value)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require\\s*\\("))
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
        ])) @definition.constant))


; `<Button />`: rendering a component calls it; lower-case tags are HTML.
((jsx_opening_element name: [(identifier) (member_expression)] @name) @reference.call
  (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: [(identifier) (member_expression)] @name) @reference.call
  (#match? @name "^[A-Z]"))

(class_heritage [(identifier) (member_expression)] @name) @reference.inherits

; Imports: ESM, re-exports, CommonJS `require('./x')`, dynamic `import('./x')`,
; and the module's own default / aliased exports (decoded in parse/imports.py).
(import_statement) @reference.import
(export_statement source: (_)) @reference.import
(export_statement "default") @reference.import
(export_statement (export_clause) !source) @reference.import
; (One pattern for both, rooted at the arguments, the call reached by
; `#child?`'s `^` step: a step under `call_expression` costs the compile ~28 M
; instructions on TypeScript's grammar, docs/languages.md "The queries'
; compile"; `import` is the text of the `import` node.)
((arguments . (string) .) @_arguments
  (#child? @_arguments "reference.import" "^:call_expression")
  (#child? @reference.import "_function" "function:identifier|import")
  (#any-of? @_function "require" "import"))
; `exports.p = parse` / `module.exports.p = require('./parse')`: the module's
; `p` is that binding (decoded like `export { parse as p }`).
; (At module level: `#top-level?`, parse/predicates.py; rooted at `program`,
; a pattern keeps a match open that every node of the file is tried against.)
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @_exports property: (property_identifier))
    right: [(identifier) (call_expression)]) @reference.import) @_statement
  (#top-level? @_statement)
  (#match? @_exports "^(module\\.)?exports$"))
; `module.exports = X` is the CommonJS default export (also `exports =
; module.exports = X`, `var app = module.exports = X`).
; (At module level as above; a declarator's statement is a `const`/`let` or a `var`.)
([(expression_statement
   (assignment_expression
     left: (member_expression) @_left) @reference.import)
  (expression_statement
   (assignment_expression
     right: (assignment_expression
       left: (member_expression) @_left) @reference.import))
  (lexical_declaration (variable_declarator
   value: (assignment_expression
     left: (member_expression) @_left) @reference.import))
  (variable_declaration (variable_declarator
   value: (assignment_expression
     left: (member_expression) @_left) @reference.import))] @_statement
  (#top-level? @_statement)
  (#child? @_left "_module" "object:identifier")
  (#child? @_left "_exports" "property:property_identifier")
  (#eq? @_module "module")
  (#eq? @_exports "exports"))
((field_definition property: (property_identifier) @bind.name @bind.field value: (new_expression) @_new) @bind
  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))
