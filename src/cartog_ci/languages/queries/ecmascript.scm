; Patterns JavaScript and TypeScript/TSX share (their grammars agree on these
; nodes); appended to javascript.scm and typescript.scm by the language registry.

; Calls: the callee as written; the extractor splits `a.b.c` into qualifier
; and name. `require(...)` is an import, not a call.
((call_expression function: [(identifier) (member_expression)] @name) @reference.call
  (#not-eq? @name "require"))

; `new Foo()` calls the class.
(new_expression constructor: [(identifier) (member_expression)] @name) @reference.call

; What a receiver holds: `const x = new Foo()`, `this.x = new Foo()`, a class
; field `x = new Foo()`, so that `x.run()` / `this.x.run()` resolve to `Foo.run`.
(variable_declarator
  name: (identifier) @bind.name
  value: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind
(assignment_expression
  left: (member_expression object: (this) @bind.self property: (property_identifier) @bind.name)
  right: (new_expression constructor: [(identifier) (member_expression)] @bind.ctor)) @bind
