#!/usr/bin/env bash
# Starts a local Apache Pulsar standalone broker (no Docker) from Maven Central jars, waits until it
# serves requests, and creates tenant tg (and TOOLMESH_TENANT's) with its namespaces. Idempotent; see README.md for env knobs.
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

# shellcheck source=security.sh
. "$PULSAR_DIR/security.sh"

# Tenant tg (TrustGraph's, toolmesh's default, and the one the tests' brokers are checked for), and the
# one TOOLMESH_TENANT names when it is another, so a second system beside the first (npm run up with its
# own TOOLMESH_TENANT) finds its tenant made too.
TENANTS=(tg)
if [[ -n "${TOOLMESH_TENANT:-}" && "$TOOLMESH_TENANT" != tg ]]; then TENANTS+=("$TOOLMESH_TENANT"); fi
NAMESPACES=(request response notify flow)

# PUT an admin resource; 204 = created, 409 = already exists. Anything else is an error.
put_admin() { # put_admin PATH [JSON]
  local body="${2:-}" code
  [[ -n "$body" ]] || body='{}'
  code="$(admin_curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X PUT \
    -H 'Content-Type: application/json' -d "$body" "$WEB_URL/admin/v2/$1")" || code=000
  case "$code" in
    204 | 200 | 409) return 0 ;;
    *) die "PUT /admin/v2/$1 failed with HTTP $code" ;;
  esac
}

ensure_namespaces() {
  local tenant ns
  for tenant in "${TENANTS[@]}"; do
    put_admin "tenants/$tenant" '{"allowedClusters":["standalone"]}'
    for ns in "${NAMESPACES[@]}"; do
      put_admin "namespaces/$tenant/$ns"
    done
  done
}

command -v curl >/dev/null || die "curl is required (readiness checks and admin calls)"

# Fast path, no lock: something already answers on the web port.
if pulsar_ready; then
  ensure_namespaces
  echo "pulsar standalone already running: $(pulsar_urls) (pid $(pulsar_pid || echo '?'))"
  # A broker started by an earlier checkout keeps its jars until it restarts (e.g. BookKeeper 4.17.2, see
  # pom.xml): say so, since nothing else would.
  if running="$(pulsar_pid)" && ! ps -o args= -p "$running" 2>/dev/null | grep -qF -- "-cp $BROKER_LIB/*"; then
    log "the running broker was not started from $BROKER_LIB (the jars this checkout uses): stop it (stop.sh, or npm run broker:stop) and start it again to run on them"
  fi
  exit 0
fi

mkdir -p "$PULSAR_HOME/logs" "$PULSAR_HOME/conf" "$PULSAR_HOME/data"

# One start at a time per instance: a second caller waits here, then takes the fast path below.
if command -v flock >/dev/null; then
  exec 9>"$PULSAR_HOME/start.lock"
  flock -w "$((PULSAR_START_TIMEOUT + 600))" 9 || die "timed out waiting for another start.sh ($PULSAR_HOME/start.lock)"
fi

if pulsar_ready; then
  ensure_namespaces
  echo "pulsar standalone already running: $(pulsar_urls) (pid $(pulsar_pid || echo '?'))"
  # A broker started by an earlier checkout keeps its jars until it restarts (e.g. BookKeeper 4.17.2, see
  # pom.xml): say so, since nothing else would.
  if running="$(pulsar_pid)" && ! ps -o args= -p "$running" 2>/dev/null | grep -qF -- "-cp $BROKER_LIB/*"; then
    log "the running broker was not started from $BROKER_LIB (the jars this checkout uses): stop it (stop.sh, or npm run broker:stop) and start it again to run on them"
  fi
  exit 0
fi

require_java
ensure_broker_jars
# The jar set of an earlier checkout, cached before the cache was keyed by BookKeeper's version too.
if [[ -f "$PULSAR_LIB_DIR/$PULSAR_VERSION/.complete" ]]; then
  log "$PULSAR_LIB_DIR/$PULSAR_VERSION is no longer used (the broker now runs from $BROKER_LIB): delete it to free its $(du -sh "$PULSAR_LIB_DIR/$PULSAR_VERSION" 2>/dev/null | cut -f1)"
