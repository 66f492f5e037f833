"""Dependency injection on the JVM: INJECTS for Spring, JSR-330 / Jakarta, Guice and Dagger.

Rules (docs/DESIGN.md#injection). An annotation counts only when the file's imports (or
its written qualified name, or a wildcard import of its package) make it the framework's
annotation: a class's own ``@Service`` is not Spring's.

- injection points: a field or property annotated ``@Autowired`` / ``@Inject``; every
  parameter of a method or constructor annotated so (setters, config methods); the
  constructor parameters of a Spring stereotype class (``@Component``, ``@Service``,
  ``@Repository``, ``@Controller``, ``@RestController``, ``@Configuration``, ...) when the
  class has exactly one constructor (Kotlin: its primary constructor and no secondary
  one), annotated or not; the parameters of a provider method (``@Bean``, Dagger / Guice
  ``@Provides``). A parameter annotated ``@Value`` is configuration, not a bean.
- the injected type is the written type, or the element of a wrapper
  (``List<T>``, ``Optional<T>``, ``ObjectProvider<T>``, ``Provider<T>``, ``Lazy<T>``, ``Map<K, T>``).
- INJECTS goes from the consumer (the class whose field / constructor / setter receives
  the value; for a provider method's parameter, that method) to the provider: the
  provider methods returning the injected type when the repository has any (repo-wide
  pass ``link_injection``), else the injected class or interface itself. Never a stub:
  an injected library type with no provider in the repository is no edge.

Records: the INJECTS ``Reference`` carries ``extra.inject`` (``field``, ``method``,
``constructor``, ``provider_parameter``) and ``extra.inject_types`` (the type's candidate
qualified names with how each was found); a provider method is a framework record
``{"type": "provider", "file", "line", "provider", "signature_hash", "returns", "framework"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import INJECTS
from codegraph.indexer.languages.class_based import ClassBasedExtractor
from codegraph.indexer.languages.skeleton import hints
from codegraph.indexer.languages.typed import strip_type
from codegraph.indexer.records import FileExtraction, Reference

AUTOWIRED = frozenset({"org.springframework.beans.factory.annotation.Autowired"})
INJECT = frozenset({"javax.inject.Inject", "jakarta.inject.Inject", "com.google.inject.Inject"})
STEREOTYPES = frozenset({
    "org.springframework.stereotype.Component", "org.springframework.stereotype.Service",
    "org.springframework.stereotype.Repository", "org.springframework.stereotype.Controller",
    "org.springframework.web.bind.annotation.RestController", "org.springframework.web.bind.annotation.ControllerAdvice",
    "org.springframework.web.bind.annotation.RestControllerAdvice",
    "org.springframework.context.annotation.Configuration",
    "org.springframework.boot.autoconfigure.SpringBootApplication",
})
PROVIDERS = {"org.springframework.context.annotation.Bean": "spring", "dagger.Provides": "dagger",
             "com.google.inject.Provides": "guice"}
VALUE = frozenset({"org.springframework.beans.factory.annotation.Value"})
QUALIFIERS = frozenset({"org.springframework.beans.factory.annotation.Qualifier", "javax.inject.Named",
                        "jakarta.inject.Named", "com.google.inject.name.Named"})
PRIMARY_ = frozenset({"org.springframework.context.annotation.Primary"})
# Lombok constructors: which fields become the generated constructor's parameters.
LOMBOK_CTORS = {"lombok.RequiredArgsConstructor": "required", "lombok.AllArgsConstructor": "all",
                "lombok.NoArgsConstructor": "none"}
NON_NULL = frozenset({"lombok.NonNull"})
KNOWN = AUTOWIRED | INJECT | STEREOTYPES | VALUE | QUALIFIERS | PRIMARY_ | NON_NULL | frozenset(PROVIDERS) \
    | frozenset(LOMBOK_CTORS)
# Wrappers whose (last) type argument is what gets injected.
WRAPPERS = frozenset({
    "java.util.List", "java.util.Set", "java.util.Collection", "java.util.Map", "java.util.Optional",
    "java.lang.Iterable", "javax.inject.Provider", "jakarta.inject.Provider", "com.google.inject.Provider",
    "org.springframework.beans.factory.ObjectProvider", "org.springframework.beans.factory.ObjectFactory",
    "dagger.Lazy", "kotlin.Lazy", "kotlin.collections.List", "kotlin.collections.Set",
    "kotlin.collections.Collection", "kotlin.collections.Iterable", "kotlin.collections.Map",
    "kotlin.collections.MutableList", "kotlin.collections.MutableSet", "kotlin.collections.MutableMap",
})
# Wrappers that receive every bean of the element type (the others receive one).
MANY = frozenset({
    "java.util.List", "java.util.Set", "java.util.Collection", "java.util.Map", "java.lang.Iterable",
    "kotlin.collections.List", "kotlin.collections.Set", "kotlin.collections.Collection",
    "kotlin.collections.Iterable", "kotlin.collections.Map", "kotlin.collections.MutableList",
    "kotlin.collections.MutableSet", "kotlin.collections.MutableMap",
})
# Names a file sees without importing them.
IMPLICIT = {
    "java": {"Iterable": "java.lang.Iterable"},
    "kotlin": {n: f"kotlin.collections.{n}" for n in (
        "List", "Set", "Collection", "Iterable", "Map", "MutableList", "MutableSet", "MutableMap")}
    | {"Lazy": "kotlin.Lazy"},
}
AUTOWIRE = "autowire"  # an annotation that makes a member an injection point (@Autowired / @Inject)
STEREOTYPE = "stereotype"
PROVIDER = "provider"  # value: the framework
NOT_A_BEAN = "value"
QUALIFIER = "qualifier"  # value: the bean name asked for
PRIMARY = "primary"
BEAN_NAMES = "names"  # value: the names a provider annotation gives its bean, comma-joined
NOT_NULL = "non_null"

# An annotation as the language module reads it: the name as written and the strings
# given for its ``value`` / ``name`` (``@Bean(name = "x")``, ``@Qualifier("q")``).
Annotation = tuple[str, tuple[str, ...]]


def may_inject(source: bytes) -> bool:
    """Cheap pre-check: can the file name a DI framework's annotation at all?"""
    return b"springframework" in source or b"inject" in source or b"dagger" in source


