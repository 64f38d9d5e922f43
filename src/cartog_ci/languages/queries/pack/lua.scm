; lua tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("lua")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

(function_declaration
  name: [
    (identifier) @name
    (dot_index_expression
      field: (identifier) @name)
  ]) @definition.function

(function_declaration
  name: (method_index_expression
    method: (identifier) @name)) @definition.method

(assignment_statement
  (variable_list .
    name: [
      (identifier) @name
      (dot_index_expression
        field: (identifier) @name)
    ])
  (expression_list .
    value: (function_definition))) @definition.function

(table_constructor
  (field
    name: (identifier) @name
    value: (function_definition))) @definition.function

(function_call
  name: [
    (identifier) @name
    (dot_index_expression
      field: (identifier) @name)
    (method_index_expression
      method: (identifier) @name)
  ]) @reference.call