fi

# --- Launch (unless a JVM from an interrupted start.sh is still booting) --------------------------
t0="$(now_ms)"
if pid="$(pulsar_pid)"; then
  log "broker JVM $pid is already booting; waiting for it"
else
  # Fail fast with a clear message instead of a bind error deep in the JVM log (or, worse, taking
  # another process on our web port for our broker).
  for p in "web:$PULSAR_WEB_PORT:PULSAR_WEB_PORT" "broker:$PULSAR_BROKER_PORT:PULSAR_BROKER_PORT" \
    "bookie:$PULSAR_BOOKIE_PORT:PULSAR_BOOKIE_PORT" ${PULSAR_BROKER_TLS_PORT:+"broker TLS:$PULSAR_BROKER_TLS_PORT:PULSAR_BROKER_TLS_PORT"} \
    ${PULSAR_WEB_TLS_PORT:+"web TLS:$PULSAR_WEB_TLS_PORT:PULSAR_WEB_TLS_PORT"}; do
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
  if [[ "$PULSAR_TOKEN_AUTH" == 1 ]]; then ensure_token_material; fi
  if [[ -n "$PULSAR_BROKER_TLS_PORT$PULSAR_WEB_TLS_PORT" ]]; then ensure_tls_material; fi
  {
    echo "# written by infra/pulsar/start.sh: ports and switches of this instance (the other scripts read them)"
    echo "PULSAR_WEB_PORT=$PULSAR_WEB_PORT"
    echo "PULSAR_BROKER_PORT=$PULSAR_BROKER_PORT"
    echo "PULSAR_BOOKIE_PORT=$PULSAR_BOOKIE_PORT"
    echo "PULSAR_BROKER_TLS_PORT=$PULSAR_BROKER_TLS_PORT"
    echo "PULSAR_WEB_TLS_PORT=$PULSAR_WEB_TLS_PORT"
    echo "PULSAR_TOKEN_AUTH=$PULSAR_TOKEN_AUTH"
    echo "PULSAR_TOKEN_SIGNING=$PULSAR_TOKEN_SIGNING"
  } >"$INSTANCE_FILE"

  loopback=lo
  if [[ "$(uname -s)" == Darwin ]]; then loopback=lo0; fi
  {
    sed -e "s/^brokerServicePort=.*/brokerServicePort=$PULSAR_BROKER_PORT/" \
      -e "s/^webServicePort=.*/webServicePort=$PULSAR_WEB_PORT/" \
      -e "s/^listeningInterface=.*/listeningInterface=$loopback/" \
      "$PULSAR_DIR/standalone.conf"
    security_conf
  } >"$PULSAR_HOME/conf/standalone.conf"

  jvm_opts "$PULSAR_MEM"
  launch_jvm "$PULSAR_HOME" "$LOG_FILE" "$PID_FILE" "$JAVA" "${JVM_OPTS[@]}" \
    -Dbookkeeper.metadata.bookie.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataBookieDriver \
    -Dbookkeeper.metadata.client.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataClientDriver \
    -cp "$BROKER_LIB/*" org.apache.pulsar.PulsarStandaloneStarter \
    --config "$PULSAR_HOME/conf/standalone.conf" \
    --no-functions-worker --no-stream-storage \
    --metadata-dir "$PULSAR_HOME/data/metadata" \
    --bookkeeper-dir "$PULSAR_HOME/data/bookkeeper" \
    --bookkeeper-port "$PULSAR_BOOKIE_PORT"
  log "started broker JVM $pid (Pulsar $PULSAR_VERSION, java $java_major); log: $LOG_FILE"
fi

# --- Wait until ready (bounded) ------------------------------------------------------------------
# Our JVM must be alive *and* the port ready; otherwise it could be someone else answering.
wait_jvm_ready "$pid" "$PID_FILE" "$LOG_FILE" "$PULSAR_START_TIMEOUT" "$t0" pulsar_ready
elapsed="$(fmt_secs $(($(now_ms) - t0)))"

ensure_namespaces
echo "pulsar standalone ready: $(pulsar_urls) (pid $pid, $elapsed s)"
