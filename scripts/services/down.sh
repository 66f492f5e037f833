#!/usr/bin/env bash
# `make services-stop`: stop the local Elasticsearch and Neo4j servers. Data and downloads
# stay, so `make services` brings back the same stores. .codegraph/services.env is moved
# aside (services.env.stopped): with the servers gone, `codegraph` falls back to the
# embedded stores instead of pointing at dead addresses; `make services` writes it again.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ES="$ROOT/scripts/services/elasticsearch.sh"
rc=0
if [[ -f "$ES" ]]; then
  bash "$ES" stop || rc=1
fi
bash "$ROOT/scripts/services/neo4j/neo4j.sh" stop || rc=1
if [[ -f "$ROOT/.codegraph/services.env" ]]; then
  mv -f "$ROOT/.codegraph/services.env" "$ROOT/.codegraph/services.env.stopped"
fi
exit "$rc"
