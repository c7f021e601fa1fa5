#!/usr/bin/env bash
# The README's test command. From a fresh clone: installs, builds, typechecks and lints everything, starts
# a real Pulsar broker for the tests when none is running (and stops it afterwards), runs every package's tests, and
# prints one closing line "test: N passed, N failed".
# The tests get their own broker instance (web port 18080), so a development system running on the
# default broker (8080) is not disturbed. PULSAR_WEB_URL=http://host:port (and PULSAR_SERVICE_URL=pulsar://host:port)
# use that broker instead. Tests and the services they start speak the binary protocol (the test broker's 16650);
# PULSAR_TRANSPORT=websocket runs them over the WebSocket API (the transport contract tests always run both).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
pnpm() { bash "$repo/scripts/pnpm.sh" "$@"; }

pnpm install --frozen-lockfile
pnpm exec turbo run build typecheck lint
# Formatting is part of lint: prettier (.prettierrc.json) over TypeScript, JavaScript and JSON; `npm run format` fixes it.
pnpm exec prettier --check . --log-level warn

find packages services bench e2e test-results -path '*/vitest.json' -path '*test-results*' -not -path '*/node_modules/*' -delete 2>/dev/null || true
status=0

# What to stop on exit, last started first.
on_exit=()
run_on_exit() { for ((i = ${#on_exit[@]} - 1; i >= 0; i--)); do eval "${on_exit[i]}" || true; done; }
trap run_on_exit EXIT

# The broker and PostgreSQL start in the background while the unit tier runs: it needs neither, and their
# start (a JVM booting, jars fetched once per checkout) would otherwise come after it.

# The tests' own broker instance, apart from the development broker on 8080 (see packages/test-support).
test_broker=(env PULSAR_HOME="$repo/.pulsar/test" PULSAR_WEB_PORT=18080 PULSAR_BROKER_PORT=16650 PULSAR_BOOKIE_PORT=13181)
# With a Docker engine the tests start the official image themselves (test-support broker-mode.ts).
mode="$(node -e 'import("./packages/test-support/dist/broker-mode.js").then((m) => console.log(m.brokerMode()))')"
echo "test broker: $mode"
broker_start=""
if [[ "$mode" == local ]] && ! "${test_broker[@]}" bash infra/pulsar/status.sh >/dev/null 2>&1; then
  "${test_broker[@]}" bash infra/pulsar/start.sh &
  broker_start=$!
  # Killed, not stopped cleanly: a clean stop spends about 10 s winding the broker down, and nothing in the
  # tests' own broker needs keeping (a killed broker keeps acknowledged data anyway: infra/pulsar/README.md).
  on_exit+=('"${test_broker[@]}" PULSAR_STOP_TIMEOUT=0 bash infra/pulsar/stop.sh')
fi

# The tests' PostgreSQL (config, tool-registry and agent on DATABASE_URL), one server for the whole run, stopped
# (its files or container removed) on exit: testcontainers' PostgreSQL module when a Docker engine answers, else
# npm's embedded-postgres binaries (TOOLMESH_TEST_POSTGRES=embedded|testcontainers forces one; postgres-main.js
# prints which and why). TOOLMESH_TEST_DATABASE_URL set: that server instead.
pg_url_file=""
if [[ -z "${TOOLMESH_TEST_DATABASE_URL:-}" ]]; then
  pg_url_file="$(mktemp)"
  node packages/test-support/dist/postgres-main.js "$pg_url_file" &
  pg_pid=$!
  on_exit+=('kill "$pg_pid" 2>/dev/null; wait "$pg_pid" 2>/dev/null')
fi

# The fast tier: handlers and pure logic, no broker (vitest.unit.config.ts).
pnpm exec vitest run -c vitest.unit.config.ts || status=$?

if [[ -n "$broker_start" ]]; then
  wait "$broker_start" || { echo "the test broker did not start (see above)" >&2; exit 1; }
fi
if [[ -n "$pg_url_file" ]]; then
  # Up to 5 minutes: a first container start pulls the postgres image.
  for _ in $(seq 1 600); do [[ -s "$pg_url_file" ]] || ! kill -0 "$pg_pid" 2>/dev/null && break; sleep 0.5; done
  [[ -s "$pg_url_file" ]] || { echo "test PostgreSQL did not start" >&2; exit 1; }
  export TOOLMESH_TEST_DATABASE_URL="$(cat "$pg_url_file")"
  rm -f "$pg_url_file"
fi

# Real Python peers (Apache's pulsar-client, the Python MCP SDK, TrustGraph): venvs cached by requirements hash.
bash scripts/python-peers.sh
bash scripts/go-peers.sh
# PgBouncer between the services and PostgreSQL (transaction pooling), and Debian's PostgreSQL 15 (the oldest
# release the stores are tested on): installed, or Debian's packages fetched once and unpacked. PgBouncer 1.24
# too (the defaults work through it): built once from source, about 20 s.
bash scripts/pgbouncer.sh >/dev/null
bash scripts/pgbouncer-upstream.sh >/dev/null
bash scripts/debian-postgres.sh >/dev/null

# One package at a time: integration tests share one broker on a 2-core machine, and many time heartbeats,
# token refreshes, reconnects and restarts. Two packages at a time took 13-15 minutes instead of 17-18, but in
# 2 of 4 clean-clone runs a test missed its timing under the other package's load (e2e's PostgreSQL outage,
# mcp-server's restart, pulsar's OAuth2 token refresh). Within a package, files run two at a time, then the
# timing-sensitive and machine-loading ones alone (integrationConfig in vitest.shared.ts;
# TOOLMESH_TEST_FILES_AT_ONCE=1 runs every file alone). Private brokers take fixed ports no other test takes
# (packages/test-support/src/private-broker-ports.ts), so packages can be run side by side by hand.
pnpm exec turbo run test --concurrency=1 --continue || status=$?
node scripts/test-summary.mjs || status=$((status == 0 ? 1 : status))
exit "$status"
