"""JavaScript / TypeScript / TSX extractor (grammars ``javascript``, ``typescript``, ``tsx``).

``extract(repo, path, source)`` parses one file and emits the extraction contract
(``codegraph.indexer.records``): a ``module`` symbol per file, symbols for functions,
classes, methods, interfaces, enums, type aliases and module-level objects/constants that
matter, ``IMPORTS`` / ``CALLS`` / ``EXTENDS`` / ``IMPLEMENTS`` references with resolution
hints, and the file's export map (ES modules and CommonJS).

How it works: one pre-pass per scope (module, then every function body on entry) collects
the names the scope declares - imports, functions, classes, variables with the class of
their value when visible (``new X()``, ``p: X``) - because JS hoists declarations and a
call may precede the definition. Then an explicit-stack walk (minified code nests deeper
than Python's recursion limit) attributes every call to the innermost *named* symbol:
callbacks and anonymous functions belong to the function that wrote them.

Naming: the module qualified name is the repo-relative path without its extension
(``web/lib/api.ts`` -> ``web/lib/api``; ``x.d.ts`` -> ``x.d``); members join with ``.``.
Visibility: class members follow ``private`` / ``protected`` / ``#name``; everything else
is ``public`` when the module exports it and ``internal`` when it does not.

Stub identifiers: calls into bare packages read ``<specifier>.<export>[.<member>]``
(``react.useState``, ``express.Router``) so every file's use of one library function
meets in one stub; other unresolved calls keep the callee as written, or ``…member``
when the callee is long or contains a call.

Layout (one job per module): ``paths`` file names and relative specifiers; ``syntax`` name
sets and readers of node shapes; ``scopes`` bindings, scopes and the declaration pre-pass;
``imports`` imports, ``require``, exports and barrels; ``classes`` class bodies and
interfaces; ``types`` receiver types and USES_TYPE; ``calls`` call targets; ``flow`` values
carrying functions; ``extractor`` the walk and ``extract``; ``modules`` the repo-wide pass
mapping tsconfig paths and workspace packages to files. The walk's node types are the
query ``queries/<language>/tags.scm``.
"""

from __future__ import annotations

from codegraph.indexer.languages import lazy_exports

# name -> the module of this package defining it, imported on first use (PEP 562): the
# indexer's main process imports ``modules`` for its link pass and never extracts, so it
# need not load the extractor.
_LAZY = {"extract": "extractor", "link_js_modules": "modules", "is_test_path": "paths", "module_name": "paths",
         "package_name": "paths", "specifier_paths": "paths"}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["extract", "link_js_modules", "module_name", "specifier_paths", "package_name", "is_test_path"]
