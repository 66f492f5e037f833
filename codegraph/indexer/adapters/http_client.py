"""HTTP client calls with the URL pieces they send to.

JavaScript/TypeScript: ``fetch`` (and Nuxt ``$fetch``/``useFetch``), ``axios`` (verbs,
config objects, ``axios.create({baseURL})`` instances), and verb calls on client-like
receivers (``api.get('/x')``, Angular ``this.http.get``) whose base URL is unknown.
Python: ``requests``, ``httpx`` (module functions, ``Client``/``AsyncClient`` with
``base_url``), ``aiohttp.ClientSession``, ``requests.Session``.
Java/Kotlin: ``RestTemplate`` (``getForObject``... ``exchange``), ``WebClient``/``RestClient``
(``.get().uri(...)``), Feign interfaces (``@FeignClient`` + mapping annotations).
Go: ``http.Get``/``Post``/``Head``/``PostForm``, ``http.NewRequest[WithContext]``,
``client.Get``/``Do``-style clients.

A URL held in a local variable assigned a string in the same function is followed once
(``const url = `${API}/orders`; fetch(url)``). ``method`` is None when the code does not
say it (a request options object built elsewhere).
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters import _syntax as sx
from codegraph.indexer.adapters._routes import join
from codegraph.indexer.adapters.http_server import js_route_call

_VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD",
          "options": "OPTIONS"}
_JS_CLIENTISH = re.compile(r"(^|\.)(api|http|\$http|client|apiClient|httpClient|request|instance|axiosInstance|"
                           r"axios|service|backend|fetcher|\w*Api|\w*Client)$")
_REST_TEMPLATE = {"getForObject": "GET", "getForEntity": "GET", "postForObject": "POST", "postForEntity": "POST",
                  "postForLocation": "POST", "patchForObject": "PATCH", "put": "PUT", "delete": "DELETE",
                  "exchange": None, "execute": None}
_FUNC_NODES = frozenset(("function_definition", "function_declaration", "arrow_function", "function_expression",
                         "method_definition", "method_declaration", "func_literal", "function"))


def _rec(ctx: Any, line: int, method: str | None, parts: sx.Parts, client: str, at: int | None = None,
         base: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {"method": method, "url": sx.parts_text(parts), "parts": [list(p) for p in parts],
                              "client": client, "at": at or line}
    if base is not None:
        fields["base"] = base
    imports = ctx.hole_imports(parts)
    if imports:
        fields["hole_imports"] = imports
    return ctx.record("http_call", line, **fields)


def _local_value(ctx: Any, ident: TSNode) -> sx.Parts | None:
    """The string a local variable was last assigned before ``ident`` in the same function."""
    name = sx.text(ident)
    fn = ident.parent
    while fn is not None and fn.type not in _FUNC_NODES:
        fn = fn.parent
    if fn is None:
        return None
    best: sx.Parts | None = None
    stack = [fn]
    while stack:
        n = stack.pop()
        if n.start_byte >= ident.start_byte:
            continue
        t = n.type
        if t in ("variable_declarator", "assignment", "short_var_declaration", "assignment_expression"):
            left = n.child_by_field_name("name") or n.child_by_field_name("left")
            right = n.child_by_field_name("value") or n.child_by_field_name("right")
            if left is not None and right is not None:
                if left.type == "expression_list" and left.named_children:
                    left = left.named_children[0]
                if right.type == "expression_list" and right.named_children:
                    right = right.named_children[0]
                if sx.text(left) == name:
                    p = sx.string_parts(ctx.language, right)
                    if p is not None:
                        best = p
        stack.extend(c for c in n.named_children if c.type not in _FUNC_NODES or c is fn)
    return sx.substitute(best, ctx.consts) if best is not None else None


def _url(ctx: Any, node: TSNode | None) -> sx.Parts | None:
    if node is None:
        return None
    p = ctx.parts(node)
    if p is not None and len(p) == 1 and p[0][0] == "hole" and node.type in ("identifier", "simple_identifier"):
        local = _local_value(ctx, node)
        if local is not None:
            return local
    return p


def extract(ctx: Any) -> list[dict[str, Any]]:
    lang = ctx.language
    if lang in sx.JS_LANGS:
        return _javascript(ctx)
    if lang == "python":
        return _python(ctx)
    if lang in ("java", "kotlin"):
        return _jvm(ctx)
    if lang == "go":
        return _go(ctx)
    return []


# --- javascript ----------------------------------------------------------------------------------


def _js_options_method(ctx: Any, opts: TSNode | None, default: str | None = "GET") -> str | None:
    if opts is None:
        return default
    if opts.type != "object":
        return None
    m = sx.mapping(ctx.language, opts).get("method")
    if m is None:
        return default
    lit = ctx.literal(m)
    return lit.upper() if lit else None


def _javascript(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"fetch", b"axios", b".get(", b".post(", b".put(", b".patch(", b".delete(", b"useFetch"):
        return []
    out: list[dict[str, Any]] = []
    bases: dict[str, sx.Parts] = {}
    for c in ctx.calls:
        if c.callee == "axios.create":
            name = sx.assigned_name(ctx.language, c.node)
            cfg = sx.mapping(ctx.language, c.args[0]) if c.args else {}
            if name:
                bases[name] = ctx.parts(cfg.get("baseURL")) or [("hole", "baseURL")]
    for c in ctx.calls:
        callee, method = c.callee, c.method
        if callee in ("fetch", "window.fetch", "globalThis.fetch", "$fetch", "ofetch", "useFetch", "useLazyFetch") \
                and c.args:
            parts = _url(ctx, c.args[0])
            if parts is None:
                continue
            opts = c.args[1] if len(c.args) > 1 else None
            client = "fetch" if "fetch" in callee.lower() and not callee.startswith(("$", "use")) else "nuxt"
            out.append(_rec(ctx, c.line, _js_options_method(ctx, opts), parts, client))
            continue
        if callee in ("axios", "axios.request") and c.args:
            first = c.args[0]
            if first.type == "object":
                cfg = sx.mapping(ctx.language, first)
                parts = _url(ctx, cfg.get("url"))
                if parts is None:
                    continue
                out.append(_rec(ctx, c.line, _js_options_method(ctx, first), parts, "axios"))
            else:
                parts = _url(ctx, first)
                if parts is not None:
                    out.append(_rec(ctx, c.line, _js_options_method(ctx, c.args[1] if len(c.args) > 1 else None),
                                    parts, "axios"))
            continue
        verb = _VERBS.get(method)
        if verb is None or not c.args or not c.receiver:
            continue
        recv = c.receiver
        if js_route_call(ctx, c) is not None:
            continue
        parts = _url(ctx, c.args[0])
        if parts is None:
            continue
        if recv == "axios":
            out.append(_rec(ctx, c.line, verb, parts, "axios"))
        elif recv in bases:
            out.append(_rec(ctx, c.line, verb, _with_base(bases[recv], parts), "axios"))
        elif _JS_CLIENTISH.search(recv) and _looks_like_path(parts):
            out.append(_rec(ctx, c.line, verb, parts, "http-client", base="unknown"))
    return out


def _looks_like_path(parts: sx.Parts) -> bool:
    """A first argument that reads as a URL path (not a cache key or a map lookup)."""
    if not parts:
        return False
    k, v = parts[0]
    if k == "lit":
        return v.startswith(("/", "http://", "https://")) or ("/" in v and " " not in v)
    return len(parts) > 1 and parts[1][0] == "lit" and parts[1][1].startswith("/")


def _with_base(base: sx.Parts, parts: sx.Parts) -> sx.Parts:
    if parts and parts[0][0] == "lit" and re.match(r"^[a-z]+://", parts[0][1]):
        return parts  # an absolute URL ignores the instance's base
    if not base:
        return parts
    if base[-1][0] == "lit" and parts and parts[0][0] == "lit":
        joined = base[-1][1].rstrip("/") + "/" + parts[0][1].lstrip("/")
        return base[:-1] + [("lit", joined)] + parts[1:]
    if base[-1][0] == "lit" and parts:
        return base[:-1] + [("lit", base[-1][1].rstrip("/") + "/")] + parts
    return base + parts


# --- python ---------------------------------------------------------------------------------------

_PY_SESSION_CTORS = {"requests.Session": "requests", "requests.session": "requests", "httpx.Client": "httpx",
                     "httpx.AsyncClient": "httpx", "aiohttp.ClientSession": "aiohttp", "Session": "requests",
                     "ClientSession": "aiohttp", "AsyncClient": "httpx", "Client": "httpx"}


def _python(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"import requests", b"from requests", b"httpx", b"aiohttp"):
        return []
    out: list[dict[str, Any]] = []
    sessions: dict[str, tuple[str, sx.Parts | None]] = {}
    for c in ctx.calls:
        lib = _PY_SESSION_CTORS.get(c.callee)
        if lib is None or (c.callee in ("Client", "Session") and not ctx.has(b"httpx", b"requests")):
            continue
        name = sx.assigned_name(ctx.language, c.node)
        if name:
            base = c.kwargs.get("base_url")
            sessions[name] = (lib, ctx.parts(base) if base is not None else None)
    for c in ctx.calls:
        recv, method = c.receiver, c.method
        lib: str | None = None
        base: sx.Parts | None = None
        if recv in ("requests", "httpx"):
            lib = recv
        elif recv in sessions:
            lib, base = sessions[recv]
        if lib is None:
            continue
        if method == "request" and len(c.args) >= 2:
            m = ctx.literal(c.args[0])
            url_node = c.args[1]
            verb = m.upper() if m else None
        elif method in _VERBS:
            verb = _VERBS[method]
            url_node = c.args[0] if c.args else c.kwargs.get("url")
        else:
            continue
        parts = _url(ctx, url_node)
        if parts is None:
            continue
        if base is not None:
            parts = _with_base(base, parts)
        elif recv in sessions and not (parts and parts[0][0] == "lit" and "://" in parts[0][1]):
            out.append(_rec(ctx, c.line, verb, parts, lib, base="unknown"))
            continue
        out.append(_rec(ctx, c.line, verb, parts, lib))
    return out


# --- java / kotlin --------------------------------------------------------------------------------


def _jvm(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if ctx.has(b"FeignClient"):
        from codegraph.indexer.adapters.http_server import spring_mappings

        for a in ctx.annotated:
            if a.kind != "function" or a.parent is None:
                continue
            feign = next((x for x in a.parent.annotations if x.name == "FeignClient"), None)
            if feign is None:
                continue
            fpath = ctx.literal(feign.kwargs.get("path")) or ""
            for m, p, ln in spring_mappings(ctx, a):
                url = join(fpath, p)
                parts = sx.uri_template_holes([("lit", url)])
                out.append(_rec(ctx, ln, None if m == "ANY" else m, parts, "feign", at=a.line))
    if not ctx.has(b"ForObject", b"ForEntity", b"exchange", b".uri(", b"postForLocation", b"restTemplate",
                   b"RestTemplate"):
        return out
    for c in ctx.calls:
        if c.method in _REST_TEMPLATE and c.args:
            fixed = _REST_TEMPLATE[c.method]
            if c.method in ("put", "delete", "exchange", "execute") and not re.search(r"rest|template", c.receiver, re.I):
                continue
            verb = fixed
            if fixed is None:
                if len(c.args) < 2:
                    continue
                mm = re.search(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b", sx.text(c.args[1]))
                verb = mm.group(1) if mm else None
            parts = _url(ctx, c.args[0])
            if parts is None:
                continue
            out.append(_rec(ctx, c.line, verb, sx.uri_template_holes(parts), "resttemplate"))
        elif c.method == "uri" and c.args and c.receiver.endswith("()"):
            last = c.receiver[:-2].rsplit(".", 1)[-1]
            verb = _VERBS.get(last)
            if verb is None and last == "method":
                mm = re.search(r"\b(GET|POST|PUT|PATCH|DELETE)\b", sx.text(c.receiver_node))
                verb = mm.group(1) if mm else None
            elif verb is None:
                continue
            parts = _url(ctx, c.args[0])
            if parts is None:
                continue
            out.append(_rec(ctx, c.line, verb, sx.uri_template_holes(parts), "webclient"))
    return out


# --- go --------------------------------------------------------------------------------------------

_GO_FUNCS = {"Get": "GET", "Head": "HEAD", "Post": "POST", "PostForm": "POST"}


def _go(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"net/http"):
        return []
    out: list[dict[str, Any]] = []
    for c in ctx.calls:
        recv, method = c.receiver, c.method
        if method in ("NewRequest", "NewRequestWithContext") and recv == "http":
            i = 1 if method == "NewRequestWithContext" else 0
            if len(c.args) < i + 2:
                continue
            mnode = c.args[i]
            lit = ctx.literal(mnode)
            verb = lit.upper() if lit else None
            if verb is None:
                mm = re.match(r"^http\.Method(\w+)$", sx.text(mnode))
                verb = mm.group(1).upper() if mm else None
            parts = _url(ctx, c.args[i + 1])
            if parts is not None:
                out.append(_rec(ctx, c.line, verb, parts, "net/http"))
        elif method in _GO_FUNCS and c.args and (recv == "http" or re.search(r"(^|\.)(c|client|\w*Client)$", recv)):
            parts = _url(ctx, c.args[0])
            if parts is not None and (recv == "http" or _looks_like_path(parts)):
                out.append(_rec(ctx, c.line, _GO_FUNCS[method], parts, "net/http"))
    return out


CALL_NAMES = frozenset({
    "fetch", "$fetch", "ofetch", "useFetch", "useLazyFetch", "axios", "request", "create", *_VERBS,
    "Session", "session", "Client", "AsyncClient", "ClientSession", *_REST_TEMPLATE, "uri",
    "NewRequest", "NewRequestWithContext", *_GO_FUNCS,
})
