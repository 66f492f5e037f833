"""The resolver's memos (``codegraph.indexer.resolve_memo``: the parsed hints across the run, the
plans of ``resolve_refs`` shared by references with the same RefHints, with the keys they read;
``SymbolTable.named``, the unique-name look-up, and the recording table's ``member``,
``owner_has_external_base``, ``module_files`` and ``export``, each of which adds the keys its
first look-up read) change nothing: a resolution whose memos never hit gives
every output of ``resolve_and_link`` the same and in the same order: edges, stub records and
where each was set, counts per file, dependency keys per file, the state blob, the boundary
links. Checked on this product's own package and on random files drawn from a small pool of
references (repeats, the same name with other hints, another reference type, another language
family, malformed hints, values handed to parameters)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer import affected, resolve, resolve_memo, symbol_table, tracing_table
from codegraph.indexer.languages import link_repo
from codegraph.indexer.pipeline import extract_tree
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.state import StateStore

PKG = Path(__file__).resolve().parents[2] / "codegraph"
R = "r"


@pytest.fixture(scope="module")
def state() -> Iterator[StateStore]:
    with tempfile.TemporaryDirectory() as d:
        s = StateStore(Path(d) / "state.db")
        yield s
        s.close()


def _outputs(fxs: list[FileExtraction], state: StateStore, root: Path | None = None) -> dict[str, Any]:
    """Every output of a full ``resolve_and_link`` of ``fxs``, in order."""
    tracing_table._TABLES.clear()
    r = affected.resolve_and_link(R, fxs, {fx.file.path: fx for fx in fxs}, [], set(), state, None, root, full=True)
    (table, _), = tracing_table._TABLES.values()
    return {
        "edges": [(f, [(e.key(), e.resolution, repr(list(e.extra.items()))) for e in es]) for f, es in r.res.edges.items()],
        "stubs": [(u, repr(s), r.res.stubs.pos[u]) for u, s in r.res.stubs.items()],  # type: ignore[attr-defined]
        "counts": list(r.res.counts.items()),
        "counts per file": [(f, list(c.items())) for f, c in r.res.counts.per_file.items()],  # type: ignore[attr-defined]
        "stubs written": [repr(s) for s in r.stubs],
        "state files": sorted((p, r.state.keys(p), sorted(c.items())) for p, (_, c) in r.state.files.items()),
        "state blob": repr(r.state.blob),
        "table keys": sorted((p, sorted(map(repr, ks))) for p, ks in dict.items(table.deps)),
        "links": repr((r.links.nodes, r.links.edges, r.links.unplaced, r.links.counts)),
    }


class _NeverHits(resolve_memo.ExtraMemo):  # type: ignore[type-arg]
    """The reference: every reference's hints and plan computed afresh."""

    def get(self, key: Any, extra: dict[str, Any]) -> Any:
        return None


def _without_memos(fxs: list[FileExtraction], state: StateStore, monkeypatch: pytest.MonkeyPatch,
                   root: Path | None = None) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setattr(resolve, "ExtraMemo", _NeverHits)
        for module in (symbol_table, tracing_table):  # SymbolTable.named: no memo key, every look-up made
            m.setattr(module, "named_key", lambda *a: None)
        for name in ("member", "owner_has_external_base", "module_files", "export"):  # the recording table's memos
            m.setattr(tracing_table.TracingTable, name, getattr(symbol_table.SymbolTable, name))
        return _outputs(fxs, state, root)