def _split_args(inner: str) -> list[str]:
    """Top-level comma-separated parts of a type-argument list."""
    out, depth, cur = [], 0, []
    for ch in inner:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


class Injection:
    """One file's injection points and provider methods (module docstring)."""

    def __init__(self, ex: ClassBasedExtractor, language: str) -> None:
        self.ex = ex
        self.implicit = IMPLICIT.get(language, {})
        self.found = False  # a DI annotation of a framework seen in this file

    def qualify(self, written: str, known: frozenset[str] = KNOWN) -> str | None:
        """The framework name ``written`` denotes in this file, if it is one of ``known``."""
        names = self.ex.names
        name = "".join(written.split()).lstrip("@")
        if "." in name:
            return name if name in known else None
        fqn = names.imports.get(name)
        if fqn is not None:
            return fqn if fqn in known else None
        if name in names.declared:
            return None
        for w in names.wildcards:
            if f"{w}.{name}" in known:
                return f"{w}.{name}"
        imp = self.implicit.get(name)
        return imp if imp in known else None

    def kinds(self, annotations: Iterable[Annotation]) -> dict[str, str]:
        """What the annotations make a declaration: ``AUTOWIRE``, ``STEREOTYPE``,
        ``PROVIDER`` (value: the framework; ``BEAN_NAMES``: the names it gives),
        ``QUALIFIER`` (value: the bean name asked for), ``PRIMARY``, ``NOT_A_BEAN``."""
        out: dict[str, str] = {}
        for a, values in annotations:
            fqn = self.qualify(a)
            if fqn is None:
                continue
            self.found = True
            if fqn in AUTOWIRED or fqn in INJECT:
                out[AUTOWIRE] = fqn
            elif fqn in STEREOTYPES:
                out[STEREOTYPE] = fqn
            elif fqn in PROVIDERS:
                out[PROVIDER] = PROVIDERS[fqn]
                if values:
                    out[BEAN_NAMES] = ",".join(values)
            elif fqn in VALUE:
                out[NOT_A_BEAN] = fqn
            elif fqn in QUALIFIERS and values:
                out[QUALIFIER] = values[0]
            elif fqn in PRIMARY_:
                out[PRIMARY] = fqn
            elif fqn in NON_NULL:
                out[NOT_NULL] = fqn
        return out

    def element_type(self, text: str) -> tuple[str, bool]:
        """The injected type of a written type and whether every bean of it is injected:
        ``List<? extends Plugin>`` -> (``Plugin``, True), ``Optional<Clock>`` -> (``Clock``, False)."""
        t = text.strip()
        many = False
        for _ in range(3):
            t = t.rstrip("?").strip()
            if "<" not in t or not t.endswith(">"):
                break
            wrapper = self.qualify("".join(t.split("<", 1)[0].split()), WRAPPERS)
            if wrapper is None:
                break
            many = many or wrapper in MANY
            t = _split_args(t[t.index("<") + 1:-1])[-1].strip()
        return strip_type(t), many

    def point(self, source_qn: str, source_sig: str, type_text: str, node: TSNode, via: str,
              name: str = "", kinds: Mapping[str, str] | None = None) -> None:
        """An injection point of ``type_text`` at ``node``, received by the source symbol;
        ``name`` is the field's / parameter's (Spring's last tie-break between beans),
        ``kinds`` what its own annotations say (a ``@Qualifier``, a ``@Value``)."""
        kinds = kinds or {}
        if NOT_A_BEAN in kinds:
            return
        t, many = self.element_type(type_text)
        if not t or not t[0].isupper() and "." not in t or self.ex.stack.is_type_param(t.split(".", 1)[0]):
            return
        cands = self.ex.type_candidates(t)
        if not cands:
            return
        extra: dict[str, Any] = {"inject": via, "inject_types": [[q, how] for q, how in cands]}
        if many:
            extra["inject_many"] = True
        if QUALIFIER in kinds:
            extra["inject_qualifier"] = kinds[QUALIFIER]
        if name:
            extra["inject_name"] = name
        self.ex.b.reference(INJECTS, source_qn, source_sig, t, node, hints(
            [{"qn": q, "how": "injection"} for q, _ in cands], None, optional=True, extra=extra, name_always=True))

    def provider(self, qn: str, sig: str, type_text: str, node: TSNode, kinds: Mapping[str, str]) -> None:
        """A provider method (``@Bean`` / ``@Provides``) returning ``type_text``; its bean
        names are the annotation's (else the method's name) and its own qualifier."""
        t = strip_type(type_text)
        if not t or not t[0].isupper() and "." not in t:
            return
        cands = self.ex.type_candidates(t)
        if cands:
            names = kinds[BEAN_NAMES].split(",") if BEAN_NAMES in kinds else [qn.rsplit(".", 1)[-1]]
            if QUALIFIER in kinds:  # @Bean @Qualifier("x") / @Provides @Named("x")
                names.append(kinds[QUALIFIER])
            self.ex.b.fx.framework.append({
                "type": "provider", "file": self.ex.b.path, "line": node.start_point[0] + 1, "provider": qn,
                "signature_hash": sig, "returns": [[q, how] for q, how in cands], "framework": kinds[PROVIDER],
                "names": names, "primary": PRIMARY in kinds})


