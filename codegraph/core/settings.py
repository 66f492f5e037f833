"""Settings from environment (``CODEGRAPH_*``) and ``.codegraph/services.env``.

``CODEGRAPH_GRAPH``: ``embedded`` or ``bolt://host:7687`` (Neo4j).
``CODEGRAPH_SEARCH``: ``embedded`` or ``http://host:9200`` (Elasticsearch).
``CODEGRAPH_HOME``: embedded data and indexer state (default ``~/.codegraph``).
``CODEGRAPH_EMBED_MODEL_PATH``: folder of the ONNX sentence-embedding model; default the
project's ``models/all-MiniLM-L6-v2-onnx``, then fastembed's cache (``core/model_source.py``
has the whole order); ``none`` disables.
Secrets (``CODEGRAPH_NEO4J_PASSWORD``, ``CODEGRAPH_API_TOKEN``) are SecretStr and never printed.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SERVICES_ENV = Path(".codegraph") / "services.env"


def _services_env_files() -> tuple[Path, ...]:
    """services.env written by ``make services``: in the cwd or the project root."""
    found = [p for p in (Path.cwd() / SERVICES_ENV, PROJECT_ROOT / SERVICES_ENV) if p.is_file()]
    return tuple(dict.fromkeys(found))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CODEGRAPH_", extra="ignore")

    graph: str = "embedded"
    search: str = "embedded"
    home: Path = Path.home() / ".codegraph"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    api_token: SecretStr = SecretStr("")  # bearer token of `codegraph serve`; empty = no auth
    neo4j_database: str = "neo4j"
    elastic_prefix: str = "codegraph"
    embed_model_path: str = ""
    embed_model_file: str = ""  # "" = model.onnx (fp32) if the folder has it, else model_quantized.onnx
    embed_threads: int = 0  # 0 = all cores
    impact_depth: int = 5
    max_file_bytes: int = 1_000_000
    workers: int = 0  # indexer processes; 0 = cores

    def model_folder(self) -> Path | None:
        """The embedding model folder, or None (no model, or fastembed's named model)."""
        from codegraph.core.model_source import resolve_model

        return resolve_model(self).folder

    @property
    def graph_db(self) -> Path:
        return self.home / "graph.db"

    @property
    def search_db(self) -> Path:
        return self.home / "search.db"

    @property
    def state_db(self) -> Path:
        return self.home / "state.db"


def load_settings(**overrides: object) -> Settings:
    """Settings from env, then services.env (env wins), then ``overrides``."""
    env_files = _services_env_files()
    s = Settings(_env_file=env_files or None, **overrides)  # type: ignore[call-arg]
    s.home = Path(os.path.expanduser(str(s.home)))
    return s


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
