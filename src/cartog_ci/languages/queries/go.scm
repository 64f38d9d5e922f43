; Go tags: @definition.<kind> around the whole definition, @name inside.
; A method's receiver type is captured as @owner: the extractor names it
; `Type.Method` and attaches it to the type when the type is in the same file
; (the resolver finds it across the package's files).

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.function

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: (_) @_type
  (#not-match? @_type "^(struct|interface)\\b")) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Interface methods become `Interface.Method`.
(method_elem name: (field_identifier) @name) @definition.function

; Package-level constants, whatever their case: Go says "exported" with a
; capital letter, not "constant"; `const` is what makes a constant.
; Only the first name of `const a, b = 1, 2` is kept (one symbol per spec).
(source_file
  (const_declaration (const_spec name: (identifier) @name) @definition.constant))

; Calls: the callee as written (`f`, `pkg.F`, `s.m`, `a.b.c`); the extractor
; splits the qualifier from the name.
(call_expression function: [(identifier) (selector_expression)] @name) @reference.call

; `Map[int](x)` parses as a conversion to a generic type: a call of Map.
(type_conversion_expression
  type: (generic_type type: [(type_identifier) (qualified_type)] @name)) @reference.call

; Embedded fields and embedded interfaces: the type inherits their methods.
(field_declaration !name type: [(type_identifier) (qualified_type)] @name) @reference.inherits
(interface_type (type_elem . [(type_identifier) (qualified_type)] @name .)) @reference.inherits

; Type references. Listed by position rather than "every type_identifier" so
; that definitions, receivers (the method's own type) and embedded fields
; (already `inherits`) do not come out as references too.
(function_declaration
  parameters: (parameter_list
    (parameter_declaration type: [
      (type_identifier) @name (qualified_type) @name
      (pointer_type [(type_identifier) (qualified_type)] @name)
      (generic_type type: [(type_identifier) (qualified_type)] @name)]))) @reference.type
(method_declaration
  parameters: (parameter_list
    (parameter_declaration type: [
      (type_identifier) @name (qualified_type) @name
      (pointer_type [(type_identifier) (qualified_type)] @name)
      (generic_type type: [(type_identifier) (qualified_type)] @name)]))) @reference.type
(func_literal
  parameters: (parameter_list
    (parameter_declaration type: [
      (type_identifier) @name (qualified_type) @name
      (pointer_type [(type_identifier) (qualified_type)] @name)]))) @reference.type
(method_elem
  parameters: (parameter_list
    (parameter_declaration type: [
      (type_identifier) @name (qualified_type) @name
      (pointer_type [(type_identifier) (qualified_type)] @name)]))) @reference.type
(variadic_parameter_declaration type: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type

; Results, single or in a list.
(_ result: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)
  (generic_type type: [(type_identifier) (qualified_type)] @name)]) @reference.type
(_ result: (parameter_list
  (parameter_declaration type: [
    (type_identifier) @name (qualified_type) @name
    (pointer_type [(type_identifier) (qualified_type)] @name)]))) @reference.type

; Named struct fields, variables, composite literals, assertions, conversions.
(field_declaration name: (_) type: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)
  (generic_type type: [(type_identifier) (qualified_type)] @name)]) @reference.type
(var_spec type: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)
  (generic_type type: [(type_identifier) (qualified_type)] @name)]) @reference.type
(composite_literal type: [
  (type_identifier) @name (qualified_type) @name
  (generic_type type: [(type_identifier) (qualified_type)] @name)]) @reference.type
(type_assertion_expression type: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(type_case type: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(type_spec type: [(type_identifier) (qualified_type)] @name) @reference.type
(type_alias type: [(type_identifier) (qualified_type)] @name) @reference.type

; Element types inside composite types, wherever those appear.
(slice_type element: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(array_type element: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(map_type value: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(map_type key: [(type_identifier) (qualified_type)] @name) @reference.type
(channel_type value: [
  (type_identifier) @name (qualified_type) @name
  (pointer_type [(type_identifier) (qualified_type)] @name)]) @reference.type
(type_arguments (type_elem . [(type_identifier) (qualified_type)] @name .)) @reference.type

(import_declaration) @reference.import

; What a receiver holds, so that `x.Stop()` resolves to a method of its type:
; the method's own receiver (`func (s *Server)`), `x := NewServer()` (the
; callee's result type), `x := Server{}` / `&Server{}`, `var x Server`, a
; parameter's type, and struct fields (`s.db.Query()` with `db *store.DB`).
(method_declaration
  receiver: (parameter_list
    (parameter_declaration name: (identifier) @bind.name @bind.receiver type: (_) @bind.type) @bind))
(method_declaration
  parameters: (parameter_list (parameter_declaration name: (identifier) @bind.name type: (_) @bind.type) @bind))
(function_declaration
  parameters: (parameter_list (parameter_declaration name: (identifier) @bind.name type: (_) @bind.type) @bind))
(short_var_declaration
  left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @bind.ctor))) @bind
(short_var_declaration
  left: (expression_list . (identifier) @bind.name .)
  right: (expression_list . [(composite_literal type: (_) @bind.type)
                             (unary_expression operand: (composite_literal type: (_) @bind.type))] .)) @bind
; `v, ok := x.(Fs)`: the asserted type
(short_var_declaration
  left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (type_assertion_expression type: (_) @bind.type) .)) @bind
(var_spec name: (identifier) @bind.name type: (_) @bind.type) @bind
(field_declaration name: (field_identifier) @bind.name @bind.member type: (_) @bind.type) @bind
; A function literal's parameters (`run := func(cmd *Command) { cmd.Name() }`),
; bound in the function around it; `var x = &T{}` / `var x = T{}`.
(func_literal
  parameters: (parameter_list (parameter_declaration name: (identifier) @bind.name type: (_) @bind.type) @bind))
(var_spec
  name: (identifier) @bind.name .
  value: (expression_list . [(composite_literal type: (_) @bind.type)
                             (unary_expression operand: (composite_literal type: (_) @bind.type))] .)) @bind
