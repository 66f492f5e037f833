#!/usr/bin/env bash
# Local Neo4j 5 for development and tests: start | stop | health | status.
#
# Builds (once) a small launcher with Maven from Maven Central (cached in ~/.m2, jars in
# .services/neo4j/lib), then runs an embedded Neo4j DBMS with Bolt on 127.0.0.1 and auth
# on. The password is generated once into .services/neo4j/password (mode 600) and reused,
# so the data in .services/neo4j/home keeps working across restarts.
#
# Hardened for raw queries (the launcher sets the server settings: no LOAD CSV from files or
# URLs, an empty import directory, procedures restricted to an allow-list). Started by root,
# the server drops to an unprivileged user (NEO4J_RUN_AS, default "nobody") with setpriv,
# when that user can read the launcher; the home dir is then owned by that user.
#
# A server this script starts is warmed up before it says ready (warm_up, warmup.py).
#
# Environment: NEO4J_BOLT_PORT (7687), NEO4J_HEAP (4g), NEO4J_PAGECACHE_MB (256),
# NEO4J_WARMUP (1; 0 = no warm-up), NEO4J_WARMUP_ROUNDS (5), NEO4J_TX_LOG_RETENTION (keep_none),
# NEO4J_START_TIMEOUT (180 s), NEO4J_RUN_AS (nobody; empty = keep the caller's user),
# NEO4J_GC_OPTS (garbage collector flags, see GC_OPTS), NEO4J_JAVA_OPTS (more JVM flags),
# NEO4J_EXTRA_CONF (a neo4j.conf-style file of extra server settings; the hardening
# settings still win), NEO4J_STATE_DIR (data, pid, log and password; default
# .services/neo4j: a second server for experiments needs its own, and its own port).
# Every failure ends with one line starting "neo4j: error:".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
SRC="$ROOT/scripts/services/neo4j"
DIR="${NEO4J_STATE_DIR:-$ROOT/.services/neo4j}"  # data, pid, log, password
LIB="$ROOT/.services/neo4j/lib"  # where the pom puts the launcher
HOME_DIR="$DIR/home"
PID_FILE="$DIR/neo4j.pid"
LOG="$DIR/launcher.log"
PW_FILE="$DIR/password"
JAR="$LIB/codegraph-neo4j-launcher.jar"
PORT="${NEO4J_BOLT_PORT:-7687}"
HEAP="${NEO4J_HEAP:-4g}"
# Throughput collector, heap fixed at its maximum, 3/4 of it a fixed young generation (adaptive
# sizing off). A bulk load makes mostly short-lived garbage (Cypher rows, parameters, transaction
# state); a young collection costs what survives it (the open transaction's state, 50-280 MB), so
# fewer, larger collections cost less. On G1 with a 1 GiB heap a 100k-row load
# (bench/bench_backends.py) cost ~1.8 s of GC CPU out of ~9 s of server CPU; on ParallelGC with a
# 2 GiB heap and NewRatio=1 0.26-0.66 s: adaptive sizing left a ~600 MB eden and ~5 young pauses
# of 13-330 ms per load. 4 GiB with a 3 GiB young generation: ~1 pause per load, GC CPU 0.00-0.06 s
# (warm server, same bench, load ~4). The old generation stays 1 GiB, as before.
young_of() {  # 3/4 of a -Xmx size such as 4g or 3072m, as MiB; empty when not of that form
  case "$1" in
    *[gG]) [[ "${1%[gG]}" =~ ^[0-9]+$ ]] && echo "$(( ${1%[gG]} * 1024 * 3 / 4 ))m" ;;
    *[mM]) [[ "${1%[mM]}" =~ ^[0-9]+$ ]] && echo "$(( ${1%[mM]} * 3 / 4 ))m" ;;
  esac
}
YOUNG="$(young_of "$HEAP")"
if [[ -n "$YOUNG" ]]; then
  DEFAULT_GC="-Xms$HEAP -XX:+UseParallelGC -Xmn$YOUNG -XX:-UseAdaptiveSizePolicy -XX:SurvivorRatio=8"
else
  DEFAULT_GC="-Xms$HEAP -XX:+UseParallelGC -XX:NewRatio=1"
fi
GC_OPTS="${NEO4J_GC_OPTS:-$DEFAULT_GC}"
EXTRA_OPTS="${NEO4J_JAVA_OPTS:-}"
# Transaction logs: Neo4j keeps 2 days of them by default; a development server that tests and
# bulk-load benches write to grew ~7-10 GB of them in an hour. Only what recovery needs is kept
# (pruned at each checkpoint and at shutdown). NEO4J_TX_LOG_RETENTION takes any value of
# db.tx_log.rotation.retention_policy (e.g. "2 days", "1G size").
TX_LOG_RETENTION="${NEO4J_TX_LOG_RETENTION:-keep_none}"
PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-256}"
START_TIMEOUT="${NEO4J_START_TIMEOUT:-180}"

