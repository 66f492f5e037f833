"""Indexer: discover -> parse (tree-sitter-language-pack) -> extract -> resolve -> load."""
