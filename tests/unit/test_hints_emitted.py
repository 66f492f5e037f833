"""Every resolution hint the extractors write is one of the typed kinds (indexer/hints.py).

The JSONL wire form of a hint is a dict; this guards that each dict any extractor emits on
the fixtures of every language parses to a known dataclass (never ``UnknownHint``, never a
``HintError``) and that the dataclass writes back exactly the dict it came from, so the
resolver's typed dispatch (docs/DESIGN.md#resolution) sees everything extractors say.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from codegraph.indexer.extract import extract_source
from codegraph.indexer.hints import UnknownHint, parse_hint, reference_hints
from codegraph.indexer.languages import language_for

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_every_emitted_hint_is_a_known_kind_and_round_trips() -> None:
    kinds: Counter[str] = Counter()
    languages: set[str] = set()
    for f in sorted(FIXTURES.rglob("*")):
        lang = language_for(f.name) if f.is_file() else None
        if lang is None:
            continue
        fx = extract_source("fx", f.relative_to(FIXTURES).as_posix(), lang, f.read_bytes())
        for ref in fx.references:
            reference_hints(ref.extra)  # pass / param_call / candidates all parse
            for d in ref.extra.get("candidates", ()):
                h = parse_hint(d)
                assert not isinstance(h, UnknownHint), (f, ref.line, d)
                assert h.to_dict() == d, (f, ref.line, d)
                kinds[type(h).__name__] += 1
                languages.add(lang)
    assert {"python", "javascript", "typescript", "tsx", "java", "kotlin", "go", "rust", "c", "cpp", "csharp",
            "php", "ruby"} <= languages
    assert {"QualifiedName", "FileExport", "Member", "SuperMember", "ModuleChain"} <= set(kinds)
