#!/usr/bin/env bash
# Real JavaScript for bench/bench_languages.py: npm packages (express, axios, lodash-es,
# react-router, vue, rxjs) fetched with `npm pack` at pinned versions and unpacked, not
# installed. Prints the folder they are unpacked in (the .js files are the ones read).
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/javascript"
mkdir -p "$CACHE/tgz" "$CACHE/tree"
cd "$CACHE/tgz"
for p in express@5.3.0 axios@1.21.1 lodash-es@4.18.1 react-router@7.18.7 vue@3.5.45 rxjs@7.8.2; do
  name="${p%@*}"; name="${name//\//-}"; name="${name#@}"
  ls "$name"-*.tgz >/dev/null 2>&1 || npm pack --silent "$p" >&2
done
for t in *.tgz; do
  d="$CACHE/tree/${t%.tgz}"
  [ -d "$d" ] || { mkdir -p "$d" && tar xzf "$t" -C "$d"; }
done
echo "$CACHE/tree"
