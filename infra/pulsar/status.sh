#!/usr/bin/env bash
# Exit 0 and print "running ..." if the broker on $PULSAR_WEB_PORT answers the readiness check, else
# exit 1 with "not running".
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

pid="$(pulsar_pid || true)"
if pulsar_ready; then
  extras="${PULSAR_BROKER_TLS_PORT:+, broker TLS $PULSAR_BROKER_TLS_PORT}${PULSAR_WEB_TLS_PORT:+, web TLS $PULSAR_WEB_TLS_PORT}"
  if [[ "$PULSAR_TOKEN_AUTH" == 1 ]]; then extras+=", token auth ($PULSAR_TOKEN_SIGNING)"; fi
  echo "running (pid ${pid:-? (not started from $PULSAR_HOME)}, web $PULSAR_WEB_PORT, broker $PULSAR_BROKER_PORT, bookie $PULSAR_BOOKIE_PORT$extras): $(pulsar_urls)"
  exit 0
fi
if [[ -n "$pid" ]]; then
  echo "not running (JVM $pid of $PULSAR_HOME is alive but $WEB_URL is not ready yet)"
else
  echo "not running ($WEB_URL)"
fi
exit 1
