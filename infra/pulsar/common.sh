# shellcheck shell=bash disable=SC2034 # variables are used by the scripts that source this file
# Shared settings and helpers for start.sh / stop.sh / status.sh. Sourced, never run.
# Precedence for ports: explicit env var > ports recorded in $PULSAR_HOME/instance.env by the last
# start.sh > built-in default, so `PULSAR_HOME=/tmp/x ./stop.sh` finds an instance started on other ports.

PULSAR_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$PULSAR_DIR/../.." && pwd)"

PULSAR_HOME="${PULSAR_HOME:-$REPO/.pulsar/standalone}"
PULSAR_LIB_DIR="${PULSAR_LIB_DIR:-$REPO/.pulsar/lib}"
# Absolute paths: start.sh changes directory before launching the JVM.
case "$PULSAR_HOME" in /*) ;; *) PULSAR_HOME="$PWD/$PULSAR_HOME" ;; esac
case "$PULSAR_LIB_DIR" in /*) ;; *) PULSAR_LIB_DIR="$PWD/$PULSAR_LIB_DIR" ;; esac
PULSAR_START_TIMEOUT="${PULSAR_START_TIMEOUT:-180}"
PULSAR_STOP_TIMEOUT="${PULSAR_STOP_TIMEOUT:-30}"
PULSAR_MEM="${PULSAR_MEM:--Xms256m -Xmx1g -XX:MaxDirectMemorySize=1g}"
PULSAR_EXTRA_OPTS="${PULSAR_EXTRA_OPTS:-}"
if [[ -z "${PULSAR_VERSION:-}" ]]; then
  # Single source of truth for the version: the <pulsar.version> property in pom.xml.
  PULSAR_VERSION="$(sed -n 's:.*<pulsar.version>\(.*\)</pulsar.version>.*:\1:p' "$PULSAR_DIR/pom.xml" | head -n 1)"
fi

INSTANCE_FILE="$PULSAR_HOME/instance.env"
PID_FILE="$PULSAR_HOME/pulsar.pid"
LOG_FILE="$PULSAR_HOME/logs/pulsar.log"

recorded_port() { # recorded_port KEY -> value from instance.env, or nothing
  [[ -f "$INSTANCE_FILE" ]] || return 0
  sed -n "s/^$1=\([0-9][0-9]*\)$/\1/p" "$INSTANCE_FILE" | head -n 1
}
PULSAR_WEB_PORT="${PULSAR_WEB_PORT:-$(recorded_port PULSAR_WEB_PORT)}"
PULSAR_WEB_PORT="${PULSAR_WEB_PORT:-8080}"
PULSAR_BROKER_PORT="${PULSAR_BROKER_PORT:-$(recorded_port PULSAR_BROKER_PORT)}"
PULSAR_BROKER_PORT="${PULSAR_BROKER_PORT:-6650}"
PULSAR_BOOKIE_PORT="${PULSAR_BOOKIE_PORT:-$(recorded_port PULSAR_BOOKIE_PORT)}"
PULSAR_BOOKIE_PORT="${PULSAR_BOOKIE_PORT:-3181}"

for _port in "$PULSAR_WEB_PORT" "$PULSAR_BROKER_PORT" "$PULSAR_BOOKIE_PORT"; do
  if ! [[ "$_port" =~ ^[0-9]+$ ]]; then
    echo "pulsar: invalid port '$_port' (PULSAR_WEB_PORT / PULSAR_BROKER_PORT / PULSAR_BOOKIE_PORT)" >&2
    exit 1
  fi
done
unset _port

WEB_URL="http://127.0.0.1:$PULSAR_WEB_PORT"
WS_URL="ws://127.0.0.1:$PULSAR_WEB_PORT/ws/v2"
BROKER_URL="pulsar://127.0.0.1:$PULSAR_BROKER_PORT"

# Ready = the admin API answers and the standalone has created its default namespace (that happens
# last in PulsarStandalone.start, after the broker, bookie and web service are up).
pulsar_ready() {
  curl -sf --max-time 3 "$WEB_URL/admin/v2/namespaces/public" 2>/dev/null | grep -q '"public/default"'
}

# Prints the pid from the pid file if that process is alive and really is our broker JVM
# (guards against a stale pid file whose pid was reused by something else).
pulsar_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid="$(tr -dc '0-9' <"$PID_FILE")"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  ps -o args= -p "$pid" 2>/dev/null | grep -q 'PulsarStandaloneStarter' || return 1
  echo "$pid"
}

now_ms() { # epoch milliseconds (GNU date); falls back to whole seconds elsewhere
  local t
  t="$(date +%s%3N)"
  [[ "$t" =~ ^[0-9]+$ ]] || t="$(($(date +%s) * 1000))"
  echo "$t"
}

fmt_secs() { # fmt_secs MILLIS -> "23.4"
  printf '%d.%d' "$(($1 / 1000))" "$((($1 % 1000) / 100))"
}
