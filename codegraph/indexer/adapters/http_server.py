"""HTTP endpoints a server exposes, and the prefixes routers are mounted under.

Python: Flask (``@app.route``, ``@bp.get``, ``add_url_rule``, ``Blueprint(url_prefix=)``,
``register_blueprint``), FastAPI (``@app.get``, ``@router.api_route``, ``APIRouter(prefix=)``,
``include_router``), Django (``urlpatterns`` with ``path``/``re_path``/``url``, ``include``,
DRF ``router.register``).
JavaScript/TypeScript: Express-style routers (Express, Koa-router, Fastify, Hono:
``app.get('/x', h)``, ``router.route('/x').get(h)``, ``app.use('/p', router)``), NestJS
(``@Controller`` + ``@Get``..., ``setGlobalPrefix``), file-system route handlers (Next.js
``app/**/route.ts`` and ``pages/api``, SvelteKit ``+server.ts``, Nuxt ``server/api``).
Java/Kotlin: Spring (class ``@RequestMapping`` + method ``@GetMapping``...), JAX-RS.
Go: net/http (``HandleFunc``, Go 1.22 ``"GET /x/{id}"`` patterns), gin, echo, chi
(``Route`` nesting, ``Mount``), gorilla/mux (``.Methods``), ``Group``/``PathPrefix`` prefixes.

Paths are stored in the normal form of ``_routes.normalize_template``; prefixes known in
the same file are applied here, cross-file mounts by ``codegraph.indexer.boundaries``.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters import _syntax as sx
from codegraph.indexer.adapters._routes import HTTP_METHODS, django_regex, join, normalize_template

_PY_VERBS = {"get", "post", "put", "patch", "delete", "head", "options"}
_JS_VERBS = {"get", "post", "put", "patch", "delete", "all", "options", "head"}
_GO_UPPER = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "Any"}
_GO_CHI = {"Get": "GET", "Post": "POST", "Put": "PUT", "Patch": "PATCH", "Delete": "DELETE", "Head": "HEAD",
           "Options": "OPTIONS"}
_SPRING = {"GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT", "DeleteMapping": "DELETE",
           "PatchMapping": "PATCH", "RequestMapping": None}
_NEST = {"Get": "GET", "Post": "POST", "Put": "PUT", "Patch": "PATCH", "Delete": "DELETE", "All": "ANY",
         "Head": "HEAD", "Options": "OPTIONS"}
_JAXRS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
_HANDLER_NODES = frozenset((
    "identifier", "attribute", "member_expression", "selector_expression", "field_access", "call",
    "call_expression", "simple_identifier", "navigation_expression",
))


def _handler(ctx: Any, node: TSNode | None) -> dict[str, Any]:
    """Fields naming a handler passed by reference (``views.detail``, ``ctrl.list``,
    ``OrderView.as_view()``): its dotted text and, when its head is imported, the import."""
    if node is None or node.type not in _HANDLER_NODES:
        return {}
    if node.type in ("call", "call_expression"):
        c = sx.as_call(ctx.language, node)
        if c is None or c.method not in ("as_view", "asView"):
            return {}
        name = c.receiver
    else:
        name = sx.chain(ctx.language, node)
    if not name or "…" in name or "(" in name:
        return {}
    out: dict[str, Any] = {"handler": name}
    b = ctx.imports.get(name.split(".", 1)[0])
    if b is not None:
        out["handler_import"] = {"line": b.line, "name": b.name, "spec": b.spec}
    return out


def _target(ctx: Any, node: TSNode | None) -> dict[str, Any]:
    """Fields naming a mounted router (``orders.router``, ``ordersRouter``, ``require('./x')``)."""
    if node is None:
        return {}
    if node.type == "call_expression":
        c = sx.as_call(ctx.language, node)
        if c is not None and c.callee == "require" and c.args:
            spec = sx.literal(ctx.language, c.args[0])
            if spec is not None:
                return {"target": f"require({spec})", "target_import": {"line": c.line, "name": "default", "spec": spec}}
        return {}
    name = sx.chain(ctx.language, node)
    if not name or "…" in name or "(" in name:
        return {}
    head, _, rest = name.partition(".")
    out: dict[str, Any] = {"target": name, "target_var": rest.rsplit(".", 1)[-1] if rest else None}
    b = ctx.imports.get(head)
    if b is not None:
        out["target_import"] = {"line": b.line, "name": b.name, "spec": b.spec}
        if not rest and b.name not in ("default", "*"):
            out["target_var"] = b.name
    else:
        out["target_var"] = rest.rsplit(".", 1)[-1] if rest else head
    return out


def extract(ctx: Any) -> list[dict[str, Any]]:
    lang = ctx.language
    out: list[dict[str, Any]] = _file_routes(ctx)
    if lang == "python":
        out.extend(_python(ctx))
    elif lang in sx.JS_LANGS:
        out.extend(_javascript(ctx))
    elif lang in ("java", "kotlin"):
        out.extend(_spring(ctx))
    elif lang == "go":
        out.extend(_go(ctx))
    return out


# --- python ------------------------------------------------------------------------------------


def _py_framework(ctx: Any) -> str:
    return "fastapi" if ctx.has(b"fastapi") else "flask" if ctx.has_ci(b"flask") else "python"


def _py_router_prefixes(ctx: Any) -> tuple[dict[str, str], set[str]]:
    """In-file router variables: name -> own prefix (APIRouter(prefix=), Blueprint(url_prefix=)),
    plus the names assigned an app or router object at all."""
    prefixes: dict[str, str] = {}
    routers: set[str] = set()
    for c in ctx.calls:
        if c.method not in ("APIRouter", "Blueprint", "Flask", "FastAPI"):
            continue
        name = sx.assigned_name(ctx.language, c.node)
        if not name:
            continue
        routers.add(name)
        pre = ctx.literal(c.kwargs.get("prefix") or c.kwargs.get("url_prefix"))
        if pre:
            prefixes[name] = pre
    return prefixes, routers


# A route decorator, a urlconf or a router mount somewhere in the file. The decorator's
# pattern starts with a literal "@", which the regex engine skips to; the other names are
# plain substrings (one alternation of all of them tried every position: ~5x the time).
_PY_ROUTE_DECORATOR = re.compile(rb"@[\w.]+\.(?:route|get|post|put|patch|delete|head|options|api_route)\(")
_PY_MOUNT_NAMES = (b"urlpatterns", b"include_router", b"register_blueprint", b"add_url_rule")


def _py_trigger(source: bytes) -> bool:
    return any(n in source for n in _PY_MOUNT_NAMES) or _PY_ROUTE_DECORATOR.search(source) is not None


def _python(ctx: Any) -> list[dict[str, Any]]:
    if not _py_trigger(ctx.source):
        return []
    fw = _py_framework(ctx)
    out: list[dict[str, Any]] = []
    prefixes, routers = _py_router_prefixes(ctx)
    for a in ctx.annotated:
        if a.kind != "function":
            continue
        for ann in a.annotations:
            recv, _, verb = ann.name.rpartition(".")
            if not recv or "." in recv and not recv.startswith("self."):
                continue
            if verb not in _PY_VERBS and verb not in ("route", "api_route"):
                continue
            raw = ctx.literal(ann.args[0]) if ann.args else ctx.literal(ann.kwargs.get("path") or ann.kwargs.get("rule"))
            if raw is None or not (raw.startswith("/") or raw == "" or recv in routers):
                continue
            if verb in ("route", "api_route"):
                methods = [m.upper() for m in ctx.literals(ann.kwargs.get("methods"))] or ["GET"]
            else:
                methods = [verb.upper()]
            path = normalize_template(join(prefixes.get(recv, ""), raw))
            for m in methods:
                out.append(ctx.record("endpoint", ann.line, method=m, path=path, framework=fw, at=a.line, router=recv))
    urlconf = ctx.has(b"urlpatterns")
    for c in ctx.calls:
        if c.method == "add_url_rule" and c.args:
            raw = ctx.literal(c.args[0])
            if raw is None:
                continue
            methods = [m.upper() for m in ctx.literals(c.kwargs.get("methods"))] or ["GET"]
            view = c.kwargs.get("view_func") or (c.args[2] if len(c.args) > 2 else None)
            path = normalize_template(join(prefixes.get(c.receiver, ""), raw))
            for m in methods:
                out.append(ctx.record("endpoint", c.line, method=m, path=path, framework=fw, at=c.line,
                                      router=c.receiver, **_handler(ctx, view)))
        elif c.method in ("include_router", "register_blueprint") and c.args:
            pre = ctx.literal(c.kwargs.get("prefix") or c.kwargs.get("url_prefix")) or ""
            out.append(ctx.record("http_mount", c.line, prefix=join(prefixes.get(c.receiver, ""), pre), framework=fw,
                                  router=c.receiver, **_target(ctx, c.args[0])))
        elif urlconf and c.callee in ("path", "re_path", "url", "django.urls.path") and len(c.args) >= 2:
            out.extend(_django(ctx, c))
        elif urlconf and c.method == "register" and len(c.args) >= 2 and c.receiver and "." not in c.receiver:
            prefix = ctx.literal(c.args[0])
            if prefix is None:
                continue
            base = normalize_template(django_regex(prefix))
            for p in (base, join(base, ":pk")):
                out.append(ctx.record("endpoint", c.line, method="ANY", path=p, framework="django-rest-framework",
                                      at=c.line, router=c.receiver, **_handler(ctx, c.args[1])))
    return out


def _django(ctx: Any, c: Any) -> list[dict[str, Any]]:
    raw = ctx.literal(c.args[0])
    if raw is None:
        return []
    tmpl = raw if c.callee.endswith("path") and c.callee != "re_path" else django_regex(raw)
    view = c.args[1]
    if view.type == "call":
        inner = sx.as_call(ctx.language, view)
        if inner is not None and inner.callee in ("include", "django.urls.include") and inner.args:
            arg = inner.args[0]
            module = ctx.literal(arg)
            rec: dict[str, Any] = {"prefix": normalize_template(tmpl), "framework": "django", "router": "urlpatterns"}
            if module is not None:
                rec["module"] = module
                rec["target_var"] = "urlpatterns"  # the included module's own url list
            else:
                rec.update(_target(ctx, arg))
                if rec.get("target", "").endswith(".urls") and rec["target"].count(".") == 1:
                    head = rec["target"].split(".")[0]
                    if head not in ctx.imports:  # `include(router.urls)`: a DRF router of this file
                        rec["target_var"] = head
                        rec.pop("target_import", None)
                        rec["same_file"] = True
            return [ctx.record("http_mount", c.line, **rec)]
    return [ctx.record("endpoint", c.line, method="ANY", path=normalize_template(tmpl), framework="django",
                       at=c.line, router="urlpatterns", **_handler(ctx, view))]


# --- javascript / typescript -----------------------------------------------------------------


_JS_ROUTER_CTORS = {"express", "Router", "fastify", "Fastify", "Hono", "Koa", "KoaRouter", "createRouter"}
_JS_ROUTER_NAMES = re.compile(r"^(app|router|server|routes|route|r|api|fastify|hono)$|Router$|router$|Routes$")
_JS_CLIENT_NAMES = re.compile(r"^(axios|http|\$http|fetch|client|request|superagent|got|ky|\$fetch|instance)$", re.I)


def _js_framework(ctx: Any) -> str:
    for needle, fw in ((b"fastify", "fastify"), (b"hono", "hono"), (b"koa", "koa")):
        if ctx.has(needle):
            return fw
    return "express"


def js_routers(ctx: Any) -> set[str]:
    """Variables assigned a router/app object in this file (``express()``, ``Router()``...)."""
    cached = getattr(ctx, "_js_routers", None)
    if cached is None:
        cached = set()
        for c in ctx.calls:
            if c.method in _JS_ROUTER_CTORS or c.callee in ("express.Router", "Router"):
                name = sx.assigned_name(ctx.language, c.node)
                if name:
                    cached.add(name)
        ctx._js_routers = cached
    return cached


_JS_SERVER_LIBS = (b"express", b"fastify", b"koa", b"hono", b"Router(", b"restify")


def js_route_call(ctx: Any, c: Any) -> tuple[str, str, list[TSNode]] | None:
    """(receiver, path, handler args) when ``c`` registers a route or mounts a router
    (``app.get('/x', h)``, ``router.route('/x').get(h)``, ``app.use('/p', r)``); else None."""
    verb = c.method
    if verb not in _JS_VERBS and verb != "use":
        return None
    recv, route_node = c.receiver, c.receiver_node
    if route_node is not None and route_node.type == "call_expression":
        # router.route('/x').get(h).post(h2): walk down the chain to the .route() call.
        inner = sx.as_call(ctx.language, route_node)
        while inner is not None and inner.method in _JS_VERBS and inner.receiver_node is not None \
                and inner.receiver_node.type == "call_expression":
            inner = sx.as_call(ctx.language, inner.receiver_node)
        if inner is None or inner.method != "route" or not inner.args or verb == "use":
            return None
        path, recv, handlers = ctx.literal(inner.args[0]), inner.receiver, c.args
    else:
        if not c.args:
            return None
        path, handlers = ctx.literal(c.args[0]), c.args[1:]
    if path is None or not handlers or not recv or "(" in recv or ("." in recv and not recv.startswith("this.")):
        return None
    routers = js_routers(ctx)
    if recv not in routers and (_JS_CLIENT_NAMES.match(recv) or not _JS_ROUTER_NAMES.search(recv)
                                or not ctx.has(*_JS_SERVER_LIBS)):
        return None
    if handlers[-1].type in ("object", "string", "template_string", "number", "array"):
        return None  # a client call's config/body, not a handler
    if verb == "use":
        return (recv, path, handlers) if path.startswith("/") else None
    return (recv, path, handlers) if path.startswith("/") or path == "*" else None


def _javascript(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if ctx.has(b"@Controller"):
        out.extend(_nest(ctx))
    if ctx.has(b"setGlobalPrefix"):
        for c in ctx.calls:
            if c.method == "setGlobalPrefix" and c.args:
                pre = ctx.literal(c.args[0])
                if pre:
                    out.append(ctx.record("http_mount", c.line, prefix=normalize_template(pre), framework="nestjs",
                                          scope=posixpath.dirname(ctx.path)))
    if not ctx.has(b".get(", b".post(", b".put(", b".patch(", b".delete(", b".all(", b".use(", b".route("):
        return out
    fw = _js_framework(ctx)
    for c in ctx.calls:
        found = js_route_call(ctx, c)
        if found is None:
            continue
        recv, path, handlers = found
        if c.method == "use":
            tgt = _target(ctx, handlers[-1])
            if tgt:
                out.append(ctx.record("http_mount", c.line, prefix=normalize_template(path), framework=fw,
                                      router=recv, **tgt))
            continue
        method = "ANY" if c.method == "all" else c.method.upper()
        out.append(ctx.record("endpoint", c.line, method=method, path=normalize_template(path), framework=fw,
                              at=c.line, router=recv, **_handler(ctx, handlers[-1])))
    return out


def _nest(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a in ctx.annotated:
        if a.kind != "class":
            continue
        ctrl = next((x for x in a.annotations if x.name == "Controller"), None)
        if ctrl is None:
            continue
        prefixes = [""]
        if ctrl.args:
            arg = ctrl.args[0]
            if arg.type == "object":
                prefixes = ctx.literals(sx.mapping(ctx.language, arg).get("path")) or [""]
            else:
                prefixes = ctx.literals(arg) or [""]
        for m in a.children:
            for ann in m.annotations:
                verb = _NEST.get(ann.name)
                if verb is None:
                    continue
                paths = (ctx.literals(ann.args[0]) if ann.args else []) or [""]
                for pre in prefixes:
                    for p in paths:
                        out.append(ctx.record("endpoint", ann.line, method=verb, path=normalize_template(join(pre, p)),
                                              framework="nestjs", at=m.line, router=a.name))
    return out


# --- file-system routes (Next.js, SvelteKit, Nuxt) ----------------------------------------------

_EXPORTED_VERB = re.compile(
    rb"export\s+(?:async\s+)?(?:function\s*\*?\s*|(?:const|let|var)\s+)(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b")
_EXPORT_DEFAULT = re.compile(rb"export\s+default\b|module\.exports\s*=")
_CODE_EXT = re.compile(r"\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$")


def _line_at(source: bytes, offset: int) -> int:
    return source.count(b"\n", 0, offset) + 1


def _fs_segments(segs: list[str]) -> list[str]:
    """Route folders -> URL segments: groups ``(x)`` and parallel slots ``@x`` vanish,
    ``[id]`` -> ``:id`` (via normalize), private ``_x`` folders stop the route."""
    out = []
    for s in segs:
        if (s.startswith("(") and s.endswith(")")) or s.startswith("@"):
            continue
        out.append(s)
    return out


def _file_routes(ctx: Any) -> list[dict[str, Any]]:
    """Route handlers whose URL is their file path."""
    if ctx.language not in sx.JS_LANGS:
        return []
    path = ctx.path
    parts = path.split("/")
    name = parts[-1]
    stem = _CODE_EXT.sub("", name)
    out: list[dict[str, Any]] = []

    def verbs(fw: str, url: str) -> None:
        for m in _EXPORTED_VERB.finditer(ctx.source):
            out.append(ctx.record("endpoint", _line_at(ctx.source, m.start()), method=m.group(1).decode(),
                                  path=normalize_template(url), framework=fw, at=_line_at(ctx.source, m.start(1))))

    if stem == "route" and "app" in parts[:-1]:
        i = len(parts) - 2 - parts[:-1][::-1].index("app")
        segs = _fs_segments(parts[i + 1:-1])
        if not any(s.startswith("_") for s in segs):
            verbs("nextjs", "/" + "/".join(segs))
    elif "pages" in parts[:-1] and "api" in parts:
        i = len(parts) - 2 - parts[:-1][::-1].index("pages")
        if i + 1 < len(parts) - 1 and parts[i + 1] == "api":
            segs = parts[i + 1:-1] + ([] if stem == "index" else [stem])
            m = _EXPORT_DEFAULT.search(ctx.source)
            if m is not None:
                ln = _line_at(ctx.source, m.start())
                out.append(ctx.record("endpoint", ln, method="ANY", path=normalize_template("/" + "/".join(segs)),
                                      framework="nextjs", at=ln))
    elif stem == "+server" and "routes" in parts[:-1]:
        i = len(parts) - 2 - parts[:-1][::-1].index("routes")
        verbs("sveltekit", "/" + "/".join(_fs_segments(parts[i + 1:-1])))
    elif "server" in parts[:-1] and ctx.has(b"defineEventHandler", b"eventHandler"):
        i = len(parts) - 2 - parts[:-1][::-1].index("server")
        rest = parts[i + 1:]
        if rest and rest[0] in ("api", "routes") and len(rest) > 1:
            method = "ANY"
            m = re.match(r"^(.*)\.(get|post|put|patch|delete|head|options)$", stem)
            if m:
                stem, method = m.group(1), m.group(2).upper()
            segs = rest[:-1] + ([] if stem == "index" else [stem])
            if rest[0] == "routes":
                segs = segs[1:]
            m2 = re.search(rb"defineEventHandler|eventHandler", ctx.source)
            ln = _line_at(ctx.source, m2.start()) if m2 else 1
            out.append(ctx.record("endpoint", ln, method=method, path=normalize_template("/" + "/".join(segs)),
                                  framework="nuxt", at=ln))
    return out


# --- spring / jax-rs ---------------------------------------------------------------------------


def _mapping_paths(ctx: Any, ann: Any) -> list[str]:
    node = ann.args[0] if ann.args else ann.kwargs.get("value") or ann.kwargs.get("path")
    return ctx.literals(node) or [""]


def _mapping_methods(ctx: Any, ann: Any) -> list[str]:
    fixed = _SPRING.get(ann.name)
    if fixed:
        return [fixed]
    node = ann.kwargs.get("method")
    if node is None:
        return ["ANY"]
    names = re.findall(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b", sx.text(node))
    return names or ["ANY"]


def spring_mappings(ctx: Any, a: Any) -> list[tuple[str, str, int]]:
    """(method, path, annotation line) of a method's Spring mapping annotations under its
    class's ``@RequestMapping`` prefixes (paths joined, not yet normalised)."""
    class_prefixes = [""]
    if a.parent is not None:
        cm = next((x for x in a.parent.annotations if x.name == "RequestMapping"), None)
        if cm is not None:
            class_prefixes = _mapping_paths(ctx, cm)
    out = []
    for ann in a.annotations:
        if ann.name not in _SPRING:
            continue
        for pre in class_prefixes:
            for p in _mapping_paths(ctx, ann):
                for m in _mapping_methods(ctx, ann):
                    out.append((m, join(pre, p), ann.line))
    return out


