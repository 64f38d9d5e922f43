; Ruby tags: @definition.<kind> around the whole definition, @name inside.
; A Ruby module is kind `trait` (a mixin / namespace): kind `module` is the
; one-per-file symbol, and TYPE kinds are what methods, `include` and the
; constant paths (`Foo::Bar.baz`) resolve through.

(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.trait
(module name: (scope_resolution name: (constant) @name)) @definition.trait

; `def x` and `def self.x` are both methods of the enclosing type,
; qualified `Class.x` (a name taken twice gets the `#2` suffix).
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

(assignment left: (constant) @name) @definition.constant

; Calls on a receiver; `Foo.new` calls the class (below). The receiver is
; captured apart so that arguments stay out of the qualifier.
((call
   receiver: (_) @receiver
   method: [(identifier) (constant)] @name) @reference.call
  (#not-eq? @name "new"))
((call
   receiver: [(constant) (scope_resolution)] @name
   method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))

; Calls without a receiver, with arguments, parentheses or a `?`/`!` name
; (the parser makes those `call` nodes). `new` alone builds `self`'s class.
((call
   !receiver
   method: (identifier) @name) @reference.call
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend|new)$"))

; A bare identifier is a method call or a local variable. It is taken as a
; call only as a statement that is not the last of its body: a variable
; there would do nothing. The last statement (the return value) and bare
; names inside expressions stay out: precision over recall.
(body_statement (identifier) @name . (_)) @reference.call
(block_body (identifier) @name . (_)) @reference.call
(then (identifier) @name . (_)) @reference.call
(else (identifier) @name . (_)) @reference.call
(do (identifier) @name . (_)) @reference.call
(program (identifier) @name . (_)) @reference.call

((call
   !receiver
   method: (identifier) @_raise
   arguments: (argument_list . [(constant) (scope_resolution)] @name)) @reference.raises
  (#eq? @_raise "raise"))
((call
   !receiver
   method: (identifier) @_raise
   arguments: (argument_list
     . (call receiver: [(constant) (scope_resolution)] @name method: (identifier) @_new))) @reference.raises
  (#eq? @_raise "raise")
  (#eq? @_new "new"))

(class superclass: (superclass [(constant) (scope_resolution)] @name)) @reference.inherits

; Mixins are bases: their methods are found through the class.
((call
   !receiver
   method: (identifier) @_mixin
   arguments: (argument_list [(constant) (scope_resolution)] @name)) @reference.inherits
  (#match? @_mixin "^(include|extend|prepend)$"))

((call
   !receiver
   method: (identifier) @_require
   arguments: (argument_list . (string))) @reference.import
  (#match? @_require "^(require|require_relative)$"))
