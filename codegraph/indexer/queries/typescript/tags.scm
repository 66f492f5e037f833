; inherits: ecmascript
; TypeScript's own nodes on top of the shared ones (tsx inherits these).
(abstract_class_declaration) @node
(interface_declaration) @node
(internal_module) @node
(ambient_declaration) @node
(public_field_definition value: (identifier) @value)
; Types named inside code: a variable's annotation, a cast, `satisfies` (USES_TYPE from the
; enclosing symbol; languages/javascript/types.py).
(variable_declarator type: (type_annotation) @type)
(as_expression) @type
(satisfies_expression) @type
