# Sourced by javascript.sh and typescript.sh (not a language script itself: bench_languages.py
# runs only *.sh). npm_packs FOLDER PKG@VERSION...: `npm pack` each package at its pinned version
# into $CODEGRAPH_BENCH_CACHE/FOLDER (once), unpack it (not install), print the unpacked tree.
npm_packs() {
  local cache="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/$1"; shift
  mkdir -p "$cache/tgz" "$cache/tree"
  cd "$cache/tgz"
  local p name t d
  for p in "$@"; do
    name="${p%@*}"; name="${name//\//-}"; name="${name#@}"
    ls "$name"-*.tgz >/dev/null 2>&1 || npm pack --silent "$p" >&2
  done
  for t in *.tgz; do
    d="$cache/tree/${t%.tgz}"
    [ -d "$d" ] || { mkdir -p "$d" && tar xzf "$t" -C "$d"; }
  done
  echo "$cache/tree"
}
