#!/usr/bin/env bash
# Real C code for bench/bench_languages.py: source distributions from PyPI that carry
# C libraries and extensions (Brotli's whole C library, lz4's, psycopg2's C extension).
# Only the C sources and headers are kept. Prints the folder they are unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/c"
PY="${PYTHON:-$(dirname "$0")/../../.venv/bin/python}"
[ -x "$PY" ] || PY=python3
mkdir -p "$CACHE/dl" "$CACHE/tree"
for spec in brotli==1.1.0 lz4==4.3.3 psycopg2==2.9.10; do
  name="${spec%%==*}"
  if [ ! -d "$CACHE/tree/$name" ]; then
    "$PY" -m pip download -q --no-deps --no-binary :all: -d "$CACHE/dl" "$spec" >&2
    mkdir -p "$CACHE/tree/$name"
    tar xzf "$CACHE/dl/$(ls "$CACHE/dl" | grep -i "^$name-${spec##*==}\.tar\.gz$")" \
      -C "$CACHE/tree/$name" --strip-components=1
    find "$CACHE/tree/$name" -type f ! -name '*.c' ! -name '*.h' -delete
  fi
done
echo "$CACHE/tree"
