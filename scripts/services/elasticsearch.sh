#!/usr/bin/env bash
# Local Elasticsearch 8 for CodeGraph Explorer, without Docker.
#
#   bash scripts/services/elasticsearch.sh start|stop|health
#
# start: fetches the integ-test-zip distribution from Maven Central once (cached under
#        .services/), runs it on 127.0.0.1:$ES_PORT (default 9200) on the machine's JDK,
#        waits for yellow/green health and writes CODEGRAPH_SEARCH into
#        .codegraph/services.env. Already running -> ok.
# stop:  stops the node started by this script (pid file), if any.
# health: prints the cluster status; exit 0 on yellow/green.
#
# Why these choices:
# - integ-test-zip is the 8.x distribution published on Maven Central (a registry every
#   developer machine and CI reach); it has no bundled JDK,
#   so it runs on the system Java 17 (8.x's minimum). It also lacks the analysis-common
#   and reindex modules: codegraph splits identifiers in Python and deletes by id.
# - Elasticsearch refuses to run as root; as root we run it as $ES_RUN_AS (nobody).
# Settings (env): ES_VERSION, ES_PORT, ES_JAVA_HOME, ES_JAVA_OPTS, ES_RUN_AS, ES_START_TIMEOUT.
set -euo pipefail

ES_VERSION="${ES_VERSION:-8.19.21}"
ES_PORT="${ES_PORT:-9200}"
ES_JAVA_OPTS="${ES_JAVA_OPTS:--Xms512m -Xmx1g}"
ES_START_TIMEOUT="${ES_START_TIMEOUT:-180}"
ES_RUN_AS="${ES_RUN_AS:-nobody}"
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE_DIR="$ROOT/.services/cache"
ZIP="$CACHE_DIR/elasticsearch-${ES_VERSION}.zip"
BASE="$ROOT/.services/elasticsearch"
ENV_FILE="$ROOT/.codegraph/services.env"
URL="http://127.0.0.1:${ES_PORT}"

die() { echo "elasticsearch: $*" >&2; exit 1; }
say() { echo "elasticsearch: $*"; }

is_root() { [ "$(id -u)" = "0" ]; }

# Root: the service user must reach BASE; a checkout under /root is not traversable by
# nobody, so fall back to a world-traversable folder outside the checkout then.
pick_base() {
  if is_root; then
    id "$ES_RUN_AS" >/dev/null 2>&1 || die "user '$ES_RUN_AS' does not exist (set ES_RUN_AS to a non-root user)"
    mkdir -p "$BASE"
    if ! runuser -u "$ES_RUN_AS" -- test -x "$BASE" 2>/dev/null; then
      BASE="/var/tmp/codegraph-services-$(echo -n "$ROOT" | sha1sum | cut -c1-8)/elasticsearch"
      mkdir -p "$BASE"
      chmod 755 "$(dirname "$BASE")"
    fi
  fi
  ES_HOME="$BASE/elasticsearch-${ES_VERSION}"
  DATA_DIR="$BASE/data"
  LOG_DIR="$BASE/logs"
  TMP_DIR="$BASE/tmp"
  RUN_DIR="$BASE/run"
  PID_FILE="$RUN_DIR/es.pid"  # written by the node itself, removed on clean shutdown
}

http_get() { curl -s --max-time "${2:-3}" "$URL$1" 2>/dev/null; }

# 0 when an Elasticsearch node answers on the port (integ-test-zip has no GET / handler).
es_answers() { local body; body="$(http_get /_cluster/health)"; [[ "$body" == *'"cluster_name"'* ]]; }

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/${ES_PORT}") 2>/dev/null
}

our_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

health_status() {
  http_get "/_cluster/health?wait_for_status=yellow&timeout=${1:-1}s" $(( ${1:-1} + 3 )) \
    | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p' || true
}

# Replace or append the CODEGRAPH_SEARCH line, keeping every other KEY=VALUE line.
write_env() {
  mkdir -p "$(dirname "$ENV_FILE")"
  touch "$ENV_FILE"
  chmod 600 "$ENV_FILE"
  local tmp; tmp="$(mktemp "$ENV_FILE.XXXXXX")"
  grep -v '^CODEGRAPH_SEARCH=' "$ENV_FILE" > "$tmp" || true
  printf 'CODEGRAPH_SEARCH=%s\n' "$URL" >> "$tmp"
  mv "$tmp" "$ENV_FILE"
}

find_java_home() {
  local jh="${ES_JAVA_HOME:-${JAVA_HOME:-}}"
  if [ -z "$jh" ]; then
    command -v java >/dev/null 2>&1 || die "java not found: install a JDK 17+ (e.g. apt-get install openjdk-17-jdk-headless) or set ES_JAVA_HOME"
    jh="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
  fi
  [ -x "$jh/bin/java" ] || die "no java at $jh/bin/java: set ES_JAVA_HOME to a JDK 17+"
  local major
  major="$("$jh/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
  [ -n "$major" ] && [ "$major" -ge 17 ] || die "Java $major at $jh is too old: Elasticsearch 8 needs 17+ (set ES_JAVA_HOME)"
  echo "$jh"
}

