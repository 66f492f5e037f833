"""Value flow: functions handed over as values (callbacks, JSX props, route handlers)
give REFERENCES from the code handing them over and ``pass`` hints so a callee in the
repository that calls that parameter gets the CALLS edge (resolution ``parameter``)."""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.scopes import Ctx, Target
from codegraph.indexer.languages.javascript.syntax import _field, _t, _written


class _Flow:
    """Mixed into ``extractor._Extractor``: values that carry functions."""

    def callbacks(self, args: TSNode | None, ctx: Ctx, callee: Target | None = None) -> None:
        if args is None or args.type != "arguments":
            return
        for i, a in enumerate(c for c in args.named_children if c.type != "comment"):
            if a.type == "spread_element":
                break
            self.callback(a, ctx, callee, i)

    def callback(self, expr: TSNode, ctx: Ctx, callee: Target | None = None, index: int | None = None) -> None:
        """A function passed as a value (``arr.map(format)``, ``onClick={save}``,
        ``router.get('/x', handler)``): a REFERENCES edge from the code handing it
        over (impact walks it), and a ``pass`` hint so that a callee in the repo that
        calls that parameter gets the CALLS edge (resolution ``parameter``)."""
        extra: dict[str, Any] = {"callback": True, "optional": True}
        if callee is not None and callee.cands and index is not None:
            extra["pass"] = {"callee": callee.cands, "index": index, "kw": None}
        t = expr.type
        if t == "identifier":
            b = ctx.scope.lookup(_t(expr))
            if b is None or b.kind not in ("sym", "import", "alias"):
                return
            if b.kind == "sym" and b.sym_kind not in ("function", "class"):
                return
            tgt = self.binding_target(b, _t(expr), _t(expr), ["function", "class"])
            if tgt is not None:
                self.ref("REFERENCES", ctx, tgt, expr, **extra)
        elif t == "member_expression":
            obj, prop = _field(expr, "object"), _field(expr, "property")
            cls = ctx.cls
            if obj is not None and obj.type == "this" and cls is not None and cls.qn and _t(prop) in cls.methods:
                self.ref("REFERENCES", ctx, Target(_written(expr), [{"owner": cls.qn, "member": _t(prop), "how": "self"}],
                                                   _t(prop), ["method"]), expr, **extra)


