"""Page routes from file-system routers and the explicit mapping."""

from __future__ import annotations

from codegraph.indexer.adapters.pages import assign_routes


def test_nextjs_app_router_groups_params_and_colocation() -> None:
    paths = [
        "web/app/(shop)/orders/[id]/page.tsx",
        "web/app/(shop)/orders/[id]/OrderRow.tsx",  # colocated: belongs to the page next to it
        "web/app/(shop)/orders/[id]/_parts/Lines.tsx",  # private folder under the page
        "web/app/(shop)/orders/[id]/layout.tsx",
        "web/app/page.tsx",
        "web/app/components/Button.tsx",  # shared folder without a page: no route
        "web/app/api/orders/route.ts",  # an endpoint, not a page
        "web/app/@modal/(.)photo/[id]/page.tsx",
        "web/app/docs/[...slug]/page.mdx",
        "apps/site/src/app/about/page.tsx",
    ]
    assert assign_routes(paths) == {
        "web/app/(shop)/orders/[id]/page.tsx": ("/orders/:id", "web"),
        "web/app/(shop)/orders/[id]/OrderRow.tsx": ("/orders/:id", "web"),
        "web/app/(shop)/orders/[id]/_parts/Lines.tsx": ("/orders/:id", "web"),
        "web/app/(shop)/orders/[id]/layout.tsx": ("/orders/:id", "web"),
        "web/app/page.tsx": ("/", "web"),
        "web/app/@modal/(.)photo/[id]/page.tsx": ("/photo/:id", "web"),
        "web/app/docs/[...slug]/page.mdx": ("/docs/*slug", "web"),
        "apps/site/src/app/about/page.tsx": ("/about", "apps/site"),
    }


def test_pages_router_sveltekit_remix_and_explicit() -> None:
    paths = [
        "site/pages/index.tsx", "site/pages/orders/[id].tsx", "site/pages/_app.tsx", "site/pages/api/x.ts",
        "site/pages/blog/[...slug].tsx",
        "kit/src/routes/orders/[id]/+page.ts", "kit/src/routes/+layout.ts", "kit/src/routes/orders/helpers.ts",
        "rmx/app/root.tsx", "rmx/app/routes/_index.tsx", "rmx/app/routes/orders.$id.tsx",
        "rmx/app/routes/_auth.login.tsx", "rmx/app/routes/orders_.$id.edit/route.tsx", "rmx/app/utils.ts",
        "spa/src/screens/Orders.tsx", "spa/src/screens/Other.tsx",
    ]
    assert assign_routes(paths, {"spa/src/screens/Orders.tsx": "/orders/{id}"}) == {
        "site/pages/index.tsx": ("/", "site"),
        "site/pages/orders/[id].tsx": ("/orders/:id", "site"),
        "site/pages/blog/[...slug].tsx": ("/blog/*slug", "site"),
        "kit/src/routes/orders/[id]/+page.ts": ("/orders/:id", "kit"),
        "kit/src/routes/+layout.ts": ("/", "kit"),
        "rmx/app/routes/_index.tsx": ("/", "rmx"),
        "rmx/app/routes/orders.$id.tsx": ("/orders/:id", "rmx"),
        "rmx/app/routes/_auth.login.tsx": ("/login", "rmx"),
        "rmx/app/routes/orders_.$id.edit/route.tsx": ("/orders/:id/edit", "rmx"),
        "spa/src/screens/Orders.tsx": ("/orders/:id", "spa"),  # explicit mapping from codegraph.toml
    }
