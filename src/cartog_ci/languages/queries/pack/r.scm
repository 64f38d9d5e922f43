; r tags query: the grammar's own queries/tags.scm as tree-sitter-language-pack
; 1.25.0 bundles it (get_tags_query("r")), vendored because the pack version
; that bundles its grammars (0.13.0) ships no queries. Capture kinds are
; mapped to cartog-ci's at load time (parse/pack.py).

(binary_operator
    lhs: (identifier) @name
    operator: "<-"
    rhs: (function_definition)
) @definition.function

(binary_operator
    lhs: (identifier) @name
    operator: "="
    rhs: (function_definition)
) @definition.function

(binary_operator
    lhs: (string) @name
    operator: "<-"
    rhs: (function_definition)
) @definition.function

(binary_operator
    lhs: (string) @name
    operator: "="
    rhs: (function_definition)
) @definition.function

(call
    function: (identifier) @name
) @reference.call

(call
    function: (namespace_operator
        rhs: (identifier) @name
    )
) @reference.call
