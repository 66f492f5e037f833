"""Long-running helper of ``bench_refresh_affected.py``: one process holding the stores of
one side (its code comes first on ``PYTHONPATH``), so the in-process refresh is measured
as in ``codegraph watch`` or a server (decoded state cached between runs).

Reads one JSON command per line on stdin, answers one JSON line on stdout:

- ``{"cmd": "index"}``: full index of ``SRC`` -> files, symbols, edges, seconds;
- ``{"cmd": "refresh", "full": bool}``: ``index_repo`` after an edit made by the parent
  -> ``wall_ms`` / ``cpu_ms`` (perf_counter / process_time around the call), resolved
  files, files read to hash them, phase timings (ms);
- ``{"cmd": "recording", "runs": n}``: CPU s of a full resolution with the plain
  ``SymbolTable`` and with the ``TracingTable`` (medians, alternating);
- ``{"cmd": "quit"}``.

    python bench/refresh_driver.py SRC HOME REPO EXCLUDE_JSON
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    src, home, repo, exclude = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import open_graph_store, open_search_index
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    settings = load_settings(home=home, graph="embedded", search="embedded")
    graph, search = open_graph_store(settings), open_search_index(settings)
    state = StateStore(home / "state.db")
    for line in sys.stdin:
        cmd = json.loads(line)
        out: dict = {}
        if cmd["cmd"] == "index":
            t = time.perf_counter()
            s = index_repo(src, repo, graph, search, state, exclude=exclude, workers=2)
            out = {"files": s.files, "symbols": s.symbols, "edges": s.edges, "seconds": time.perf_counter() - t}
        elif cmd["cmd"] == "refresh":
            t, c = time.perf_counter(), time.process_time()
            s = index_repo(src, repo, graph, search, state, exclude=exclude, workers=1, full_resolve=cmd["full"])
            out = {"wall_ms": (time.perf_counter() - t) * 1000, "cpu_ms": (time.process_time() - c) * 1000,
                   "resolved_files": s.resolved_files, "files": s.files,
                   "hashed": getattr(s, "hashed", s.files),  # files read to hash them (all, before the stat skip)
                   "phases_ms": {k: v * 1000 for k, v in s.timings.items()}}
        elif cmd["cmd"] == "recording":
            from codegraph.indexer.resolve import SymbolTable, link_bases, resolve_repo
            from codegraph.indexer.tracing_table import TracingTable

            all_fx = sorted(state.extractions(repo).values(), key=lambda fx: fx.file.path)
            times: dict[str, list[float]] = {"plain": [], "recording": []}
            for _ in range(cmd["runs"]):
                for side, cls in (("plain", SymbolTable), ("recording", TracingTable)):
                    c = time.process_time()
                    table = cls(repo, all_fx)
                    link_bases(table, all_fx)
                    resolve_repo(repo, all_fx, table=table)
                    times[side].append(time.process_time() - c)
            out = {k: statistics.median(v) for k, v in times.items()}
        elif cmd["cmd"] == "quit":
            break
        print(json.dumps(out), flush=True)
    graph.close()
    search.close()
    state.close()


if __name__ == "__main__":
    main()
