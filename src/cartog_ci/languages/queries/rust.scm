; Rust tags: @definition.<kind> around the whole definition, @name inside.
; Functions in an `impl` capture the implemented type as @owner: the
; extractor names them `Type.method` and attaches them to the type when it
; is defined in the same scope of the same file. Functions are matched by
; where they sit, so that an impl method is never also matched without its
; owner.

(source_file (function_item name: (identifier) @name) @definition.function)
(block (function_item name: (identifier) @name) @definition.function)
(mod_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))

(impl_item
  type: [
    (type_identifier) @owner
    (generic_type type: (type_identifier) @owner)
    (scoped_type_identifier name: (type_identifier) @owner)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @owner))
  ]
  body: (declaration_list (function_item name: (identifier) @name) @definition.function))

; Trait methods, provided or required, become `Trait.method`.
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.function))

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
; Item-level aliases; `type Err = Error;` in an impl is an associated type.
(source_file (type_item name: (type_identifier) @name) @definition.type)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name) @definition.type))

; An inline `mod name { ... }` is a namespace: kind `module` is the file.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.namespace

; Item-level constants and statics (not associated consts of an impl).
(source_file (const_item name: (identifier) @name) @definition.constant)
(source_file (static_item name: (identifier) @name) @definition.constant)
(mod_item body: (declaration_list (const_item name: (identifier) @name) @definition.constant))
(mod_item body: (declaration_list (static_item name: (identifier) @name) @definition.constant))

; Calls: `f()`, `a::b::f()`, `x.m()`, `f::<T>()`. Macros are not calls
; (their own namespace); calls written as macro arguments are, when they
; open the argument list or follow a comma: `assert_eq!(run(), 2)` (not in
; attributes: `#[cfg(any(..))]` calls nothing).
(call_expression function: [(identifier) (scoped_identifier) (field_expression)] @name) @reference.call
(call_expression
  function: (generic_function function: [(identifier) (scoped_identifier) (field_expression)] @name)) @reference.call
(macro_invocation
  (token_tree . (identifier) @name . (token_tree) @_args (#match? @_args "^\\("))) @reference.call
(macro_invocation
  (token_tree "," . (identifier) @name . (token_tree) @_args (#match? @_args "^\\("))) @reference.call

; `impl Trait for Type`: Type inherits Trait (the edge starts at the type,
; through @owner). Supertraits: `trait A: B + C`.
(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  ]
  type: [
    (type_identifier) @owner
    (generic_type type: (type_identifier) @owner)
    (scoped_type_identifier name: (type_identifier) @owner)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @owner))
  ]) @reference.inherits
(trait_item
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits

; Type references, by position (definitions and `impl` headers are not
; references). `Self` is the enclosing type, not a name to resolve.
(parameter type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: (generic_type type: [(type_identifier) (scoped_type_identifier)] @name))]
  (#not-eq? @name "Self")) @reference.type
(_ return_type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)]
  (#not-eq? @name "Self")) @reference.type
(field_declaration type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type
(ordered_field_declaration_list type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type
(let_declaration type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type
(type_item type: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type
(const_item type: [(type_identifier) (scoped_type_identifier)] @name) @reference.type
(static_item type: [(type_identifier) (scoped_type_identifier)] @name) @reference.type
(type_arguments [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)]
  (#not-eq? @name "Self")) @reference.type
(struct_expression name: [(type_identifier) (scoped_type_identifier)] @name
  (#not-eq? @name "Self")) @reference.type
(dynamic_type trait: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type
(abstract_type trait: [
  (type_identifier) @name (scoped_type_identifier) @name
  (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)]) @reference.type

; `use` paths, and `mod name;` (binds `name` to the file that holds it).
(use_declaration) @reference.import
(mod_item !body) @reference.import
