#!/usr/bin/env bash
# Stops the Pulsar proxy of $PULSAR_PROXY_HOME: SIGTERM, bounded wait (PULSAR_STOP_TIMEOUT), then SIGKILL.
# "Not running" is success.
set -euo pipefail

LOG_PREFIX=pulsar-proxy
# shellcheck source=proxy-common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/proxy-common.sh"

if ! pid="$(proxy_pid)"; then
  rm -f "$PROXY_PID_FILE"
  echo "pulsar proxy not running ($PULSAR_PROXY_HOME)"
  exit 0
fi
how="$(stop_jvm "$pid" "$PULSAR_STOP_TIMEOUT")"
rm -f "$PROXY_PID_FILE"
echo "pulsar proxy stopped (pid $pid, $how)"
