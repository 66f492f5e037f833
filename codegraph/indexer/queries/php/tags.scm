; PHP: every node the extractor acts on, in one pass (codegraph/indexer/languages/php.py).
; Scopes come from byte-range containment; namespaces from their positions.

(namespace_definition) @namespace
(namespace_use_declaration) @use

(class_declaration) @def.class
(interface_declaration) @def.interface
(trait_declaration) @def.trait
(enum_declaration) @def.enum
(method_declaration) @def.method
(function_definition) @def.function
(property_declaration) @def.property
(enum_case) @def.case
(use_declaration) @trait_use

(simple_parameter) @param
(property_promotion_parameter) @param
(assignment_expression left: (variable_name)) @assign

(function_call_expression) @call.function
(member_call_expression) @call.member
(nullsafe_member_call_expression) @call.member
(scoped_call_expression) @call.scoped
(object_creation_expression) @new
(require_expression) @include
(require_once_expression) @include
(include_expression) @include
(include_once_expression) @include

; comments right above a definition are its documentation
(comment) @comment
