#!/usr/bin/env bash
# Real Go code for bench/bench_languages.py: module sources from the Go module proxy.
# Prints the folder that holds them (a private module cache under the bench cache).
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/go"
mkdir -p "$CACHE"
export GOMODCACHE="$CACHE/mod" GOFLAGS=-mod=mod
for m in github.com/go-chi/chi/v5@v5.2.1 github.com/spf13/cobra@v1.8.1 github.com/gin-gonic/gin@v1.10.0 \
         golang.org/x/sync@v0.10.0 github.com/gorilla/mux@v1.8.1; do
  go mod download "$m" >&2
done
# Only the extracted sources: skip the download cache (zips, .mod files).
mkdir -p "$CACHE/src"
for d in "$CACHE"/mod/github.com/*/* "$CACHE"/mod/golang.org/x/*; do
  [ -d "$d" ] || continue
  name="$(basename "$(dirname "$d")")_$(basename "$d")"
  [ -e "$CACHE/src/$name" ] || ln -s "$d" "$CACHE/src/$name"
done
echo "$CACHE/src"
