# shellcheck shell=bash disable=SC2034 # variables are used by the scripts that source this file
# Shared settings and helpers for the broker scripts (start/stop/status.sh, token.sh) and the proxy
# scripts. Sourced, never run.
# Precedence for ports and security switches: explicit env var > values recorded in
# $PULSAR_HOME/instance.env by the last start.sh > built-in default, so `PULSAR_HOME=/tmp/x ./stop.sh`
# finds an instance started on other ports (and with its admin token).

PULSAR_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$PULSAR_DIR/../.." && pwd)"
# shellcheck source=jvm.sh
. "$PULSAR_DIR/jvm.sh"

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
if [[ -z "${PULSAR_BOOKKEEPER_VERSION:-}" ]]; then
  # The BookKeeper the broker runs on (pom.xml says why it is not Pulsar's own choice).
  PULSAR_BOOKKEEPER_VERSION="$(sed -n 's:.*<bookkeeper.version>\(.*\)</bookkeeper.version>.*:\1:p' "$PULSAR_DIR/pom.xml" | head -n 1)"
fi

INSTANCE_FILE="$PULSAR_HOME/instance.env"
PID_FILE="$PULSAR_HOME/pulsar.pid"
LOG_FILE="$PULSAR_HOME/logs/pulsar.log"

recorded_port() { # recorded_port KEY -> value from instance.env, or nothing
  [[ -f "$INSTANCE_FILE" ]] || return 0
  sed -n "s/^$1=\([0-9][0-9]*\)$/\1/p" "$INSTANCE_FILE" | head -n 1
}
recorded_word() { # recorded_word KEY -> value (letters, digits, '-') from instance.env, or nothing
  [[ -f "$INSTANCE_FILE" ]] || return 0
  sed -n "s/^$1=\([A-Za-z0-9-][A-Za-z0-9-]*\)$/\1/p" "$INSTANCE_FILE" | head -n 1
}
PULSAR_WEB_PORT="${PULSAR_WEB_PORT:-$(recorded_port PULSAR_WEB_PORT)}"
PULSAR_WEB_PORT="${PULSAR_WEB_PORT:-8080}"
PULSAR_BROKER_PORT="${PULSAR_BROKER_PORT:-$(recorded_port PULSAR_BROKER_PORT)}"
PULSAR_BROKER_PORT="${PULSAR_BROKER_PORT:-6650}"
PULSAR_BOOKIE_PORT="${PULSAR_BOOKIE_PORT:-$(recorded_port PULSAR_BOOKIE_PORT)}"
PULSAR_BOOKIE_PORT="${PULSAR_BOOKIE_PORT:-3181}"

# TLS on the binary protocol: on when a port is given (set but empty = off even if recorded).
PULSAR_BROKER_TLS_PORT="${PULSAR_BROKER_TLS_PORT-$(recorded_port PULSAR_BROKER_TLS_PORT)}"
# TLS on the web service (admin API and WebSocket API, https:// and wss://), the same way.
PULSAR_WEB_TLS_PORT="${PULSAR_WEB_TLS_PORT-$(recorded_port PULSAR_WEB_TLS_PORT)}"
# Token authentication: 1 = on (set to 0 to turn a recorded 1 off).
PULSAR_TOKEN_AUTH="${PULSAR_TOKEN_AUTH-$(recorded_port PULSAR_TOKEN_AUTH)}"
PULSAR_TOKEN_AUTH="${PULSAR_TOKEN_AUTH:-0}"
# How tokens are signed and checked: secret (HS256, secret.key) or key-pair (RS256, private.key/public.key).
PULSAR_TOKEN_SIGNING="${PULSAR_TOKEN_SIGNING:-$(recorded_word PULSAR_TOKEN_SIGNING)}"
PULSAR_TOKEN_SIGNING="${PULSAR_TOKEN_SIGNING:-secret}"
# How often the broker looks for expired tokens and challenges their connections (Pulsar's default: 60 s).
PULSAR_AUTH_REFRESH_CHECK_SECONDS="${PULSAR_AUTH_REFRESH_CHECK_SECONDS:-60}"

