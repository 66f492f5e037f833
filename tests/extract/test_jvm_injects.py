"""Dependency injection on the JVM (docs/DESIGN.md#injection): exact INJECTS edge sets of
tests/fixtures/java_di and tests/fixtures/kotlin_di (a missing and an extra edge both fail)."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.languages import link_repo
from codegraph.indexer.resolve import resolve_repo
from tests.helpers import _end, extract_tree

FIX = Path(__file__).resolve().parents[1] / "fixtures"

JAVA = {
    # @Bean method parameters: injected into the provider method; a type some @Bean
    # returns goes to that method (DataSource, an external type), else to the class
    ("com.shop.config.AppConfig.gateway", "com.shop.store.Clock", "provider_parameter"),
    ("com.shop.config.AppConfig.gateway", "com.shop.config.AppConfig.dataSource", "provider_parameter"),
    # stereotype class, one constructor without @Autowired: its parameters (not the @Value one);
    # an interface type goes to the interface (implementations are reached through dispatch)
    ("com.shop.orders.OrderService", "com.shop.store.OrderRepo", "constructor"),
    ("com.shop.orders.OrderService", "com.shop.config.AppConfig.gateway", "constructor"),
    # @Autowired fields (List<Plugin>: the element type) and setter
    ("com.shop.orders.OrderService", "com.shop.store.Clock", "field"),
    ("com.shop.orders.OrderService", "com.shop.pay.Plugin", "field"),
    ("com.shop.orders.OrderService", "com.shop.config.AppConfig.dataSource", "method"),
    # jakarta @Inject field and constructor of a plain class (its other constructors are not)
    ("com.shop.orders.Audit", "com.shop.store.Clock", "field"),
    ("com.shop.orders.Audit", "com.shop.store.OrderRepo", "constructor"),
    ("com.shop.web.OrdersApi", "com.shop.orders.OrderService", "constructor"),
    # not: Controller2 (two constructors, none annotated), Fake (@Service is the package's own
    # annotation, not Spring's), AppConfig.notABean, OrderService.setIgnored / notInjected
}

KOTLIN = {
    ("com.shop.AppConfig.mailer", "com.shop.Clock", "provider_parameter"),
    # primary constructor of a stereotype class (not the @Value parameter; List<Plugin> -> Plugin)
    ("com.shop.OrderService", "com.shop.OrderRepo", "constructor"),
    ("com.shop.OrderService", "com.shop.AppConfig.mailer", "constructor"),
    ("com.shop.OrderService", "com.shop.Plugin", "constructor"),
    # @Autowired lateinit property and setter; DataSource? from @Bean dataSource()
    ("com.shop.OrderService", "com.shop.Clock", "field"),
    ("com.shop.OrderService", "com.shop.AppConfig.dataSource", "method"),
    # javax @Inject primary and secondary constructors of a plain class (Int is no bean of the repo)
    ("com.shop.Audit", "com.shop.OrderRepo", "constructor"),
    ("com.shop.Audit", "com.shop.Clock", "constructor"),
    # a stereotype class whose only constructor is a secondary one
    ("com.shop.Worker", "com.shop.Clock", "constructor"),
    # not: Plain (no annotation), TwoCtors (primary + secondary, none annotated),
    # AppConfig.untyped (no written return type), notInjected
}


def _injects(root: Path, runs: int = 1) -> set[tuple[str, str, str]]:
    fxs = extract_tree(root)
    for _ in range(runs):  # the repo-wide pass may run again (refresh): same answer
        link_repo(fxs, root)
    res = resolve_repo("fx", fxs)
    edges = [e for es in res.edges.values() for e in es if e.type == "INJECTS"]
    assert all(e.resolution == "injection" for e in edges)
    assert not [e for e in edges if e.target.startswith("stub|")]  # never a stub
    return {(_end(e.source), _end(e.target), e.extra.get("inject", "")) for e in edges}


def test_java_injection_edge_set_is_exact() -> None:
    assert _injects(FIX / "java_di") == JAVA


def test_kotlin_injection_edge_set_is_exact() -> None:
    assert _injects(FIX / "kotlin_di") == KOTLIN


def test_link_pass_runs_twice_without_changing_the_edges() -> None:
    assert _injects(FIX / "java_di", runs=2) == JAVA
    assert _injects(FIX / "kotlin_di", runs=3) == KOTLIN


def test_two_providers_of_one_type_both_get_the_edge(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "Cfg.java").write_text(
        "package p;\nimport org.springframework.context.annotation.Bean;\n"
        "class Cfg {\n  @Bean Clock a() { return null; }\n  @Bean Clock b() { return null; }\n}\n")
    (tmp_path / "p" / "Clock.java").write_text("package p;\npublic class Clock {}\n")
    (tmp_path / "p" / "Use.java").write_text(
        "package p;\nimport javax.inject.Inject;\nclass Use {\n  @Inject Clock clock;\n}\n")
    assert _injects(tmp_path, runs=2) == {("p.Use", "p.Cfg.a", "field"), ("p.Use", "p.Cfg.b", "field")}


def test_no_framework_import_no_injection(tmp_path: Path) -> None:
    """``@Inject`` / ``@Autowired`` of no known framework (own annotations) make no edge."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "Inject.java").write_text("package p;\npublic @interface Inject {}\n")
    (tmp_path / "p" / "Clock.java").write_text("package p;\npublic class Clock {}\n")
    (tmp_path / "p" / "Use.java").write_text("package p;\nclass Use {\n  @Inject Clock clock;\n}\n")
    assert _injects(tmp_path) == set()


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


