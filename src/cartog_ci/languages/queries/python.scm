; Python tags: @definition.<kind> around the whole definition, @name inside.
; Kinds are refined by the extractor (a function inside a class is a method).

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

; Module-level UPPER_CASE assignments are constants.
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Calls: the callee as written; the extractor splits `a.b.c` into qualifier and name.
(call function: [(identifier) (attribute)] @name) @reference.call

; Decorators are applied (called) at definition time.
(decorator [(identifier) (attribute)] @name) @reference.call

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @name)) @reference.inherits

; Type annotations (parameters, returns, variables, generics).
(type [(identifier) (attribute)] @name) @reference.type
(generic_type (identifier) @name) @reference.type

(raise_statement (call function: [(identifier) (attribute)] @name)) @reference.raises
(raise_statement [(identifier) (attribute)] @name) @reference.raises

(import_statement) @reference.import
(import_from_statement) @reference.import
(future_import_statement) @reference.import

; What a receiver holds, so that `x.run()` resolves to a method of its type:
; `x = Foo(...)` / `self.x = make()` (the value of a call: an instance of the
; class, or what the function's return annotation says), `x: Foo`,
; `self.x: Foo`, a parameter `x: Foo`, a class-body field `x: Foo`
; (dataclasses), `with Foo() as x`, `y = x`. Any other value assigned makes
; the name hold something unknown (the extractor then keeps it unqualified).
(assignment
  left: (identifier) @bind.name
  !type
  right: (call function: [(identifier) (attribute)] @bind.ctor)) @bind
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  !type
  right: (call function: [(identifier) (attribute)] @bind.ctor)) @bind
(assignment left: (identifier) @bind.name !type right: (identifier) @bind.from) @bind
(assignment left: (identifier) @bind.name !type right: (_) @bind.other) @bind
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  !type
  right: (_) @bind.other) @bind
(assignment left: (identifier) @bind.name type: (type) @bind.type) @bind
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  type: (type) @bind.type) @bind
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @bind.name @bind.field type: (type) @bind.type) @bind)))
(parameters (typed_parameter (identifier) @bind.name type: (type) @bind.type) @bind)
(parameters (typed_default_parameter name: (identifier) @bind.name type: (type) @bind.type) @bind)
(with_item
  value: (as_pattern
    (call function: [(identifier) (attribute)] @bind.ctor)
    alias: (as_pattern_target (identifier) @bind.name))) @bind
