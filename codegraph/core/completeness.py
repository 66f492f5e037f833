"""Completeness of a repo's graph (docs/hardening.md, "Completeness").

A run marks the Repo node ``run_state="running"`` before its first graph write, keeping
the commit and import time of the last complete run, and ``"complete"`` (with its own
commit and time) after its last one. A run killed in between leaves "running": answers
then carry ``incomplete: true`` with the reason, and ``codegraph verify`` fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from codegraph.core.models import Node, RepoRecord

RUNNING, COMPLETE = "running", "complete"


def run_owner() -> str:
    """``host:pid`` of this process (names the run in lock and completeness records)."""
    import socket  # only runs that write need it: queries import this module too

    return f"{socket.gethostname()}:{os.getpid()}"


def running_record(rec: RepoRecord, before: Node | None, now: str) -> RepoRecord:
    """``rec`` as written at a run's start: state running, and the commit / import time
    of the last complete run (none for a first run)."""
    p = before.props if before is not None else {}
    return replace(rec, last_commit_sha=p.get("last_commit_sha"), last_imported_at=p.get("last_imported_at"),
                   run_state=RUNNING, run_started_at=now, run_owner=run_owner())


def previous_run_unfinished(graph: Any, repo: str, state_updated_at: str | None = None) -> bool:
    """True when ``repo``'s last run started writing the graph and never finished, or
    when the graph and the state file were not written by the same run (a run killed
    between the two writes: its ``updated_at`` is the Repo node's ``last_checked_at``)."""
    uid = RepoRecord(repo, "").uid
    node = graph.get_nodes([uid]).get(uid)
    if node is None:
        return False
    if incomplete_reason(node.props) is not None:
        return True
    return state_updated_at is not None and node.props.get("last_checked_at") != state_updated_at


@contextmanager
def run_transaction(graph: Any) -> Iterator[None]:
    """The store's whole-run transaction where it has one (the embedded graph), else
    nothing: Neo4j answers from what is written, with ``incomplete`` while a run is open."""
    atomic = getattr(graph, "atomic", None)
    if atomic is None:
        yield
        return
    with atomic():
        yield


def commit_run(graph: Any, checkpoint: bool = True) -> None:
    """Commit the store's whole-run transaction now where it has one (``run_transaction``;
    the embedded graph), else nothing. ``checkpoint=False``: the store's WAL checkpoint is
    left to its ``checkpoint()`` (``EmbeddedGraphStore.commit_run``)."""
    commit = getattr(graph, "commit_run", None)
    if commit is not None:
        commit(checkpoint=checkpoint)


def incomplete_reason(props: dict[str, Any]) -> str | None:
    """Why a Repo node's graph is not complete, or None when it is."""
    if props.get("run_state", COMPLETE) != RUNNING:
        return None
    return (f"a run started at {props.get('run_started_at')} by {props.get('run_owner')} has not finished "
            "(still running, or killed): the graph may hold part of it; re-run `codegraph index` or `load`")
