"""Settings from environment (``CODEGRAPH_*``) and ``.codegraph/services.env``.

``CODEGRAPH_GRAPH``: ``embedded`` or ``bolt://host:7687`` (Neo4j).
``CODEGRAPH_SEARCH``: ``embedded`` or ``http://host:9200`` (Elasticsearch).
``CODEGRAPH_HOME``: embedded data and indexer state (default ``~/.codegraph``).
``CODEGRAPH_EMBED_MODEL_PATH``: folder of the ONNX sentence-embedding model; default the
project's ``models/all-MiniLM-L6-v2-onnx``, then fastembed's cache (``core/model_source.py``
has the whole order); ``none`` disables.
Secrets (``CODEGRAPH_NEO4J_PASSWORD``, ``CODEGRAPH_API_TOKEN``) are ``SecretStr`` and never printed.

Precedence, highest first: keyword overrides of ``load_settings``, the environment
(names matched case-insensitively), the services.env files (a later file wins over an
earlier one), the defaults below. Unknown keys are ignored.

Why not pydantic-settings: every CLI call reads settings, and importing pydantic-settings
cost ~130 ms against a ~14 ms query. This module imports only
the standard library. A value of the wrong type raises ``BadInput``
naming the variable.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from codegraph.core.errors import BadInput

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SERVICES_ENV = Path(".codegraph") / "services.env"
ENV_PREFIX = "CODEGRAPH_"


class SecretStr:
    """A string that prints as ``**********`` (repr, str, f-strings, logs).

    Same surface as pydantic's ``SecretStr`` where the project uses it:
    ``get_secret_value()`` and equality."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('**********')" if self._value else "SecretStr('')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __len__(self) -> int:
        return len(self._value)


def _services_env_files() -> tuple[Path, ...]:
    """services.env written by ``make services``: in the cwd or the project root."""
    found = [p for p in (Path.cwd() / SERVICES_ENV, PROJECT_ROOT / SERVICES_ENV) if p.is_file()]
    return tuple(dict.fromkeys(found))


@dataclass
class Settings:
    graph: str = "embedded"
    search: str = "embedded"
    home: Path = field(default_factory=lambda: Path.home() / ".codegraph")
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = field(default_factory=lambda: SecretStr(""))
    # bearer token of `codegraph serve`; empty = no auth
    api_token: SecretStr = field(default_factory=lambda: SecretStr(""))
    neo4j_database: str = "neo4j"
    elastic_prefix: str = "codegraph"
    embed_model_path: str = ""
    embed_model_file: str = ""  # "" = model.onnx (fp32) if the folder has it, else model_quantized.onnx
    embed_threads: int = 0  # 0 = all cores
    impact_depth: int = 5
    max_file_bytes: int = 1_000_000
    workers: int = 0  # indexer processes; 0 = cores
    # a running `codegraph serve` the CLI asks (search): "" = the one announced in
    # CODEGRAPH_HOME/serve.json, if any; "off" = never (codegraph.core.serve_link)
    serve_url: str = ""

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


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _coerce(name: str, value: object) -> Any:
    """``value`` (a string from env/file, or a typed override) as the field's type."""
    kind = _FIELDS[name].type
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise BadInput(f"{ENV_PREFIX}{name.upper()} must be a whole number, got {str(value)!r}") from None
    if kind == "Path":
        return Path(os.path.expanduser(str(value)))
    if kind == "SecretStr":
        return value if isinstance(value, SecretStr) else SecretStr(str(value))
    return str(value)


def _parse_env_line(line: str) -> tuple[str, str] | None:
    """``KEY=VALUE`` of one services.env line (dotenv subset: ``export``, quotes, comments)."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    if line.startswith("export "):
        line = line[len("export "):].lstrip()
    key, sep, value = line.partition("=")
    if not sep:
        return None
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    elif " #" in value:
        value = value[:value.index(" #")].rstrip()
    return key.strip(), value


def _from_env_files(files: tuple[Path, ...]) -> dict[str, str]:
    """``CODEGRAPH_*`` keys of the files, later files winning. The files are written by
    scripts/services (plain ``KEY=VALUE``); parsed here rather than with python-dotenv,
    whose import compiles ~20 regular expressions (~20 ms) on every CLI call."""
    out: dict[str, str] = {}
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            kv = _parse_env_line(line)
            if kv is not None:
                out[kv[0].upper()] = kv[1]
    return out


def _prefixed(values: dict[str, str]) -> dict[str, str]:
    """Field name -> value for the ``CODEGRAPH_<FIELD>`` keys of ``values`` (any case)."""
    out: dict[str, str] = {}
    for key, value in values.items():
        k = key.upper()
        if k.startswith(ENV_PREFIX):
            name = k[len(ENV_PREFIX):].lower()
            if name in _FIELDS:
                out[name] = value
    return out


def load_settings(**overrides: object) -> Settings:
    """Settings from env, then services.env (env wins), then ``overrides`` (win over both).

    Raises BadInput when a value has the wrong type (e.g. ``CODEGRAPH_WORKERS=many``)."""
    values: dict[str, object] = dict(_prefixed(_from_env_files(_services_env_files())))
    values.update(_prefixed(dict(os.environ)))
    values.update({k: v for k, v in overrides.items() if k in _FIELDS})
    return Settings(**{k: _coerce(k, v) for k, v in values.items()})


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
