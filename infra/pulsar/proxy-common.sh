# shellcheck shell=bash disable=SC2034 # variables are used by the scripts that source this file
# Settings shared by proxy-start.sh and proxy-stop.sh (after the broker's common.sh, whose instance the
# proxy fronts by default). Sourced, never run.

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

PULSAR_PROXY_HOME="${PULSAR_PROXY_HOME:-$PULSAR_HOME/proxy}"
case "$PULSAR_PROXY_HOME" in /*) ;; *) PULSAR_PROXY_HOME="$PWD/$PULSAR_PROXY_HOME" ;; esac
PULSAR_PROXY_PORT="${PULSAR_PROXY_PORT:-6750}"
PULSAR_PROXY_WEB_PORT="${PULSAR_PROXY_WEB_PORT:-8180}"
PULSAR_PROXY_BROKER_URL="${PULSAR_PROXY_BROKER_URL:-$BROKER_URL}"
PULSAR_PROXY_BROKER_WEB_URL="${PULSAR_PROXY_BROKER_WEB_URL:-$WEB_URL}"
PULSAR_PROXY_MEM="${PULSAR_PROXY_MEM:--Xms64m -Xmx256m -XX:MaxDirectMemorySize=256m}"
if [[ -z "${PULSAR_PROXY_VERSION:-}" ]]; then
  PULSAR_PROXY_VERSION="$(sed -n 's:.*<pulsar.proxy.version>\(.*\)</pulsar.proxy.version>.*:\1:p' "$PULSAR_DIR/proxy-pom.xml" | head -n 1)"
fi
for _port in "$PULSAR_PROXY_PORT" "$PULSAR_PROXY_WEB_PORT"; do
  [[ "$_port" =~ ^[0-9]+$ ]] || die "invalid port '$_port' (PULSAR_PROXY_PORT / PULSAR_PROXY_WEB_PORT)"
done
unset _port

PROXY_LIB="$PULSAR_LIB_DIR/proxy-$PULSAR_PROXY_VERSION-on-$PULSAR_VERSION"
PROXY_PID_FILE="$PULSAR_PROXY_HOME/proxy.pid"
PROXY_LOG_FILE="$PULSAR_PROXY_HOME/logs/proxy.log"
PROXY_URL="pulsar://127.0.0.1:$PULSAR_PROXY_PORT"
PROXY_WEB_URL="http://127.0.0.1:$PULSAR_PROXY_WEB_PORT"

proxy_pid() { jvm_pid "$PROXY_PID_FILE" ProxyServiceStarter; }
proxy_urls() { echo "$PROXY_URL $PROXY_WEB_URL"; }

# Ready = the binary port accepts connections and the admin API, forwarded through the proxy, reaches
# the broker (so the proxy's broker URLs are right).
proxy_ready() {
  port_busy "$PULSAR_PROXY_PORT" &&
    admin_curl -sf --max-time 3 "$PROXY_WEB_URL/admin/v2/clusters" 2>/dev/null | grep -q '"standalone"'
}
