"""HTTP endpoints and client calls per framework family: exact EXPOSES / CALLS_HTTP edge
sets (a missing and an extra edge both fail) and the client URLs left unplaced."""

from __future__ import annotations

from tests.boundaries.util import FIXTURES, boundary_edges, link_tree, unplaced

HTTP = ("EXPOSES", "CALLS_HTTP")


def test_flask_routes_blueprints_and_requests() -> None:
    root = FIXTURES / "flask"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "worker.client.fetch_order", "GET /api/orders/:order_id"),  # f"{BASE}/..." with BASE a constant
        ("CALLS_HTTP", "worker.client.ping", "GET /health"),  # session without base_url: literal tail only
        ("CALLS_HTTP", "worker.client.put_items", "PUT /api/orders/:order_id/items"),
        ("EXPOSES", "shop.app.index", "GET /"),
        ("EXPOSES", "shop.app.login", "GET /login"),
        ("EXPOSES", "shop.app.login", "POST /login"),
        # Blueprint(url_prefix="/orders") under register_blueprint(url_prefix="/api")
        ("EXPOSES", "shop.orders.replace_items", "PUT /api/orders/:order_id/items"),
        ("EXPOSES", "shop.orders.show", "GET /api/orders/:order_id"),
        ("EXPOSES", "shop.views.health", "GET /health"),  # add_url_rule(view_func=imported function)
    }
    assert unplaced(root) == {
        ("worker/client.py", 20, "dynamic"), ("worker/client.py", 24, "no_match"),
        # The server's own code with a configurable base reaches other services, not itself.
        ("shop/selfcall.py", 7, "no_match"),
    }


def test_fastapi_nested_include_router_and_httpx() -> None:
    root = FIXTURES / "fastapi"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "clients.client.item", "GET /api/items/:item_id"),  # AsyncClient(base_url=host) + path
        ("CALLS_HTTP", "clients.client.patch_item", "PATCH /api/items/:item_id"),  # client.request("PATCH", ...)
        ("EXPOSES", "svc.main.status", "GET /status"),
        # app <- api (prefix /api) <- items.router (include prefix /items)
        ("EXPOSES", "svc.routers.items.get_item", "GET /api/items/:item_id"),
        ("EXPOSES", "svc.routers.items.list_items", "GET /api/items"),
        ("EXPOSES", "svc.routers.items.update_item", "PATCH /api/items/:item_id"),
        ("EXPOSES", "svc.routers.items.update_item", "PUT /api/items/:item_id"),
        # imported as `router as users_router`, own prefix /users
        ("EXPOSES", "svc.routers.users.remove_user", "DELETE /api/users/:user_id"),
    }
    assert unplaced(root) == {
        ("clients/client.py", 15, "no_match"),  # POST: no such method on the route
        ("clients/client.py", 19, "external"),  # a public host is not this repository's server
    }


def test_django_urlpatterns_include_and_drf_router() -> None:
    root = FIXTURES / "django"
    assert boundary_edges(root, HTTP) == {
        ("EXPOSES", "orders.views.CouponViewSet", "ANY /shop/api/coupons"),
        ("EXPOSES", "orders.views.CouponViewSet", "ANY /shop/api/coupons/:pk"),
        ("EXPOSES", "orders.views.OrderDetail", "ANY /shop/orders/:pk"),  # OrderDetail.as_view()
        ("EXPOSES", "orders.views.archive", "ANY /shop/archive/:year"),  # re_path named group
        ("EXPOSES", "orders.views.order_list", "ANY /shop/orders"),
        ("EXPOSES", "site.views.home", "ANY /"),
    }


def test_express_mounts_route_chains_and_clients() -> None:
    root = FIXTURES / "express"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "src/client.addItem", "POST /api/orders/:id/items"),
        ("CALLS_HTTP", "src/client.clearCache", "DELETE /admin/cache"),
        ("CALLS_HTTP", "src/client.getOrder", "GET /api/orders/:id"),  # axios.create({baseURL: "/api"})
        ("CALLS_HTTP", "src/client.listOrders", "GET /api/orders"),  # axios({url, method})
        # A literal value may fill a parameter when the base is known and only one route fits.
        ("CALLS_HTTP", "src/client.search", "GET /api/orders/:id"),
        ("EXPOSES", "src/app", "GET /health"),  # inline handler: the module's code
        # app.use("/api/orders", require("./routes/orders")); handlers from the controller module
        ("EXPOSES", "src/controllers/orders.addItem", "POST /api/orders/:id/items"),
        ("EXPOSES", "src/controllers/orders.items", "GET /api/orders/:id/items"),
        ("EXPOSES", "src/controllers/orders.list", "GET /api/orders"),
        ("EXPOSES", "src/controllers/orders.show", "GET /api/orders/:id"),
        ("EXPOSES", "src/routes/admin", "DELETE /admin/cache"),  # named import of a Router()
    }
    assert unplaced(root) == set()


def test_nestjs_controller_and_global_prefix() -> None:
    assert boundary_edges(FIXTURES / "nest", HTTP) == {
        ("EXPOSES", "src/orders/orders.controller.OrdersController.create", "POST /api/orders"),
        ("EXPOSES", "src/orders/orders.controller.OrdersController.findAll", "GET /api/orders"),
        ("EXPOSES", "src/orders/orders.controller.OrdersController.findOne", "GET /api/orders/:id"),
        ("EXPOSES", "src/orders/orders.controller.OrdersController.removeLine", "DELETE /api/orders/:id/lines/:line"),
    }


