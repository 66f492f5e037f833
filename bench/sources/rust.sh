#!/usr/bin/env bash
# Real Rust code for bench/bench_languages.py: crate sources from crates.io, fetched by
# cargo into a private CARGO_HOME (serde, serde_json, regex, anyhow, clap and their
# dependencies, minus generated Windows bindings). Prints the folder that links the
# unpacked crates.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/rust"
export CARGO_HOME="$CACHE/cargo-home"
mkdir -p "$CACHE"
if [ ! -d "$CACHE/proj" ]; then
  cargo new -q --lib "$CACHE/proj" >&2
  (cd "$CACHE/proj" &&
     cargo add -q serde@=1.0.210 --features derive >&2 &&
     cargo add -q clap@=4.5.20 --features derive >&2 &&
     cargo add -q serde_json@=1.0.128 regex@=1.11.0 anyhow@=1.0.89 >&2)
fi
(cd "$CACHE/proj" && cargo fetch -q >&2)
mkdir -p "$CACHE/src"
for d in "$CARGO_HOME"/registry/src/*/*; do
  [ -d "$d" ] || continue
  case "$(basename "$d")" in windows-sys-*|windows_*) continue ;; esac  # 18 MB of generated bindings
  # copies, not symlinks: discovery does not follow a symlinked folder
  [ -e "$CACHE/src/$(basename "$d")" ] || cp -r "$d" "$CACHE/src/"
done
echo "$CACHE/src"
