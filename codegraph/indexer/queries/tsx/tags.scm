; inherits: typescript
; TSX: TypeScript plus JSX elements.
(jsx_opening_element) @node
(jsx_self_closing_element) @node
