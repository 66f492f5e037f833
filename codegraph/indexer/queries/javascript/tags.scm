; inherits: ecmascript
; JavaScript's own nodes on top of the shared ones: JSX elements, class fields.
(jsx_opening_element) @node
(jsx_self_closing_element) @node
(field_definition value: (identifier) @value)