for _port in "$PULSAR_WEB_PORT" "$PULSAR_BROKER_PORT" "$PULSAR_BOOKIE_PORT" ${PULSAR_BROKER_TLS_PORT:+"$PULSAR_BROKER_TLS_PORT"} \
  ${PULSAR_WEB_TLS_PORT:+"$PULSAR_WEB_TLS_PORT"}; do
  if ! [[ "$_port" =~ ^[0-9]+$ ]]; then
    die "invalid port '$_port' (PULSAR_WEB_PORT / PULSAR_BROKER_PORT / PULSAR_BOOKIE_PORT / PULSAR_BROKER_TLS_PORT / PULSAR_WEB_TLS_PORT)"
  fi
done
unset _port
[[ "$PULSAR_TOKEN_AUTH" =~ ^[01]$ ]] || die "PULSAR_TOKEN_AUTH must be 0 or 1, not '$PULSAR_TOKEN_AUTH'"
[[ "$PULSAR_AUTH_REFRESH_CHECK_SECONDS" =~ ^[1-9][0-9]*$ ]] ||
  die "PULSAR_AUTH_REFRESH_CHECK_SECONDS must be a whole number of seconds (1 or more), not '$PULSAR_AUTH_REFRESH_CHECK_SECONDS'"
case "$PULSAR_TOKEN_SIGNING" in
  secret | key-pair) ;;
  *) die "PULSAR_TOKEN_SIGNING must be secret or key-pair, not '$PULSAR_TOKEN_SIGNING'" ;;
esac

WEB_URL="http://127.0.0.1:$PULSAR_WEB_PORT"
WS_URL="ws://127.0.0.1:$PULSAR_WEB_PORT/ws/v2"
BROKER_URL="pulsar://127.0.0.1:$PULSAR_BROKER_PORT"
BROKER_TLS_URL="${PULSAR_BROKER_TLS_PORT:+pulsar+ssl://127.0.0.1:$PULSAR_BROKER_TLS_PORT}"
WEB_TLS_URL="${PULSAR_WEB_TLS_PORT:+https://127.0.0.1:$PULSAR_WEB_TLS_PORT}"
WSS_URL="${PULSAR_WEB_TLS_PORT:+wss://127.0.0.1:$PULSAR_WEB_TLS_PORT/ws/v2}"
BROKER_LIB="$PULSAR_LIB_DIR/$PULSAR_VERSION-bk$PULSAR_BOOKKEEPER_VERSION"
# Fetches the broker's jars into $BROKER_LIB once (ensure_jars in jvm.sh), BookKeeper at its pinned version.
ensure_broker_jars() {
  ensure_jars "$PULSAR_DIR/pom.xml" "$BROKER_LIB" "org.apache.pulsar:pulsar-broker:$PULSAR_VERSION (BookKeeper $PULSAR_BOOKKEEPER_VERSION)" \
    -Dbookkeeper.version="$PULSAR_BOOKKEEPER_VERSION"
}

# Security material of the instance (made by start.sh when asked for, kept across restarts).
AUTH_DIR="$PULSAR_HOME/auth"      # secret.key or private.key + public.key, and admin.token (subject "admin")
TLS_DIR="$PULSAR_HOME/tls"        # ca.cert.pem, broker.cert.pem, broker.key.pem (self-signed CA)
ADMIN_TOKEN_FILE="$AUTH_DIR/admin.token"

# curl on the admin API, with the instance's admin token when it has one.
admin_curl() {
  if [[ -f "$ADMIN_TOKEN_FILE" ]]; then
    curl -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" "$@"
  else
    curl "$@"
  fi
}

# Ready = the admin API answers and the standalone has created its default namespace (that happens
# last in PulsarStandalone.start, after the broker, bookie and web service are up).
pulsar_ready() {
  admin_curl -sf --max-time 3 "$WEB_URL/admin/v2/namespaces/public" 2>/dev/null | grep -q '"public/default"'
}

pulsar_pid() { jvm_pid "$PID_FILE" PulsarStandaloneStarter; }

# Every URL the instance serves, for the ready lines.
pulsar_urls() { echo "$WEB_URL $WS_URL $BROKER_URL${BROKER_TLS_URL:+ $BROKER_TLS_URL}${WEB_TLS_URL:+ $WEB_TLS_URL $WSS_URL}"; }
