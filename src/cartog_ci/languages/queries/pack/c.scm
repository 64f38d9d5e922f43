; c tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("c")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

(struct_specifier name: (type_identifier) @name body:(_)) @definition.class

(declaration type: (union_specifier name: (type_identifier) @name)) @definition.class

; cartog-ci: a definition is the whole `function_definition` (its body is
; in the symbol's range and hash, its calls come from it), not the declarator;
; a prototype stays a definition (headers).
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @definition.function

(type_definition declarator: (type_identifier) @name) @definition.type

; cartog-ci: with its body, like a struct: `enum unit u` is a use, not a definition
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type

; cartog-ci: calls (the upstream query has none)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
