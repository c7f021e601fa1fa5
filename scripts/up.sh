#!/usr/bin/env bash
# The README's run command. From a fresh clone: installs, builds, starts the local Pulsar broker
# (a standalone on 127.0.0.1:8080 from Apache's Maven artifacts; kept running afterwards), then runs every
# service on its embedded defaults (SQLite files under ./data) and seeds the example tools.
# `--watch` (used by `pnpm dev`) restarts a service whenever its build output changes.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
pnpm() { bash "$repo/scripts/pnpm.sh" "$@"; }

pnpm install --frozen-lockfile
pnpm exec turbo run build
# Services speak Pulsar's binary protocol (pulsar://127.0.0.1:6650); PULSAR_SERVICE_URL/PULSAR_WEB_URL name another broker.
if [[ -z "${PULSAR_WEB_URL:-}" && -z "${PULSAR_SERVICE_URL:-}" ]]; then
  bash infra/pulsar/start.sh
  echo "the broker keeps running after this exits; stop it with: npm run broker:stop"
fi
exec node scripts/run-system.mjs "$@"
