; Python tags: @definition.<kind> around the whole definition, @name inside.
; Kinds are refined by the extractor (a function inside a class is a method).

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

; Module-level UPPER_CASE assignments are constants: read from the module's
; own statements (languages/python.py `module_constants`), not matched here.

; Calls: the callee as written; the extractor splits `a.b.c` into qualifier and name.
(call function: [(identifier) (attribute)] @name) @reference.call

; Decorators are applied (called) at definition time.
(decorator [(identifier) (attribute)] @name) @reference.call

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @name)) @reference.inherits

; Type annotations (parameters, returns, variables, generics).
(type [(identifier) (attribute)] @name) @reference.type
(generic_type (identifier) @name) @reference.type

(raise_statement (call function: [(identifier) (attribute)] @name)) @reference.raises
(raise_statement [(identifier) (attribute)] @name) @reference.raises

(import_statement) @reference.import
(import_from_statement) @reference.import
(future_import_statement) @reference.import

; What a receiver holds, so that `x.run()` resolves to a method of its type:
; `x = Foo(...)` / `self.x = make()` (the value of a call: an instance of the
; class, or what the function's return annotation says), `x: Foo`,
; `self.x: Foo`, a parameter `x: Foo`, a class-body field `x: Foo`
; (dataclasses), `with Foo() as x`, `y = x`. Any other value assigned makes
; the name hold something unknown (the extractor then keeps it unqualified).
; (`x` and `self.x` in one pattern each: its steps are analysed once when
; the query compiles)
; An assignment without a type is one pattern, its value read by its kind
; (parse/extract.py `_bound_value`, `@bind.value`): the call of a name or a
; dotted name (`x = Foo(...)`), a name or a dotted name (`y = x`, and
; `self.stats = stats`: the attribute holds what the name holds, a parameter
; `stats: StatsCollector`, a local `stats = StatsCollector()`), anything else.
; (It was four patterns, one of them for any value: such an assignment
; matched twice, scrapy 2.11.2: 6,133 of 17,024 bindings' matches bound nothing.)
(assignment
  left: [(identifier) @bind.name
         (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)]
  !type
  right: (_) @bind.value) @bind
(assignment
  left: [(identifier) @bind.name
         (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)]
  type: (type) @bind.type) @bind
((assignment left: (identifier) @bind.name @bind.field type: (type) @bind.type) @bind
  (#within? @bind "expression_statement" "block" "class_definition"))
(parameters (typed_parameter (identifier) @bind.name type: (type) @bind.type) @bind)
(parameters (typed_default_parameter name: (identifier) @bind.name type: (type) @bind.type) @bind)
; (`#child?`, parse/predicates.py: the inner nodes picked out in Python; a
; step of an expression such as `call` or `as_pattern` costs the query's
; compile ~1 ms, in a pattern that matches rarely)
((with_item value: (as_pattern) @_as) @bind
  (#child? @_as "bind.ctor" ":call" "function:identifier|attribute")
  (#child? @_as "bind.name" "alias:as_pattern_target" ":identifier"))
; `for m in re.finditer(p, s)`: an item of what the call gives (a library's
; call gives a library's items: index/resolve.py reads `re.finditer()[]`)
((for_statement left: (identifier) @bind.name right: (call) @_call) @bind
  (#child? @_call "bind.items" "function:identifier|attribute"))
; `except KeyError as e`: an instance of the class caught; of a tuple, unknown
; (one pattern: each step that has children costs its compile ~1 ms)
((except_clause
  value: (as_pattern
    [(identifier) @bind.ctor (attribute) @bind.ctor (tuple) @bind.other]
    alias: (as_pattern_target) @_alias)) @bind
  (#child? @_alias "bind.name" ":identifier"))

; A function's parameters are its own names: `call_next(request)` with a
; parameter `call_next` calls whatever was passed, never a project function
; of that name (nor is an argument `handler` one). `cls()` builds the class.
; A function's are read with its definition (languages/python.py
; `parameter_names`): here one match a parameter, 7,961 on scrapy 2.11.2.
(lambda
  parameters: (lambda_parameters
    [(identifier) @local.definition
     (default_parameter name: (identifier) @local.definition)
     (list_splat_pattern (identifier) @local.definition)
     (dictionary_splat_pattern (identifier) @local.definition)])) @local.scope
; A loop's, a comprehension's and a `with`'s own names, in their statement.
; (a list's names: one match, `#child?` picks them out)
((for_statement left: [(identifier) @local.definition (pattern_list) @_names (tuple_pattern) @_names]) @local.scope
  (#child? @_names "local.definition" "*:identifier"))
; The comprehensions' (list, set, dict, generator): `for_in_clause` is a
; child of those four alone, and its parent is the scope. `@local.within`
; spares the query the parent steps (parse/extract.py `_local_scope`).
((for_in_clause left: [(identifier) @local.definition (pattern_list) @_names (tuple_pattern) @_names]) @local.within
  (#child? @_names "local.definition" "*:identifier"))
; `with f() as x`: the with statement's (the target's ancestors, named
; nearest first: the last is the scope).
; (`#set!` before `#child?`: after a predicate py-tree-sitter 0.26.1 does not
; know, it corrupts memory when the binding compiles the query whole, as
; tests/parse/test_predicates.py does)
((as_pattern_target) @local.within
  (#set! within "as_pattern with_item with_clause with_statement")
  (#child? @local.within "local.definition" ":identifier"))
; Names unpacked from one value (`extra, fmt_setter = _determine_setters()`)
; are their block's own: a call of one calls whatever was unpacked, never a
; definition of that name (attrs 24.2: `fmt_setter(...)` is no call of the
; nested `def fmt_setter` that 23.2 had). A plain `f = helpers.run` is not
; one: it aliases (parse/extract.py `_aliased`).
((assignment left: [(pattern_list) (tuple_pattern)] @_names) @local.within
  (#set! within "expression_statement block")
  (#child? @_names "local.definition" "*:identifier"))

; Functions named as values, not called there: passed as an argument or a
; keyword argument (`errback=self._on_retry`), assigned (`handler = f`),
; stored in a dict, list, tuple or set; `return self.m`. A `calls` edge marked as
; a value (the resolver answers it only with a function or method the name
; surely means: index/resolve.py `_value`). A name that is a class
; (capitalized), a dunder or a common builtin is none.
([(keyword_argument value: (identifier) @name)
  (assignment right: (identifier) @name)
  (pair value: (identifier) @name)] @reference.value
  (#not-match? @name "^(_*[A-Z]|__|(str|int|float|bool|bytes|dict|list|tuple|set|object|type|len|super|self|cls)$)"))
([(keyword_argument value: (attribute) @name)
 (assignment right: (attribute) @name)
 (pair value: (attribute) @name)
 (return_statement (attribute) @name)
 ; a `@property` is read where a value is tested: a condition, `not`
 (if_statement condition: (attribute) @name)
 (elif_clause condition: (attribute) @name)
 (while_statement condition: (attribute) @name)
 (not_operator argument: (attribute) @name)] @reference.value
 (#not-match? @name "[.](_*[A-Z][^.]*|__[^.]*)$"))
; The items of an argument list, a list, a tuple, a set (names and `a.b`),
; of `and`/`or` and of a comparison (`a.b`: a property read): the container
; alone is matched and languages/python.py `value_items` reads its items
; with the same exclusions as above. A pattern `(argument_list (identifier))`
; would keep one match open per level of nested calls (`f(f(f(...)))`), and
; a file nested 1,024 deep would be skipped (parse/budget.py). `@values` alone
; says it is a value reference (parse/extract.py `_role`): one capture a match.
[(argument_list) (list) (tuple) (set) (boolean_operator) (comparison_operator)] @values
; `self.logger.info()`: `self.logger` is read (a property of the class, often)
((attribute object: (attribute object: (identifier) @_self) @name) @reference.value
  (#any-of? @_self "self" "cls"))
