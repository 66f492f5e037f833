#!/usr/bin/env bash
# The main job for a newcomer: index real code that is on every machine (this Python's
# standard library, without its test suite) into the embedded stores, keep embedding in
# the background (graph and BM25 search answer at once), and open the dashboard.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
STDLIB=$($BIN/python -c "import sysconfig; print(sysconfig.get_paths()['stdlib'])")
export CODEGRAPH_HOME="${CODEGRAPH_HOME:-$PWD/.codegraph/demo}"
# The demo runs on the embedded stores whatever `make services` left configured.
export CODEGRAPH_GRAPH=embedded CODEGRAPH_SEARCH=embedded
echo "indexing the Python standard library at $STDLIB into $CODEGRAPH_HOME (tests left out)"
$BIN/codegraph index "$STDLIB" --repo stdlib --no-embed -x 'test/' -x 'tests/' -x 'idle_test/'
# A small bundled full-stack sample (HTTP endpoints, a client, a table, pages) beside it, so the
# first screens show entry points, tables and pages too (samples/fullstack/README.md).
$BIN/codegraph index samples/fullstack --repo sample --no-embed
$BIN/codegraph impact json.loads --depth 2 --limit 15
$BIN/codegraph impact table:orders --repo sample --limit 15
echo "embedding search chunks in the background (log: $CODEGRAPH_HOME/embed.log); vector search improves as it runs"
nohup $BIN/codegraph embed --repo stdlib > "$CODEGRAPH_HOME/embed.log" 2>&1 &
$BIN/codegraph dashboard --port "${PORT:-8501}"
