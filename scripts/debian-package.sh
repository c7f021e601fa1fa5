#!/usr/bin/env bash
# Unpacks a Debian package for tests that run a real peer from it (PgBouncer, an older PostgreSQL), without
# installing anything: `apt-get download` fetches the package and those of its direct library dependencies
# this machine lacks, `dpkg -x` unpacks them under $TOOLMESH_CACHE_DIR (default ~/.cache/toolmesh)/debian/
# <package>-<version>, once. Prints two lines: the folder (the package's files are under it as under /)
# and the LD_LIBRARY_PATH its programs need. Fails, saying why, when a named program would still miss a
# library.
#
#   scripts/debian-package.sh pgbouncer usr/sbin/pgbouncer
#   scripts/debian-package.sh postgresql-15,postgresql-client-15 usr/lib/postgresql/15/bin/pg_basebackup
#
# Several packages (comma-separated) are unpacked into one folder, named after the first.
#
# Concurrent callers (parallel test files) are serialised with flock.
set -euo pipefail
IFS=, read -r -a wanted <<< "$1"
package="${wanted[0]}"
shift
command -v apt-get >/dev/null || { echo "debian-package: no apt-get here to fetch $package" >&2; exit 1; }
version="$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
[[ -n "$version" && "$version" != "(none)" ]] || { echo "debian-package: apt knows no package $package" >&2; exit 1; }
cache="${TOOLMESH_CACHE_DIR:-$HOME/.cache/toolmesh}/debian"
root="$cache/$package-${version//[^A-Za-z0-9.+-]/_}"
arch="$(uname -m)-linux-gnu"
libs="$root/usr/lib/$arch:$root/lib/$arch"
mkdir -p "$cache"
(
  flock 9
  if [[ ! -f "$root/.complete" ]]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    packages=("${wanted[@]}")
    for lib in $(apt-cache depends "${wanted[@]}" | awk '$1 ~ /Depends:/ && $2 ~ /^lib/ { print $2 }' | sort -u); do
      dpkg-query -W -f='${Status}' "$lib" 2>/dev/null | grep -q "ok installed" || packages+=("$lib")
    done
    echo "debian-package: fetching Debian's ${packages[*]} into $root" >&2
    # As root apt would hand the download to its `_apt` user, who cannot write into a private temp folder.
    sandbox=()
    [[ "$(id -u)" != 0 ]] || sandbox=(-o APT::Sandbox::User=root)
    (cd "$work" && apt-get download "${sandbox[@]}" "${packages[@]}" >&2)
    rm -rf "$root"
    for deb in "$work"/*.deb; do dpkg -x "$deb" "$root"; done
    touch "$root/.complete"
  fi
) 9>"$cache/.lock"
for program in "$@"; do
  missing="$(LD_LIBRARY_PATH="$libs" ldd "$root/$program" | grep "not found" || true)"
  [[ -z "$missing" ]] || { echo "debian-package: $program still misses libraries: $missing" >&2; exit 1; }
done
echo "$root"
echo "$libs"
