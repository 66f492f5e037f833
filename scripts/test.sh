#!/usr/bin/env bash
# The whole test suite, with local Neo4j and Elasticsearch servers (no Docker needed).
# On CI (CI=true) an unreachable server fails the run instead of skipping its tests.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
if [ "${CI:-}" = "true" ]; then export CODEGRAPH_REQUIRE_SERVICES=1; fi
# Headless Chromium for the dashboard's browser test (Debian's package; never a download).
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "note: could not install chromium; the browser test will be skipped"
fi
started=0
if bash scripts/services/up.sh; then
  started=1
else
  echo "note: Neo4j/Elasticsearch did not start; their contract tests will be skipped (fail on CI)"
fi
cleanup() { if [ "$started" = 1 ]; then bash scripts/services/down.sh || true; fi; }
trap cleanup EXIT
$BIN/ruff check codegraph tests bench || exit 1
$BIN/python -m pytest "$@"
