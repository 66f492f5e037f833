#!/usr/bin/env bash
# Real C# code for bench/bench_languages.py. NuGet is not reachable here, so the C#
# comes from PyPI: pythonnet's source distribution carries its whole C# runtime
# (src/runtime, ~150 files). Prints the folder it is unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/csharp"
PY="${PYTHON:-$(dirname "$0")/../../.venv/bin/python}"
[ -x "$PY" ] || PY=python3
mkdir -p "$CACHE"
if [ ! -d "$CACHE/pythonnet-3.2.1" ]; then
  "$PY" -m pip download -q --no-deps --no-binary :all: -d "$CACHE/dl" pythonnet==3.2.1 >&2
  tar xzf "$CACHE/dl/pythonnet-3.2.1.tar.gz" -C "$CACHE"
fi
echo "$CACHE"
