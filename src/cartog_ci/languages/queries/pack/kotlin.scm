; kotlin tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("kotlin")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

; Classes
(class_declaration
  (type_identifier) @name) @definition.class

; Objects
(object_declaration
  (type_identifier) @name) @definition.class

; Functions (top-level and member)
(function_declaration
  (simple_identifier) @name) @definition.function

; Properties
; cartog-ci: top-level and member properties only; a `val` inside a function
; body is a local variable, not a symbol.
(source_file
  (property_declaration
    (variable_declaration
      (simple_identifier) @name)) @definition.constant)
(class_body
  (property_declaration
    (variable_declaration
      (simple_identifier) @name)) @definition.constant)

; Enum entries
(enum_entry
  (simple_identifier) @name) @definition.constant

; Type aliases
(type_alias
  (type_identifier) @name) @definition.type

; Companion objects (only named ones)
(companion_object
  (type_identifier) @name) @definition.class

; Function calls
(call_expression
  (simple_identifier) @name) @reference.call

; Method calls via navigation
(call_expression
  (navigation_expression
    (navigation_suffix
      (simple_identifier) @name))) @reference.call

; Constructor invocations (class references)
(constructor_invocation
  (user_type
    (type_identifier) @name)) @reference.class

; Class / interface inheritance via delegation specifier (`: SomeSupertype`)
(class_declaration
  (delegation_specifier
    (user_type
      (type_identifier) @name))) @reference.implementation
