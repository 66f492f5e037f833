"""The indexer state stores each file's extraction compactly (marshal of field tuples,
or zlib JSON — the same JSON ``dataclasses.asdict`` gives — when a value is not a plain
type) and decodes back to an equal extraction (real stdlib files through the real
extractor); blobs written in the older JSON form still decode."""

from __future__ import annotations

import json
import sysconfig
import zlib
from dataclasses import asdict
from pathlib import Path

from codegraph.indexer.extract import extract_source
from codegraph.indexer.state import _MARSHAL, _plain, decode, encode

FILES = ["json/decoder.py", "shutil.py", "argparse.py", "asyncio/tasks.py"]


def test_encode_is_asdict_json_and_round_trips() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for rel in FILES:
        fx = extract_source("std", rel, "python", (stdlib / rel).read_bytes())
        assert fx.symbols and fx.references
        assert json.dumps(_plain(fx), sort_keys=True) == json.dumps(asdict(fx), sort_keys=True)
        blob = encode(fx)
        assert blob.startswith(_MARSHAL) and decode(blob) == fx
        old_form = zlib.compress(json.dumps(_plain(fx)).encode(), 1)  # state written before the marshal form
        assert decode(old_form) == fx


def test_a_value_marshal_cannot_write_falls_back_to_json() -> None:
    from dataclasses import dataclass

    @dataclass
    class Hint:  # e.g. a typed resolution hint: marshal refuses it, the JSON form writes its fields
        owner: str
        member: str

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    fx = extract_source("std", "shutil.py", "python", (stdlib / "shutil.py").read_bytes())
    fx.framework.append({"type": "const", "hint": Hint("shutil.C", "run")})
    blob = encode(fx)
    assert not blob.startswith(_MARSHAL)
    back = decode(blob)
    assert back.framework[-1] == {"type": "const", "hint": {"owner": "shutil.C", "member": "run"}}
    assert back.symbols == fx.symbols and back.references == fx.references


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