fetch_zip() {
  [ -s "$ZIP" ] && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven (apt-get install maven) to fetch $ARTIFACT"
  mkdir -p "$CACHE_DIR"
  say "fetching $ARTIFACT from Maven Central"
  mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact="$ARTIFACT" -DoutputDirectory="$CACHE_DIR" -Dmdep.overWriteIfNewer=true >"$CACHE_DIR/mvn.log" 2>&1 \
    || die "mvn could not fetch $ARTIFACT (see $CACHE_DIR/mvn.log)"
  [ -s "$ZIP" ] || die "mvn finished but $ZIP is missing (see $CACHE_DIR/mvn.log)"
}

unpack() {
  [ -x "$ES_HOME/bin/elasticsearch" ] && return 0
  command -v unzip >/dev/null 2>&1 || die "unzip not found: install it (apt-get install unzip)"
  local tmp="$BASE/unpack.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  unzip -q "$ZIP" -d "$tmp" || die "cannot unpack $ZIP (delete it to fetch again)"
  mv "$tmp/elasticsearch-${ES_VERSION}" "$ES_HOME"
  rm -rf "$tmp"
}

need_curl() { command -v curl >/dev/null 2>&1 || die "curl not found: install it (apt-get install curl)"; }

cmd_start() {
  need_curl
  pick_base
  if es_answers; then
    local status; status="$(health_status 5)"
    if [ "$status" = "yellow" ] || [ "$status" = "green" ]; then
      write_env
      say "already running at $URL ($status)"
      return 0
    fi
    die "an Elasticsearch on port $ES_PORT answers but is not healthy (status ${status:-unknown}); see $LOG_DIR"
  fi
  port_in_use && die "port $ES_PORT on 127.0.0.1 is taken by something that is not a healthy Elasticsearch (set ES_PORT)"
  local running
  if running="$(our_pid)"; then
    die "the node started from $BASE (pid $running) does not answer on port $ES_PORT: stop it first"
  fi
  local java_home; java_home="$(find_java_home)"
  fetch_zip
  unpack
  mkdir -p "$DATA_DIR" "$LOG_DIR" "$TMP_DIR" "$RUN_DIR"
  local -a run=()
  if is_root; then
    # The node writes its keystore into config/ and its data/logs; give them to the user.
    chown -R "$ES_RUN_AS" "$ES_HOME" "$DATA_DIR" "$LOG_DIR" "$TMP_DIR" "$RUN_DIR"
    run=(runuser -u "$ES_RUN_AS" --)
  fi
  rm -f "$PID_FILE"
  local t0; t0="$(date +%s%N)"
  "${run[@]}" env ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="$ES_JAVA_OPTS" ES_TMPDIR="$TMP_DIR" \
    "$ES_HOME/bin/elasticsearch" -d -p "$PID_FILE" \
    -E network.host=127.0.0.1 -E http.port="$ES_PORT" \
    -E discovery.type=single-node -E xpack.security.enabled=false \
    -E cluster.routing.allocation.disk.threshold_enabled=false \
    -E path.data="$DATA_DIR" -E path.logs="$LOG_DIR" >"$BASE/start.log" 2>&1 \
    || die "did not start: $(grep -m1 -E 'Exception|^ERROR' "$BASE/start.log" | sed 's/^\[[^]]*\]\[ERROR\][^]]*\] *\[[^]]*\] *//' | cut -c1-300) (see $BASE/start.log)"
  local deadline=$(( $(date +%s) + ES_START_TIMEOUT ))
  while :; do
    local status; status="$(health_status 1)"
    if [ "$status" = "yellow" ] || [ "$status" = "green" ]; then break; fi
    if [ -f "$PID_FILE" ] && ! our_pid >/dev/null; then
      die "exited while starting (see $LOG_DIR/elasticsearch.log)"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || die "no healthy answer at $URL after ${ES_START_TIMEOUT}s (see $LOG_DIR/elasticsearch.log)"
    sleep 1
  done
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  write_env
  say "Elasticsearch $ES_VERSION running at $URL ($status) after ${ms} ms; data in $DATA_DIR"
}

cmd_stop() {
  pick_base
  local pid
  if ! pid="$(our_pid)"; then
    rm -f "$PID_FILE"
    say "not running (no live pid in $PID_FILE)"
    return 0
  fi
  kill "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PID_FILE"; say "stopped (pid $pid)"; return 0; }
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$PID_FILE"
  say "killed (pid $pid did not stop within 30 s)"
}

cmd_health() {
  need_curl
  local status; status="$(health_status 1)"
  if [ "$status" = "yellow" ] || [ "$status" = "green" ]; then
    say "$URL is $status"
    return 0
  fi
  die "no healthy answer at $URL${status:+ (status $status)}"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  health) cmd_health ;;
  *) echo "usage: bash scripts/services/elasticsearch.sh start|stop|health" >&2; exit 2 ;;
esac
