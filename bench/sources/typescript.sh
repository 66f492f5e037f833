#!/usr/bin/env bash
# Real TypeScript for bench/bench_languages.py: npm packages (zod, @nestjs/core, @nestjs/common,
# typeorm) fetched with `npm pack` at pinned versions and unpacked, not
# installed. Prints the folder they are unpacked in (the .ts files, sources and declarations, are read).
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/typescript"
mkdir -p "$CACHE/tgz" "$CACHE/tree"
cd "$CACHE/tgz"
for p in zod@4.6.7 @nestjs/core@12.5.1 @nestjs/common@12.5.1 typeorm@1.1.1; do
  name="${p%@*}"; name="${name//\//-}"; name="${name#@}"
  ls "$name"-*.tgz >/dev/null 2>&1 || npm pack --silent "$p" >&2
done
for t in *.tgz; do
  d="$CACHE/tree/${t%.tgz}"
  [ -d "$d" ] || { mkdir -p "$d" && tar xzf "$t" -C "$d"; }
done
echo "$CACHE/tree"
