#!/usr/bin/env bash
# Prints the path of a PgBouncer executable for the tests that put one between toolmesh and PostgreSQL (a
# real pooler in transaction mode, as operators run it). In order:
#   1. $PGBOUNCER, when set (a path);
#   2. `pgbouncer` on PATH (Debian: /usr/sbin/pgbouncer from `apt-get install pgbouncer`);
#   3. Debian's package unpacked by scripts/debian-package.sh (nothing installed), run through a small
#      wrapper that gives it the libraries unpacked beside it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ -n "${PGBOUNCER:-}" ]]; then
  [[ -x "$PGBOUNCER" ]] || { echo "pgbouncer: PGBOUNCER=$PGBOUNCER is not an executable" >&2; exit 1; }
  echo "$PGBOUNCER"
  exit 0
fi
for found in "$(command -v pgbouncer 2>/dev/null || true)" /usr/sbin/pgbouncer; do
  if [[ -n "$found" && -x "$found" ]]; then
    echo "$found"
    exit 0
  fi
done

{ read -r root; read -r libs; } < <(bash "$repo/scripts/debian-package.sh" pgbouncer usr/sbin/pgbouncer) ||
  { echo "pgbouncer: not found, and Debian's could not be fetched: install PgBouncer or set PGBOUNCER=/path/to/pgbouncer" >&2; exit 1; }
wrapper="$root/pgbouncer"
if [[ ! -x "$wrapper" ]]; then
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' "$libs" "$root/usr/sbin/pgbouncer" > "$wrapper.partial.$$"
  chmod 755 "$wrapper.partial.$$"
  mv "$wrapper.partial.$$" "$wrapper"
fi
echo "$wrapper"
