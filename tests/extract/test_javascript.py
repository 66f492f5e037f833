"""JavaScript / TypeScript / TSX extractor: exact edge sets of tests/fixtures/javascript
(one folder per construct, resolved by the real resolver), the References and export
maps it emits, symbol properties, bad input, and one run over real npm code."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from codegraph.indexer.languages.javascript import extract, module_name, package_name, specifier_paths
from codegraph.indexer.records import FileExtraction, Reference, read_jsonl, write_jsonl
from tests.helpers import edge_set_with_resolution, extract_tree, resolve_tree

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "javascript"


def _fx(path: str, src: str) -> FileExtraction:
    return extract("fx", path, src.encode())


def _refs(fx: FileExtraction, rtype: str) -> list[Reference]:
    return [r for r in fx.references if r.type == rtype]


def _by_target(fx: FileExtraction, rtype: str = "CALLS") -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in _refs(fx, rtype):
        out.setdefault(r.target_identifier, []).append(r.extra)
    return out


def _syms(fx: FileExtraction) -> dict[str, Any]:
    return {s.qualified_name: s for s in fx.symbols}


# --- exact edge sets per construct ------------------------------------------------------------

# ES imports: named + aliased through a barrel (`export {x} from`, `export {default as y}`,
# `export {a as b}`, `export *`), default import of a function and of `export default local`,
# namespace import, side-effect import, a path alias (`@/...`: stub + unique-name call),
# a bare package (stub), a `.js` specifier in TypeScript meaning the `.ts` source (dynamic
# import), an asset import (no edge), console.log (no edge), a module-level call.
ES_IMPORTS = {
    ("CALLS", "app/main", "app/main.run", "same_module"),
    ("CALLS", "app/main.run", "lib/api.client", "import"),
    ("CALLS", "app/main.run", "lib/api.fetchOrders", "import"),
    ("CALLS", "app/main.run", "lib/api.fetchOrders", "unique_name"),
    ("CALLS", "app/main.run", "lib/config.loadConfig", "import"),
    ("CALLS", "app/main.run", "lib/format.formatDate", "import"),
    ("CALLS", "app/main.run", "stub:react.createElement", "stub"),
    ("CALLS", "lib/api.client", "lib/api.request", "same_module"),
    ("CALLS", "lib/api.fetchOrders", "lib/api.request", "same_module"),
    ("CALLS", "lib/format.formatDate", "lib/format.pad", "same_module"),
    ("IMPORTS", "app/main.ts", "app/polyfill.js", "import"),
    ("IMPORTS", "app/main.ts", "lib/api.ts", "import"),
    ("IMPORTS", "app/main.ts", "lib/config.ts", "import"),
    ("IMPORTS", "app/main.ts", "lib/format.ts", "import"),
    ("IMPORTS", "app/main.ts", "lib/index.ts", "import"),
    ("IMPORTS", "app/main.ts", "stub:@/lib/api", "stub"),
    ("IMPORTS", "app/main.ts", "stub:react", "stub"),
    ("IMPORTS", "lib/index.ts", "lib/api.ts", "import"),
    ("IMPORTS", "lib/index.ts", "lib/format.ts", "import"),
}

# CommonJS: `exports.x = f`, `module.exports.x = function`, `module.exports = {methods}`,
# `module.exports = Class`; `require` as a module object, destructured with a rename,
# a class instance from a required module (receiver type), a Node builtin (stub).
COMMONJS = {
    ("CALLS", "index", "index.main", "same_module"),
    ("CALLS", "index.main", "lib/logger.Logger", "import"),
    ("CALLS", "index.main", "lib/logger.Logger.log", "receiver_type"),
    ("CALLS", "index.main", "lib/store.load", "import"),
    ("CALLS", "index.main", "lib/store.save", "import"),
    ("CALLS", "index.main", "lib/util.slugify", "import"),
    ("CALLS", "index.main", "lib/util.trim", "import"),
    ("CALLS", "index.main", "stub:fs.readFileSync", "stub"),
    ("CALLS", "lib/store.load", "lib/store.save", "same_module"),
    ("CALLS", "lib/store.save", "lib/store.write", "same_module"),
    ("IMPORTS", "index.js", "lib/logger.js", "import"),
    ("IMPORTS", "index.js", "lib/store.js", "import"),
    ("IMPORTS", "index.js", "lib/util.js", "import"),
    ("IMPORTS", "index.js", "stub:fs", "stub"),
    ("REFERENCES", "lib/store", "lib/store.save", "same_module"),  # exports.save = save
    ("REFERENCES", "lib/logger", "lib/logger.Logger", "same_module"),  # module.exports = Logger
}

# Classes: this.m() (own and inherited through an imported base), super.m(), super(...),
# new X() (class + optional constructor edge), receiver types from a typed parameter,
# `new X().m()`, a field initialiser, a typed field assigned in the constructor,
# constructor parameter properties (interface and class types), a namespace-qualified
# class, an arrow-function field; EXTENDS / IMPLEMENTS; an untyped receiver falls back
# by name: unique (record) or ambiguous (run: Parser/Runner; persist: Repo/SqlRepo).
CLASSES = {
    ("CALLS", "src/base.Base.save", "src/base.Base.validate", "self"),
    ("CALLS", "src/order.OrderService", "src/parser.Parser", "import"),
    ("CALLS", "src/order.OrderService", "src/parser.Parser.constructor", "import"),
    ("CALLS", "src/order.OrderService.constructor", "src/base.Base.constructor", "self"),
    ("CALLS", "src/order.OrderService.constructor", "src/order.Audit", "same_module"),
    ("CALLS", "src/order.OrderService.place", "src/base.Base.save", "self"),
    ("CALLS", "src/order.OrderService.place", "src/order.Audit.record", "receiver_type"),
    ("CALLS", "src/order.OrderService.place", "src/order.Order", "same_module"),
    ("CALLS", "src/order.OrderService.place", "src/order.OrderService.refresh", "self"),
    ("CALLS", "src/order.OrderService.place", "src/parser.Parser", "import"),
    ("CALLS", "src/order.OrderService.place", "src/parser.Parser.constructor", "import"),
    ("CALLS", "src/order.OrderService.place", "src/parser.Parser.run", "receiver_type"),
    ("CALLS", "src/order.OrderService.place", "src/repo.Repo.persist", "receiver_type"),
    ("CALLS", "src/order.OrderService.place", "src/repo.SqlRepo.persist", "receiver_type"),
    ("CALLS", "src/order.OrderService.refresh", "src/parser.Parser", "import"),
    ("CALLS", "src/order.OrderService.refresh", "src/parser.Parser.constructor", "import"),
    ("CALLS", "src/order.OrderService.refresh", "src/parser.Parser.run", "receiver_type"),
    ("CALLS", "src/order.OrderService.save", "src/base.Base.save", "self"),
    ("CALLS", "src/repo.SqlRepo.persist", "src/repo.SqlRepo.exec", "self"),
    ("CALLS", "src/untyped.process", "src/order.Audit.record", "unique_name"),
    ("CALLS", "src/untyped.process", "stub:x.persist", "stub"),
    ("CALLS", "src/untyped.process", "stub:x.run", "stub"),
    ("EXTENDS", "src/order.OrderService", "src/base.Base", "import"),
    ("IMPLEMENTS", "src/repo.SqlRepo", "src/repo.Repo", "same_module"),
    ("IMPORTS", "src/order.ts", "src/base.ts", "import"),
    ("IMPORTS", "src/order.ts", "src/parser.ts", "import"),
    ("IMPORTS", "src/order.ts", "src/repo.ts", "import"),
    # TS annotations of named functions' parameters and return types
    ("USES_TYPE", "src/order.OrderService.constructor", "src/repo.Repo", "annotation"),
    ("USES_TYPE", "src/order.OrderService.constructor", "src/repo.SqlRepo", "annotation"),
    ("USES_TYPE", "src/order.OrderService.place", "src/parser.Parser", "annotation"),
    ("USES_TYPE", "src/repo.SqlRepo.persist", "src/repo.Order", "annotation"),
    ("USES_TYPE", "src/order.OrderService", "src/order.Audit", "annotation"),  # private audit: Audit
}

# Callbacks and anonymous functions belong to the enclosing named function; a function
# passed as a value is REFERENCED by the code handing it over, and CALLED by a callee of
# the repo that calls that parameter (run(outer) with run(cb) { cb(); }); nested named
# functions are symbols; calls on built-ins (app.get, addEventListener) make no edge.
CALLBACKS = {
    ("CALLS", "jobs", "jobs.flush", "same_module"),
    ("REFERENCES", "jobs", "jobs.handler", "same_module"),
    ("REFERENCES", "jobs", "jobs.outer", "same_module"),
    ("CALLS", "jobs.run", "jobs.outer", "parameter"),
    ("CALLS", "jobs", "jobs.run", "same_module"),
    ("CALLS", "jobs.handler", "jobs.load", "same_module"),
    ("CALLS", "jobs.load", "jobs.flush", "same_module"),
    ("CALLS", "jobs.load", "jobs.render", "same_module"),
    ("CALLS", "jobs.outer", "jobs.outer.inner", "same_module"),
    ("CALLS", "jobs.outer.inner", "jobs.leaf", "same_module"),
}

# TSX: components rendered as JSX are called; a handler passed as a prop is called by the
# component; hooks from the repo and from React; an intrinsic <li> makes no edge.
TSX = {
    ("REFERENCES", "App.App", "App.App.handleSelect", "same_module"),
    ("CALLS", "App.App", "components/OrderList.OrderList", "import"),
    ("CALLS", "App.App", "hooks/useOrders.useOrders", "import"),
    ("CALLS", "App.App", "stub:@mui/material.Button", "stub"),
    ("CALLS", "components/OrderList.OrderList", "components/OrderList.OrderRow", "same_module"),
    ("CALLS", "components/OrderList.OrderRow", "components/OrderList.formatPrice", "same_module"),
    ("CALLS", "hooks/useOrders.useOrders", "stub:react.useState", "stub"),
    ("IMPORTS", "App.tsx", "components/OrderList.tsx", "import"),
    ("IMPORTS", "App.tsx", "hooks/useOrders.ts", "import"),
    ("IMPORTS", "App.tsx", "stub:@mui/material", "stub"),
    ("IMPORTS", "components/OrderList.tsx", "stub:react", "stub"),
    ("IMPORTS", "hooks/useOrders.ts", "stub:react", "stub"),
    ("USES_TYPE", "components/OrderList.OrderRow", "components/OrderList.Order", "annotation"),  # type alias
    ("USES_TYPE", "components/OrderList.OrderList", "components/OrderList.Props", "annotation"),
}

# Same method name on two classes: the receiver's class decides, scope by scope (both
# functions name their variable `store`); `this.store` typed in the constructor; an
# untyped receiver is an ambiguous stub, never one of the two.
SAME_METHOD = {
    ("CALLS", "stores.Backup.constructor", "stores.FileStore", "same_module"),
    ("CALLS", "stores.Backup.run", "stores.FileStore.save", "receiver_type"),
    ("CALLS", "stores.backupLocal", "stores.FileStore", "same_module"),
    ("CALLS", "stores.backupLocal", "stores.FileStore.save", "receiver_type"),
    ("CALLS", "stores.backupRemote", "stores.CloudStore", "same_module"),
    ("CALLS", "stores.backupRemote", "stores.CloudStore.save", "receiver_type"),
    ("CALLS", "stores.backupUnknown", "stub:store.save", "stub"),
    ("REFERENCES", "stores", "stores.backupLocal", "same_module"),  # module.exports = {...}
    ("REFERENCES", "stores", "stores.backupRemote", "same_module"),
    ("REFERENCES", "stores", "stores.backupUnknown", "same_module"),
}

# Broken syntax: whatever parsed before and after the error still gives edges.
BROKEN = {
    ("CALLS", "partial.Keeps.go", "partial.helper", "same_module"),
    ("CALLS", "partial.ok", "partial.helper", "same_module"),
}

# Value flow: functions stored in an object literal (`routes.save()`, `const {check} =
# routes`), returned (`makeSaver()()`), destructured from a namespace import, held by class
# fields (`onDone = audit`, `this.flush = persist`); each stored / returned / assigned name
# is a REFERENCES edge. A field assigned a constructor parameter reaches what `new` passes
# (`parameter`) and keeps its stub for other callers; unknown flow gives nothing (`loop(3)()`:
# a ternary is not followed).
VALUE_FLOW = {
    ("IMPORTS", "app.js", "lib/handlers.js", "import"),
    ("REFERENCES", "app", "lib/handlers.persist", "import"),          # const routes = {save: persist, ...}
    ("REFERENCES", "app", "lib/handlers.audit", "import"),
    ("REFERENCES", "app.makeSaver", "lib/handlers.persist", "import"),  # return persist
    ("REFERENCES", "app.Queue", "lib/handlers.audit", "import"),        # onDone = audit
    ("REFERENCES", "app.Queue.constructor", "lib/handlers.persist", "import"),  # this.flush = persist
    ("REFERENCES", "app.main", "lib/handlers.persist", "import"),      # new Queue(persist)
    ("CALLS", "app.Queue.run", "lib/handlers.audit", "value_flow"),    # this.onDone()
    ("CALLS", "app.Queue.run", "lib/handlers.persist", "value_flow"),  # this.flush()
    ("CALLS", "app.Queue.run", "stub:this.store", "stub"),         # this.store = store (a parameter) ...
    ("CALLS", "app.Queue.run", "lib/handlers.persist", "parameter"),  # ... and new Queue(persist) passes it
    ("CALLS", "app.main", "lib/handlers.persist", "value_flow"),       # routes.save(), makeSaver()()
    ("CALLS", "app.main", "lib/handlers.audit", "value_flow"),         # check(), a()
    ("CALLS", "app.main", "app.makeSaver", "same_module"),
    ("CALLS", "app.main", "app.loop", "same_module"),
    ("CALLS", "app.main", "app.Queue", "same_module"),
    ("CALLS", "app.main", "app.Queue.constructor", "same_module"),
    ("CALLS", "app.main", "app.Queue.run", "receiver_type"),
}

# Dependency injection: a class decorated by NestJS / Angular gets INJECTS to the classes
# its constructor parameters are typed by, to an `@Inject(Class)` token (a string token or an
# interface type gives none), and to `inject(Class)` fields; an undecorated class gets none.
INJECTION = {
    ("IMPORTS", "list.component.ts", "stub:@angular/core", "stub"),
    ("IMPORTS", "list.component.ts", "users.service.ts", "import"),
    ("IMPORTS", "users.controller.ts", "stub:@nestjs/common", "stub"),
    ("IMPORTS", "users.controller.ts", "users.service.ts", "import"),
    ("IMPORTS", "users.service.ts", "stub:@nestjs/common", "stub"),
    ("INJECTS", "list.component.ListComponent", "users.service.UsersService", "injection"),
    ("INJECTS", "users.controller.UsersController", "users.controller.AuditLog", "injection"),
    ("INJECTS", "users.controller.UsersController", "users.controller.Plain", "injection"),
    ("INJECTS", "users.controller.UsersController", "users.service.UsersService", "injection"),
    ("CALLS", "list.component.ListComponent.load", "users.service.UsersService.find", "receiver_type"),
    ("CALLS", "users.controller.UsersController.list", "users.service.UsersService.find", "receiver_type"),
    ("CALLS", "list.component", "stub:@angular/core.Component", "stub"),
    ("CALLS", "list.component.ListComponent", "stub:@angular/core.inject", "stub"),
    ("CALLS", "users.controller", "stub:@nestjs/common.Controller", "stub"),
    ("CALLS", "users.controller.UsersController", "stub:@nestjs/common.Get", "stub"),
    ("CALLS", "users.controller.UsersController.constructor", "stub:@nestjs/common.Inject", "stub"),
    ("CALLS", "users.service", "stub:@nestjs/common.Injectable", "stub"),
    ("REFERENCES", "list.component.ListComponent", "users.service.UsersService", "import"),  # inject(UsersService)
    ("REFERENCES", "users.controller.UsersController.constructor", "users.controller.AuditLog", "same_module"),
    ("USES_TYPE", "users.controller.Report.constructor", "users.service.UsersService", "annotation"),
    ("USES_TYPE", "users.controller.UsersController.constructor", "users.controller.Plain", "annotation"),
    ("USES_TYPE", "users.controller.UsersController.constructor", "users.service.Clock", "annotation"),
    ("USES_TYPE", "users.controller.UsersController.constructor", "users.service.UsersService", "annotation"),
}


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("es_imports", ES_IMPORTS),
        ("commonjs", COMMONJS),
        ("classes", CLASSES),
        ("callbacks", CALLBACKS),
        ("tsx", TSX),
        ("same_method", SAME_METHOD),
        ("broken", BROKEN),
        ("value_flow", VALUE_FLOW),
        ("injection", INJECTION),
    ],
)
def test_fixture_edge_set_is_exact(folder: str, expected: set[tuple[str, str, str, str]]) -> None:
    assert edge_set_with_resolution(FIX / folder) == expected


def test_untyped_receivers_make_ambiguous_stubs_listing_every_candidate() -> None:
    _, res = resolve_tree(FIX / "classes")
    stubs = {s.target_identifier: s for s in res.stubs.values()}
    assert stubs["x.run"].reason == "ambiguous"
    assert stubs["x.run"].candidates == ["src/parser.Parser.run", "src/parser.Runner.run"]
    assert stubs["x.persist"].reason == "ambiguous"
    assert stubs["x.persist"].candidates == ["src/repo.Repo.persist", "src/repo.SqlRepo.persist"]
    _, res = resolve_tree(FIX / "same_method")
    (stub,) = res.stubs.values()
    assert (stub.target_identifier, stub.reason, stub.candidates) == (
        "store.save", "ambiguous", ["stores.CloudStore.save", "stores.FileStore.save"])


def test_broken_file_is_partial_with_messages_and_keeps_its_symbols() -> None:
    (fx,) = extract_tree(FIX / "broken")
    assert fx.file.had_error and fx.file.coverage_status == "partial"
    assert fx.errors and all(e.startswith("line ") for e in fx.errors)
    assert {"partial.ok", "partial.helper", "partial.Keeps", "partial.Keeps.go"} <= set(_syms(fx))


# --- paths and names ----------------------------------------------------------------------------


def test_module_names_strip_the_extension_only() -> None:
    assert module_name("web/lib/api.ts") == "web/lib/api"
    assert module_name("x/index.ts") == "x/index"
    assert module_name("src/order.service.ts") == "src/order.service"
    assert module_name("types/api.d.ts") == "types/api.d"
    assert module_name("Makefile") == "Makefile"


def test_specifier_candidates() -> None:
    assert specifier_paths("web/app/page.tsx", "../lib/api") == [
        "web/lib/api.ts", "web/lib/api.tsx", "web/lib/api.js", "web/lib/api.jsx", "web/lib/api.mjs",
        "web/lib/api.cjs", "web/lib/api.d.ts", "web/lib/api/index.ts", "web/lib/api/index.tsx",
        "web/lib/api/index.js", "web/lib/api/index.jsx",
    ]
    # Angular-style dotted names are not extensions.
    assert specifier_paths("a/b.ts", "./order.service")[0] == "a/order.service.ts"
    # A TypeScript importer's `.js` means the `.ts` source; a JS importer's means the file.
    assert specifier_paths("src/a.ts", "./b.js") == ["src/b.ts", "src/b.tsx", "src/b.js", "src/b.d.ts"]
    assert specifier_paths("src/a.js", "./b.js") == ["src/b.js", "src/b.ts", "src/b.tsx", "src/b.d.ts"]
    # Declaration files import `./types.ts` and mean `types.d.ts`.
    assert specifier_paths("add.d.cts", "./types.cts") == ["types.cts", "types.d.cts"]
    assert specifier_paths("src/a.js", "./") == ["src/index.ts", "src/index.tsx", "src/index.js", "src/index.jsx"]
    assert specifier_paths("main.js", ".") == ["index.ts", "index.tsx", "index.js", "index.jsx"]
    assert specifier_paths("src/a.js", "./data.json") == ["src/data.json"]
    assert specifier_paths("a.js", "../outside") == []
    assert specifier_paths("a.js", "react") is None
    assert specifier_paths("a.js", "@/lib/api") is None
    assert package_name("@scope/pkg/sub/path") == "@scope/pkg"
    assert package_name("lodash/fp") == "lodash"
    assert package_name("node:fs") == "node:fs"


def test_grammar_follows_the_extension_and_tests_are_flagged() -> None:
    jsx = "export const A = () => <div><B x={1} /></div>;\nfunction B() { return null; }\n"
    for path, language in [("c/A.jsx", "javascript"), ("c/A.tsx", "tsx"), ("c/A.mjs", "javascript")]:
        fx = _fx(path, jsx)
        assert (fx.file.language, fx.file.coverage_status) == (language, "full")
        assert [(r.source_qualified_name, r.extra["candidates"]) for r in _refs(fx, "CALLS")] == [
            ("c/A.A", [{"qn": "c/A.B", "how": "same_module"}])]
    assert _fx("x.mts", "export type T = number;\n").file.language == "typescript"
    assert [_fx(p, "").file.is_test for p in ("a.test.ts", "b/c.spec.jsx", "__tests__/d.js", "src/e.ts", "testing.js")] \
        == [True, True, True, False, False]


# --- symbols -----------------------------------------------------------------------------------------

TS_CLASS = '''\
import { Repo } from "./repo";

/**
 * Places orders.
 * Second line.
 */
export class OrderService extends Base implements Service {
  #secret = 1;
  private cache = new Map();
  static create(): OrderService { return new OrderService(null); }
  constructor(private repo: Repo) { super(); }
  get size(): number { return 0; }
  set size(n: number) {}
  protected async *stream(): AsyncGenerator<number> {}
  private onSave = (id: string): void => { this.#flush(); };
  #flush(): void {}
}

export interface Service { place(id: string): void; }
export enum Color { Red }
export type Id = string;
function helper<T>(x: T): T { return x; }
export const arrow = async (a: number, b = 2) => a + b;
export function* gen() {}
export default function () {}
'''


def test_symbol_kinds_names_visibility_and_parents() -> None:
    fx = _fx("src/order.ts", TS_CLASS)
    got = {s.qualified_name: (s.kind, s.visibility, s.parent, s.language_kind) for s in fx.symbols}
    assert got == {
        "src/order": ("module", "public", None, "program"),
        "src/order.OrderService": ("class", "public", "src/order", "class_declaration"),
        "src/order.OrderService.create": ("method", "public", "src/order.OrderService", "method_definition"),
        "src/order.OrderService.constructor": ("method", "public", "src/order.OrderService", "method_definition"),
        "src/order.OrderService.size": ("method", "public", "src/order.OrderService", "method_definition"),
        "src/order.OrderService.stream": ("method", "protected", "src/order.OrderService", "method_definition"),
        "src/order.OrderService.onSave": ("method", "private", "src/order.OrderService", "public_field_definition"),
        "src/order.OrderService.#flush": ("method", "private", "src/order.OrderService", "method_definition"),
        "src/order.Service": ("interface", "public", "src/order", "interface_declaration"),
        "src/order.Service.place": ("method", "public", "src/order.Service", "method_signature"),
        "src/order.Color": ("enum", "public", "src/order", "enum_declaration"),
        "src/order.Id": ("type", "public", "src/order", "type_alias_declaration"),
        "src/order.helper": ("function", "internal", "src/order", "function_declaration"),
        "src/order.arrow": ("function", "public", "src/order", "arrow_function"),
        "src/order.gen": ("function", "public", "src/order", "generator_function_declaration"),
        "src/order.default": ("function", "public", "src/order", "function_expression"),
    }
    # Getter and setter share a name but not a signature.
    assert len([s for s in fx.symbols if s.qualified_name == "src/order.OrderService.size"]) == 2
    cls = _syms(fx)["src/order.OrderService"]
    assert cls.docstring == "Places orders.\nSecond line."
    assert cls.signature == "export class OrderService extends Base implements Service {"
    assert (cls.line, cls.end_line) == (7, 17)
    assert _syms(fx)["src/order.arrow"].signature == "export const arrow = async (a: number, b = 2) => a + b;"
    assert all(s.file == "src/order.ts" and s.language == "typescript" and s.repo == "fx" for s in fx.symbols)


def test_signature_hash_ignores_the_body_content_hash_does_not() -> None:
    def sym(src: str) -> Any:
        return _syms(_fx("m.ts", src))["m.f"]

    a, b = sym("function f(a: number) { return a; }"), sym("function f(a: number) {\n  return a + 1;\n}")
    c = sym("function f(a: number, b: number) { return a; }")
    assert a.signature_hash == b.signature_hash != c.signature_hash
    assert a.content_hash != b.content_hash
    # a.js and a.ts share a module name but never a module symbol key
    assert _fx("a.js", "").symbols[0].uid != _fx("a.ts", "").symbols[0].uid


def test_module_level_code_belongs_to_the_module_symbol() -> None:
    fx = _fx("boot.js", "function start() {}\nstart();\nsetTimeout(() => start(), 1);\n")
    assert [(r.source_qualified_name, r.source_kind, r.source_signature_hash) for r in _refs(fx, "CALLS")] == [
        ("boot", "symbol", fx.symbols[0].signature_hash)] * 2


# --- exports and imports -------------------------------------------------------------------------------


def test_es_export_map() -> None:
    fx = _fx("lib/x.ts", '''\
import { a as imported } from "./a";
export function f() {}
export const g = () => 1, CONFIG = { debug: true };
export class C {}
function local() {}
export { local as renamed, imported };
export { y as z, default as D } from "./e";
export * from "./f";
export * from "react";
export default local;
''')
    e_paths = specifier_paths("lib/x.ts", "./e")
    assert fx.exports == {
        "f": {"qn": "lib/x.f"},
        "g": {"qn": "lib/x.g"},
        "CONFIG": {"qn": "lib/x.CONFIG"},
        "C": {"qn": "lib/x.C"},
        "renamed": {"qn": "lib/x.local"},
        "imported": {"from": specifier_paths("lib/x.ts", "./a"), "name": "a"},
        "z": {"from": e_paths, "name": "y"},
        "D": {"from": e_paths, "name": "default"},
        "*": {"from_all": [specifier_paths("lib/x.ts", "./f")]},
        "default": {"qn": "lib/x.local"},
    }
    assert _syms(fx)["lib/x.CONFIG"].kind == "variable"
    assert _syms(fx)["lib/x.local"].visibility == "public"  # exported under another name


def test_default_export_forms() -> None:
    assert _fx("a.ts", "export default class Shape {}").exports == {"default": {"qn": "a.Shape"}}
    assert _fx("a.ts", "export default async function load() {}").exports == {"default": {"qn": "a.load"}}
    assert _fx("a.js", "export default () => 1;").exports == {"default": {"qn": "a.default"}}
    hoc = _fx("a.jsx", "function List() {}\nexport default connect(mapState)(List);\n")
    assert hoc.exports == {"default": {"qn": "a.List"}}
    obj = _fx("svc.js", "export default { place(id) { this.check(id); }, check(id) {} };\n")
    assert obj.exports == {"default": {"qn": "svc.default"}}
    assert {s.qualified_name: s.kind for s in obj.symbols if s.parent == "svc.default"} == {
        "svc.default.place": "method", "svc.default.check": "method"}
    (call,) = _refs(obj, "CALLS")
    assert (call.source_qualified_name, call.extra["candidates"]) == (
        "svc.default.place", [{"owner": "svc.default", "member": "check", "how": "self"}])


def test_commonjs_export_map() -> None:
    fx = _fx("lib/m.js", '''\
function save() {}
class Repo {}
exports.save = save;
exports.make = function () {};
module.exports.Repo = Repo;
module.exports = { save, load: () => 1, find(q) {} };
''')
    assert fx.exports == {
        "save": {"qn": "lib/m.save"}, "make": {"qn": "lib/m.make"}, "Repo": {"qn": "lib/m.Repo"},
        "load": {"qn": "lib/m.load"}, "find": {"qn": "lib/m.find"},
    }
    re_export = _fx("lib/index.js", "module.exports = require('./impl');\n")
    impl = specifier_paths("lib/index.js", "./impl")
    assert re_export.exports == {"*": {"from_all": [impl]}, "default": {"from": impl, "name": "default"}}
    single = _fx("lib/one.js", "module.exports = function build() {};\n")
    assert single.exports == {"default": {"qn": "lib/one.build"}}


def test_import_references() -> None:
    fx = _fx("src/app.ts", '''\
import x, { a as b, c } from "./a";
import * as ns from "../c";
import "./side";
import type { T } from "./types";
import styles from "./app.module.css";
import lodash from "lodash/fp";
import api from "@/lib/api";
export { y } from "./e";
export * from "./f";
import fs = require("fs");
const r = require("./g");
const { h, i: j } = require("./g");
const lazy = () => import("./h");
''')
    got = [(r.target_identifier, r.source_kind, r.source_qualified_name,
            {k: v for k, v in r.extra.items() if k != "candidates"}) for r in _refs(fx, "IMPORTS")]
    assert got == [
        ("./a", "file", "src/app.ts", {"names": ["default", "a", "c"], "forwarding": False}),
        ("../c", "file", "src/app.ts", {"names": ["*"], "forwarding": False}),
        ("./side", "file", "src/app.ts", {"names": ["*"], "forwarding": False}),
        ("./types", "file", "src/app.ts", {"names": ["T"], "forwarding": False, "type_only": True}),
        ("lodash/fp", "file", "src/app.ts", {"names": ["default"], "forwarding": False, "external": "lodash"}),
        ("@/lib/api", "file", "src/app.ts", {"names": ["default"], "forwarding": False, "alias": "@/lib/api"}),
        ("./e", "file", "src/app.ts", {"names": ["y"], "forwarding": True}),
        ("./f", "file", "src/app.ts", {"names": ["*"], "forwarding": True}),
        ("fs", "file", "src/app.ts", {"names": ["*"], "forwarding": False, "external": "fs"}),
        ("./g", "file", "src/app.ts", {"names": ["*"], "forwarding": False}),
        ("./g", "file", "src/app.ts", {"names": ["h", "i"], "forwarding": False}),
        ("./h", "file", "src/app.ts", {"names": ["*"], "forwarding": False, "dynamic": True}),
    ]
    first = _refs(fx, "IMPORTS")[0]
    assert first.extra["candidates"][:2] == [{"path": "src/a.ts", "how": "import"}, {"path": "src/a.tsx", "how": "import"}]
    assert _refs(fx, "IMPORTS")[4].extra["candidates"] == []


# --- call candidates -----------------------------------------------------------------------------------


CALLS_SRC = '''\
import Parser, { Lexer as Lx } from "./parser";
import * as util from "./util";
import { z } from "zod";
import express from "express";

class Local { go(): void {} }

export class Job extends Parser {
  constructor(private lx: Lx, private local: Local) { super(1); }
  run(p: Parser, s: unknown): void {
    this.lx.scan();
    this.local.go();
    p.parse();
    new Lx().scan();
    super.parse();
    util.helper();
    z.object({}).parse(s);
    const app = express();
    app.listen(3000);
    s.unknownThing();
    [1, 2].map((n) => n * 2);
    JSON.parse("{}");
    console.log(s);
  }
}
'''


def test_call_candidates_by_receiver() -> None:
    fx = _fx("src/job.ts", CALLS_SRC)
    t = _by_target(fx)
    paths = specifier_paths("src/job.ts", "./parser")
    assert t["this.lx.scan"] == [{"candidates": [{"owner_export": {"file": paths, "export": "Lexer"}, "member": "scan",
                                                   "how": "receiver_type"}], "name": "scan", "name_kinds": ["method"]}]
    assert t["this.local.go"][0]["candidates"] == [{"owner": "src/job.Local", "member": "go", "how": "receiver_type"}]
    assert t["p.parse"][0]["candidates"] == [{"owner_export": {"file": paths, "export": "default"}, "member": "parse",
                                              "how": "receiver_type"}]
    assert t["…scan"][0]["candidates"][0]["owner_export"] == {"file": paths, "export": "Lexer"}
    assert t["super.parse"][0]["candidates"] == [{"super_of": "src/job.Job", "member": "parse", "how": "self"}]
    assert t["super"] == [{"candidates": [{"super_of": "src/job.Job", "member": "constructor", "how": "self"}],
                           "optional": True}]
    assert t["util.helper"][0]["candidates"] == [
        {"file": specifier_paths("src/job.ts", "./util"), "export": "helper", "how": "import"}]
    assert t["Lx"][0]["candidates"] == [{"file": paths, "export": "Lexer", "how": "import"}]
    assert t["Lx.constructor"] == [{"candidates": [{"owner_export": {"file": paths, "export": "Lexer"},
                                                    "member": "constructor", "how": "import"}], "optional": True}]
    # Package calls become stubs named after the package, never name fallbacks.
    assert t["zod.z.object"] == [{"candidates": [], "external": "zod"}]
    assert t["express"] == [{"candidates": [], "external": "express"}]
    # Unknown receiver: fallback by name, restricted to methods.
    assert t["s.unknownThing"] == [{"candidates": [], "name": "unknownThing", "name_kinds": ["method"]}]
    # No reference at all: runtime globals, built-in prototype methods, values made by a
    # package (app.listen on express(), .parse on z.object()).
    assert not {"JSON.parse", "console.log", "…map", "app.listen", "…parse"} & set(t)
    (ext,) = _refs(fx, "EXTENDS")
    assert (ext.source_qualified_name, ext.target_identifier, ext.extra["candidates"]) == (
        "src/job.Job", "Parser", [{"file": paths, "export": "default", "how": "import"}])


def test_receiver_typed_by_a_local_functions_return_type() -> None:
    fx = _fx("ret.ts", '''\
class Parser { run(): void {} }
function make(): Parser { return new Parser(); }
const load = async (): Promise<Parser> => make();
async function main() {
  make().run();
  const p = make();
  p.run();
  const q = await load();
  q.run();
}
''')
    owner = [{"owner": "ret.Parser", "member": "run", "how": "receiver_type"}]
    t = _by_target(fx)
    assert [e["candidates"] for e in t["…run"] + t["p.run"] + t["q.run"]] == [owner, owner, owner]


def test_this_inside_plain_functions_is_not_the_class_unless_typed() -> None:
    fx = _fx("a.ts", '''\
class A {
  m(): void {
    const self = this;
    [1].forEach(function () { this.x(); });
    [1].forEach(() => this.y());
  }
  y(): void {}
}
function tick(this: A): void { this.y(); }
''')
    t = _by_target(fx)
    assert t["this.x"] == [{"candidates": [], "name": "x", "name_kinds": ["method"]}]
    assert t["this.y"][0]["candidates"] == [{"owner": "a.A", "member": "y", "how": "self"}]
    assert t["this.y"][1]["candidates"] == [{"owner": "a.A", "member": "y", "how": "receiver_type"}]


def test_jsx_components_and_callback_props() -> None:
    fx = _fx("ui/Page.tsx", '''\
import * as UI from "./ui";
import { Card } from "./card";
export function Page() {
  const save = () => {};
  return <UI.Layout><Card onSave={save} /><div onClick={save} /></UI.Layout>;
}
''')
    got = [(r.type, r.target_identifier, r.extra["candidates"], r.extra.get("jsx"), r.extra.get("callback"))
           for r in _refs(fx, "CALLS") + _refs(fx, "REFERENCES")]
    ui, card = specifier_paths("ui/Page.tsx", "./ui"), specifier_paths("ui/Page.tsx", "./card")
    assert got == [
        ("CALLS", "UI.Layout", [{"file": ui, "export": "Layout", "how": "import"}], True, None),
        ("CALLS", "Card", [{"file": card, "export": "Card", "how": "import"}], True, None),
        # a handler passed as a prop is a value handed over, not a call made here
        ("REFERENCES", "save", [{"qn": "ui/Page.Page.save", "how": "same_module"}], None, True),
        ("REFERENCES", "save", [{"qn": "ui/Page.Page.save", "how": "same_module"}], None, True),
    ]


def test_types_and_values_of_one_name_keep_the_value() -> None:
    fx = _fx("p.ts", "export type OK<T> = { v: T };\nexport const OK = <T,>(v: T): OK<T> => ({ v });\n"
                     "export interface Ctor { new (): Err }\nexport const Err: Ctor = make();\n"
                     "type Shape = { s: 1 };\nconst Shape = build();\nexport function f() { Shape.grow(); }\n")
    assert [(s.qualified_name, s.kind) for s in fx.symbols if s.qualified_name in ("p.OK", "p.Err")] == [
        ("p.OK", "function"), ("p.Err", "variable")]
    # `type Shape` declared first must not hide `const Shape` (a value of unknown class).
    assert _by_target(fx)["Shape.grow"] == [{"candidates": [], "name": "grow", "name_kinds": ["method"]}]


def test_typescript_namespaces_and_overloads() -> None:
    fx = _fx("u.ts", '''\
export namespace util {
  export function assertEqual(): void { helper(); }
  function helper(): void {}
}
export function over(a: string): void;
export function over(a: number): void;
export function over(a: any): void { util.assertEqual(); }
declare function ambient(x: number): void;
declare module "other" { export function notOurs(): void; }
''')
    assert {s.qualified_name: s.kind for s in fx.symbols} == {
        "u": "module", "u.util": "namespace", "u.util.assertEqual": "function", "u.util.helper": "function",
        "u.over": "function", "u.ambient": "function",
    }
    assert len([s for s in fx.symbols if s.qualified_name == "u.over"]) == 1  # the implementation only
    assert fx.exports == {"util": {"qn": "u.util"}, "over": {"qn": "u.over"}}
    t = _by_target(fx)
    assert t["helper"][0]["candidates"] == [{"qn": "u.util.helper", "how": "same_module"}]
    assert t["util.assertEqual"][0]["candidates"] == [{"qn": "u.util.assertEqual", "how": "same_module"}]


def test_prototype_methods_and_package_base_classes() -> None:
    fx = _fx("legacy.js", '''\
import React from "react";
function Queue() {}
Queue.prototype.push = function (job) { return job; };
Queue.create = () => new Queue();
class View extends React.Component {
  render() { this.setState({}); this.draw(); }
  draw() {}
}
''')
    assert {s.qualified_name: (s.kind, s.parent) for s in fx.symbols if s.parent in ("legacy.Queue",)} == {
        "legacy.Queue.push": ("method", "legacy.Queue"), "legacy.Queue.create": ("method", "legacy.Queue")}
    t = _by_target(fx)
    # Members inherited from a package class meet in one stub per library member.
    assert t["react.Component.setState"] == [{"candidates": [{"owner": "legacy.View", "member": "setState", "how": "self"}],
                                              "external": "react"}]
    assert t["this.draw"][0] == {"candidates": [{"owner": "legacy.View", "member": "draw", "how": "self"}],
                                 "name": "draw", "name_kinds": ["method"]}
    assert [r.target_identifier for r in _refs(fx, "EXTENDS")] == ["react.Component"]


def _round_trip(fxs: list[FileExtraction]) -> list[FileExtraction]:
    buf = io.StringIO()
    write_jsonl(buf, {"extractor": "test"}, fxs)
    buf.seek(0)
    _, back, problems = read_jsonl(buf)
    assert not problems
    return back


def test_files_and_symbols_survive_the_jsonl_round_trip() -> None:
    fxs = extract_tree(FIX / "es_imports")
    assert [(f.file, f.symbols) for f in _round_trip(fxs)] == [(f.file, f.symbols) for f in fxs]


def test_references_and_exports_survive_the_jsonl_round_trip() -> None:
    fxs = extract_tree(FIX / "es_imports")
    back = _round_trip(fxs)
    assert [(f.references, f.exports) for f in back] == [(f.references, f.exports) for f in fxs]


# --- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\x00\x01\x02\xff\xfe" * 50, "const é = 'ü';".encode("latin-1")])
def test_odd_bytes_never_raise(data: bytes) -> None:
    fx = extract("fx", "odd.js", data)
    assert fx.symbols[0].kind == "module" and fx.file.coverage_status in ("full", "partial", "error")


def test_deeply_nested_code_does_not_hit_the_recursion_limit() -> None:
    depth = 3000
    src = "function f() { return " + "[" * depth + "g()" + "]" * depth + "; }\nfunction g() {}\n"
    fx = _fx("deep.js", src)
    assert [(r.source_qualified_name, r.target_identifier) for r in _refs(fx, "CALLS")] == [("deep.f", "g")]


# --- real code from npm -----------------------------------------------------------------------------------

ZOD = "zod@4.6.7"  # pinned: ships its TypeScript sources under src/


@pytest.fixture(scope="module")
def zod_v3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """zod's v3 TypeScript sources, fetched with npm at test time (never committed)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot fetch real third-party code")
    tmp = tmp_path_factory.mktemp("npm")
    try:
        out = subprocess.run([npm, "pack", ZOD, "--silent", "--prefer-offline", "--pack-destination", str(tmp)],
                             capture_output=True, text=True, timeout=120, check=True)
    except (subprocess.SubprocessError, OSError) as e:
        pytest.skip(f"npm pack {ZOD} failed (registry unreachable?): {str(e)[:200]}")
    tarball = tmp / out.stdout.strip().splitlines()[-1]
    with tarfile.open(tarball) as tf:
        tf.extractall(tmp, members=[m for m in tf.getmembers() if m.name.startswith("package/src/v3/")], filter="data")
    return tmp / "package" / "src"