def _known_type(cands: list[list[str]], declared: set[str]) -> str | None:
    """The qualified name a type's candidates denote: the first the repository declares,
    else the single one an explicit import or a qualified name gave; else unknown."""
    for q, _ in cands:
        if q in declared:
            return q
    if len(cands) == 1 and cands[0][1] in ("import", "exact"):
        return cands[0][0]
    return None


_TYPE_KINDS = frozenset({"class", "interface", "enum", "struct"})


@dataclass(frozen=True, slots=True)
class _Provider:
    qn: str
    names: tuple[str, ...]
    primary: bool
    test: bool  # declared in a test file: provides for tests only


def _wired(provs: list[_Provider], ref: Reference, consumer_is_test: bool) -> list[str]:
    """The providers Spring would wire into one injection point: test-source providers
    only into tests; a ``@Qualifier`` picks by bean name (none named so: none of these);
    a single point among several: the one ``@Primary``, else the one named like the
    field / parameter, else every one (each may be it); a collection gets all."""
    cands = [p for p in provs if consumer_is_test or not p.test]
    qualifier = ref.extra.get("inject_qualifier")
    if qualifier:
        return sorted(p.qn for p in cands if qualifier in p.names)
    if len(cands) > 1 and not ref.extra.get("inject_many"):
        primary = [p for p in cands if p.primary]
        named = [p for p in cands if ref.extra.get("inject_name") in p.names]
        for pick in (primary, named):
            if len(pick) == 1:
                return [pick[0].qn]
    return sorted({p.qn for p in cands})


def link_injection(extractions: list[FileExtraction], languages: Mapping[str, Any] = IMPLICIT) -> None:
    """Repo-wide pass: point every JVM INJECTS reference at the provider methods that
    return its type (``_wired``), when the repository has any (one reference per
    provider), else at the type. Mutates the extractions' references in place; safe to
    run twice (it starts over from ``inject_types`` and drops the copies of an earlier run)."""
    jvm = [fx for fx in extractions if fx.file.language in languages]
    declared = {s.qualified_name for fx in jvm for s in fx.symbols if s.kind in _TYPE_KINDS}
    providers: dict[str, list[_Provider]] = {}
    for fx in jvm:
        for r in fx.framework:
            if r.get("type") == "provider" and isinstance(r.get("returns"), list) and r.get("provider"):
                t = _known_type(r["returns"], declared)
                if t is not None:
                    providers.setdefault(t, []).append(_Provider(
                        r["provider"], tuple(r.get("names") or ()), bool(r.get("primary")), fx.file.is_test))
    for fx in jvm:
        refs = [r for r in fx.references if not r.extra.get("inject_copy")]  # a second run starts over
        added: list[Reference] = []
        for ref in refs:
            types = ref.extra.get("inject_types") if ref.type == INJECTS else None
            if not isinstance(types, list):
                continue
            t = _known_type(types, declared)
            provs = _wired(providers.get(t, []), ref, fx.file.is_test) if t is not None else []
            if not provs:
                ref.extra["candidates"] = [{"qn": q, "how": "injection"} for q, _ in types]
                continue
            # The resolver links the first candidate that exists: one reference per provider.
            ref.extra["candidates"] = [{"qn": provs[0], "how": "injection"}]
            for p in provs[1:]:
                added.append(replace(ref, extra={**ref.extra, "candidates": [{"qn": p, "how": "injection"}],
                                                 "inject_copy": True}))
        fx.references[:] = refs + added
