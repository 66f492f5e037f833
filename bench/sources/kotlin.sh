#!/usr/bin/env bash
# Real Kotlin code for bench/bench_languages.py: -sources jars from Maven Central.
# Prints the folder they are unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/kotlin"
mkdir -p "$CACHE"
for a in org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm:1.9.0 com.squareup.okio:okio-jvm:3.9.1; do
  IFS=: read -r g art v <<<"$a"
  dest="$CACHE/$art-$v"
  if [ ! -d "$dest" ]; then
    mvn -q dependency:get -Dartifact="$g:$art:$v:jar:sources" -Dtransitive=false >&2
    jar="$HOME/.m2/repository/${g//.//}/$art/$v/$art-$v-sources.jar"
    mkdir -p "$dest" && unzip -q -o "$jar" -d "$dest"
  fi
done
echo "$CACHE"