@pytest.mark.slow
def test_real_typescript_from_npm(zod_v3: Path) -> None:
    fxs, res = resolve_tree(zod_v3)
    assert len(fxs) > 50
    assert Counter(fx.file.coverage_status for fx in fxs)["full"] == len(fxs)
    assert not [e for fx in fxs for e in fx.errors if "extractor failed" in e]
    edges = [e for es in res.edges.values() for e in es]
    # Every relative import resolves to a file (stubs are packages only).
    unresolved = {e.extra.get("target_identifier", "") for e in edges if e.type == "IMPORTS" and e.target.startswith("stub|")}
    assert unresolved and not {t for t in unresolved if t.startswith(".")}
    got = {(e.type, e.source.split("|")[2], e.target.split("|")[2], e.resolution) for e in edges}
    assert ("EXTENDS", "v3/types.ZodString", "v3/types.ZodType", "same_module") in got
    assert ("CALLS", "v3/types.ZodString.email", "v3/types.ZodString._addCheck", "self") in got
    # inherited through EXTENDS: defined on ZodType, called on `this` in ZodString
    assert ("CALLS", "v3/types.ZodString._parse", "v3/types.ZodType._getOrReturnCtx", "self") in got
    by_res = Counter(e.resolution for e in edges if e.type == "CALLS")
    assert by_res["import"] > 100 and by_res["self"] > 100 and by_res["receiver_type"] > 10


