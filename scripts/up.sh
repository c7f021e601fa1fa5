#!/usr/bin/env bash
# The README's run command: installs, builds, starts the local Pulsar broker (embedded defaults: a
# standalone on 127.0.0.1:8080 from Apache's Maven artifacts) and runs the system against it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
pnpm() { bash "$repo/scripts/pnpm.sh" "$@"; }

pnpm install --frozen-lockfile
pnpm exec turbo run build
bash infra/pulsar/start.sh
echo "broker keeps running after this exits; stop it with: npm run broker:stop"
exec node scripts/echo-demo.mjs
