; Ruby: every node the extractor acts on, in one pass (codegraph/indexer/languages/ruby.py).
; Scopes come from byte-range containment.

; definitions (scopes)
(module) @def.module
(class) @def.class
(singleton_class) @def.singleton_class
(method) @def.method
(singleton_method) @def.singleton_method

; class-body directives: bare `private` / `protected` / `public` / `module_function`
((identifier) @visibility
  (#match? @visibility "^(private|protected|public|module_function)$"))

; local variables and instance variables (receiver types)
(assignment left: (identifier) @local)
(assignment left: (instance_variable) @ivar)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(block_parameters (identifier) @local)
(block_parameters (_ name: (identifier) @local))
(lambda_parameters (identifier) @local)
(exception_variable (identifier) @local)
(for pattern: (identifier) @local)

; references
(call) @call
(super) @super

; a bare identifier in a value position is a local or a call on self with no arguments;
; the extractor scans these nodes' direct children (a parent-child pattern such as
; `(binary (identifier))` costs the query cursor O(depth^2) on `a + b + c + ...` chains)
(body_statement) @bare_parent
(block_body) @bare_parent
(then) @bare_parent
(else) @bare_parent
(argument_list) @bare_parent
(binary) @bare_parent
(if) @bare_parent
(unless) @bare_parent
(interpolation) @bare_parent

; comments right above a definition are its documentation
(comment) @comment
