#!/usr/bin/env bash
# Real C++ code for bench/bench_languages.py: GoogleTest's sources (Debian's googletest
# package, on the machine as /usr/src/googletest, else downloaded and unpacked) and
# the {fmt} library's headers (Debian's libfmt-dev, unpacked). Prints the folder.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/cpp"
mkdir -p "$CACHE/deb" "$CACHE/tree"
cd "$CACHE/deb"
# Copies, not symlinks: discovery does not follow a symlinked folder.
if [ ! -d "$CACHE/tree/googletest" ]; then
  if [ -d /usr/src/googletest ]; then
    cp -r /usr/src/googletest "$CACHE/tree/googletest"
  else
    ls googletest_*.deb >/dev/null 2>&1 || apt-get download -q googletest >&2
    dpkg-deb -x googletest_*.deb "$CACHE/x-gtest" && cp -r "$CACHE/x-gtest/usr/src/googletest" "$CACHE/tree/"
  fi
fi
if [ ! -d "$CACHE/tree/fmt" ]; then
  ls libfmt-dev_*.deb >/dev/null 2>&1 || apt-get download -q libfmt-dev >&2
  dpkg-deb -x libfmt-dev_*.deb "$CACHE/x-fmt" && cp -r "$CACHE/x-fmt/usr/include/fmt" "$CACHE/tree/fmt"
fi
echo "$CACHE/tree"
