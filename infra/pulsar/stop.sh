#!/usr/bin/env bash
# Stops the Pulsar standalone broker of $PULSAR_HOME: SIGTERM (clean shutdown flushes the bookie),
# bounded wait (PULSAR_STOP_TIMEOUT, default 30 s), then SIGKILL. "Not running" is success.
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

if ! pid="$(pulsar_pid)"; then
  rm -f "$PID_FILE" # stale or absent
  if pulsar_ready; then
    echo "pulsar: no broker of $PULSAR_HOME is running, but something else answers on $WEB_URL (left alone)" >&2
  fi
  echo "pulsar standalone not running ($PULSAR_HOME)"
  exit 0
fi

how="$(stop_jvm "$pid" "$PULSAR_STOP_TIMEOUT")"
rm -f "$PID_FILE"
echo "pulsar standalone stopped (pid $pid, $how)"
