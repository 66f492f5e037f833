#!/usr/bin/env bash
# Real Ruby code for bench/bench_languages.py: Debian's ruby library packages (rack,
# rspec-core, thor, i18n) ship their .rb files; they are unpacked, not installed.
# Needs `apt-get update` once on a fresh machine. Prints the folder they are unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/ruby"
mkdir -p "$CACHE/deb" "$CACHE/tree"
cd "$CACHE/deb"
for p in ruby-rack ruby-rspec-core ruby-thor ruby-i18n; do
  ls "$p"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >&2
done
for deb in *.deb; do
  name="${deb%%_*}"
  [ -d "$CACHE/tree/$name" ] || dpkg-deb -x "$deb" "$CACHE/tree/$name"
done
echo "$CACHE/tree"
