"""The fixed fixture repository tests/fixtures/golden_shop, copied out of the project's
git checkout (so it has no commit) and indexed with the real pipeline into embedded stores.
Used by the REST API tests (tests/api) and the golden answers (tests/golden)."""

from __future__ import annotations

import shutil
from pathlib import Path

from codegraph.core.settings import Settings, load_settings
from tests.indexing import index_into

FIXTURE = Path(__file__).parent / "fixtures" / "golden_shop"
REPO = "golden_shop"


def index_golden(tmp: Path, embed: bool = False) -> Settings:
    """Copy the fixture under ``tmp/src``, index it as ``golden_shop`` into ``tmp/home``;
    returns the settings that open those stores (no model unless ``embed``)."""
    src = tmp / "src" / REPO
    shutil.copytree(FIXTURE, src)
    s = load_settings(home=tmp / "home", graph="embedded", search="embedded",
                      embed_model_path="" if embed else "none")
    index_into(src, REPO, s, embed)
    return s
