#!/usr/bin/env bash
# Prints the path of a PgBouncer executable for the tests that put one between toolmesh and PostgreSQL (a
# real pooler in transaction mode, as operators run it). In order:
#   1. $PGBOUNCER, when set (a path);
#   2. `pgbouncer` on PATH (Debian: /usr/sbin/pgbouncer from `apt-get install pgbouncer`);
#   3. Debian's package fetched once with `apt-get download` and unpacked (`dpkg -x`) under
#      $TOOLMESH_CACHE_DIR (default ~/.cache/toolmesh)/pgbouncer, with the libraries it needs that the
#      machine lacks (libc-ares2 on a machine without PostgreSQL's tools); nothing is installed.
# Concurrent callers (parallel test files) are serialised with flock.
set -euo pipefail
cache="${TOOLMESH_CACHE_DIR:-$HOME/.cache/toolmesh}/pgbouncer"

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

wrapper="$cache/bin/pgbouncer"
mkdir -p "$cache"
(
  flock 9
  if [[ ! -x "$wrapper" ]]; then
    command -v apt-get >/dev/null || {
      echo "pgbouncer: not found, and no apt-get to fetch Debian's: install PgBouncer or set PGBOUNCER=/path/to/pgbouncer" >&2
      exit 1
    }
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    # The package and every library it depends on that is not installed here (dpkg -x unpacks without installing).
    packages=(pgbouncer)
    for lib in $(apt-cache depends pgbouncer | awk '$1 ~ /Depends:/ && $2 ~ /^lib/ { print $2 }'); do
      dpkg-query -W -f='${Status}' "$lib" 2>/dev/null | grep -q "ok installed" || packages+=("$lib")
    done
    echo "pgbouncer: fetching Debian's ${packages[*]} into $cache" >&2
    # As root apt would hand the download to its `_apt` user, who cannot write into a private temp folder.
    sandbox=()
    [[ "$(id -u)" != 0 ]] || sandbox=(-o APT::Sandbox::User=root)
    (cd "$work" && apt-get download "${sandbox[@]}" "${packages[@]}" >&2)
    rm -rf "$cache/root"
    for deb in "$work"/*.deb; do dpkg -x "$deb" "$cache/root"; done
    libs="$cache/root/usr/lib/$(uname -m)-linux-gnu:$cache/root/lib/$(uname -m)-linux-gnu"
    missing="$(LD_LIBRARY_PATH="$libs" ldd "$cache/root/usr/sbin/pgbouncer" | grep "not found" || true)"
    [[ -z "$missing" ]] || { echo "pgbouncer: libraries still missing: $missing" >&2; exit 1; }
    mkdir -p "$cache/bin"
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' "$libs" "$cache/root/usr/sbin/pgbouncer" > "$wrapper.partial"
    chmod 755 "$wrapper.partial"
    "$wrapper.partial" --version >&2
    mv "$wrapper.partial" "$wrapper"
  fi
) 9>"$cache/.lock"
echo "$wrapper"
