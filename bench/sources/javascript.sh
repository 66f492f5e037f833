#!/usr/bin/env bash
# Real JavaScript for bench/bench_languages.py: npm packages (express, axios, lodash-es,
# react-router, vue, rxjs) fetched with `npm pack` at pinned versions and unpacked, not
# installed. Prints the folder they are unpacked in (the .js files are the ones read).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm_packs.bash"
npm_packs javascript express@5.3.0 axios@1.21.1 lodash-es@4.18.1 react-router@7.18.7 vue@3.5.45 rxjs@7.8.2
