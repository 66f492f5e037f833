"""Elasticsearch full loads: index settings for the load and bulk requests kept in flight
across ``upsert_chunks`` calls (docs/DESIGN.md#search).

``ElasticsearchIndex.bulk_load(repo)`` uses this module. Inside the block the repo's code
index has periodic refresh off (``refresh_interval: -1``) and an asynchronous translog
(fsync every 5 s instead of per request), writes are not refreshed per call (one refresh
at the end), an index created by the load skips the look-up of stored content hashes,
and bulk requests go out from a small pool without the caller waiting for each: the
next batch is built and encoded while the server indexes the previous ones. An index the
load creates is created with these settings (one cluster-state update, not two). On leaving
the block, by success or error, the requests still queued are sent and waited for, then the
settings go back to the defaults while the index is refreshed (the two requests at once).

A process killed inside the block cannot restore anything; the next writer that opens
the index finds ``refresh_interval: -1`` and puts the defaults back
(``settings_left_by_a_load``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

IN_FLIGHT = 2  # bulk requests indexed at once: one per core of the 2-core target machine
QUEUED = 2  # more requests encoded and waiting, so the server never waits for the client

# Index-level settings only (the server is shared): null puts a setting back to its default
# (refresh every second while searched, translog fsync per request).
LOAD_SETTINGS: dict[str, Any] = {"index": {"refresh_interval": "-1", "translog": {"durability": "async"}}}
DEFAULT_SETTINGS: dict[str, Any] = {"index": {"refresh_interval": None, "translog": {"durability": None}}}


def settings_left_by_a_load(index_settings: dict[str, Any]) -> bool:
    """True when an index's settings (``GET <index>`` -> settings) still carry a load's
    ``refresh_interval: -1`` (a killed load, or an index made by an older codegraph)."""
    return str(index_settings.get("index", {}).get("refresh_interval", "")) == "-1"


class BulkLoad:
    """The bulk requests of one full load of ``index``: ``submit`` queues a request (it
    blocks while ``IN_FLIGHT + QUEUED`` are outstanding, so memory stays bounded) and
    ``drain`` waits for every one, raising the first error. ``empty``: the index was
    created by this load, so no stored document needs a look-up."""

    def __init__(self, index: str, empty: bool) -> None:
        self.index = index
        self.empty = empty
        self._pool = ThreadPoolExecutor(IN_FLIGHT, thread_name_prefix="codegraph-bulk-load")
        self._pending: deque[Future[None]] = deque()

    def submit(self, send: Callable[[list[dict[str, Any]]], None], part: list[dict[str, Any]]) -> None:
        while len(self._pending) >= IN_FLIGHT + QUEUED:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(send, part))

    def drain(self) -> None:
        """Wait for every queued request; the first error is raised after all are done."""
        first: BaseException | None = None
        while self._pending:
            try:
                self._pending.popleft().result()
            except BaseException as e:  # noqa: BLE001 - keep waiting, then raise the first
                first = first or e
        if first is not None:
            raise first

    def close(self) -> None:
        """Wait for every queued request without raising (the block is ending by an error
        already): what ``upsert_chunks`` accepted is written either way."""
        for f in self._pending:
            f.exception()
        self._pending.clear()
        self._pool.shutdown(wait=True)
