; dart tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("dart")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

; Class definitions
(class_definition name: (identifier) @name) @definition.class

; Method declarations inside class bodies
; ~keep: method_signature has no fields of its own — it wraps a function/getter/setter
; signature, and only the wrapped node carries `name`. `method_signature name:` is an
; impossible pattern that tree-sitter rejects at compile time.
(method_signature
  (function_signature name: (identifier) @name)) @definition.method
(method_signature
  (getter_signature name: (identifier) @name)) @definition.method
(method_signature
  (setter_signature name: (identifier) @name)) @definition.method
(function_signature name: (identifier) @name) @definition.function

; Class superclass: `class Foo extends Bar`
(class_definition
  superclass: (superclass (type_identifier) @name)) @reference.implementation

; Class interfaces: `class Foo implements Bar, Baz`
(class_definition
  interfaces: (interfaces (type_identifier) @name)) @reference.implementation

; Function / method calls
; cartog-ci: the upstream call pattern, whose parts are all optional,
; matches every identifier (a class name, a parameter). A call here is a name
; right before an argument list: `f(x)`, `a.f(x)`, `a?.f(x)`.
(_ (identifier) @name . (selector (argument_part))) @reference.call
(_
  (selector [
    (unconditional_assignable_selector (identifier) @name)
    (conditional_assignable_selector (identifier) @name)
  ])
  .
  (selector (argument_part))) @reference.call
