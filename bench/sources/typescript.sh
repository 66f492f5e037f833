#!/usr/bin/env bash
# Real TypeScript for bench/bench_languages.py: npm packages (zod, @nestjs/core, @nestjs/common,
# typeorm) fetched with `npm pack` at pinned versions and unpacked, not
# installed. Prints the folder they are unpacked in (the .ts files, sources and declarations, are read).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm_packs.bash"
npm_packs typescript zod@4.6.7 @nestjs/core@12.5.1 @nestjs/common@12.5.1 typeorm@1.1.1
