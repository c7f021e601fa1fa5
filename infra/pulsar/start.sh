#!/usr/bin/env bash
# Starts a local Apache Pulsar standalone broker (no Docker) from Maven Central jars, waits until it
# serves requests, and creates tenant tg with its namespaces. Idempotent; see README.md for env knobs.
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

TENANT=tg
NAMESPACES=(request response notify flow)

log() { echo "pulsar: $*" >&2; }
die() { log "$*"; exit 1; }

# PUT an admin resource; 204 = created, 409 = already exists. Anything else is an error.
put_admin() { # put_admin PATH [JSON]
  local body="${2:-}" code
  [[ -n "$body" ]] || body='{}'
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X PUT \
    -H 'Content-Type: application/json' -d "$body" "$WEB_URL/admin/v2/$1")" || code=000
  case "$code" in
    204 | 200 | 409) return 0 ;;
    *) die "PUT /admin/v2/$1 failed with HTTP $code" ;;
  esac
}

ensure_namespaces() {
  put_admin "tenants/$TENANT" '{"allowedClusters":["standalone"]}'
  local ns
  for ns in "${NAMESPACES[@]}"; do
    put_admin "namespaces/$TENANT/$ns"
  done
}

ready_line() { # ready_line PID SUFFIX
  echo "pulsar standalone ready: $WEB_URL $WS_URL $BROKER_URL (pid $1$2)"
}

command -v curl >/dev/null || die "curl is required (readiness checks and admin calls)"

# Fast path, no lock: something already answers on the web port.
if pulsar_ready; then
  ensure_namespaces
  pid="$(pulsar_pid || echo '?')"
  echo "pulsar standalone already running: $WEB_URL $WS_URL $BROKER_URL (pid $pid)"
  exit 0
fi

mkdir -p "$PULSAR_HOME/logs" "$PULSAR_HOME/conf" "$PULSAR_HOME/data"

# One start at a time per instance: a second caller waits here, then takes the fast path below.
# fd 9 must not leak into the JVM, or the broker would hold the lock for its whole life.
if command -v flock >/dev/null; then
  exec 9>"$PULSAR_HOME/start.lock"
  flock -w "$((PULSAR_START_TIMEOUT + 600))" 9 || die "timed out waiting for another start.sh ($PULSAR_HOME/start.lock)"
fi

if pulsar_ready; then
  ensure_namespaces
  echo "pulsar standalone already running: $WEB_URL $WS_URL $BROKER_URL (pid $(pulsar_pid || echo '?'))"
  exit 0
fi

# --- Java -----------------------------------------------------------------------------------------
if [[ -n "${JAVA_HOME:-}" ]]; then
  JAVA="$JAVA_HOME/bin/java"
  [[ -x "$JAVA" ]] || die "JAVA_HOME=$JAVA_HOME has no bin/java"
else
  JAVA="$(command -v java || true)"
  [[ -n "$JAVA" ]] || die "java not found: install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
fi
java_major="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
[[ "${java_major:-0}" -ge 17 ]] || die "Pulsar $PULSAR_VERSION needs Java 17+, $JAVA is version ${java_major:-unknown}"

# --- Jars: fetched once per version; .complete marks a finished download -------------------------
LIB="$PULSAR_LIB_DIR/$PULSAR_VERSION"
if [[ ! -f "$LIB/.complete" ]]; then
  command -v mvn >/dev/null || die "mvn not found and $LIB is not populated: install Maven (apt-get install maven)"
  mkdir -p "$PULSAR_LIB_DIR"
  # Separate lock: instances with different PULSAR_HOME share the jar cache.
  if command -v flock >/dev/null; then
    exec 8>"$PULSAR_LIB_DIR/.download.lock"
    flock -w 1800 8 || die "timed out waiting for another download into $PULSAR_LIB_DIR"
  fi
  if [[ ! -f "$LIB/.complete" ]]; then
    log "fetching Pulsar $PULSAR_VERSION jars from Maven into $LIB (once) ..."
    t0="$(now_ms)"
    rm -rf "$LIB" # a half-finished earlier download is redone from scratch
    if ! mvn -q -B -Dstyle.color=never -f "$PULSAR_DIR/pom.xml" dependency:copy-dependencies \
      -Dpulsar.version="$PULSAR_VERSION" -DincludeScope=runtime -DoutputDirectory="$LIB" >&2; then
      die "mvn could not fetch org.apache.pulsar:pulsar-broker:$PULSAR_VERSION (see output above)"
    fi
    touch "$LIB/.complete"
    log "fetched $(find "$LIB" -name '*.jar' | wc -l | tr -d ' ') jars in $(fmt_secs $(($(now_ms) - t0))) s"
  fi
  if command -v flock >/dev/null; then exec 8>&-; fi
fi

# --- Launch (unless a JVM from an interrupted start.sh is still booting) --------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
t0="$(now_ms)"
if pid="$(pulsar_pid)"; then
  log "broker JVM $pid is already booting; waiting for it"
