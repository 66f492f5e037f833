"""Helper process for tests/contract/test_completeness.py (not a test module).

``python -m tests.contract.run_and_hang MODE ROOT REPO READY`` with the store settings
in the environment. MODE ``hang-in-link``: index ROOT as REPO and stop forever inside the
link phase (after the load wrote files and symbols), touching READY first. MODE
``hang-in-extract``: extraction workers sleep forever; READY gets this process's pid.
The test kills this process with SIGKILL.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from codegraph.core.settings import load_settings
from codegraph.core.stores import open_graph_store
from codegraph.indexer import pipeline
from codegraph.indexer.state import StateStore


def _sleep_forever(job: Any) -> Any:
    time.sleep(3600)
    raise SystemExit(1)


def main() -> None:
    mode, root, repo, ready = sys.argv[1:5]
    settings = load_settings()
    graph = open_graph_store(settings)
    state = StateStore(Path(settings.state_db))
    if mode == "hang-in-link":
        real = graph.replace_edges

        def hang(*a: Any, **kw: Any) -> Any:
            Path(ready).write_text("in link")
            time.sleep(3600)
            return real(*a, **kw)

        graph.replace_edges = hang  # type: ignore[method-assign]
        pipeline.index_repo(Path(root), repo, graph, None, state, workers=1, force=True)
    else:
        pipeline._extract_job = _sleep_forever  # type: ignore[assignment]
        Path(ready).write_text(str(os.getpid()))
        pipeline.index_repo(Path(root), repo, graph, None, state, workers=2, force=True)


if __name__ == "__main__":
    main()