RUN_AS="${NEO4J_RUN_AS-nobody}"
JAVA="java"
[[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]] && JAVA="$JAVA_HOME/bin/java"

die() { echo "neo4j: error: $*" >&2; exit 1; }

# The port of a running server is the one it was started with (written to its ready file).
running_port() {
  if [[ -f "$HOME_DIR/ready" ]]; then sed -E 's#.*:([0-9]+).*#\1#' "$HOME_DIR/ready"; else echo "$PORT"; fi
}

pid_alive() {
  [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

password() {
  if [[ ! -s "$PW_FILE" ]]; then
    mkdir -p "$DIR"
    (umask 077; head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24 > "$PW_FILE")
  fi
  cat "$PW_FILE"
}

needs_build() {
  [[ ! -f "$JAR" ]] && return 0
  # Rebuild when the pom or the launcher source is newer than the jar.
  [[ -n "$(find "$SRC/pom.xml" "$SRC/src" -newer "$JAR" -type f 2>/dev/null | head -1)" ]]
}

build() {
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is not installed; install Maven 3 (e.g. apt-get install maven) and retry"
  echo "neo4j: building the launcher with Maven (first run downloads Neo4j into ~/.m2)..."
  rm -rf "$LIB"
  if ! mvn -B -q -f "$SRC/pom.xml" package >"$DIR/build.log" 2>&1; then
    die "Maven build failed; see $DIR/build.log"
  fi
}

cmd_health() {
  pid_alive || { echo "neo4j: not running"; return 1; }
  [[ -f "$HOME_DIR/ready" ]] || { echo "neo4j: starting (pid $(cat "$PID_FILE"))"; return 1; }
  local PORT; PORT="$(running_port)"
  port_open || { echo "neo4j: bolt port $PORT not answering"; return 1; }
  # A real authenticated query when the project's Python env has the driver.
  local py="$ROOT/.venv/bin/python"
  if [[ -x "$py" ]] && "$py" -c "import neo4j" 2>/dev/null; then
    if ! NEO4J_PW="$(password)" "$py" - "$PORT" <<'PY' 2>/dev/null
import os, sys
from neo4j import GraphDatabase
with GraphDatabase.driver(f"bolt://127.0.0.1:{sys.argv[1]}", auth=("neo4j", os.environ["NEO4J_PW"]),
                          connection_timeout=5) as d:
    d.execute_query("RETURN 1")
PY
    then
      echo "neo4j: bolt://127.0.0.1:$PORT does not accept a query with the stored password"
      return 1
    fi
  fi
  echo "neo4j: healthy on bolt://127.0.0.1:$PORT"
}

# drop_cmd: the command prefix that runs the server as $RUN_AS, or nothing. Only when we are
# root, setpriv and the user exist, and that user can really read the jars and run java
# (a checkout under a private home would fail later, so we test it now and say so).
drop_cmd() {
  [[ -n "$RUN_AS" && "$(id -u)" == 0 ]] || return 0
  command -v setpriv >/dev/null 2>&1 || { echo "neo4j: note: setpriv missing, the server runs as root" >&2; return 0; }
  id -u "$RUN_AS" >/dev/null 2>&1 || { echo "neo4j: note: no user $RUN_AS, the server runs as root" >&2; return 0; }
  local uid gid; uid="$(id -u "$RUN_AS")"; gid="$(id -g "$RUN_AS")"
  local cmd=(setpriv "--reuid=$uid" "--regid=$gid" --clear-groups --inh-caps=-all)
  if ! "${cmd[@]}" "$JAVA" -cp "$LIB/*" -version >/dev/null 2>&1 || ! "${cmd[@]}" test -r "$JAR"; then
    echo "neo4j: note: user $RUN_AS cannot read $LIB, the server runs as root" >&2
    return 0
  fi
  printf '%s\n' "${cmd[@]}"
}

# warm_up: a freshly started JVM runs Neo4j interpreted until its JIT has compiled the hot
# paths; the first load after a restart (bench/bench_backends.py) ran at ~6-7k rows/s with ~12
# CPU-s of JIT. warmup.py writes and deletes a synthetic repo through codegraph's own store
# (NEO4J_WARMUP_ROUNDS times, default 5: after 2 the first load still had 2.7-2.9 CPU-s of JIT,
# after 5 1.29, after 6 0.74) so that the first real load runs compiled code.
# NEO4J_WARMUP=0 skips it. A failed warm-up is a note: the server is up.
warm_up() {
  [[ "${NEO4J_WARMUP:-1}" == 0 ]] && return 0
  local py="$ROOT/.venv/bin/python"
  [[ -x "$py" ]] || { echo "neo4j: note: no $py, warm-up skipped"; return 0; }
  local t0; t0="$(date +%s)"
  if "$py" "$SRC/warmup.py" "bolt://127.0.0.1:$PORT" "$PW_FILE" --rounds "${NEO4J_WARMUP_ROUNDS:-5}" \
      --pid "$(cat "$PID_FILE" 2>/dev/null)"; then
    echo "neo4j: warmed up in $(( $(date +%s) - t0 )) s (NEO4J_WARMUP=0 skips this)"
  else
    echo "neo4j: note: the warm-up did not finish; the first load will be slower"
  fi
}

cmd_start() {
  mkdir -p "$DIR"
  local fresh=0
  if pid_alive; then
    PORT="$(running_port)"
    echo "neo4j: already running (pid $(cat "$PID_FILE"))"
  else
    fresh=1
    rm -f "$PID_FILE"
    command -v "$JAVA" >/dev/null 2>&1 || die "Java is not installed; install a Java 17+ JDK (e.g. apt-get install openjdk-17-jdk-headless) and retry"
    local jv
    jv="$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')"
    [[ "$jv" =~ ^[0-9]+$ && "$jv" -ge 17 ]] || die "Java 17 or newer is needed (found: $("$JAVA" -version 2>&1 | head -1))"
    port_open && die "port $PORT on 127.0.0.1 is already taken by another process; stop it or set NEO4J_BOLT_PORT"
    if needs_build; then build; fi
    password >/dev/null
    mkdir -p "$HOME_DIR"
    local drop=() pw_for_server="$PW_FILE"
    mapfile -t drop < <(drop_cmd)
    if (( ${#drop[@]} )); then
      # The server user owns its data and a private copy of the password, nothing else.
      chown -R "$RUN_AS:$(id -gn "$RUN_AS")" "$HOME_DIR"
      pw_for_server="$HOME_DIR/.password"
      (umask 077; cp "$PW_FILE" "$pw_for_server")
      chown "$RUN_AS" "$pw_for_server"
      echo "neo4j: the server runs as user $RUN_AS"
    fi
    # The server settings file the launcher reads: the log retention, then NEO4J_EXTRA_CONF's
    # lines (a later line wins), then the launcher's own hardening settings win over both.
    local conf="$DIR/server.conf"
    { echo "db.tx_log.rotation.retention_policy=$TX_LOG_RETENTION"
      [[ -n "${NEO4J_EXTRA_CONF:-}" ]] && cat "$NEO4J_EXTRA_CONF"; true; } > "$conf" \
      || die "cannot write $conf (NEO4J_EXTRA_CONF=${NEO4J_EXTRA_CONF:-})"
    chmod 644 "$conf"
    export NEO4J_EXTRA_CONF="$conf"
    # setsid: the server outlives the shell that started it (make services returns).
    setsid nohup "${drop[@]}" "$JAVA" -Duser.home="$HOME_DIR" "-Xmx$HEAP" $GC_OPTS -XX:+ExitOnOutOfMemoryError \
      -XX:-OmitStackTraceInFastThrow $EXTRA_OPTS -Djdk.nio.maxCachedBufferSize=1024 \
      -Dio.netty.tryReflectionSetAccessible=true \
      --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
      --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
      --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
      -cp "$LIB/*" codegraph.services.Neo4jLauncher "$HOME_DIR" "$PORT" "$pw_for_server" "$PAGECACHE_MB" \
      >"$LOG" 2>&1 < /dev/null &
    echo $! > "$PID_FILE"
    echo "neo4j: started (pid $!), waiting for bolt://127.0.0.1:$PORT ..."
  fi
  local waited=0
  until [[ -f "$HOME_DIR/ready" ]] && port_open; do
    pid_alive || die "the server exited during start; see $LOG"
    (( waited >= START_TIMEOUT )) && die "not ready after ${START_TIMEOUT}s; see $LOG"
    sleep 1; waited=$((waited + 1))
  done
  cmd_health >/dev/null || die "started but the health check fails; see $LOG"
  (( fresh )) && warm_up
  echo "neo4j: ready on bolt://127.0.0.1:$(running_port) (user neo4j, password in $PW_FILE)"
}

cmd_stop() {
  if ! pid_alive; then
    rm -f "$PID_FILE"
    echo "neo4j: not running"
    return 0
  fi
  local pid; pid="$(cat "$PID_FILE")"
  kill -TERM "$pid"
  # A clean shutdown flushes the page cache; give it time before forcing.
  for _ in $(seq 1 90); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "neo4j: did not stop in 90s, killing pid $pid" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE" "$HOME_DIR/ready"
  echo "neo4j: stopped"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  health|status) cmd_health ;;
  password) password ;;
  uri) echo "bolt://127.0.0.1:$(running_port)" ;;
  *) echo "usage: $0 start|stop|health|password|uri" >&2; exit 2 ;;
esac
