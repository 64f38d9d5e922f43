; Patterns JavaScript and TypeScript/TSX share (their grammars agree on these
; nodes); appended to javascript.scm and typescript.scm by the language registry.
; A pattern rooted at `program` whose captures are all definitions runs in a
; second pass that starts matches at the root alone (parse/syntax.py
; `top_level_pass`): in the one pass it kept a match open that every node of
; the file was tried against. Root-level references stay in the one pass.
; A child step under an expression or a class member costs the query's compile
; 1-2 ms (tree-sitter analyses it): under a rare node, the inner nodes are picked
; out by `#child?` and the outer ones checked by `#within?` (parse/predicates.py),
; here and in javascript.scm and typescript.scm (docs/languages.md, "The queries'
; compile"; tests/parse/test_flat_patterns.py has the nested patterns they were).

; Calls: the callee as written; the extractor splits `a.b.c` into qualifier
; and name. `require(...)` is an import, not a call.
((call_expression function: [(identifier) (member_expression)] @name) @reference.call
  (#not-eq? @name "require"))

; `new Foo()` calls the class.
(new_expression constructor: [(identifier) (member_expression)] @name) @reference.call

; What a receiver holds: `const x = new Foo()`, `this.x = new Foo()`, a class
; field `x = new Foo()`, so that `x.run()` / `this.x.run()` resolve to `Foo.run`.
; (`#child?`, parse/predicates.py: the inner nodes picked out in Python; the
; steps of `new_expression` and `member_expression` cost the query's compile
; ~2-3 ms each, in patterns that match rarely)
((variable_declarator name: (identifier) @bind.name value: (new_expression) @_new) @bind
  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))
; (`this.x = new Foo()` is rooted at the `new`, the assignment reached by the
; `^` step: under `assignment_expression`, a step cost TypeScript's compile ~21 M.)
((new_expression) @_new
  (#child? @_new "bind" "^:assignment_expression")
  (#child? @bind "_left" "left:member_expression")
  (#child? @_left "bind.self" "object:this")
  (#child? @_left "bind.name" "property:property_identifier")
  (#child? @_new "bind.ctor" "constructor:identifier|member_expression"))

; A module-level `const log = debug('x')` / `const store = create(...)` holds
; (not `require(...)`: an import binding)
; what a call made, often something called later (`log(...)`), and `const Api
; = {...}` holds the methods below: symbols callers can reach (exported and
; UPPER_CASE constants are in the language files, whatever their value).
((program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [(call_expression) @_call (new_expression) (object)])) @definition.constant)
  (#child? @_call "_callee" "function:member_expression"))
((program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: (call_expression) @_call)) @definition.constant)
  (#child? @_call "_callee" "function:identifier")
  (#not-eq? @_callee "require"))

; `const onSave = useCallback((v) => {...}, [deps])` in a component (React):
; the name holds the function the hook memoizes, called by that name.
; (The call's parts are `#child?`'s steps: under `call_expression`, a step
; cost TypeScript's compile ~28 M instructions.)
((variable_declarator name: (identifier) @name value: (call_expression) @_call) @_declarator
  (#child? @_call "_hook" "function:identifier")
  (#eq? @_hook "useCallback")
  (#child? @_call "_callback" "arguments:arguments" ".:arrow_function|function_expression")
  (#child? @_declarator "definition.function" "^:lexical_declaration"))

; `const { getFullDate } = useDate()` (a hook's object of functions): the
; name holds that member of what the call gives.
; Not CommonJS's `const { sum } = require("./sum")`: an import (languages/esimports.py).
((variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @bind.name)
  value: (call_expression) @_call) @bind
  (#child? @_call "bind.call" "function:identifier|member_expression")
  (#not-eq? @bind.call "require"))

; Functions of an object literal a function returns (`return { column: (c)
; => ..., row() {...} }`, a factory or a hook): `helper.column()` with `const
; helper = makeHelper()` reaches them (index/resolve.py, _returned_function).
; (`#within?`, parse/predicates.py: the outer steps `(return_statement
; (object ...))` and `(lexical_declaration (variable_declarator ...))` below cost
; TypeScript's compile 45 M instructions, the four patterns together)
((pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
  (#within? @definition.method "object" "return_statement"))
((method_definition) @definition.method
  (#within? @definition.method "object" "return_statement")
  (#child? @definition.method "name" "name:property_identifier"))
; … and one returned `as const` or `satisfies T` (@tanstack/query-core 5.56:
; `return { batch: … } as const`)
((pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
  (#within? @definition.method "object" "as_expression|satisfies_expression" "return_statement"))
((method_definition) @definition.method
  (#within? @definition.method "object" "as_expression|satisfies_expression" "return_statement")
  (#child? @definition.method "name" "name:property_identifier"))

; An object of functions a declaration holds, at module level (`export const
; Api = { create: () => ..., get() {...} }`: `Api.create()` reaches them) or in
; a function (`const controller = { close: () => ..., open() {} }`): a constant
; holding them, so that `controller.close()` reaches them. (The module-level
; patterns rooted at `program` that found the same functions again cost the
; top-level pass's compile 89 M instructions on TypeScript.)
((variable_declarator
  name: (identifier) @name
  value: (object [(pair value: [(arrow_function) (function_expression)]) (method_definition)])) @_declarator
  (#child? @_declarator "definition.constant" "^:lexical_declaration"))
; (`#within?`: an `object` in a `variable_declarator` is its value)
((pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
  (#within? @definition.function "object" "variable_declarator" "lexical_declaration"))
((method_definition) @definition.function
  (#within? @definition.function "object" "variable_declarator" "lexical_declaration")
  (#child? @definition.function "name" "name:property_identifier"))

; `f!()` (TypeScript's non-null assertion) and `(0, f)()` (compiled imports)
; call `f`.
((sequence_expression . (number) [(identifier) (member_expression)] @name .) @reference.call
  (#within? @reference.call "parenthesized_expression" "call_expression"))

; Members of a module-level object literal that name another binding (`{ get
; }`, `{ put: save }`): decoded like re-exports of the module (alias `api.get`).
; Module level is `#top-level?` (parse/predicates.py): a pattern rooted at
; `program` keeps a match open that every node of the file is tried against.
((variable_declarator value: (object [(shorthand_property_identifier) (pair value: (identifier))])) @reference.import
  (#child? @reference.import "_declaration" "^:lexical_declaration")
  (#top-level? @_declaration "export_statement"))

; A module-level alias of a member or another name (`const stringType =
; ZodString.create`, then `export { stringType as string }`; `const Form =
; RouteModalForm`): the name is bound to it, decoded like an import of the
; module's own `ZodString.create`.
((variable_declarator value: [(identifier) (member_expression) @_member]) @reference.import
  (#child? @reference.import "_declaration" "^:lexical_declaration")
  (#top-level? @_declaration "export_statement")
  (#child? @_member "_object" "object:identifier|member_expression")
  (#child? @_member "_property" "property:property_identifier"))

; `export const Drawer = Object.assign(Root, { Header, Form: ModalForm })`
; (React compound components): `Drawer.Form` is `ModalForm`, as above.
((variable_declarator value: (call_expression function: (member_expression) @_assign arguments: (arguments (object)))) @reference.import
  (#child? @reference.import "_declaration" "^:lexical_declaration")
  (#top-level? @_declaration "export_statement")
  (#eq? @_assign "Object.assign"))
