"""SearchIndex contract: the same tests against every backend (embedded sqlite FTS5 +
NumPy, Elasticsearch 8).

Each test uses its own repo name and deletes it afterwards; Elasticsearch indices use a
per-session prefix whose template and indices are removed at the end of the session.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from codegraph.core.errors import StoreUnavailable
from codegraph.core.models import Chunk, file_uid, stable_hash, symbol_uid
from codegraph.core.search_index import SearchIndex
from tests.services import elasticsearch_index

BACKENDS = ("embedded", "elasticsearch")
_INDICES: dict[str, SearchIndex] = {}
_ES_PREFIX = f"cgtest{uuid.uuid4().hex[:6]}"


def _open(backend: str, tmp_root: Path) -> SearchIndex:
    if backend == "embedded":
        from codegraph.core.embedded_search import EmbeddedSearchIndex

        return EmbeddedSearchIndex(tmp_root / "search.db")
    return elasticsearch_index(_ES_PREFIX)


@pytest.fixture(params=BACKENDS)
def index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    backend: str = request.param
    if backend not in _INDICES:
        _INDICES[backend] = _open(backend, tmp_path_factory.mktemp(f"search-{backend}"))
    return _INDICES[backend]


@pytest.fixture
def srepo(index: SearchIndex) -> Iterator[str]:
    name = f"st-{uuid.uuid4().hex[:10]}"
    yield name
    index.delete_repo(name)


def teardown_module() -> None:
    es = _INDICES.pop("elasticsearch", None)
    if es is not None:
        client = es.client.options(ignore_status=404)  # type: ignore[attr-defined]
        # Wildcard deletes are refused (action.destructive_requires_name): delete by name.
        left = client.indices.get(index=f"{_ES_PREFIX}-*", allow_no_indices=True).body
        for name in left:
            client.indices.delete(index=name)
        for kind in ("code", "schema", "config", "docs"):
            client.indices.delete_index_template(name=f"{_ES_PREFIX}-{kind}")
        es.close()
    for ix in _INDICES.values():
        ix.close()
    _INDICES.clear()


# -- builders ---------------------------------------------------------------------------


def mk(repo: str, path: str, qn: str, text: str, *, kind: str = "function", line: int = 1,
       embed: str | None = None, language: str = "python") -> Chunk:
    name = qn.rsplit(".", 1)[-1]
    sig = stable_hash(kind, qn)
    embed_text = embed if embed is not None else f"{kind} {qn}"
    return Chunk(
        chunk_id=f"{repo}|{path}|{qn}|{sig}", repo=repo, file=path, kind=kind, language=language,
        line=line, end_line=line + text.count("\n"), text=text, embed_text=embed_text,
        content_hash=stable_hash(text, embed_text), qualified_name=qn, name=name,
        symbol_uid=symbol_uid(repo, qn, sig), file_uid=file_uid(repo, path),
    )


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


DISTRACTORS = [
    ("app/settings.py", "app.settings.load_settings", "def load_settings(env):\n    return Settings(**env)"),
    ("app/settings.py", "app.settings.config_path", "def config_path(home):\n    return home / 'config.toml'"),
    ("app/cli.py", "app.cli.parse_args", "def parse_args(argv):\n    return parser.parse_args(argv)"),
    ("app/cli.py", "app.cli.main", "def main():\n    args = parse_args(sys.argv)\n    run(args)"),
    ("app/io.py", "app.io.read_file", "def read_file(path):\n    return open(path).read()"),
    ("app/io.py", "app.io.write_file", "def write_file(path, data):\n    open(path, 'w').write(data)"),
    ("app/net.py", "app.net.fetch_url", "def fetch_url(url):\n    return urlopen(url).read()"),
    ("app/net.py", "app.net.HttpClient", "class HttpClient:\n    def get(self, url): ..."),
    ("app/db.py", "app.db.save_order", "def save_order(order):\n    db.insert('orders', order)"),
    ("app/db.py", "app.db.load_orders", "def load_orders(customer):\n    return db.select('orders', customer)"),
]


def corpus(repo: str) -> list[Chunk]:
    out = [mk(repo, p, qn, t) for p, qn, t in DISTRACTORS]
    out += [
        mk(repo, "app/config.py", "app.config.parse_config",
           "def parse_config(text):\n    \"\"\"Read the TOML text.\"\"\"\n    return tomllib.loads(text)"),
        mk(repo, "app/config.py", "app.config.ParseConfig",
           "class ParseConfig:\n    strict: bool = True\n    encoding: str = 'utf-8'", kind="class", line=10),
        mk(repo, "app/boot.py", "app.boot.start",
           "def start(path):\n    cfg = app.config.parse_config(read_file(path))\n    return App(cfg)"),
        # A long body that never repeats its name...
        mk(repo, "app/render.py", "app.render.render_invoice",
           "def render_invoice(inv):\n"
           + "\n".join(f"    total_{i} = compute_line(inv.lines[{i}], tax_rate, currency)" for i in range(25))
           + "\n    return total_0"),
        # ...against a short one that mentions it three times.
        mk(repo, "app/mail.py", "app.mail.send_monthly",
           "def send_monthly(customer):\n    # render invoice, then render the invoice again on failure\n"
           "    smtp.send(render_invoice(customer.last_invoice))"),
    ]
    return out


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [h[0] for h in hits]


def qn_of(chunk_id: str) -> str:
    return chunk_id.split("|")[2]


# -- tests ------------------------------------------------------------------------------


def test_upsert_then_get_roundtrip(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    got = index.get_chunks([c.chunk_id for c in cs] + [f"{srepo}|nope|x|y"])
    assert got == {c.chunk_id: c for c in cs}
    assert index.stats(srepo)["chunks"] == len(cs)
    assert index.stats(srepo)["with_vectors"] == 0
    by_file = index.chunk_ids_by_file(srepo)
    assert by_file["app/config.py"] == sorted(c.chunk_id for c in cs if c.file == "app/config.py")
    assert sum(len(v) for v in by_file.values()) == len(cs)


def test_delete_files_removes_only_those_files(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, unit(np.random.default_rng(1), len(cs)), strict=True)})
    gone = [c for c in cs if c.file in ("app/config.py", "app/db.py")]
    assert index.delete_files(srepo, ["app/config.py", "app/db.py", "app/missing.py"]) == len(gone)
    assert set(index.chunk_ids_by_file(srepo)) == {c.file for c in cs} - {"app/config.py", "app/db.py"}
    assert not set(ids(index.bm25("parse_config save_order", 50, repo=srepo))) & {c.chunk_id for c in gone}
    assert index.get_chunks([c.chunk_id for c in gone]) == {}
    st = index.stats(srepo)
    assert st["chunks"] == st["with_vectors"] == len(cs) - len(gone)
    knn_ids = ids(index.knn(unit(np.random.default_rng(2), 1)[0], 50, repo=srepo))
    assert len(knn_ids) == len(cs) - len(gone) and not set(knn_ids) & {c.chunk_id for c in gone}
    assert index.delete_files(srepo, ["app/config.py"]) == 0


def test_delete_chunks_removes_only_those_chunks(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, unit(np.random.default_rng(3), len(cs)), strict=True)})
    gone, kept = cs[:2], cs[2:]
    some = sorted({c.file for c in cs})[:2]
    assert {f: sorted(v) for f, v in index.chunk_ids_by_file(srepo, some).items()} == {
        f: sorted(c.chunk_id for c in cs if c.file == f) for f in some}
    assert index.chunk_ids_by_file(srepo, []) == {}
    index.delete_chunks(srepo, [c.chunk_id for c in gone])
    assert set(index.get_chunks([c.chunk_id for c in cs])) == {c.chunk_id for c in kept}
    assert not set(ids(index.knn(unit(np.random.default_rng(4), 1)[0], 50, repo=srepo))) & {c.chunk_id for c in gone}
    st = index.stats(srepo)
    assert st["chunks"] == st["with_vectors"] == len(kept)


def test_vector_kept_when_content_unchanged_dropped_when_changed(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    vecs = unit(np.random.default_rng(3), len(cs))
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, vecs, strict=True)})
    assert index.chunks_missing_vectors(srepo) == []
    moved = [dataclasses.replace(c, line=c.line + 40, end_line=c.end_line + 40) for c in cs]
    index.upsert_chunks(moved)  # same content, new lines: vectors stay
    assert index.stats(srepo)["with_vectors"] == len(cs)
    assert index.get_chunks([moved[0].chunk_id])[moved[0].chunk_id].line == cs[0].line + 40
    top = index.knn(vecs[4], 1, repo=srepo)
    assert top[0][0] == cs[4].chunk_id and top[0][1] == pytest.approx(1.0, abs=1e-3)

    changed = dataclasses.replace(moved[4], text=moved[4].text + "\n    # edited", content_hash="new")
    index.upsert_chunks([changed])
    assert index.stats(srepo)["with_vectors"] == len(cs) - 1
    assert [c.chunk_id for c in index.chunks_missing_vectors(srepo)] == [changed.chunk_id]
    assert changed.chunk_id not in ids(index.knn(vecs[4], 5, repo=srepo))
    assert "edited" in index.get_chunks([changed.chunk_id])[changed.chunk_id].text


def test_ranking_on_identifiers(index: SearchIndex, srepo: str) -> None:
    index.upsert_chunks(corpus(srepo))
    top2 = {qn_of(c) for c in ids(index.bm25("parse config", 2, repo=srepo))}
    assert top2 == {"app.config.parse_config", "app.config.ParseConfig"}
    assert qn_of(ids(index.bm25("parse_config", 5, repo=srepo))[0]) == "app.config.parse_config"
    assert qn_of(ids(index.bm25("ParseConfig", 5, repo=srepo))[0]) == "app.config.ParseConfig"
    # send_monthly's short body mentions "render invoice" three times; the name match on
    # render_invoice (whose long body never repeats it) still wins. A single FTS5 table
    # with bm25() column weights fails this (one length norm for all columns).
    ranked = [qn_of(c) for c in ids(index.bm25("render invoice", 5, repo=srepo))]
    assert ranked[:2] == ["app.render.render_invoice", "app.mail.send_monthly"]
    # A qualified-name part counts too (2x): the module "config".
    assert qn_of(ids(index.bm25("app.config", 3, repo=srepo))[0]).startswith("app.config.")


def test_bm25_is_scoped_to_the_repo(index: SearchIndex, srepo: str) -> None:
    other = f"{srepo}-other"
    try:
        index.upsert_chunks(corpus(srepo) + corpus(other))
        assert all(c.startswith(f"{srepo}|") for c in ids(index.bm25("parse config", 50, repo=srepo)))
        both = ids(index.bm25("parse config", 50))
        assert any(c.startswith(f"{other}|") for c in both) and any(c.startswith(f"{srepo}|") for c in both)
        assert index.bm25("parse config", 5, repo="no-such-repo-xyz") == []
    finally:
        index.delete_repo(other)


def test_unicode_identifiers(index: SearchIndex, srepo: str) -> None:
    cs = [
        mk(srepo, "de/geometrie.py", "geometrie.berechne_größe", "def berechne_größe(fläche):\n    return fläche * 2"),
        mk(srepo, "ru/api.py", "api.получить_данные", "def получить_данные(клиент):\n    return клиент.данные"),
        mk(srepo, "zh/cart.py", "cart.计算总价", "def 计算总价(购物车):\n    return sum(购物车)"),
        mk(srepo, "fr/prix.py", "prix.calculerPrixTotal", "def calculerPrixTotal(panier):\n    return panier.somme"),
        *[mk(srepo, p, qn, t) for p, qn, t in DISTRACTORS],
    ]
    index.upsert_chunks(cs)
    assert qn_of(ids(index.bm25("größe", 3, repo=srepo))[0]) == "geometrie.berechne_größe"
    assert qn_of(ids(index.bm25("Berechne Größe", 3, repo=srepo))[0]) == "geometrie.berechne_größe"
    assert qn_of(ids(index.bm25("получить данные", 3, repo=srepo))[0]) == "api.получить_данные"
    assert qn_of(ids(index.bm25("计算总价", 3, repo=srepo))[0]) == "cart.计算总价"
    assert qn_of(ids(index.bm25("prix total", 3, repo=srepo))[0]) == "prix.calculerPrixTotal"
    got = index.get_chunks([cs[2].chunk_id])
    assert got[cs[2].chunk_id] == cs[2]


def test_ten_thousand_chunks_in_one_batch(index: SearchIndex, srepo: str) -> None:
    cs = [
        mk(srepo, f"pkg/mod{i // 50:03d}.py", f"pkg.mod{i // 50:03d}.handler_{i:05d}",
           f"def handler_{i:05d}(request):\n    return respond(request, code={i})", line=(i % 50) * 3 + 1)
        for i in range(10_000)
    ]
    t = time.perf_counter()
    index.upsert_chunks(cs)
    took = time.perf_counter() - t
    st = index.stats(srepo)
    assert st["chunks"] == 10_000 and st["with_vectors"] == 0
    assert qn_of(ids(index.bm25("handler_07321", 3, repo=srepo))[0]) == "pkg.mod146.handler_07321"
    by_file = index.chunk_ids_by_file(srepo)
    assert len(by_file) == 200 and all(len(v) == 50 for v in by_file.values())
    assert len(index.chunks_missing_vectors(srepo, limit=256)) == 256
    assert took < 120, f"10,000 chunks took {took:.1f}s"


def test_reupsert_is_idempotent(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, unit(np.random.default_rng(4), len(cs)), strict=True)})
    first = (index.stats(srepo)["chunks"], index.stats(srepo)["with_vectors"],
             index.bm25("parse config", 20, repo=srepo), index.chunk_ids_by_file(srepo))
    index.upsert_chunks(cs)
    index.upsert_chunks(cs + cs)  # duplicates inside one call too
    again = (index.stats(srepo)["chunks"], index.stats(srepo)["with_vectors"],
             index.bm25("parse config", 20, repo=srepo), index.chunk_ids_by_file(srepo))
    assert ids(again[2]) == ids(first[2])
    assert [s for _, s in again[2]] == pytest.approx([s for _, s in first[2]], rel=1e-5)
    assert (again[0], again[1], again[3]) == (first[0], first[1], first[3])


def test_read_during_write(index: SearchIndex, srepo: str, tmp_path: Path) -> None:
    base = corpus(srepo)
    index.upsert_chunks(base)
    big = [mk(srepo, f"gen/m{i // 100}.py", f"gen.m{i // 100}.parse_part_{i}",
              f"def parse_part_{i}(x):\n    return config[{i}]") for i in range(3000)]
    reader: SearchIndex = index
    if index.backend == "embedded":  # a second connection, as another process would have
        from codegraph.core.embedded_search import EmbeddedSearchIndex

        reader = EmbeddedSearchIndex(index.path)  # type: ignore[attr-defined]
    errors: list[BaseException] = []

    def write() -> None:
        try:
            index.upsert_chunks(big)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    w = threading.Thread(target=write)
    w.start()
    counts: list[int] = []
    try:
        while w.is_alive() or len(counts) < 3:
            top = ids(reader.bm25("parse config", 5, repo=srepo))
            assert top, "a read during the write returned nothing"
            counts.append(reader.stats(srepo)["chunks"])
        w.join()
        final = reader.stats(srepo)["chunks"]  # the write has returned: all of it is visible
    finally:
        w.join()
        if reader is not index:
            reader.close()
    assert not errors, errors
    assert final == len(base) + len(big)
    assert len(base) in counts  # some reads really ran before the write was visible
    if index.backend == "embedded":  # snapshot isolation: before or after, never half
        assert set(counts) <= {len(base), len(base) + len(big)}
    assert all(len(base) <= c <= len(base) + len(big) for c in counts)


def test_knn_returns_nearest(index: SearchIndex, srepo: str) -> None:
    rng = np.random.default_rng(5)
    cs = [mk(srepo, f"v/{i // 20}.py", f"v.f{i}", f"def f{i}(): pass") for i in range(200)]
    vecs = unit(rng, len(cs))
    index.upsert_chunks(cs)
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, vecs, strict=True)})
    for probe in (17, 123):
        q = vecs[probe] + 0.05 * unit(rng, 1)[0]
        got = index.knn(q, 5, repo=srepo)
        sims = vecs @ (q / np.linalg.norm(q))
        expect = [cs[i].chunk_id for i in np.argsort(-sims)[:5]]
        assert ids(got) == expect
        assert [s for _, s in got] == pytest.approx(sorted(sims, reverse=True)[:5], abs=1e-3)
    assert index.knn(vecs[0], 3, repo="no-such-repo-xyz") == []


def test_vectors_for_thousands_of_chunks_in_one_call(index: SearchIndex, srepo: str) -> None:
    # More than one bulk request (Elasticsearch sends several at once): every vector lands,
    # exactly, on its own chunk.
    rng = np.random.default_rng(8)
    cs = [mk(srepo, f"w/{i // 100}.py", f"w.g{i}", f"def g{i}(): pass") for i in range(2_500)]
    vecs = unit(rng, len(cs))
    index.upsert_chunks(cs)
    index.set_vectors({c.chunk_id: v for c, v in zip(cs, vecs, strict=True)})
    assert index.stats(srepo)["with_vectors"] == len(cs)
    assert index.chunks_missing_vectors(srepo) == []
    pos = {c.chunk_id: i for i, c in enumerate(cs)}
    for probe in (0, 1_234, 2_499):
        got = index.knn(vecs[probe], 3, repo=srepo)
        sims = vecs @ vecs[probe]
        assert ids(got)[0] == cs[probe].chunk_id and got[0][1] == pytest.approx(1.0, abs=1e-5)
        # Each hit's score is the cosine to the vector stored for that very chunk. The order
        # of the runners-up is not compared: HNSW (Elasticsearch) is approximate, and among
        # 2,500 random unit vectors the 2nd and 3rd nearest differ by less than its error.
        assert [s for _, s in got] == pytest.approx([float(sims[pos[cid]]) for cid in ids(got)], abs=1e-3)


def test_missing_vectors_drain_as_vectors_are_set(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    seen: list[str] = []
    while batch := index.chunks_missing_vectors(srepo, limit=4):
        assert len(batch) <= 4 and not {c.chunk_id for c in batch} & set(seen)
        seen += [c.chunk_id for c in batch]
        index.set_vectors({c.chunk_id: unit(np.random.default_rng(len(seen)), 1)[0] for c in batch})
    assert sorted(seen) == sorted(c.chunk_id for c in cs)
    assert index.stats(srepo)["with_vectors"] == len(cs)
    index.set_vectors({f"{srepo}|gone|x|y": unit(np.random.default_rng(9), 1)[0]})  # unknown id: ignored
    assert index.stats(srepo)["with_vectors"] == len(cs)
    with pytest.raises(ValueError):
        index.set_vectors({cs[0].chunk_id: np.zeros(10, dtype=np.float32)})


def test_has_vectors_per_repo(index: SearchIndex, srepo: str) -> None:
    cs = corpus(srepo)
    index.upsert_chunks(cs)
    assert index.has_vectors(srepo) is False
    index.set_vectors({cs[0].chunk_id: unit(np.random.default_rng(3), 1)[0]})
    assert index.has_vectors(srepo) is True and index.has_vectors(None) is True
    assert index.has_vectors("no-such-repo-xyz") is False


def test_unreachable_backend_raises_store_unavailable(index: SearchIndex, tmp_path: Path) -> None:
    if index.backend == "embedded":
        from codegraph.core.embedded_search import EmbeddedSearchIndex

        blocker = tmp_path / "not-a-dir"
        blocker.write_text("x")
        with pytest.raises(StoreUnavailable, match="CODEGRAPH_HOME"):
            EmbeddedSearchIndex(blocker / "search.db")
    else:
        from codegraph.core.elastic_search import ElasticsearchIndex

        dead = ElasticsearchIndex("http://127.0.0.1:9", "cgdead", request_timeout=2)
        t = time.perf_counter()
        with pytest.raises(StoreUnavailable, match="CODEGRAPH_SEARCH") as ei:
            dead.bm25("parse config", 5)
        assert "\n" not in str(ei.value)
        assert time.perf_counter() - t < 15


def test_each_content_kind_has_its_own_index_per_repo(index: SearchIndex, srepo: str) -> None:
    """Schema / config / docs chunks live in their kind's index: code BM25 never sees them,
    each kind's stats count only its own, and deleting the repo empties every kind."""
    code = mk(srepo, "app/orders.py", "app.orders.refund", "def refund(order):\n    return reverse(order)")
    doc = dataclasses.replace(mk(srepo, "README.md", "Orders > Refunds", "### Refunds\nA refund reverses an order.",
                                 kind="doc", language="docs"), chunk_id=f"docs:{srepo}:1", symbol_uid="", file_uid="")
    docs = index.for_kind("docs")  # type: ignore[attr-defined]
    assert index.for_kind("code") is index  # type: ignore[attr-defined]
    index.upsert_chunks([code])
    docs.upsert_chunks([doc])
    assert [c for c, _ in index.bm25("refund reverses order", 10, repo=srepo)] == [code.chunk_id]
    assert [c for c, _ in docs.bm25("refund reverses order", 10, repo=srepo)] == [doc.chunk_id]
    assert docs.stats(srepo)["chunks"] == 1 and index.stats(srepo)["chunks"] == 1
    assert docs.get_chunks([doc.chunk_id])[doc.chunk_id].qualified_name == "Orders > Refunds"
    if index.backend == "elasticsearch":
        assert docs.index_name(srepo).endswith("-docs") and index.index_name(srepo).endswith("-code")
    else:
        assert docs.path.name == "search-docs.db" and docs.path.parent == index.path.parent
    index.delete_repo(srepo)
    assert docs.stats(srepo)["chunks"] == 0
