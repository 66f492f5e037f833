#!/usr/bin/env bash
# Real Java code for bench/bench_languages.py: -sources jars from Maven Central.
# Prints the folder they are unpacked in.
set -euo pipefail
CACHE="${CODEGRAPH_BENCH_CACHE:-/tmp/codegraph-bench}/java"
mkdir -p "$CACHE"
for a in com.google.guava:guava:33.3.1-jre org.apache.commons:commons-lang3:3.17.0; do
  IFS=: read -r g art v <<<"$a"
  dest="$CACHE/$art-$v"
  if [ ! -d "$dest" ]; then
    mvn -q dependency:get -Dartifact="$g:$art:$v:jar:sources" -Dtransitive=false >&2
    jar="$HOME/.m2/repository/${g//.//}/$art/$v/$art-$v-sources.jar"
    mkdir -p "$dest" && unzip -q -o "$jar" -d "$dest"
  fi
done
echo "$CACHE"
