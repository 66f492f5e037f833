; C: every node the extractor acts on, in one pass (codegraph/indexer/languages/cpp.py).
; Scopes come from byte-range containment.

(function_definition) @def.function
(struct_specifier body: (_)) @def.struct
(union_specifier body: (_)) @def.union
(enum_specifier body: (_)) @def.enum
(type_definition) @def.typedef
(field_declaration) @def.field

(preproc_include) @include
(declaration) @decl
(parameter_declaration) @param

(call_expression) @call

; function-like macros are callable names (`FN(x)`, `EXPECT_EQ(a, b)`)
(preproc_function_def) @def.macro

; comments right above a definition are its documentation
(comment) @comment
