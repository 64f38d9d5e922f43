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

; What a receiver holds, so that `x.m()` resolves to a method of its type
; (the extractor rewrites the receiver: parse/extract.py ``_receivers``).
; `let x = Type::new(..)` / `let x = make(..)`: what the call gives (its
; return type, `-> Self` the impl's type); `let x: Type`, `let x = Type {..}`;
; `let y = x`; any other value (`a.b()`, `x?`, a literal) leaves `x` unknown,
; also where an earlier `let x` of the same function told its type.
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  value: (call_expression function: [(identifier) (scoped_identifier)] @bind.ctor)) @bind
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  value: (struct_expression name: [(type_identifier) (scoped_type_identifier)] @bind.type)) @bind
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  value: (call_expression function: [(field_expression) (generic_function)] @bind.other)) @bind
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  value: (identifier) @bind.from) @bind
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  value: (_) @bind.other) @bind
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  type: [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type) @bind
; `let x: Box<Type>`, `Rc<..>`, `Arc<..>`: the methods are the inner type's
(let_declaration pattern: [(identifier) @bind.name (mut_pattern (identifier) @bind.name)]
  type: (generic_type type: (type_identifier) @_ptr
    type_arguments: (type_arguments . [(type_identifier) (scoped_type_identifier)] @bind.type .)
    (#any-of? @_ptr "Box" "Rc" "Arc"))) @bind
; Tuples, element by element (the first three): `let (a, b) = (A::new(), B {})`,
; `let (a, b): (A, B) = ..`.
(let_declaration
  pattern: (tuple_pattern . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (call_expression function: [(identifier) (scoped_identifier)] @bind.ctor))) @bind
(let_declaration
  pattern: (tuple_pattern . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (struct_expression name: [(type_identifier) (scoped_type_identifier)] @bind.type))) @bind
(let_declaration
  pattern: (tuple_pattern . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (call_expression function: [(field_expression) (generic_function)] @bind.other))) @bind
(let_declaration
  pattern: (tuple_pattern . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) @bind.other)) @bind
(let_declaration
  pattern: (tuple_pattern . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  type: (tuple_type . [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type)) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (call_expression function: [(identifier) (scoped_identifier)] @bind.ctor))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (struct_expression name: [(type_identifier) (scoped_type_identifier)] @bind.type))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (call_expression function: [(field_expression) (generic_function)] @bind.other))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (_) @bind.other)) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  type: (tuple_type . (_) . [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type)) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (_) . (call_expression function: [(identifier) (scoped_identifier)] @bind.ctor))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (_) . (struct_expression name: [(type_identifier) (scoped_type_identifier)] @bind.type))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (_) . (call_expression function: [(field_expression) (generic_function)] @bind.other))) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  value: (tuple_expression . (_) . (_) . (_) @bind.other)) @bind
(let_declaration
  pattern: (tuple_pattern . (_) . (_) . [(identifier) @bind.name (mut_pattern (identifier) @bind.name)
     (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))])
  type: (tuple_type . (_) . (_) . [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type)) @bind
; `Figure::Sq(q)` in a `match` arm, an `if let` or a `let`: `q` holds the
; variant's one field, whose type the enum declares (`Sq(Square)`, below);
; `Some(x)`, `Ok(x)` and variants of other files leave `x` unknown.
(tuple_struct_pattern type: [(identifier) (scoped_identifier)] @bind.from . [(identifier) @bind.name (mut_pattern (identifier) @bind.name) (ref_pattern (identifier) @bind.name) (ref_pattern (mut_pattern (identifier) @bind.name))] .) @bind
(enum_variant name: (identifier) @bind.name @bind.member
  body: (ordered_field_declaration_list . [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type .)) @bind
(enum_variant name: (identifier) @bind.name @bind.member
  body: (ordered_field_declaration_list . (generic_type type: (type_identifier) @_ptr type_arguments: (type_arguments . [(type_identifier) (scoped_type_identifier)] @bind.type .) (#any-of? @_ptr "Box" "Rc" "Arc")) .)) @bind
; `self.field.m()`: the field's type, from the struct (in the same file), and
; `self` in a method the impl's type.
(struct_item body: (field_declaration_list
  (field_declaration name: (field_identifier) @bind.name @bind.member type: [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type) @bind))
(struct_item body: (field_declaration_list
  (field_declaration name: (field_identifier) @bind.name @bind.member type: (generic_type type: (type_identifier) @_ptr type_arguments: (type_arguments . [(type_identifier) (scoped_type_identifier)] @bind.type .) (#any-of? @_ptr "Box" "Rc" "Arc"))) @bind))
; A typed parameter types its fields the same way (`clist.set.clear()` with
; `clist: &mut Threads`); `p.m()` itself stays a call on the parameter,
; whose type the resolver reads from the signature (a generic's bound too).
(parameter pattern: [(identifier) @bind.name @bind.receiver (mut_pattern (identifier) @bind.name @bind.receiver)]
  type: [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @bind.type) @bind
(impl_item
  type: [(type_identifier) @bind.type (generic_type type: (type_identifier) @bind.type)]
  body: (declaration_list
    (function_item parameters: (parameters . (self_parameter (self) @bind.name @bind.receiver))) @bind))
