; cpp tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("cpp")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

; Struct / class definitions
(class_specifier name: (type_identifier) @name) @definition.class

; Function / method definitions
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function

; cartog-ci: methods defined in the class body, declared there, and defined
; out of line (`void Circle::draw() {}`, a method of `Circle` by its @owner);
; structs and namespaces.
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (namespace_identifier) @owner
      name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(namespace_definition name: (namespace_identifier) @name) @definition.module
(struct_specifier (base_class_clause (type_identifier) @name)) @reference.implementation

; Class inheritance: `class Foo : public Bar`
; `base_class_clause` is a child of `class_specifier` and contains `type_identifier`.
(class_specifier
  (base_class_clause (type_identifier) @name)) @reference.implementation

; Function calls
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
