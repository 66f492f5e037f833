"""Syntax views: import bindings (local name -> module, imported name) and the variable
a value is assigned to.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters._syntax.base import (
    JS_LANGS,
    _field,
    captures,
    line,
    text,
)
from codegraph.indexer.adapters._syntax.calls import as_call, chain
from codegraph.indexer.adapters._syntax.strings import literal
from codegraph.indexer.treesitter import document_captures

# --- import bindings -------------------------------------------------------------------------


@dataclass(slots=True)
class ImportBinding:
    """A local name bound by an import: the import statement's ``line`` (where the
    resolver's IMPORTS edge has its evidence), the ``name`` imported (``default``,
    ``*`` for a whole module / namespace) and the module ``spec`` as written."""

    line: int
    name: str
    spec: str


def import_bindings(language: str, root: TSNode) -> dict[str, ImportBinding]:
    """Local name -> ImportBinding for the file's top-level imports (Python, JS/TS, Go)."""
    out: dict[str, ImportBinding] = {}
    if language == "python":
        # The Python extractor's import captures of this tree (document order; statements
        # never nest, so that is the start order a query of their own gave).
        for n in document_captures("python", "tags", root).get("import", ()):
            ln = line(n)
            if n.type == "import_from_statement":
                mod = _field(n, "module_name")
                spec = text(mod)
                for c in n.children_by_field_name("name"):
                    if c.type == "aliased_import":
                        orig, alias = _field(c, "name"), _field(c, "alias")
                        out[text(alias)] = ImportBinding(ln, text(orig).rsplit(".", 1)[-1], spec)
                    else:
                        nm = text(c).rsplit(".", 1)[-1]
                        out[nm] = ImportBinding(ln, nm, spec)
            else:
                for c in n.children_by_field_name("name"):
                    if c.type == "aliased_import":
                        out[text(_field(c, "alias"))] = ImportBinding(ln, "*", text(_field(c, "name")))
                    else:
                        full = text(c)
                        out[full.split(".", 1)[0]] = ImportBinding(ln, "*", full)
    elif language in JS_LANGS:
        for n in captures(language, "(import_statement) @i (variable_declarator) @d", root):
            ln = line(n)
            if n.type == "import_statement":
                spec = literal(language, _field(n, "source")) or ""
                clause = next((c for c in n.named_children if c.type == "import_clause"), None)
                for c in clause.named_children if clause is not None else ():
                    if c.type == "identifier":
                        out[text(c)] = ImportBinding(ln, "default", spec)
                    elif c.type == "namespace_import":
                        ident = next((x for x in c.named_children if x.type == "identifier"), None)
                        if ident is not None:
                            out[text(ident)] = ImportBinding(ln, "*", spec)
                    elif c.type == "named_imports":
                        for s in c.named_children:
                            if s.type == "import_specifier":
                                orig, alias = _field(s, "name"), _field(s, "alias")
                                out[text(alias if alias is not None else orig)] = ImportBinding(ln, text(orig), spec)
                continue
            value = _field(n, "value")
            if value is None or value.type != "call_expression":
                continue
            fn = _field(value, "function")
            if fn is None or text(fn) != "require":
                continue
            c = as_call(language, value)
            spec = literal(language, c.args[0]) if c is not None and c.args else None
            if spec is None:
                continue
            name_node = _field(n, "name")
            if name_node is None:
                continue
            if name_node.type == "identifier":
                out[text(name_node)] = ImportBinding(ln, "default", spec)
            elif name_node.type == "object_pattern":
                for p in name_node.named_children:
                    if p.type == "shorthand_property_identifier_pattern":
                        out[text(p)] = ImportBinding(ln, text(p), spec)
                    elif p.type == "pair_pattern":
                        k, v = _field(p, "key"), _field(p, "value")
                        if k is not None and v is not None and v.type == "identifier":
                            out[text(v)] = ImportBinding(ln, text(k), spec)
    elif language == "go":
        for n in captures(language, "(import_spec) @i", root):
            path = literal(language, _field(n, "path")) or ""
            alias = _field(n, "name")
            local = text(alias) if alias is not None else path.rsplit("/", 1)[-1]
            out[local] = ImportBinding(line(n), "*", path)
    return out


def assigned_name(language: str, node: TSNode) -> str | None:
    """The variable a value is assigned to (``x = <node>``, ``const x = <node>``,
    ``x := <node>``, ``self.x = <node>``, ``val x = <node>``), as written; else None."""
    p = node.parent
    while p is not None and p.type in ("await_expression", "parenthesized_expression", "unary_expression", "await"):
        node, p = p, p.parent
    if p is None:
        return None
    t = p.type
    if t == "assignment" and language == "python" and _field(p, "right") == node:
        return chain(language, _field(p, "left"))
    if t == "variable_declarator":
        if language == "java":
            return text(_field(p, "name"))
        if _field(p, "value") == node:
            name = _field(p, "name")
            return text(name) if name is not None and name.type == "identifier" else None
    if t == "assignment_expression" and _field(p, "right") == node:
        return chain(language, _field(p, "left"))
    if t == "expression_list" and p.parent is not None and p.parent.type in ("short_var_declaration", "assignment_statement"):
        decl = p.parent
        right, left = _field(decl, "right"), _field(decl, "left")
        if right == p and left is not None and left.named_children:
            idx = p.named_children.index(node) if node in p.named_children else 0
            kids = left.named_children
            return chain(language, kids[min(idx, len(kids) - 1)])
    if t == "property_declaration":
        v = next((c for c in p.named_children if c.type == "variable_declaration"), None)
        return text(v.named_children[0]) if v is not None and v.named_children else None
    if t == "with_item" or (t == "as_pattern" and language == "python"):
        alias = _field(p, "alias")
        if alias is not None:
            return text(alias).strip()
        target = p.parent
        if target is not None and target.type == "as_pattern":
            a = _field(target, "alias")
            return text(a).strip() if a is not None else None
    return None
