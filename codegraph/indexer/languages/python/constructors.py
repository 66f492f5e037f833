"""Python constructor arguments: the type of an unannotated ``__init__`` parameter from
the constructions of its class this file shows (``Svc(Db())`` -> ``db`` is a ``Db``), so
``self.db = db`` then ``self.db.get()`` reaches ``Db.get`` (docs/DESIGN.md#resolution).

Conservative: every visible construction must pass a value of one known class at that
position or keyword (a default counts where the argument is left out). Nothing is
inferred when a construction is out of sight in this file: the class handed around as a
value, constructed through ``cls(...)``, subclassed here, or called with ``*args`` /
``**kw``. Constructions in other files are not seen (the extractor reads one file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from codegraph.indexer.languages.python.common import F_ARGUMENTS, F_NAME, F_VALUE, memoized

if TYPE_CHECKING:
    from codegraph.indexer.languages.python.scopes import _Scope

_SPLAT = object()  # an argument list whose positions are unknown


class ConstructorsMixin:
    """Constructor-argument types of the Python extractor (see module doc)."""

    caps: dict[str, list[Node]]
    call_fns: list[tuple[Node, Node | None]]

    def constructor_arg_type(self, fn: _Scope, name: str, index: int | None, default: Node | None) -> Any:
        """Type of parameter ``name`` (positional ``index``) of ``fn`` when ``fn`` is the
        ``__init__`` of a class of this file and every visible construction agrees; None
        otherwise."""
        cls = fn.parent
        if index is None or cls is None or cls.kind != "class" or fn.qn != f"{cls.qn}.__init__":
            return None
        key = ("ctor_arg", id(fn), index)
        memo = self.memo
        if key in memo:  # a hit does not build the closure
            return memo[key]

        def compute() -> Any:
            sites = self.constructions(cls)
            if not sites:
                return None
            types: list[Any] = []
            for sc, call in sites:
                arg = self.call_argument(call, index, name)
                if arg is _SPLAT:
                    types = [None]
                    break
                if arg is None:
                    types.append(self.type_of_expr(cls, default) if default is not None else None)
                else:
                    types.append(self.type_of_expr(sc, arg))
            return self.combine_types(types)

        return memoized(memo, self.in_progress, key, compute)

    def constructions(self, cls: _Scope) -> list[tuple[Any, Node]] | None:
        """(scope, call) of every ``Cls(...)`` of this file naming ``cls``; None when a
        construction may be out of sight (see module doc)."""
        key = ("constructions", id(cls))
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        self.memo[key] = None
        name = cls.qn.rsplit(".", 1)[-1]
        by_name = self.calls_by_name()
        if self.names_as_values().get(name) and any(
                self.names_cls(self.scope_at(n.start_byte), name, cls) for n in self.names_as_values()[name]):
            return None  # handed around: constructed where this file cannot see
        for sub in self.class_scopes:
            if any(ent[3] is cls for _, ent in self.base_entities(sub)):
                return None  # a subclass may construct it with other arguments
        for call in by_name.get("cls", ()):
            t = self.resolve_name(self.scope_at(call.start_byte), "cls")
            if t[0] == "type" and isinstance(t[1], tuple) and t[1][0] == "inst" and t[1][3] is cls:
                return None  # cls(...) in a classmethod
        out = [(sc, call) for call in by_name.get(name, ())
               if self.names_cls(sc := self.scope_at(call.start_byte), name, cls)]
        self.memo[key] = out
        return out

    def names_cls(self, scope: Any, name: str, cls: _Scope) -> bool:
        kind, val = self.resolve_name(scope, name)
        return kind == "entities" and any(e[0] == "def" and e[3] is cls for e in val)

    def calls_by_name(self) -> dict[str, list[Node]]:
        """Calls whose callee is a bare name, by that name (built once per file)."""
        idx = self.memo.get("calls_by_name")
        if idx is None:
            idx = {}
            for call, fn in self.call_fns:
                if fn is not None and fn.type == "identifier":
                    idx.setdefault(self.text(fn), []).append(call)
            self.memo["calls_by_name"] = idx
        return idx  # type: ignore[no-any-return]

    def names_as_values(self) -> dict[str, list[Node]]:
        """Bare names used where a value goes (the ``val`` captures), by name."""
        idx = self.memo.get("names_as_values")
        if idx is None:
            idx = {}
            for n in self.caps.get("val", ()):  # in document order (extractor.run)
                if n.type == "identifier":
                    idx.setdefault(self.text(n), []).append(n)
            self.memo["names_as_values"] = idx
        return idx  # type: ignore[no-any-return]

    @staticmethod
    def call_argument(call: Node, index: int, name: str) -> Any:
        """The argument node a call passes at ``index`` or as keyword ``name``; None when
        left out, ``_SPLAT`` when ``*args`` / ``**kw`` make it unknown."""
        args = call.child_by_field_id(F_ARGUMENTS)
        if args is None or args.type != "argument_list":
            return _SPLAT
        pos = 0
        found = None
        for a in args.named_children:
            t = a.type
            if t == "comment":
                continue
            if t in ("list_splat", "dictionary_splat"):
                return _SPLAT
            if t == "keyword_argument":
                nm = a.child_by_field_id(F_NAME)
                if nm is not None and nm.text is not None and nm.text.decode("utf-8", "replace") == name:
                    found = a.child_by_field_id(F_VALUE)
                continue
            if pos == index:
                found = a
            pos += 1
        return found
