"""A CLI refresh (``codegraph index PATH --no-embed``) imports no pydantic: the cross-repo
relink after each index reads the project config through core/workspace.py, whose
``config_path`` needs no registry models (docs/DESIGN.md#refresh; the figures are
bench/bench_refresh_affected.py's, nothing is timed here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import json, sys
sys.argv = ["codegraph", *sys.argv[1:]]
from codegraph.cli import main
try:
    main(sys.argv[1:])  # in process: main() without arguments ends the process (cli._exit_fast)
except SystemExit as e:
    code = e.code
else:
    code = 0
sys.stderr.write("\\nMODULES " + json.dumps([code, sorted({m.split(".")[0] for m in sys.modules})]) + "\\n")
"""


def test_index_and_refresh_from_the_cli_import_no_pydantic(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    for step in ("index", "refresh"):
        if step == "refresh":
            (root / "a.py").write_text("def a():\n    return 2\n")
        out = subprocess.run([sys.executable, "-c", _PROBE, "index", str(root), "--no-embed", "--json"],
                             capture_output=True, text=True, env=env, check=True)
        code, loaded = json.loads(next(ln for ln in out.stderr.splitlines() if ln.startswith("MODULES "))[8:])
        assert code in (0, None), out.stderr[-500:]
        assert "pydantic" not in loaded, step
