;; Python: one pass in C over the tree; capture names select the extractor's handler
;; (codegraph/indexer/languages/python/extractor.py).
(function_definition) @def
(class_definition) @def
(lambda) @lambda
(call) @call
(decorator (identifier) @deco)
(decorator (attribute) @deco)
(import_statement) @import
(import_from_statement) @import
(assignment) @assign
(for_statement) @for
(global_statement) @global
(nonlocal_statement) @global
(return_statement) @return
(with_item value: (_) @with)
(raise_statement) @raise
(decorator (call) @deco_call)
(argument_list (identifier) @val)
(argument_list (attribute) @val)
(keyword_argument value: (identifier) @val)
(keyword_argument value: (attribute) @val)
(assignment right: (identifier) @val)
(assignment right: (attribute) @val)
(return_statement (identifier) @val)
(return_statement (attribute) @val)
(expression_list (identifier) @val)
(expression_list (attribute) @val)
(list (identifier) @val)
(list (attribute) @val)
(tuple (identifier) @val)
(tuple (attribute) @val)
(set (identifier) @val)
(pair value: (identifier) @val)
(pair value: (attribute) @val)
(named_expression value: (identifier) @val)
(default_parameter value: (identifier) @val)
(typed_default_parameter value: (identifier) @val)
(for_in_clause left: (_) @bind)
(as_pattern_target) @bind
(named_expression name: (identifier) @bind)
