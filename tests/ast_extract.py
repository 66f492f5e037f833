"""Test helper: a FileExtraction for Python source built with the standard ``ast``
module, so the search tests run on real code (the standard library) without waiting
for the tree-sitter extractors. Only symbols are produced (no references)."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

from codegraph.core.models import FileRecord, SymbolRecord, stable_hash
from codegraph.indexer.records import FileExtraction

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return ast.unparse(node.args)


def extract_python(repo: str, path: str, source: str) -> FileExtraction:
    """Module, class, function and method symbols of ``source`` with lines, signature,
    docstring and parent, as a tree-sitter extractor would give them."""
    tree = ast.parse(source)
    module_qn = path.removesuffix(".py").replace("/", ".")
    n_lines = source.count("\n") + 1
    src_lines = source.split("\n")

    def body_hash(node: ast.stmt) -> str:  # ast.get_source_segment re-splits the file per call: slow
        return stable_hash("\n".join(src_lines[node.lineno - 1:node.end_lineno or node.lineno]))

    fr = FileRecord(repo=repo, path=path, language="python", content_hash=stable_hash(source),
                    line_count=n_lines, size_bytes=len(source.encode()))
    syms = [SymbolRecord(
        repo=repo, qualified_name=module_qn, signature_hash=stable_hash("module", module_qn, ""),
        name=module_qn.rsplit(".", 1)[-1], kind="module", language="python", language_kind="module",
        file=path, line=1, end_line=n_lines, docstring=ast.get_docstring(tree) or "",
    )]

    def walk(body: list[ast.stmt], parent_qn: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qn = f"{parent_qn}.{node.name}"
                bases = ", ".join(ast.unparse(b) for b in node.bases)
                syms.append(SymbolRecord(
                    repo=repo, qualified_name=qn, signature_hash=stable_hash("class", qn, ""), name=node.name,
                    kind="class", language="python", language_kind="class_definition", file=path,
                    line=node.lineno, end_line=node.end_lineno or node.lineno,
                    content_hash=body_hash(node),
                    signature=f"class {node.name}({bases})" if bases else f"class {node.name}",
                    docstring=ast.get_docstring(node) or "", parent=parent_qn,
                ))
                walk(node.body, qn, True)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                qn = f"{parent_qn}.{node.name}"
                kind = "method" if in_class else "function"
                params = _params(node)
                ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
                syms.append(SymbolRecord(
                    repo=repo, qualified_name=qn, signature_hash=stable_hash(kind, qn, params), name=node.name,
                    kind=kind, language="python", language_kind="function_definition", file=path,
                    line=node.lineno, end_line=node.end_lineno or node.lineno,
                    content_hash=body_hash(node),
                    signature=f"def {node.name}({params}){ret}", docstring=ast.get_docstring(node) or "",
                    parent=parent_qn,
                ))
                walk(node.body, qn, False)

    walk(tree.body, module_qn, False)
    return FileExtraction(file=fr, symbols=syms)


def stdlib_files(rel_paths: list[str]) -> list[tuple[str, str]]:
    """(repo-relative path, source) of standard-library files."""
    return [(p, (STDLIB / p).read_text(encoding="utf-8")) for p in rel_paths]
