"""Test helper: real code for the search tests — this interpreter's standard library —
extracted by the product's own Python extractor (``codegraph.indexer.extract``)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from codegraph.indexer.extract import extract_source
from codegraph.indexer.records import FileExtraction

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def extract_python(repo: str, path: str, source: str) -> FileExtraction:
    """The FileExtraction of Python ``source`` at repo-relative ``path``."""
    return extract_source(repo, path, "python", source.encode("utf-8"))


def stdlib_files(rel_paths: list[str]) -> list[tuple[str, str]]:
    """(repo-relative path, source) of standard-library files."""
    return [(p, (STDLIB / p).read_text(encoding="utf-8")) for p in rel_paths]
