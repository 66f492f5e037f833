"""Fuzzing the three inputs a user hands the indexer (docs/hardening.md, "Fuzzing"):
random file bytes and names to ``index``, random JSONL records to ``load``, random
codegraph.toml values to ``refresh``, through the real CLI entry point (in process, on
the embedded stores). Every input must end with exit code 0/1/2/3, no traceback and no
"internal error" line, and the stored graph must be unchanged or equal to a clean index.
The number of inputs tried is printed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegraph.cli import main
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.services import service_settings, skip_or_fail

EXAMPLES = int(os.environ.get("CODEGRAPH_FUZZ_EXAMPLES", "20"))  # per input kind; ~15 s each at 20
TRIED: dict[str, int] = {"index": 0, "load": 0, "refresh": 0}
CODES: dict[str, set[int]] = {}  # exit codes seen per command (printed with the count)
BASE = {
    "core.py": "def loads(x):\n    return x\n\n\nclass Codec:\n    def run(self):\n        return loads(1)\n",
    "use.py": "from core import loads, Codec\n\n\ndef use():\n    Codec().run()\n    return loads(2)\n",
    "web.js": "export function get(u) { return fetch(u); }\nexport const x = () => get('/a');\n",
}
EXTS = [".py", ".js", ".ts", ".go", ".java", ".rb", ".rs", ".php", ".kt", ".cs", ".c", ".cpp", ".txt"]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("CODEGRAPH_FUZZ_RANDOM") != "1", database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code
    text = out.getvalue() + err.getvalue()
    assert code in (0, 1, 2, 3), (code, text[-2000:])
    CODES[args[0]] = CODES.get(args[0], set()) | {int(code or 0)}
    if args[0] == "load" and os.environ.get("CODEGRAPH_GRAPH", "").startswith("bolt://"):
        CODES["load-neo4j"] = CODES.get("load-neo4j", set()) | {int(code or 0)}
    assert "Traceback" not in text and "internal error" not in text, text[-2000:]
    return int(code or 0), text


def snapshot(graph: EmbeddedGraphStore, repo: str, paths: set[str] | None = None) -> tuple[Any, ...]:
    """Files (hash), symbols per file and edge types of ``repo`` (only ``paths`` if given)."""
    hashes = {p: h for p, h in graph.file_hashes(repo).items() if paths is None or p in paths}
    syms = {p: sorted((n.props.get("qualified_name"), n.label) for n in ns)
            for p, ns in graph.nodes_in_files(repo, sorted(hashes)).items()}
    edges = graph.counts(repo)["edges"] if paths is None else None
    return hashes, syms, edges


@pytest.fixture
def base(tmp_path: Path) -> Path:
    root = tmp_path / "base"
    root.mkdir()
    for p, text in BASE.items():
        (root / p).write_text(text)
    return root


@pytest.fixture
def clean(base: Path, tmp_path: Path) -> tuple[Any, ...]:
    """The clean index of the base tree (a store of its own)."""
    g = EmbeddedGraphStore(tmp_path / "clean" / "graph.db")
    st_ = StateStore(tmp_path / "clean" / "state.db")
    index_repo(base, "fz", g, None, st_, workers=1)
    snap = snapshot(g, "fz")
    st_.close()
    g.close()
    return snap


def _graph(home: Path) -> EmbeddedGraphStore:
    return EmbeddedGraphStore(home / "graph.db")


names = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=24)


def report(capsys: pytest.CaptureFixture[str], kind: str) -> None:
    with capsys.disabled():
        print(f"\nfuzz {kind}: {TRIED[kind]} inputs tried; exit codes seen {sorted(CODES.get(kind, set()))}")


def test_fuzz_index_random_file_bytes(base: Path, clean: tuple[Any, ...], tmp_path: Path, _isolated_home: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    @FUZZ
    @given(data=st.binary(max_size=3000), name=names, ext=st.sampled_from(EXTS))
    def one(data: bytes, name: str, ext: str) -> None:
        TRIED["index"] += 1
        tree = tmp_path / f"tree{TRIED['index']}"
        shutil.copytree(base, tree)
        try:
            (tree / (name + ext)).write_bytes(data)
        except (OSError, ValueError):
            return  # a name the file system refuses is not an input the indexer can meet
        cli("index", str(tree), "--repo", "fz", "--no-embed", "--json")
        g = _graph(_isolated_home)
        # The base files are exactly as a clean index has them, whatever the extra file was.
        assert snapshot(g, "fz", set(BASE))[:2] == clean[:2]
        # And once the odd file is gone, the whole graph equals the clean index.
        shutil.rmtree(tree)
        shutil.copytree(base, tree)
        code, text = cli("index", str(tree), "--repo", "fz", "--no-embed", "--json")
        assert code == 0, text
        assert snapshot(g, "fz") == clean
        g.close()

    one()
    report(capsys, "index")


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                                            max_size=3), max_leaves=8)
RECORD_TYPES = ["header", "file_meta", "symbol", "relationship", "export", "endpoint", "end", "route", "x"]
FIELDS = ["repo", "path", "file", "language", "content_hash", "qualified_name", "signature_hash", "name", "kind",
          "line", "end_line", "rel_type", "target", "files", "schema_version", "source_qualified_name"]
records = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6).flatmap(
        lambda d: st.sampled_from(RECORD_TYPES).map(lambda t: json.dumps({"type": t, **d}))),
    json_values.map(json.dumps),
    st.text(max_size=40),
)


@pytest.mark.parametrize("backend", ["embedded", "neo4j"])
def test_fuzz_load_random_jsonl_records(base: Path, clean: tuple[Any, ...], tmp_path: Path, _isolated_home: Path,
                                        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                        backend: str) -> None:
    repo = "fz"
    open_graph: Any = lambda: _graph(_isolated_home)  # noqa: E731
    if backend == "neo4j":
        s = service_settings()
        if not s.graph.startswith("bolt://"):
            skip_or_fail("Neo4j not configured (run `make services`)")
        monkeypatch.setenv("CODEGRAPH_GRAPH", s.graph)
        monkeypatch.setenv("CODEGRAPH_NEO4J_USER", s.neo4j_user)
        monkeypatch.setenv("CODEGRAPH_NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
        repo = f"fz-{uuid.uuid4().hex[:10]}"
        from codegraph.core.neo4j_graph import Neo4jGraphStore

        def open_graph() -> Any:
            return Neo4jGraphStore(s.graph, s.neo4j_user, s.neo4j_password.get_secret_value())
    assert cli("index", str(base), "--repo", repo, "--no-embed")[0] == 0
    out = tmp_path / "x.jsonl"
    assert cli("extract", str(base), "--repo", repo, "-o", str(out))[0] == 0
    good = out.read_text().splitlines()
    kind = "load" if backend == "embedded" else "load-neo4j"
    TRIED.setdefault(kind, 0)

    @settings(FUZZ, max_examples=EXAMPLES if backend == "embedded" else max(EXAMPLES // 2, 1))
    @given(inserted=st.lists(st.tuples(st.integers(min_value=0, max_value=400), records), max_size=5),
           cut=st.one_of(st.none(), st.integers(min_value=1, max_value=400)),
           flags=st.sampled_from([[], ["--partial"], ["--yes"], ["--partial", "--yes"]]))
    def one(inserted: list[tuple[int, str]], cut: int | None, flags: list[str]) -> None:
        TRIED[kind] += 1
        lines = list(good)
        for at, rec in inserted:
            lines.insert(at % (len(lines) + 1), rec)
        if cut is not None:
            lines = lines[: cut % (len(lines) + 1)]
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        cli("load", str(bad), "--repo", repo, "--json", *flags)
        g = open_graph()
        # Whatever the records were, the base files are still exactly the clean index's.
        assert snapshot(g, repo, set(BASE))[:2] == clean[:2]
        g.close()

    try:
        one()
    finally:
        if backend == "neo4j":
            g = open_graph()
            g.delete_repo(repo)
            g.close()
    report(capsys, kind)


toml_scalars = st.one_of(st.booleans(), st.integers(min_value=-10**6, max_value=10**6), st.text(max_size=12),
                         st.floats(allow_nan=False, allow_infinity=False))
toml_values = st.one_of(toml_scalars, st.lists(st.one_of(st.text(max_size=10), st.integers()), max_size=3),
                        st.dictionaries(st.text(min_size=1, max_size=8), st.text(max_size=8), max_size=2))
KEYS = ["include", "exclude", "mirror", "branch", "pages", "base_urls", "name", "nonsense"]


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v) if "e" not in repr(v) and "." in repr(v) else f"{v:.1f}"
    return json.dumps(v)


def test_fuzz_refresh_random_config_values(base: Path, tmp_path: Path, _isolated_home: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    @FUZZ
    @given(values=st.dictionaries(st.sampled_from(KEYS), toml_values, max_size=3))
    def one(values: dict[str, Any]) -> None:
        TRIED["refresh"] += 1
        values = {k: v for k, v in values.items() if k != "mirror"}  # never clone or fetch anything
        cfg = tmp_path / "codegraph.toml"
        body = "\n".join(f"{k} = {toml_value(v)}" for k, v in values.items() if k != "name")
        cfg.write_text(f'[[repos]]\nname = "fz"\npath = "{base}"\n{body}\n', encoding="utf-8",
                       errors="surrogatepass")
        g = _graph(_isolated_home)
        before = snapshot(g, "fz")
        code, _ = cli("refresh", "--config", str(cfg), "--no-embed", "--json")
        after = snapshot(g, "fz")
        g.close()
        if code != 0:
            assert after == before  # a refused config changes nothing
            return
        # Accepted: the graph equals a clean index with the same include/exclude/pages.
        where = tmp_path / f"ref{TRIED['refresh']}"
        ref = EmbeddedGraphStore(where / "graph.db")
        state = StateStore(where / "state.db")
        index_repo(base, "fz", ref, None, state, workers=1, include=values.get("include") or None,
                   exclude=values.get("exclude") or None, pages=values.get("pages") or None)
        assert after == snapshot(ref, "fz")
        state.close()
        ref.close()

    one()
    report(capsys, "refresh")
