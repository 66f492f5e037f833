; TSX: the nodes the JavaScript/TypeScript extractor's walk handles, in one pass
; (see languages/javascript/extractor.py); nodes the walk enters or handles are @node, the walk
; dispatches on its type. Only node types this grammar has are listed.
(call_expression) @node
(new_expression) @node
(jsx_opening_element) @node
(jsx_self_closing_element) @node
(object) @node
(function_declaration) @node
(generator_function_declaration) @node
(function_expression) @node
(generator_function) @node
(arrow_function) @node
(method_definition) @node
(class_declaration) @node
(abstract_class_declaration) @node
(class) @node
(interface_declaration) @node
(internal_module) @node
(ambient_declaration) @node
(export_statement) @node
; A plain name where a value goes (stored, assigned, returned): a REFERENCES edge when it
; names a function or class (languages/javascript/flow.py, on_value).
(variable_declarator value: (identifier) @value)
(assignment_expression right: (identifier) @value)
(return_statement (identifier) @value)
(arrow_function body: (identifier) @value)
(pair value: (identifier) @value)
(shorthand_property_identifier) @value
(public_field_definition value: (identifier) @value)
(array (identifier) @value)
; Types named inside code: a variable's annotation, a cast, `satisfies` (USES_TYPE from the
; enclosing symbol; languages/javascript/types.py).
(variable_declarator type: (type_annotation) @type)
(as_expression) @type
(satisfies_expression) @type
