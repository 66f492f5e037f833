"""One definition of each figure: Overview, Health, Coverage, ``codegraph stats`` and
the core (core.figures) show the same edges, stubs, unresolved share and unsupported
files for the same graph. (The MCP ``stats`` tool is checked in tests/mcp.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from codegraph.core.figures import Figures, figures
from codegraph.core.stores import open_graph_store
from tests.dashboard.shop import Indexed, dashboard_env

App = Callable[..., AppTest]


def _metrics(at: AppTest) -> dict[str, str]:
    assert not at.exception, [e.value for e in at.exception]
    return {m.label: m.value for m in at.metric}


def _core(shop: Indexed) -> Figures:
    g = open_graph_store(shop.settings)
    try:
        return figures(g, None)
    finally:
        g.close()


def test_pages_cli_and_core_show_the_same_figures(app: App, shop: Indexed) -> None:
    f = _core(shop)
    # The shop has a README.txt (a language the indexer does not read) and unresolved calls.
    assert f.edges > 0 and f.stubs > 0 and f.stub_references > 0 and f.unsupported_files == 1
    unresolved = f"{f.unresolved_pct:.1f} %"

    overview = _metrics(app())
    assert overview["Edges"] == str(f.edges)
    assert overview["Unresolved stubs"] == str(f.stubs)
    assert overview["Unresolved references"] == unresolved
    assert overview["Unsupported files"] == str(f.unsupported_files)
    assert overview["Files"] == str(f.files) and overview["Symbols"] == str(f.symbols)

    health = _metrics(app("health.py"))
    assert health["Edges"] == str(f.edges) and health["Repositories"] == str(f.repos)

    coverage = _metrics(app("coverage.py"))
    assert coverage["Unresolved references"] == unresolved
    assert coverage["Unsupported files"] == str(f.unsupported_files)
    assert coverage["Files"] == str(f.files)

    env = {**os.environ, **dashboard_env(shop.home)}
    r = subprocess.run([sys.executable, "-m", "codegraph", "stats", "--json"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    cli = json.loads(r.stdout)["figures"]
    assert cli == f.to_dict()
    assert cli["unresolved_pct"] == f.unresolved_pct
