; C++: every node the extractor acts on, in one pass (codegraph/indexer/languages/cpp.py).
; Scopes come from byte-range containment.

(namespace_definition) @def.namespace
(class_specifier body: (_)) @def.class
(struct_specifier body: (_)) @def.struct
(union_specifier body: (_)) @def.union
(enum_specifier body: (_)) @def.enum
(type_definition) @def.typedef
(alias_declaration) @def.alias
(function_definition) @def.function
(field_declaration) @def.field

(preproc_include) @include
(using_declaration) @using
(declaration) @decl
(parameter_declaration) @param
(optional_parameter_declaration) @param

(call_expression) @call
(new_expression) @new

; function-like macros are callable names (`FN(x)`, `EXPECT_EQ(a, b)`)
(preproc_function_def) @def.macro

; comments right above a definition are its documentation
(comment) @comment