def test_nextjs_route_handlers_pages_api_and_fetch() -> None:
    root = FIXTURES / "next"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "src/lib/client.filteredUsers", "ANY /api/users"),  # `/api/users${q ? `?q=..` : ""}`
        ("CALLS_HTTP", "src/lib/client.loadOrder", "GET /api/orders/:id"),  # const url = `...`; fetch(url)
        ("CALLS_HTTP", "src/lib/client.removeOrder", "DELETE /api/orders/:id"),
        ("CALLS_HTTP", "src/lib/client.searchOrders", "GET /api/orders/search"),  # the static route wins
        ("CALLS_HTTP", "src/lib/client.users", "ANY /api/users"),
        ("EXPOSES", "app/api/orders/[id]/route.DELETE", "DELETE /api/orders/:id"),
        ("EXPOSES", "app/api/orders/[id]/route.GET", "GET /api/orders/:id"),
        ("EXPOSES", "app/api/orders/search/route.GET", "GET /api/orders/search"),
        ("EXPOSES", "pages/api/users/index.handler", "ANY /api/users"),
    }
    assert unplaced(root) == set()
    _, _, links = link_tree(root)
    search = next(e for es in links.edges.values() for e in es if e.type == "CALLS_HTTP" and e.line == 19)
    assert search.extra["also_fits"] == ["GET /api/orders/:id"] and search.extra["url"] == "/api/orders/search"


def test_sveltekit_and_nuxt_server_routes() -> None:
    assert boundary_edges(FIXTURES / "kit", HTTP) == {
        ("EXPOSES", "src/routes/api/items/[id]/+server.GET", "GET /api/items/:id"),
        ("EXPOSES", "src/routes/api/items/[id]/+server.PUT", "PUT /api/items/:id"),
    }
    assert boundary_edges(FIXTURES / "nuxt", HTTP) == {
        ("EXPOSES", "server/api/orders/[id].get", "GET /api/orders/:id"),
        ("EXPOSES", "server/api/orders/index.post", "POST /api/orders"),
    }


def test_spring_mappings_feign_resttemplate_webclient_kotlin() -> None:
    root = FIXTURES / "spring"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "com.acme.orders.PaymentsClient.fetch", "GET /api/orders/:id"),  # @FeignClient(path=)
        ("CALLS_HTTP", "com.acme.orders.Reporting.cancel", "PATCH /api/orders/:id/cancel"),  # exchange(HttpMethod)
        ("CALLS_HTTP", "com.acme.orders.Reporting.load", "GET /api/orders/:id"),  # getForObject URI template
        ("CALLS_HTTP", "com.acme.orders.Reporting.stream", "GET /api/orders"),  # webClient.get().uri()
        ("EXPOSES", "com.acme.billing.InvoiceController.delete", "DELETE /api/invoices/:id"),  # Kotlin
        ("EXPOSES", "com.acme.billing.InvoiceController.get", "GET /api/invoices/:id"),
        ("EXPOSES", "com.acme.orders.OrderController.cancel", "PATCH /api/orders/:id/cancel"),
        ("EXPOSES", "com.acme.orders.OrderController.cancel", "PUT /api/orders/:id/cancel"),
        ("EXPOSES", "com.acme.orders.OrderController.create", "POST /api/orders"),
        ("EXPOSES", "com.acme.orders.OrderController.get", "GET /api/orders/:id"),
        ("EXPOSES", "com.acme.orders.OrderController.list", "GET /api/orders"),
    }
    assert unplaced(root) == {("src/main/java/com/acme/orders/PaymentsClient.java", 11, "no_match")}


def test_go_nethttp_gin_chi_and_clients() -> None:
    root = FIXTURES / "go"
    assert boundary_edges(root, HTTP) == {
        ("CALLS_HTTP", "internal/handlers.FetchOrder", "GET /api/v1/orders/:id"),  # "http://api/..." + id
        ("CALLS_HTTP", "internal/handlers.UpdateRemote", "PUT /api/items/:itemID"),  # NewRequest + Sprintf
        ("EXPOSES", "cmd/api.health", "GET /healthz"),  # Go 1.22 "GET /healthz" pattern
        ("EXPOSES", "cmd/api.main", "ANY /ping"),  # inline func: the enclosing function
        ("EXPOSES", "internal/handlers.CreateOrder", "POST /api/v1/orders"),  # gin nested Group, "" path
        ("EXPOSES", "internal/handlers.GetOrder", "GET /api/v1/orders/:id"),
        ("EXPOSES", "internal/handlers.ListItems", "GET /api/items"),  # chi r.Route nesting
        ("EXPOSES", "internal/handlers.Metrics", "ANY /metrics"),  # handler from another package
        ("EXPOSES", "internal/handlers.UpdateItem", "PUT /api/items/:itemID"),
    }
    assert unplaced(root) == set()


def test_base_urls_from_imported_constants() -> None:
    root = FIXTURES / "consts"
    assert boundary_edges(root, HTTP) == {
        # `${WEBUI_API_BASE_URL}/chats/...` with the constant imported through SvelteKit's $lib
        ("CALLS_HTTP", "web/src/lib/apis/chats.getChat", "GET /api/v1/chats/:id"),
        ("CALLS_HTTP", "web/src/lib/apis/chats.getChatConfig", "GET /api/v1/chats/config"),
        # f"{CHATS_URL}/{chat_id}" with CHATS_URL from another module of another project
        ("CALLS_HTTP", "worker.sync.sync", "GET /api/v1/chats/:id"),
        ("EXPOSES", "server.app.chats.get_chat", "GET /api/v1/chats/:id"),
        ("EXPOSES", "server.app.chats.get_config", "GET /api/v1/chats/config"),
    }
    assert unplaced(root) == set()
