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

; What a receiver holds: `x = Foo(...)`, `self.x = Foo(...)` (a class by its
; capitalised name), so that `x.run()` resolves to `Foo.run`.
(assignment
  left: (identifier) @bind.name
  right: (call function: [(identifier) (attribute)] @bind.ctor)
  (#match? @bind.ctor "(^|[.])_?[A-Z][A-Za-z0-9_]*$")) @bind
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  right: (call function: [(identifier) (attribute)] @bind.ctor)
  (#match? @bind.ctor "(^|[.])_?[A-Z][A-Za-z0-9_]*$")) @bind
