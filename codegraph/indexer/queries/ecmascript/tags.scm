; Shared by javascript, typescript and tsx (each starts with `; inherits: ...`, see
; treesitter.query_text): the nodes the JavaScript/TypeScript extractor's walk handles
; (languages/javascript/extractor.py) that all three grammars have. Nodes the walk enters or
; handles are @node; the walk dispatches on their type.
(call_expression) @node
(new_expression) @node
(object) @node
(function_declaration) @node
(generator_function_declaration) @node
(function_expression) @node
(generator_function) @node
(arrow_function) @node
(method_definition) @node
(class_declaration) @node
(class) @node
(export_statement) @node
; A plain name where a value goes (stored, assigned, returned): a REFERENCES edge when it
; names a function or class (languages/javascript/flow.py, on_value).
(variable_declarator value: (identifier) @value)
(assignment_expression right: (identifier) @value)
(return_statement (identifier) @value)
(arrow_function body: (identifier) @value)
(pair value: (identifier) @value)
(shorthand_property_identifier) @value
(array (identifier) @value)
