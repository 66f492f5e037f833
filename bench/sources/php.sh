#!/usr/bin/env bash
# Real PHP code for bench/bench_languages.py: Debian's php library packages (symfony
# console, monolog, guzzle psr7, league commonmark) ship their .php files; they are
# unpacked, not installed. Needs `apt-get update` once on a fresh machine. Prints the
# folder they are unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/php"
mkdir -p "$CACHE/deb" "$CACHE/tree"
cd "$CACHE/deb"
for p in php-symfony-console php-monolog php-guzzlehttp-psr7 php-league-commonmark; do
  ls "$p"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >&2
done
for deb in *.deb; do
  name="${deb%%_*}"
  [ -d "$CACHE/tree/$name" ] || dpkg-deb -x "$deb" "$CACHE/tree/$name"
done
echo "$CACHE/tree"
