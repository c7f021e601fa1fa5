#!/usr/bin/env bash
# Starts Apache Pulsar's proxy (org.apache.pulsar:pulsar-proxy from Maven Central, no Docker) in front of
# the broker of $PULSAR_HOME (or PULSAR_PROXY_BROKER_URL / PULSAR_PROXY_BROKER_WEB_URL) and waits until
# a lookup through it reaches the broker. Idempotent; see README.md ("Pulsar proxy") for env knobs.
set -euo pipefail

LOG_PREFIX=pulsar-proxy
# shellcheck source=proxy-common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/proxy-common.sh"
# shellcheck source=security.sh
. "$PULSAR_DIR/security.sh"

command -v curl >/dev/null || die "curl is required (readiness checks)"
if pid="$(proxy_pid)" && proxy_ready; then
  echo "pulsar proxy already running: $(proxy_urls) -> $PULSAR_PROXY_BROKER_URL (pid $pid)"
  exit 0
fi

mkdir -p "$PULSAR_PROXY_HOME/logs" "$PULSAR_PROXY_HOME/conf"
if command -v flock >/dev/null; then
  exec 9>"$PULSAR_PROXY_HOME/start.lock"
  flock -w "$((PULSAR_START_TIMEOUT + 600))" 9 || die "timed out waiting for another proxy-start.sh"
fi

require_java
ensure_jars "$PULSAR_DIR/proxy-pom.xml" "$PROXY_LIB" "org.apache.pulsar:pulsar-proxy:$PULSAR_PROXY_VERSION" \
  -Dpulsar.proxy.version="$PULSAR_PROXY_VERSION"

t0="$(now_ms)"
if pid="$(proxy_pid)"; then
  log "proxy JVM $pid is already starting; waiting for it"
else
  for p in "binary:$PULSAR_PROXY_PORT:PULSAR_PROXY_PORT" "web:$PULSAR_PROXY_WEB_PORT:PULSAR_PROXY_WEB_PORT"; do
    IFS=: read -r what port var <<<"$p"
    if port_busy "$port"; then
      die "$what port $port is already in use by another process (set $var to a free port)"
    fi
  done
  {
    sed -e "s#@BROKER_URL@#$PULSAR_PROXY_BROKER_URL#" -e "s#@BROKER_WEB_URL@#$PULSAR_PROXY_BROKER_WEB_URL#" \
      -e "s#@PROXY_PORT@#$PULSAR_PROXY_PORT#" -e "s#@PROXY_WEB_PORT@#$PULSAR_PROXY_WEB_PORT#" \
      "$PULSAR_DIR/proxy.conf"
    if [[ "$PULSAR_TOKEN_AUTH" == 1 ]]; then
      echo "# The broker of \$PULSAR_HOME takes tokens: the proxy checks clients' tokens with the same key,"
      echo "# reaches the broker as admin and passes the client's credentials on."
      echo "authenticationEnabled=true"
      echo "authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken"
      token_key_conf
      echo "brokerClientAuthenticationPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken"
      echo "brokerClientAuthenticationParameters=file://$ADMIN_TOKEN_FILE"
      echo "forwardAuthorizationCredentials=true"
      echo "# Clients whose token has expired are challenged for a new one, as the broker does."
      echo "authenticationRefreshCheckSeconds=$PULSAR_AUTH_REFRESH_CHECK_SECONDS"
    fi
  } >"$PULSAR_PROXY_HOME/conf/proxy.conf"

  jvm_opts "$PULSAR_PROXY_MEM"
  launch_jvm "$PULSAR_PROXY_HOME" "$PROXY_LOG_FILE" "$PROXY_PID_FILE" "$JAVA" "${JVM_OPTS[@]}" \
    -cp "$PROXY_LIB/*" org.apache.pulsar.proxy.server.ProxyServiceStarter \
    --config "$PULSAR_PROXY_HOME/conf/proxy.conf"
  log "started proxy JVM $pid (pulsar-proxy $PULSAR_PROXY_VERSION on Pulsar $PULSAR_VERSION jars, java $java_major); log: $PROXY_LOG_FILE"
fi

wait_jvm_ready "$pid" "$PROXY_PID_FILE" "$PROXY_LOG_FILE" "$PULSAR_START_TIMEOUT" "$t0" proxy_ready
echo "pulsar proxy ready: $(proxy_urls) -> $PULSAR_PROXY_BROKER_URL (pid $pid, $(fmt_secs $(($(now_ms) - t0))) s)"
