"""Exceptions the core raises; each carries a message a person can act on."""

from __future__ import annotations


class CodegraphError(Exception):
    """Base class: ``str(err)`` is one readable line meant for the user."""


class StoreUnavailable(CodegraphError):
    """A store backend did not answer (server down, wrong address, bad credentials).

    The message names the setting to check, e.g. ``CODEGRAPH_GRAPH``.
    """


class Unsupported(CodegraphError):
    """The selected backend cannot do this (e.g. raw Cypher on the embedded graph)."""


class TargetNotFound(CodegraphError):
    """A query target (symbol, file:, table:, endpoint:, topic:) matched nothing."""


class ReadOnlyViolation(CodegraphError):
    """A raw query contained a write clause and was refused before being sent."""


class BadInput(CodegraphError):
    """Input the indexer or loader cannot use (malformed JSONL, unreadable path...)."""
