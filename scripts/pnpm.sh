#!/usr/bin/env bash
# Runs the repo's pinned pnpm: the one on PATH when its version matches package.json's packageManager,
# otherwise the same version through npx (cached after the first run). corepack is not used because the
# signing keys bundled with some Node 20 releases reject current pnpm releases.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="$(node -p "require('$repo/package.json').packageManager.split('@')[1]")"
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then
  exec pnpm "$@"
fi
exec npx --yes "pnpm@$want" "$@"
