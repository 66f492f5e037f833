"""Impact tests run on every backend: the stores and the per-test repo names of the
GraphStore contract (tests/contract/conftest.py), plus a second repo for multi-repo graphs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from codegraph.core.graph_store import GraphStore
from tests.contract.conftest import pytest_sessionfinish, repo, store  # noqa: F401  (fixtures and hook)


@pytest.fixture
def other_repo(store: GraphStore) -> Iterator[str]:  # noqa: F811
    name = f"ct-{uuid.uuid4().hex[:10]}"
    yield name
    store.delete_repo(name)
