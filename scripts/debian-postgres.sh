#!/usr/bin/env bash
# Prints where Debian's PostgreSQL 15 (Debian 12's, the oldest release the stores are tested on) keeps its
# programs, and on a second line the LD_LIBRARY_PATH they need (empty when installed): the installed
# /usr/lib/postgresql/15/bin (`apt-get install postgresql-15`, which brings the client), else Debian's
# packages unpacked by scripts/debian-package.sh (nothing installed; TOOLMESH_FETCH_DEBIAN_POSTGRES=1 makes
# it do so though PostgreSQL 15 is installed). Its initdb finds the unpacked share files by its own place.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major=15
if [[ -x "/usr/lib/postgresql/$major/bin/postgres" && -x "/usr/lib/postgresql/$major/bin/pg_basebackup" && -z "${TOOLMESH_FETCH_DEBIAN_POSTGRES:-}" ]]; then
  echo "/usr/lib/postgresql/$major/bin"
  echo ""
  exit 0
fi
bin="usr/lib/postgresql/$major/bin"
# The client package has pg_basebackup (the tests make standbys with it).
{ read -r root; read -r libs; } < <(bash "$repo/scripts/debian-package.sh" "postgresql-$major,postgresql-client-$major" "$bin/postgres" "$bin/initdb" "$bin/pg_basebackup") ||
  { echo "debian-postgres: PostgreSQL $major is not installed and Debian's could not be fetched: apt-get install postgresql-$major" >&2; exit 1; }
echo "$root/$bin"
echo "$libs"
