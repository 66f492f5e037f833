"""Repo-wide JS/TS module resolution: tsconfig baseUrl/paths (with extends), package.json
workspaces, exports (dist -> src), subpath imports (#x), .js specifiers naming .ts
sources, directory index files, barrels. Exact IMPORTS and CALLS edge sets."""

from __future__ import annotations

import shutil
from pathlib import Path

from codegraph.indexer.languages import link_repo
from codegraph.indexer.languages.javascript.modules import strip_jsonc
from codegraph.indexer.resolve import resolve_repo
from tests.boundaries.util import FIXTURES, end
from tests.helpers import edge_set, extract_tree

ROOT = FIXTURES / "jsmod"


def test_imports_map_into_the_repository() -> None:
    assert edge_set(ROOT, types=("IMPORTS",)) == {
        ("IMPORTS", "apps/admin/main.ts", "packages/math/src/index.ts"),  # workspace package, dist -> src
        ("IMPORTS", "apps/admin/main.ts", "src/util/helper.ts"),  # paths inherited through extends
        ("IMPORTS", "packages/math/src/index.ts", "packages/math/src/round.ts"),
        ("IMPORTS", "src/app.ts", "config/index.ts"),  # exact paths entry
        ("IMPORTS", "src/app.ts", "packages/math/src/index.ts"),
        ("IMPORTS", "src/app.ts", "packages/math/src/round.ts"),  # exports subpath "./round"
        ("IMPORTS", "src/app.ts", "src/components/widget.ts"),  # baseUrl alone
        ("IMPORTS", "src/app.ts", "src/internal/secret.ts"),  # package.json "imports" (#internal/*)
        ("IMPORTS", "src/app.ts", "src/lib/index.ts"),  # directory index
        ("IMPORTS", "src/app.ts", "src/lib/parse.ts"),  # "./lib/parse.js" names the .ts source
        ("IMPORTS", "src/app.ts", "src/util/helper.ts"),  # "~/*" wildcard
        ("IMPORTS", "src/app.ts", "stub:react"),  # a real package stays external
    }


def test_calls_through_mapped_imports_resolve() -> None:
    assert edge_set(ROOT, types=("CALLS",)) == {
        ("CALLS", "apps/admin/main.admin", "packages/math/src/round.round"),  # namespace import + export *
        ("CALLS", "apps/admin/main.admin", "src/util/helper.helper"),
        ("CALLS", "src/app.main", "config/index.settings.load"),
        ("CALLS", "src/app.main", "packages/math/src/index.sum"),
        ("CALLS", "src/app.main", "packages/math/src/round.round"),
        ("CALLS", "src/app.main", "src/components/widget.widget"),
        ("CALLS", "src/app.main", "src/internal/secret.secret"),
        ("CALLS", "src/app.main", "src/lib/index.x"),
        ("CALLS", "src/app.main", "src/lib/parse.parse"),
        ("CALLS", "src/app.main", "src/util/helper.helper"),
        ("CALLS", "src/app.main", "stub:react.createElement"),
    }


def _imports(fxs: list) -> set[tuple[str, str]]:
    res = resolve_repo("fx", fxs)
    return {(end(e.source), end(e.target)) for es in res.edges.values() for e in es if e.type == "IMPORTS"}


def test_link_pass_is_idempotent_and_follows_config_changes(tmp_path: Path) -> None:
    root = tmp_path / "jsmod"
    shutil.copytree(ROOT, root)
    fxs = extract_tree(root)
    link_repo(fxs, root)
    once = _imports(fxs)
    link_repo(fxs, root)
    assert _imports(fxs) == once
    # The configs go away: the same (cached) extractions fall back to external specifiers.
    (root / "tsconfig.json").unlink()
    (root / "apps/admin/tsconfig.json").unlink()
    link_repo(fxs, root)
    after = _imports(fxs)
    assert ("src/app.ts", "stub:~/util/helper") in after and ("src/app.ts", "src/util/helper.ts") not in after
    assert ("src/app.ts", "packages/math/src/index.ts") in after  # the workspace package still maps


def test_strip_jsonc() -> None:
    text = '{\n // c\n "a": "x//y", /* b */ "b": [1, 2,],\n}'
    assert strip_jsonc(text).replace(" ", "").replace("\n", "") == '{"a":"x//y","b":[1,2]}'
