#!/usr/bin/env bash
# `pnpm dev`, `npm run dev` and `turbo dev` (turbo.json registers this as the root task //#dev, and no
# package has a dev task of its own, so each service runs once, here): the whole system with watch mode.
# turbo rebuilds any package whose sources change (and what depends on it); each service restarts when
# its build output changes.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/pnpm.sh install --frozen-lockfile
bash scripts/pnpm.sh exec turbo run build
bash scripts/pnpm.sh exec turbo watch build --output-logs=errors-only &
watcher=$!
trap 'kill "$watcher" 2>/dev/null || true' EXIT
[[ -n "${PULSAR_WEB_URL:-}${PULSAR_SERVICE_URL:-}" ]] || bash infra/pulsar/start.sh
node scripts/run-system.mjs --watch
