; TSX only (the TypeScript grammar has no JSX nodes): `<Component />` and
; `<Component>…</Component>` call the component, as in javascript.scm.
((jsx_opening_element name: [(identifier) (member_expression)] @name) @reference.call
  (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: [(identifier) (member_expression)] @name) @reference.call
  (#match? @name "^[A-Z]"))
