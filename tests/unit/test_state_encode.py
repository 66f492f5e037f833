"""The indexer state stores each file's extraction compactly; the encoding is the same
JSON ``dataclasses.asdict`` gives and decodes back to an equal extraction (real stdlib
files through the real extractor)."""

from __future__ import annotations

import json
import sysconfig
from dataclasses import asdict
from pathlib import Path

from codegraph.indexer.extract import extract_source
from codegraph.indexer.state import _plain, decode, encode

FILES = ["json/decoder.py", "shutil.py", "argparse.py", "asyncio/tasks.py"]


def test_encode_is_asdict_json_and_round_trips() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for rel in FILES:
        fx = extract_source("std", rel, "python", (stdlib / rel).read_bytes())
        assert fx.symbols and fx.references
        assert json.dumps(_plain(fx), sort_keys=True) == json.dumps(asdict(fx), sort_keys=True)
        assert decode(encode(fx)) == fx


def test_workers_compute_the_bm25_terms_the_store_would() -> None:
    from dataclasses import replace

    from codegraph.core.embedded_search import chunk_row
    from codegraph.core.retrieval import chunk_terms
    from codegraph.indexer.pipeline import _extract_job

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    _, chunks = _extract_job(("std", "shutil.py", "python", str(stdlib / "shutil.py"), True))
    assert chunks and all(c.terms is not None for c in chunks)
    for c in chunks:
        bare = replace(c, terms=None)
        assert c.terms == chunk_terms(bare) and chunk_row(c) == chunk_row(bare)
