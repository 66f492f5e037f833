"""Kotlin injection points and provider functions (``kotlin._Kotlin`` mixin; the rules
are docs/DESIGN.md#injection, the shared part ``jvm_inject.Injection``)."""

from __future__ import annotations

from tree_sitter import Node as TSNode

from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.jvm_inject import AUTOWIRE, PROVIDER, STEREOTYPE, Annotation, Injection
from codegraph.indexer.languages.typed import Scope


def _first(node: TSNode, type_: str) -> TSNode | None:
    return next((c for c in node.children if c.type == type_), None)


def _kt_strings(node: TSNode) -> tuple[str, ...]:
    if node.type == "string_literal":
        return ("".join(ts.text(c) for c in node.named_children if c.type == "string_content"),)
    if node.type == "collection_literal":
        return tuple(x for c in node.named_children for x in _kt_strings(c))
    return ()


def _annotation_names(mods: TSNode) -> list[Annotation]:
    """The annotations in a ``modifiers`` / ``parameter_modifiers`` node: type name as
    written, the strings given for ``value`` / ``name`` (or unnamed)."""
    out: list[Annotation] = []
    for a in mods.named_children:
        if a.type != "annotation":
            continue
        for c in a.named_children:
            t = _first(c, "user_type") if c.type == "constructor_invocation" else c if c.type == "user_type" else None
            if t is None:
                continue
            values: tuple[str, ...] = ()
            args = _first(c, "value_arguments") if c.type == "constructor_invocation" else None
            for v in args.named_children if args is not None else ():
                key = _first(v, "simple_identifier")
                if key is None or ts.text(key) in ("value", "name"):
                    values += tuple(x for e in v.named_children for x in _kt_strings(e))
            out.append((ts.text(t), values))
            break
    return out


def _annotations(node: TSNode) -> list[Annotation]:
    m = _first(node, "modifiers")
    return _annotation_names(m) if m is not None else []


class _Injection:
    """Dependency-injection methods of ``kotlin._Kotlin`` (set ``di`` and ``stereotypes``)."""

    di: Injection | None
    stereotypes: set[str]

    def _di_class(self, n: TSNode, scope: Scope, pc: TSNode | None, body: TSNode | None) -> None:
        """A stereotype class's primary constructor (when it has no secondary one) and an
        ``@Inject constructor(...)``: its parameters are injection points."""
        assert self.di is not None
        if STEREOTYPE in self.di.kinds(_annotations(n)):
            self.stereotypes.add(scope.qn)
        if pc is None:
            return
        secondary = body is not None and any(c.type == "secondary_constructor" for c in body.named_children)
        if AUTOWIRE in self.di.kinds(_annotations(pc)) or (scope.qn in self.stereotypes and not secondary):
            for p in pc.named_children:
                t = next((c for c in p.named_children if c.type in ("user_type", "nullable_type")), None) \
                    if p.type == "class_parameter" else None
                if t is not None:
                    self.di.point(scope.qn, scope.sig, ts.text(t), t, "constructor",
                                  ts.text(_first(p, "simple_identifier")), self.di.kinds(_annotations(p)))

    def _sole_secondary(self, n: TSNode) -> bool:
        """``n`` is the only constructor of its class (no primary one, no other secondary)."""
        body = n.parent
        decl = body.parent if body is not None else None
        if decl is None or _first(decl, "primary_constructor") is not None:
            return False
        return sum(1 for c in body.named_children if c.type == "secondary_constructor") == 1

    def _di_function(self, n: TSNode, sc: Scope, qn: str, sig: str) -> None:
        """A provider function (``@Bean`` / ``@Provides``) or an ``@Autowired`` /
        ``@Inject`` method: its parameters are injection points."""
        assert self.di is not None
        kinds = self.di.kinds(_annotations(n))
        params = _first(n, "function_value_parameters")
        if PROVIDER in kinds and params is not None:
            ret = next((c for c in n.named_children if c.type in ("user_type", "nullable_type")
                        and c.start_byte >= params.end_byte), None)
            if ret is not None:  # an expression body without a written type: unknown, no provider
                self.di.provider(qn, sig, ts.text(ret), n, kinds)
            self._di_params(params, qn, sig, "provider_parameter")
        elif AUTOWIRE in kinds and sc.kind == "class":
            self._di_params(params, sc.qn, sc.sig, "method")

    def _di_params(self, params: TSNode | None, source_qn: str, source_sig: str, via: str) -> None:
        assert self.di is not None
        mods: TSNode | None = None
        for p in params.named_children if params is not None else ():
            if p.type == "parameter_modifiers":
                mods = p
                continue
            if p.type == "parameter":
                t = next((c for c in p.named_children if c.type in ("user_type", "nullable_type")), None)
                if t is not None:
                    self.di.point(source_qn, source_sig, ts.text(t), t, via, ts.text(_first(p, "simple_identifier")),
                                  self.di.kinds(_annotation_names(mods)) if mods is not None else {})
            mods = None