def test_receivers_typed_by_a_type_alias_or_interface_never_reach_a_class_by_name() -> None:
    """``s: Shape`` with ``type Shape = {area(): number}``: Circle.area is the only
    ``area`` method of the repo, yet not what ``s.area()`` calls (a stub, not a
    unique-name edge); an interface member is its own target; a function passed to a
    parameter that the callee calls gets the edge from the callee."""
    assert edge_set_with_resolution(FIX / "declared_types") == {
        ("CALLS", "use.total", "stub:s.area", "stub"),                 # imported type alias
        ("CALLS", "use.total", "stub:l.area", "stub"),                 # local type alias
        ("CALLS", "use.total", "shapes.Sized.size", "receiver_type"),  # interface member
        ("CALLS", "use.total", "shapes.Circle.area", "receiver_type"),
        ("CALLS", "use.main", "use.run", "same_module"),
        ("CALLS", "use.run", "use.tick", "parameter"),
        ("REFERENCES", "use.main", "use.tick", "same_module"),
        ("IMPORTS", "use.ts", "shapes.ts", "import"),
        ("USES_TYPE", "use.total", "shapes.Sized", "annotation"),
        ("USES_TYPE", "use.total", "shapes.Circle", "annotation"),
        ("USES_TYPE", "use.total", "shapes.Shape", "annotation"),      # imported type alias
        ("USES_TYPE", "use.total", "use.Local", "annotation"),         # local type alias
    }


# --- the scored corpus, snippet by snippet ------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "recall" / "cases"


def _corpus_cases() -> list[object]:
    import sys
    sys.path.insert(0, str(CORPUS.parent))
    from score import parse  # bench/recall/score.py
    return parse(CORPUS / "js.txt")


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: f"{c.category}/{c.name}")
def test_recall_corpus_snippet_is_exact(case: object) -> None:
    """Every JS/TS snippet of the scored corpus (value flow, REFERENCES, USES_TYPE,
    INJECTS): the found edges equal the hand-written ground truth exactly."""
    from score import found_edges
    assert found_edges(case) == case.expect  # type: ignore[attr-defined]
