"""What the resolver computes from a reference's ``extra``, kept for the references that
repeat it (docs/DESIGN.md#resolution).

A repository names the same thing with the same hints again and again: the standard
library's references repeat an earlier one's target identifier and ``extra`` ~60 % of the
time across the run and ~40 % within one file. The parsed hints are computed once per
distinct ``extra`` (``resolve.parsed_hints``, with this memo); references sharing a RefHints
share what they resolve to too (``resolve.resolve_refs``: with the dependency keys its
look-ups read, added to each later reference's file).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ExtraMemo(Generic[K, V]):
    """``key`` (a reference's target identifier, with what else the value depends on) ->
    values per distinct ``extra`` (compared with ``==``: JSON values, so equal means the
    same hints). ``get`` -> the value of an equal ``extra`` or None; at most ``keep``
    values per key (``self.m`` has other candidates in every class). Values are shared:
    nothing may mutate them."""

    __slots__ = ("_by", "_keep")

    def __init__(self, keep: int = 8) -> None:
        self._by: dict[K, list[tuple[dict[str, Any], V]]] = {}
        self._keep = keep

    def get(self, key: K, extra: dict[str, Any]) -> V | None:
        same = self._by.get(key)
        if same is not None:
            for e, v in same:
                if e == extra:
                    return v
        return None

    def put(self, key: K, extra: dict[str, Any], value: V) -> None:
        same = self._by.get(key)
        if same is None:
            self._by[key] = [(extra, value)]
        elif len(same) < self._keep:
            same.append((extra, value))

    def clear(self) -> None:
        self._by.clear()


__all__ = ["ExtraMemo"]