def _spring(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"Mapping", b"@Path"):
        return []
    out: list[dict[str, Any]] = []
    for a in ctx.annotated:
        if a.kind != "function":
            continue
        if a.parent is not None and any(x.name == "FeignClient" for x in a.parent.annotations):
            continue  # a Feign interface describes a client (see http_client)
        for m, p, ln in spring_mappings(ctx, a):
            out.append(ctx.record("endpoint", ln, method=m, path=normalize_template(p), framework="spring", at=a.line,
                                  router=a.parent.name if a.parent else None))
        verbs = [x for x in a.annotations if x.name in _JAXRS]
        if verbs:
            cls_path = next((x for x in (a.parent.annotations if a.parent else []) if x.name == "Path"), None)
            meth_path = next((x for x in a.annotations if x.name == "Path"), None)
            pre = _mapping_paths(ctx, cls_path)[0] if cls_path else ""
            sub = _mapping_paths(ctx, meth_path)[0] if meth_path else ""
            for v in verbs:
                out.append(ctx.record("endpoint", v.line, method=v.name, path=normalize_template(join(pre, sub)),
                                      framework="jax-rs", at=a.line))
    return out


# --- go ----------------------------------------------------------------------------------------


def _go_framework(ctx: Any) -> str:
    for needle, fw in ((b"gin-gonic", "gin"), (b"go-chi", "chi"), (b"labstack/echo", "echo"),
                       (b"gorilla/mux", "gorilla")):
        if ctx.has(needle):
            return fw
    return "net/http"