_CLOCK = "package p;\npublic class Clock {}\n"
_CFG = ("package p;\nimport org.springframework.context.annotation.Bean;\n"
        "import org.springframework.context.annotation.Primary;\n"
        "import org.springframework.beans.factory.annotation.Qualifier;\n"
        "class Cfg {{\n  @Bean {a} Clock utc() {{ return null; }}\n"
        "  @Bean(name = \"zone\", initMethod = \"start\") Clock local() {{ return null; }}\n}}\n")


def _use(field: str) -> str:
    return ("package p;\nimport java.util.List;\nimport org.springframework.beans.factory.annotation.Autowired;\n"
            "import org.springframework.beans.factory.annotation.Qualifier;\n"
            f"class Use {{\n  {field}\n}}\n")


def test_several_providers_narrowed_as_spring_wires_them(tmp_path: Path) -> None:
    """@Qualifier (by bean name, not by initMethod), @Primary, the field's name; a
    collection receives every bean."""
    cases = {
        ("", '@Autowired @Qualifier("zone") Clock c;'): {("p.Use", "p.Cfg.local", "field")},
        # initMethod is no bean name: no provider named so, the edge goes to the type itself
        ("", '@Autowired @Qualifier("start") Clock c;'): {("p.Use", "p.Clock", "field")},
        ("@Primary", "@Autowired Clock c;"): {("p.Use", "p.Cfg.utc", "field")},
        ("", "@Autowired Clock utc;"): {("p.Use", "p.Cfg.utc", "field")},
        ("", "@Autowired Clock c;"): {("p.Use", "p.Cfg.utc", "field"), ("p.Use", "p.Cfg.local", "field")},
        ("@Primary", "@Autowired List<Clock> all;"): {("p.Use", "p.Cfg.utc", "field"),
                                                     ("p.Use", "p.Cfg.local", "field")},
    }
    for i, ((primary, field), want) in enumerate(cases.items()):
        root = _tree(tmp_path / str(i), {"p/Clock.java": _CLOCK, "p/Cfg.java": _CFG.format(a=primary),
                                         "p/Use.java": _use(field)})
        assert _injects(root) == want, (primary, field)


def test_a_test_sources_provider_serves_tests_only(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "src/main/java/p/Clock.java": _CLOCK,
        "src/main/java/p/Svc.java": _use("@Autowired Clock clock;").replace("class Use", "class Svc"),
        "src/test/java/p/TestCfg.java": "package p;\nimport org.springframework.context.annotation.Bean;\n"
                                        "class TestCfg {\n  @Bean Clock fixed() { return null; }\n}\n",
        "src/test/java/p/SvcIT.java": _use("@Autowired Clock clock;").replace("class Use", "class SvcIT"),
    })
    assert _injects(root) == {("p.Svc", "p.Clock", "field"), ("p.SvcIT", "p.TestCfg.fixed", "field")}


def test_lombok_generated_constructor_of_a_stereotype_class(tmp_path: Path) -> None:
    """@RequiredArgsConstructor takes the final / @NonNull fields without initialiser;
    with a written constructor besides it there are two, and Spring picks none."""
    svc = ("package p;\nimport lombok.NonNull;\nimport lombok.{gen};\n"
           "import org.springframework.stereotype.Service;\n@Service\n@{gen}\npublic class Svc {{\n"
           "  private final Repo repo;\n  @NonNull private Clock clock;\n  private Clock mutable;\n"
           "  private final Clock fixed = null;\n  private static final Clock SHARED = null;\n{extra}}}\n")
    files = {"p/Clock.java": _CLOCK, "p/Repo.java": "package p;\npublic class Repo {}\n"}
    root = _tree(tmp_path / "a", {**files, "p/Svc.java": svc.format(gen="RequiredArgsConstructor", extra="")})
    assert _injects(root) == {("p.Svc", "p.Repo", "constructor"), ("p.Svc", "p.Clock", "constructor")}
    root = _tree(tmp_path / "b", {**files, "p/Svc.java": svc.format(gen="AllArgsConstructor", extra="")})
    assert _injects(root) == {("p.Svc", "p.Repo", "constructor"), ("p.Svc", "p.Clock", "constructor")}
    root = _tree(tmp_path / "c", {**files, "p/Svc.java": svc.format(
        gen="RequiredArgsConstructor", extra="  public Svc(Clock c) {}\n")})
    assert _injects(root) == set()