class _Counting:
    """Counts the calls of ``resolve._plan`` / ``resolve._hints`` (each a memo miss)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.plans = self.hints = 0
        plan, hints = resolve._plan, resolve._hints

        def counted_plan(*a: Any) -> Any:
            self.plans += 1
            return plan(*a)

        def counted_hints(ref: Reference) -> Any:
            self.hints += 1
            return hints(ref)

        monkeypatch.setattr(resolve, "_plan", counted_plan)
        monkeypatch.setattr(resolve, "_hints", counted_hints)


def test_memos_change_nothing_on_real_code(state: StateStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fxs, _ = extract_tree(PKG, R, workers=2)
    fxs.sort(key=lambda fx: fx.file.path)
    link_repo(fxs, PKG)
    refs = sum(len(fx.references) for fx in fxs)
    calls = _Counting(monkeypatch)
    memo = _outputs(fxs, state, PKG)
    plans, hints = calls.plans, calls.hints
    calls.plans = calls.hints = 0
    fresh = _without_memos(fxs, state, monkeypatch, PKG)
    for k in memo:
        assert memo[k] == fresh[k], k
    assert memo["edges"] and memo["stubs"] and memo["table keys"]
    # Not vacuous: the memos answered many references (the reference run: none).
    assert calls.hints >= refs and hints < 0.6 * refs and plans < 0.8 * calls.plans, (plans, calls.plans, hints, refs)


# -- random files drawn from a pool -----------------------------------------------------------
def _sym(qn: str, file: str, kind: str, parent: str | None, lang: str = "python") -> SymbolRecord:
    return SymbolRecord(R, qn, "s", qn.rsplit(".", 1)[-1], kind, lang, "x", file, 1, 2, parent=parent)


FILES = {  # path -> (language, symbols); c.js is another family: the unique-name fallback differs
    "a.py": ("python", [("a", "module", None), ("a.A", "class", "a"), ("a.A.run", "method", "a.A"),
                        ("a.A.save", "method", "a.A"), ("a.f", "function", "a"), ("a.g", "function", "a"),
                        ("a.main", "function", "a")]),
    "b.py": ("python", [("b", "module", None), ("b.B", "class", "b"), ("b.B.run", "method", "b.B"),
                        ("b.f", "function", "b"), ("b.main", "function", "b")]),
    "c.js": ("javascript", [("c", "module", None), ("c.save", "function", "c"), ("c.main", "function", "c")]),
}
POOL: list[tuple[str, str, dict[str, Any]]] = [  # (type, target identifier, extra)
    ("CALLS", "x.run", {"candidates": [{"owner": "a.A", "member": "run", "how": "receiver_type"}]}),
    ("CALLS", "x.run", {"candidates": [{"owner": "b.B", "member": "run", "how": "receiver_type"}]}),
    ("CALLS", "a", {"candidates": [{"qn": "a", "how": "import"}], "arity": 1}),
    ("REFERENCES", "a", {"candidates": [{"qn": "a", "how": "import"}], "arity": 1}),
    ("USES_TYPE", "A", {"candidates": [{"qn": "a.A", "how": "annotation"}, {"qn": "a.f"}]}),
    ("USES_TYPE", "A", {"candidates": [{"qn": "a.f", "how": "annotation"}]}),
    ("CALLS", "save", {"candidates": [], "name": "save", "name_kinds": ["method", "function"]}),
    ("CALLS", "f", {"candidates": [], "name": "f"}),
    ("CALLS", "gone", {"candidates": [{"qn": "nope"}, {"owner": "a.A", "member": "gone"}], "arg_types": ["int"]}),
    ("CALLS", "gone", {"candidates": [{"qn": "nope"}], "optional": True}),
    ("CALLS", "bad", {"candidates": [{"qn": 5}]}),
    ("IMPORTS", "a", {"candidates": [{"path": "a.py"}], "names": ["f"]}),
    ("REFERENCES", "f", {"candidates": [{"qn": "a.f", "how": "parameter"}],
                         "pass": {"callee": [{"qn": "a.g"}], "index": 0, "kw": None}, "pass_only": True}),
    ("REFERENCES", "f", {"candidates": [{"qn": "a.f", "how": "parameter"}],
                         "pass": {"callee": [{"qn": "a.g"}], "index": 0, "kw": None}}),
    ("EXTENDS", "A", {"candidates": [{"qn": "a.A", "how": "import"}]}),
]
SOURCES = {"a.py": ["a.main", "a.g", "a.A"], "b.py": ["b.main", "b.B"], "c.js": ["c.main"]}


def _files(picks: dict[str, list[tuple[int, int, int]]]) -> list[FileExtraction]:
    out = []
    for path, (lang, syms) in FILES.items():
        refs = [Reference(POOL[p][0], SOURCES[path][s % len(SOURCES[path])], POOL[p][1], path, line,
                          extra={**POOL[p][2]}) for p, s, line in picks.get(path, [])]
        if path == "a.py":  # a.g calls its parameter: values handed to it get edges there
            refs.append(Reference("CALLS", "a.g", "cb", path, 9,
                                  extra={"candidates": [], "param_call": {"owner": "a.g", "index": 0, "name": "cb"}}))
        out.append(FileExtraction(FileRecord(R, path, lang, "h"), [_sym(qn, path, k, par, lang) for qn, k, par in syms],
                                  refs))
    return out


_PICK = st.tuples(st.integers(0, len(POOL) - 1), st.integers(0, 2), st.integers(1, 4))


@settings(max_examples=150)
@given(st.fixed_dictionaries({p: st.lists(_PICK, max_size=14) for p in FILES}))
def test_memos_change_nothing_on_random_files(picks: dict[str, list[tuple[int, int, int]]]) -> None:
    with tempfile.TemporaryDirectory() as d, pytest.MonkeyPatch.context() as mp:
        s = StateStore(Path(d) / "state.db")
        try:
            memo, fresh = _outputs(_files(picks), s), _without_memos(_files(picks), s, mp)
        finally:
            s.close()
    for k in memo:
        assert memo[k] == fresh[k], k


# -- resolve_refs per run of a file's references vs one reference at a time -------------------
def _refs_outputs(fxs: list[FileExtraction], one_at_a_time: bool) -> dict[str, Any]:
    """``resolve_refs`` on a recording table over every reference of ``fxs`` in
    ``resolve_repo``'s order: in one call, or one call per reference (then every reference
    begins the table, counts and resolves with empty memos, as before they existed)."""
    table = tracing_table.TracingTable(R, fxs)
    resolve.link_bases(table, fxs)
    refs = resolve.parsed_hints(r for fx in fxs for r in fx.references)
    items = [x for x in refs if x[0].type in ("EXTENDS", "IMPLEMENTS")] + \
        [x for x in refs if x[0].type not in ("EXTENDS", "IMPLEMENTS")]
    res = resolve.Resolution(stubs=tracing_table.StubDict(table), counts=tracing_table.FileCounts(table))
    seen: set[Any] = set()
    passes: list[Any] = []
    for part in ([[x] for x in items] if one_at_a_time else [items]):
        resolve.resolve_refs(table, R, part, {}, res, seen, passes, table.begin, None)
    return {
        "edges": [(f, [(e.key(), e.resolution, repr(list(e.extra.items()))) for e in es]) for f, es in res.edges.items()],
        "stubs": [(u, repr(s), res.stubs.pos[u]) for u, s in res.stubs.items()],  # type: ignore[attr-defined]
        "counts": list(res.counts.items()),
        "counts per file": [(f, list(c.items())) for f, c in res.counts.per_file.items()],  # type: ignore
        "passes": [(r.file, r.line, repr(p), [s.uid for s in v]) for _, r, p, v in passes],
        "table keys": sorted((p, sorted(map(repr, ks))) for p, ks in dict.items(table.deps)),
        "position": table.pos,
    }


def test_runs_of_references_resolve_as_one_at_a_time_on_real_code(state: StateStore) -> None:
    _, fxs, _ = extract_tree(PKG, R, workers=2)
    fxs.sort(key=lambda fx: fx.file.path)
    link_repo(fxs, PKG)
    runs, singles = _refs_outputs(fxs, False), _refs_outputs(fxs, True)
    for k in runs:
        assert runs[k] == singles[k], k
    # Not vacuous: values handed over, and files with their own begin key (their second reference's begin).
    assert runs["passes"] and sum(repr(("deps", p)) in ks for p, ks in runs["table keys"]) > 50


@settings(max_examples=150)
@given(st.fixed_dictionaries({p: st.lists(_PICK, max_size=14) for p in FILES}))
def test_runs_of_references_resolve_as_one_at_a_time(picks: dict[str, list[tuple[int, int, int]]]) -> None:
    runs, singles = _refs_outputs(_files(picks), False), _refs_outputs(_files(picks), True)
    for k in runs:
        assert runs[k] == singles[k], k
