#!/usr/bin/env bash
# Prints where Debian's PostgreSQL 15 (Debian 12's, the oldest release the stores are tested on) keeps its
# programs, and on a second line the LD_LIBRARY_PATH they need (empty when installed): the installed
# /usr/lib/postgresql/15/bin (`apt-get install postgresql-15`), else Debian's package unpacked by
# scripts/debian-package.sh (nothing installed). Its initdb finds the unpacked share files by its own place.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major=15
if [[ -x "/usr/lib/postgresql/$major/bin/postgres" && -z "${TOOLMESH_FETCH_DEBIAN_POSTGRES:-}" ]]; then
  echo "/usr/lib/postgresql/$major/bin"
  echo ""
  exit 0
fi
bin="usr/lib/postgresql/$major/bin"
{ read -r root; read -r libs; } < <(bash "$repo/scripts/debian-package.sh" "postgresql-$major" "$bin/postgres" "$bin/initdb") ||
  { echo "debian-postgres: PostgreSQL $major is not installed and Debian's could not be fetched: apt-get install postgresql-$major" >&2; exit 1; }
echo "$root/$bin"
echo "$libs"
