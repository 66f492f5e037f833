; Kotlin: every node the extractor looks at, in one pass (see languages/kotlin.py).
(package_header) @package
(import_header) @import
(class_declaration) @class
(object_declaration) @class
(companion_object) @companion
(object_literal) @anon
(function_declaration) @function
(secondary_constructor) @ctor
(property_declaration) @property
(enum_entry) @enum_entry
(call_expression) @call
(constructor_delegation_call) @ctor_call
(callable_reference) @mref
(for_statement) @foreach