def _go_route_prefix(ctx: Any, node: TSNode) -> str:
    """chi ``r.Route("/p", func(r chi.Router) {...})`` nesting around ``node``."""
    prefix: list[str] = []
    n = node.parent
    while n is not None:
        if n.type == "func_literal" and n.parent is not None and n.parent.type == "argument_list":
            call = n.parent.parent
            c = sx.as_call(ctx.language, call) if call is not None else None
            if c is not None and c.method == "Route" and c.args:
                p = ctx.literal(c.args[0])
                if p:
                    prefix.append(p)
        n = n.parent
    return join(*reversed(prefix)) if prefix else ""


def _go(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"Handle", b"GET", b"POST", b".Get(", b".Post(", b".Put(", b".Delete(", b".Patch(", b"Group(",
                   b"Route(", b"Mount("):
        return []
    fw = _go_framework(ctx)
    out: list[dict[str, Any]] = []
    group_prefix: dict[str, str] = {}
    # Groups first (document order): v1 := r.Group("/v1"); admin := v1.Group("/admin").
    for c in ctx.calls:
        if c.method in ("Group", "PathPrefix") and c.args:
            p = ctx.literal(c.args[0])
            if p is None:
                continue
            node = c.node
            if c.method == "PathPrefix" and node.parent is not None and node.parent.type == "selector_expression":
                node = node.parent.parent  # r.PathPrefix("/api").Subrouter()
            name = sx.assigned_name(ctx.language, node) if node is not None else None
            if name:
                group_prefix[name] = join(group_prefix.get(c.receiver, ""), p)
    for c in ctx.calls:
        verb = c.method
        if not c.args:
            continue
        method: str | None = None
        path_node: TSNode | None = c.args[0]
        handler_node = c.args[-1]
        if verb in ("HandleFunc", "Handle") and len(c.args) >= 2:
            method = "ANY"
            if fw == "gin" and verb == "Handle" and len(c.args) >= 3:  # r.Handle("GET", "/x", h)
                method, path_node = (ctx.literal(c.args[0]) or "ANY").upper(), c.args[1]
        elif verb in _GO_UPPER and fw != "chi" and len(c.args) >= 2:
            method = "ANY" if verb == "Any" else verb
        elif verb in _GO_CHI and fw in ("chi", "net/http", "gorilla") and len(c.args) >= 2:
            method = _GO_CHI[verb]
        elif verb in ("Method", "MethodFunc") and len(c.args) >= 3:
            method, path_node = (ctx.literal(c.args[0]) or "ANY").upper(), c.args[1]
        elif verb == "Mount" and len(c.args) >= 2:
            p = ctx.literal(c.args[0])
            if p is not None:
                pre = join(group_prefix.get(c.receiver, ""), _go_route_prefix(ctx, c.node), p)
                out.append(ctx.record("http_mount", c.line, prefix=pre, framework=fw, router=c.receiver,
                                      **_target(ctx, c.args[-1])))
            continue
        if method is None:
            continue
        raw = ctx.literal(path_node)
        if raw is None:
            continue
        pm = re.match(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(\S*)$", raw)
        if pm:  # Go 1.22 ServeMux pattern "GET /x/{id}" (optionally with a host)
            method, raw = pm.group(1), pm.group(2)
            raw = raw[raw.find("/"):] if "/" in raw else raw
        if not raw.startswith("/") and not (raw == "" and c.receiver in group_prefix):
            continue
        # gorilla: r.HandleFunc("/x", h).Methods("GET", "POST")
        methods = [method]
        sel = c.node.parent
        if sel is not None and sel.type == "selector_expression" and sel.parent is not None:
            outer = sx.as_call(ctx.language, sel.parent)
            if outer is not None and outer.method == "Methods":
                methods = [m.upper() for a in outer.args if (m := ctx.literal(a))] or methods
        full = join(group_prefix.get(c.receiver, ""), _go_route_prefix(ctx, c.node), raw)
        for m in methods:
            if m not in HTTP_METHODS and m != "ANY":
                continue
            out.append(ctx.record("endpoint", c.line, method=m, path=normalize_template(full), framework=fw,
                                  at=c.line, router=c.receiver or None, **_handler(ctx, handler_node)))
    return out


# Call names this module reads through ``ctx.calls`` (see adapters.call_name_re).
CALL_NAMES = frozenset({
    "APIRouter", "Blueprint", "Flask", "FastAPI", "add_url_rule", "include_router", "register_blueprint", "path",
    "re_path", "url", "register", "setGlobalPrefix", "use", "route", "Router", *_JS_ROUTER_CTORS, *_JS_VERBS,
    "Group", "PathPrefix", "HandleFunc", "Handle", "Method", "MethodFunc", "Mount", *_GO_UPPER, *_GO_CHI,
})
