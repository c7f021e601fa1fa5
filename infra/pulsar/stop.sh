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

t0="$(now_ms)"
kill -TERM "$pid" 2>/dev/null || true
deadline=$((t0 + PULSAR_STOP_TIMEOUT * 1000))
while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do
  sleep 0.2
done
how=SIGTERM
if kill -0 "$pid" 2>/dev/null; then
  how="SIGKILL after ${PULSAR_STOP_TIMEOUT}s"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
fi
rm -f "$PID_FILE"
echo "pulsar standalone stopped (pid $pid, $how, $(fmt_secs $(($(now_ms) - t0))) s)"
