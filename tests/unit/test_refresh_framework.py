"""Which files with framework records a refresh resolves again (codegraph.indexer.affected,
docs/DESIGN.md#refresh): those whose resolved edges the boundary pass reads (an HTTP
call, an endpoint, a constant with an imported piece) always; a file whose only records
are constants of its own pieces only when a change reaches it — and the graph equals a
full index either way, the URL composed across three files included."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.models import CALLS_HTTP
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.property.graph_dump import assert_same_as_fresh_index

FILES = {
    "api.py": 'BASE = "/api"\n',  # a constant of its own pieces: a `const` record, no hole_imports
    "urls.py": 'from api import BASE\n\nUSERS = f"{BASE}/users"\n',  # const with an imported piece
    "client.py": "import requests\n\nfrom urls import USERS\n\n\ndef get_users():\n    return requests.get(USERS)\n",
    "server.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route("/api/users")\n'
                 "def users():\n    return []\n\n\n@app.route(\"/v2/users\")\ndef users_v2():\n    return []\n",
    "other.py": "def other():\n    return 2\n",
}


def _check(tmp: Path, graph: EmbeddedGraphStore, root: Path, tag: str) -> set[tuple[str, str]]:
    """The graph equals a fresh full index of ``root``; returns its HTTP call edges."""
    assert_same_as_fresh_index(tmp, graph, "r", root, tag=f"fresh-{tag}")
    calls = graph.neighbours([f"endpoint|r|GET {p}" for p in ("/api/users", "/v2/users")], "in", [CALLS_HTTP])
    return {(uid.rsplit(" ", 1)[1], h.node.props.get("qualified_name")) for uid, hits in calls.items() for h in hits}


def test_a_file_of_own_constants_is_resolved_only_when_a_change_reaches_it(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    for rel, text in FILES.items():
        (root / rel).write_text(text)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        assert _check(tmp_path, graph, root, "0") == {("/api/users", "client.get_users")}
        # An unrelated edit: other.py, and the files the boundary pass reads edges of
        # (client.py: an HTTP call; urls.py: a constant with an imported piece; server.py:
        # endpoints); not api.py.
        (root / "other.py").write_text(FILES["other.py"] + "\n\ndef more():\n    return 3\n")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert (s.files, s.resolved_files) == (5, 4)
        assert _check(tmp_path, graph, root, "1") == {("/api/users", "client.get_users")}
        # The constant itself changes: the call now reaches the other endpoint.
        (root / "api.py").write_text('BASE = "/v2"\n')
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.changed == 1
        assert _check(tmp_path, graph, root, "2") == {("/v2/users", "client.get_users")}
    finally:
        state.close()
        graph.close()
