"""Go extractor: exact edge set of tests/fixtures/go plus per-construct records."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.languages import go
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import resolve_repo
from tests.helpers import _end, extract_tree

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "go"

# Receiver methods (pointer receivers, &T{} literals, typed vars), a promoted method
# through struct embedding (r.Log -> Base.Log), a field chain (r.index.Add), interface
# dispatch (s.Save), package-qualified calls through plain and aliased imports,
# IMPORTS to every file of the imported package, IMPLEMENTS proven by method sets,
# a package-level initialiser owned by the module symbol, an ambiguous name (r.Save in
# the test: New's result type is declared in another file), external calls (stubs).
EXPECTED = {
    ('CALLS', 'cmd/app.main', 'cmd/app.run'),
    ('CALLS', 'cmd/app.main', 'internal/model.Item.Label'),
    ('CALLS', 'cmd/app.main', 'internal/model.NewItem'),
    ('CALLS', 'cmd/app.main', 'internal/store.New'),
    ('CALLS', 'cmd/app.main', 'internal/store.Repo.Save'),
    ('CALLS', 'cmd/app.main', 'internal/store.Saver.Save'),
    ('CALLS', 'cmd/app.main', 'stub:fmt.Println'),
    ('CALLS', 'cmd/app/main.go', 'internal/store.New'),
    ('CALLS', 'internal/model.Item.Label', 'stub:strings.ToUpper'),
    ('CALLS', 'internal/store.Repo.Save', 'internal/model.Item.Label'),
    ('CALLS', 'internal/store.Repo.Save', 'internal/store.Base.Log'),
    ('CALLS', 'internal/store.Repo.Save', 'internal/store.Index.Add'),
    ('CALLS', 'internal/store.TestSave', 'internal/store.New'),
    ('CALLS', 'internal/store.TestSave', 'stub:r.Save'),
    ('EXTENDS', 'internal/store.Repo', 'internal/store.Base'),
    ('IMPLEMENTS', 'internal/store.Repo', 'internal/store.Saver'),
    ('IMPORTS', 'cmd/app/main.go', 'internal/model/item.go'),
    ('IMPORTS', 'cmd/app/main.go', 'internal/store/index.go'),
    ('IMPORTS', 'cmd/app/main.go', 'internal/store/store.go'),
    ('IMPORTS', 'internal/store/index.go', 'internal/model/item.go'),
    ('IMPORTS', 'internal/store/store.go', 'internal/model/item.go'),
}


def _edges(fxs: list[FileExtraction]) -> set[tuple[str, str, str]]:
    res = resolve_repo("fx", fxs)
    return {(e.type, _end(e.source), _end(e.target)) for es in res.edges.values() for e in es}


def test_fixture_edge_set_is_exact_with_go_mod() -> None:
    fxs = extract_tree(FIX)
    go.link_repo(fxs, {"": go.parse_go_mod((FIX / "go.mod").read_bytes()) or ""})
    assert _edges(fxs) == EXPECTED


def test_module_path_is_inferred_without_go_mod_and_linking_twice_is_harmless() -> None:
    fxs = extract_tree(FIX)
    go.link_repo(fxs)
    go.link_repo(fxs)
    assert _edges(fxs) == EXPECTED


def test_unlinked_imports_never_guess() -> None:
    """Without link_repo, cross-package references become stubs or nothing - no wrong edges."""
    got = _edges(extract_tree(FIX))
    assert got - EXPECTED <= {("CALLS", "cmd/app.main", "stub:store.New"), ("CALLS", "cmd/app.main", "stub:model.NewItem"),
                              ("CALLS", "cmd/app/main.go", "stub:store.New"),
                              ("CALLS", "cmd/app.main", "stub:store.Repo.Save"),
                              ("CALLS", "cmd/app.main", "stub:store.Saver.Save"),
                              ("CALLS", "internal/store.Repo.Save", "stub:model.Item.Label")}
    assert not {e for e in got if e[0] == "IMPORTS"}


def _fx(src: str, path: str = "pkg/a/a.go") -> FileExtraction:
    return go.extract("fx", path, src.encode())


def test_symbols_names_kinds_visibility() -> None:
    fx = _fx(
        "package a\nvar X, y = 1, 2\nconst Z = 3\ntype T struct{ F int; g string }\ntype I interface{ M() }\n"
        "type H func()\nfunc (t *T) M() {}\nfunc (T) n() {}\nfunc New() *T { return nil }\n"
    )
    got = {(s.qualified_name, s.kind, s.visibility) for s in fx.symbols}
    assert got == {
        ("pkg/a/a.go", "module", "public"),
        ("pkg/a.X", "variable", "public"), ("pkg/a.y", "variable", "private"), ("pkg/a.Z", "variable", "public"),
        ("pkg/a.T", "struct", "public"), ("pkg/a.T.F", "field", "public"), ("pkg/a.T.g", "field", "private"),
        ("pkg/a.I", "interface", "public"), ("pkg/a.I.M", "method", "public"), ("pkg/a.H", "class", "public"),
        ("pkg/a.T.M", "method", "public"), ("pkg/a.T.n", "method", "private"), ("pkg/a.New", "function", "public"),
    }
    assert fx.symbols[0].parent == "pkg/a"
    impl = [r for r in fx.references if r.type == "IMPLEMENTS"]
    assert [(r.source_qualified_name, r.extra["candidates"]) for r in impl] == [
        ("pkg/a.T", [{"qn": "pkg/a.I", "how": "same_module"}])]


def test_root_package_and_external_test_package_names() -> None:
    assert _fx("package chi\nfunc NewRouter() {}\n", "chi.go").symbols[1].qualified_name == "chi.NewRouter"
    ext = _fx("package a_test\nfunc TestX() {}\n", "pkg/a/a_test.go")
    assert ext.file.is_test and ext.symbols[1].qualified_name == "pkg/a_test.TestX"


def test_builtins_conversions_and_func_values_are_not_calls() -> None:
    fx = _fx("package a\nfunc f(cb func()) { g := func() {}; cb(); g(); _ = len(\"x\"); _ = int64(1); h() }\n")
    assert [r.target_identifier for r in fx.references if r.type == "CALLS"] == ["h"]


def test_major_version_suffix_names_the_package() -> None:
    fx = _fx('package a\nimport "github.com/go-chi/chi/v5"\nfunc f() { chi.NewRouter() }\n')
    call = next(r for r in fx.references if r.type == "CALLS")
    assert call.extra["candidates"] == [{"go_import": "github.com/go-chi/chi/v5", "go_qn": "NewRouter", "how": "import"}]
