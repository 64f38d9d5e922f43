; Java tags: @definition.<kind> around the whole declaration, @name inside.
; A function inside a type becomes a method (extractor). Annotations sit in
; `modifiers`, inside the declaration, so they are its decorators and its
; first line.

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
; A record is a class with a canonical constructor.
(record_declaration name: (identifier) @name) @definition.class

(method_declaration name: (identifier) @name) @definition.function

; Constructors are named `<init>` (the JVM's name) so that `new Foo()` names
; the class only: a constructor called `Foo` would compete with its class in
; every lookup by name.
((constructor_declaration name: (identifier) @name) @definition.function
  (#set! name "<init>"))
((compact_constructor_declaration name: (identifier) @name) @definition.function
  (#set! name "<init>"))

; Constants: `static final` UPPER_CASE fields, interface fields (implicitly
; static final), enum constants.
((field_declaration
   (modifiers) @_mods
   declarator: (variable_declarator name: (identifier) @name)) @definition.constant
  (#match? @_mods "(^|\\s)static(\\s|$)")
  (#match? @_mods "(^|\\s)final(\\s|$)")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((constant_declaration
   declarator: (variable_declarator name: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(enum_constant name: (identifier) @name) @definition.constant

; Calls. The receiver is its own node (`a.b(x).c()`), captured apart so the
; arguments do not get into the qualifier.
(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call
(method_invocation
  !object
  name: (identifier) @name) @reference.call

; `new Foo()` calls the class; `new a.Foo<T>()` names Foo through `a`.
(object_creation_expression
  type: [(type_identifier) (scoped_type_identifier)] @name) @reference.call
(object_creation_expression
  type: (generic_type [(type_identifier) (scoped_type_identifier)] @name)) @reference.call

; `super(...)` / `this(...)`: the base class's / this class's constructor.
((explicit_constructor_invocation constructor: [(super) (this)] @receiver) @reference.call
  (#set! name "<init>"))

(throw_statement
  (object_creation_expression
    type: [(type_identifier) (scoped_type_identifier)] @name)) @reference.raises

(superclass [(type_identifier) (scoped_type_identifier)] @name) @reference.inherits
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name))) @reference.inherits
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name))) @reference.inherits

; Types used by fields, parameters, return values, locals, casts,
; `instanceof`, catch clauses, generic arguments and bounds, `Foo.class`.
; One-letter names are taken for type parameters (`T`, `K2`) and left out:
; nothing in the project defines them, they would only add unresolved edges.
((field_declaration type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((constant_declaration type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((formal_parameter type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((spread_parameter [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((method_declaration type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((local_variable_declaration type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((enhanced_for_statement type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((cast_expression type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((instanceof_expression right: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((array_creation_expression type: [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((catch_type [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((type_arguments [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((type_bound [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((wildcard [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))
((class_literal [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.type
  (#not-match? @name "^[A-Z][0-9]?$"))

; A `throws` clause: the exceptions a caller has to handle.
((throws [(type_identifier) @name (scoped_type_identifier) @name (generic_type [(type_identifier) (scoped_type_identifier)] @name) (array_type element: [(type_identifier) (scoped_type_identifier)] @name) (array_type element: (generic_type [(type_identifier) (scoped_type_identifier)] @name))]) @reference.raises
  (#not-match? @name "^[A-Z][0-9]?$"))

; `Foo::bar` method references.
(method_reference . (_) @receiver (identifier) @name .) @reference.call

(import_declaration) @reference.import

; Annotations name a type (`@Test`, `@Override`); they are also the
; definition's decorators (extractor).
(marker_annotation name: [(identifier) (scoped_identifier)] @name) @reference.type
(annotation name: [(identifier) (scoped_identifier)] @name) @reference.type

; Declared types of receivers: fields (`private Stats stats;` is `stats` and
; `this.stats` in its class), locals (`Stats s = ...`; `var s = new Stats()`
; by its value), so that `stats.inc()` / `s.inc()` resolve to `Stats.inc`.
; Parameters are read from the signature by the resolver.
(field_declaration
  type: (_) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.name @bind.field)) @bind
(field_declaration
  type: (_) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.name)) @bind
((local_variable_declaration
  type: (_) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.name)) @bind
  (#not-eq? @bind.type "var"))
(local_variable_declaration
  declarator: (variable_declarator
    name: (identifier) @bind.name
    value: (object_creation_expression type: (_) @bind.ctor))) @bind
(catch_formal_parameter (catch_type (_) @bind.type) name: (identifier) @bind.name) @bind
((enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.name) @bind
  (#not-eq? @bind.type "var"))
