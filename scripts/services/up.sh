#!/usr/bin/env bash
# `make services`: start the local Neo4j and Elasticsearch servers (127.0.0.1 only), wait
# until both answer their health checks, and record connection settings in
# .codegraph/services.env (keys of other scripts, e.g. CODEGRAPH_SEARCH, are kept).
# Idempotent: servers already running are left as they are. No Docker needed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ENV_FILE="$ROOT/.codegraph/services.env"
NEO4J="$ROOT/scripts/services/neo4j/neo4j.sh"
ES="$ROOT/scripts/services/elasticsearch.sh"

# set_env KEY VALUE: replace or append one KEY=VALUE line, keeping every other line.
set_env() {
  mkdir -p "$(dirname "$ENV_FILE")"
  touch "$ENV_FILE"
  chmod 600 "$ENV_FILE"
  local tmp; tmp="$(mktemp "$ENV_FILE.XXXXXX")"
  grep -v -E "^$1=" "$ENV_FILE" > "$tmp" || true
  printf '%s=%s\n' "$1" "$2" >> "$tmp"
  mv "$tmp" "$ENV_FILE"
}

bash "$NEO4J" start
set_env CODEGRAPH_GRAPH "$(bash "$NEO4J" uri)"
set_env CODEGRAPH_NEO4J_USER neo4j
set_env CODEGRAPH_NEO4J_PASSWORD "$(bash "$NEO4J" password)"

if [[ ! -f "$ES" ]]; then
  echo "services: error: $ES is missing, so Elasticsearch cannot be started (Neo4j is up)" >&2
  exit 1
fi
bash "$ES" start

bash "$NEO4J" health
bash "$ES" health
echo "services: up; settings in ${ENV_FILE#"$ROOT"/}"
