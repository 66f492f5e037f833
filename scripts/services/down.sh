#!/usr/bin/env bash
# `make services-stop`: stop the local Elasticsearch and Neo4j servers. Data, downloads and
# .codegraph/services.env stay, so `make services` brings back the same stores.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ES="$ROOT/scripts/services/elasticsearch.sh"
rc=0
if [[ -f "$ES" ]]; then
  bash "$ES" stop || rc=1
fi
bash "$ROOT/scripts/services/neo4j/neo4j.sh" stop || rc=1
exit "$rc"
