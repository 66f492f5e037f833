; Go: every node the extractor looks at, in one pass (see languages/go.py).
(package_clause) @package
(import_spec) @import
(function_declaration) @function
(method_declaration) @method
(type_spec) @type
(type_alias) @type
(var_spec) @var
(const_spec) @const
(short_var_declaration) @short_var
(range_clause) @range
(func_literal) @func_literal
(call_expression) @call
