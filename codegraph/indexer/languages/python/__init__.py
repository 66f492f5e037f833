"""Python extractor: source bytes -> FileExtraction (symbols, references, exports).

One tree-sitter query run (``queries/python/tags.scm``) collects every node the rules need (definitions, lambdas,
calls, bare decorators, imports, assignments, binding targets) in C; Python then works
only on those nodes, never on the full tree. Each node is attributed to its scope by a
bisect over the scopes' body ranges (decorators, default values and class bases sit
outside the body, so they belong to the enclosing scope, as Python evaluates them).

Two phases: first every binding of every scope (defs, imports, assignments, parameters,
``self.x = ...``) is collected; then calls, decorators and class bases are resolved
against them flow-insensitively, so a function may call a name defined further down.

Resolution hints (see ``codegraph.indexer.records``), per kind of callee:

- a name defined in this file: ``{"qn"}`` how ``same_module``;
- a name or module bound by an import: ``{"qn"}``, ``{"file", "export"}`` and, for
  ``X.m()`` on an imported ``X``, ``{"owner"}`` / ``{"owner_export"}``, how ``import``;
  never a bare-name fallback (external calls like ``os.path.join`` stay ``missing`` stubs);
- ``self.m()`` / ``cls.m()``: ``{"owner": class, "member"}`` how ``self``;
- ``super().m()``: ``{"super_of": class}`` then ``{"owner": base}`` per base, how ``self``;
- a receiver whose type is visible (constructor assignment, annotation, typed parameter,
  ``self.x = C()`` anywhere in the class, ``C().m()``, a same-file function's return
  annotation): ``{"owner": C, "member"}`` how ``receiver_type``;
- an unknown receiver ``x.m()``: only the bare-name fallback, kinds ``["method"]``;
- an unbound name (not builtin): star-import exports, then the bare-name fallback.

Builtins (``len()``, ``str.join``), methods of builtin-typed values (``[].append``,
``"".join``) and direct calls of local variables or parameters (``callback()``) emit
nothing: they can never point into the repository, and as bare names they would only
make false edges or noise stubs.

Modules, one job each: ``common`` (builtins, naming, small helpers), ``scopes`` (scope
model, scope building, parameters, bindings), ``imports``, ``types`` (what a name
denotes, receiver / annotation / return types, class bases), ``calls`` (call-site hints),
``flow`` (value flow), ``uses`` (hand-over hints, protocols, REFERENCES / USES_TYPE /
INJECTS, module re-bindings), ``roots`` (the repo-wide package-root pass) and
``extractor`` (the driver: one query run, phases in order, the reference sink).
"""

from __future__ import annotations

from codegraph.indexer.languages import lazy_exports

# name -> the module of this package defining it, imported on first use (PEP 562): the
# indexer's main process imports ``roots`` for its link pass and never extracts, so it
# need not load the extractor (~25 modules, the tree-sitter binding).
_LAZY = {"BUILTINS": "common", "DOCSTRING_MAX": "common", "LANGUAGE": "common", "SIGNATURE_MAX": "common",
         "is_test_path": "common", "module_name": "common", "visibility": "common", "extract": "extractor",
         "link_python_roots": "roots"}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["BUILTINS", "DOCSTRING_MAX", "LANGUAGE", "SIGNATURE_MAX", "extract", "is_test_path", "link_python_roots", "module_name", "visibility"]
