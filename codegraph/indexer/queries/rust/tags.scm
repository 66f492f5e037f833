; Rust: every node the extractor acts on, in one pass. Capture names are the
; extractor's event kinds (codegraph/indexer/languages/rust.py); scopes come from
; byte-range containment, so nothing here needs to express nesting.

; definitions (scopes)
(mod_item) @def.mod
(struct_item) @def.struct
(union_item) @def.union
(enum_item) @def.enum
(trait_item) @def.trait
(impl_item) @def.impl
(function_item) @def.function
(function_signature_item) @def.function
(const_item) @def.const
(static_item) @def.const
(type_item) @def.alias
(field_declaration) @def.field
(enum_variant) @def.variant

; names and bindings
(use_declaration) @use
(let_declaration) @let

; references
(call_expression) @call
(macro_invocation (token_tree) @macro_args)

; decorations: attributes and doc comments attach to the item that follows them
; (plain comments are dropped by the extractor: a text predicate here costs more)
(attribute_item) @decor
(line_comment) @decor
(block_comment) @decor