else
  # Fail fast with a clear message instead of a bind error deep in the JVM log (or, worse, taking
  # another process on our web port for our broker).
  for p in "web:$PULSAR_WEB_PORT:PULSAR_WEB_PORT" "broker:$PULSAR_BROKER_PORT:PULSAR_BROKER_PORT" \
    "bookie:$PULSAR_BOOKIE_PORT:PULSAR_BOOKIE_PORT"; do
    IFS=: read -r what port var <<<"$p"
    if port_busy "$port"; then
      die "$what port $port is already in use by another process (set $var to a free port)"
    fi
  done
  # Instance config (only when we launch: a booting JVM keeps the config it started with).
  # The bookie id (127.0.0.1:<bookie port>) is stored in the data; another port cannot read old ledgers.
  old_bookie="$(recorded_port PULSAR_BOOKIE_PORT)"
  if [[ -n "$old_bookie" && "$old_bookie" != "$PULSAR_BOOKIE_PORT" && -d "$PULSAR_HOME/data/bookkeeper" ]]; then
    die "$PULSAR_HOME holds data written by a bookie on port $old_bookie; use PULSAR_BOOKIE_PORT=$old_bookie or delete $PULSAR_HOME/data"
  fi
  {
    echo "# written by infra/pulsar/start.sh: ports of this instance (stop.sh/status.sh read them)"
    echo "PULSAR_WEB_PORT=$PULSAR_WEB_PORT"
    echo "PULSAR_BROKER_PORT=$PULSAR_BROKER_PORT"
    echo "PULSAR_BOOKIE_PORT=$PULSAR_BOOKIE_PORT"
  } >"$INSTANCE_FILE"

  loopback=lo
  if [[ "$(uname -s)" == Darwin ]]; then loopback=lo0; fi
  sed -e "s/^brokerServicePort=.*/brokerServicePort=$PULSAR_BROKER_PORT/" \
    -e "s/^webServicePort=.*/webServicePort=$PULSAR_WEB_PORT/" \
    -e "s/^listeningInterface=.*/listeningInterface=$loopback/" \
    "$PULSAR_DIR/standalone.conf" >"$PULSAR_HOME/conf/standalone.conf"

  rm -f "$PID_FILE"
  if [[ -f "$LOG_FILE" ]]; then mv -f "$LOG_FILE" "$LOG_FILE.1"; fi # keep one previous run's log

  # shellcheck disable=SC2206 # PULSAR_MEM / PULSAR_EXTRA_OPTS are word lists on purpose
  jvm_opts=(
    $PULSAR_MEM
    -XX:+ExitOnOutOfMemoryError
    -XX:+PerfDisableSharedMem # no hsperfdata mmap file in /tmp
    # Same module openings as Pulsar's bin/pulsar (Netty, BookKeeper, RocksDB need them on 17+).
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.util.zip=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
    --add-opens java.base/sun.net=ALL-UNNAMED
    --add-opens java.management/sun.management=ALL-UNNAMED
    --add-opens java.base/jdk.internal.platform=ALL-UNNAMED # load manager reads container CPU limits
    -Dio.netty.tryReflectionSetAccessible=true
    -Djava.net.preferIPv4Stack=true
    -Dbookkeeper.metadata.bookie.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataBookieDriver
    -Dbookkeeper.metadata.client.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataClientDriver
    -Dlog4j.configurationFile="$PULSAR_DIR/log4j2.xml"
    $PULSAR_EXTRA_OPTS
  )
  cmd=("$JAVA" "${jvm_opts[@]}" -cp "$LIB/*" org.apache.pulsar.PulsarStandaloneStarter
    --config "$PULSAR_HOME/conf/standalone.conf"
    --no-functions-worker --no-stream-storage
    --metadata-dir "$PULSAR_HOME/data/metadata"
    --bookkeeper-dir "$PULSAR_HOME/data/bookkeeper"
    --bookkeeper-port "$PULSAR_BOOKIE_PORT")

  # cwd = instance dir, so any relative default path the standalone uses lands there.
  # setsid: own session, so Ctrl-C / job-control signals aimed at the caller do not reach the broker.
  cd "$PULSAR_HOME"
  if command -v setsid >/dev/null; then
    setsid nohup "${cmd[@]}" >"$LOG_FILE" 2>&1 </dev/null 9>&- &
  else
    nohup "${cmd[@]}" >"$LOG_FILE" 2>&1 </dev/null 9>&- &
  fi
  pid=$!
  echo "$pid" >"$PID_FILE"
  log "started broker JVM $pid (Pulsar $PULSAR_VERSION, java $java_major); log: $LOG_FILE"
fi

# --- Wait until ready (bounded) ------------------------------------------------------------------
fail() {
  log "$1; last 40 lines of $LOG_FILE:"
  tail -n 40 "$LOG_FILE" >&2 || true
  exit 1
}
deadline=$((t0 + PULSAR_START_TIMEOUT * 1000))
# Our JVM must be alive *and* the port ready; otherwise it could be someone else answering.
until kill -0 "$pid" 2>/dev/null && pulsar_ready; do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PID_FILE"
    fail "broker JVM $pid exited during startup"
  fi
  if (($(now_ms) > deadline)); then
    # Do not leave a half-started JVM behind: the next start.sh would only wait for it again.
    kill -TERM "$pid" 2>/dev/null || true
    sleep 5
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    fail "broker not ready after ${PULSAR_START_TIMEOUT}s (PULSAR_START_TIMEOUT); stopped JVM $pid"
  fi
  sleep 0.5
done
elapsed="$(fmt_secs $(($(now_ms) - t0)))"

ensure_namespaces
ready_line "$pid" ", $elapsed s"
