#!/usr/bin/env bash
# Prints the path of PgBouncer 1.24.1, a current release, for the tests that check the pool's default
# settings through it in transaction mode (PgBouncer 1.21 and later keep prepared statements across server
# connections; 1.24 does so by default). Debian 12 ships 1.18 (scripts/pgbouncer.sh), and Debian 13's 1.24
# needs a newer C library, so it is built here, once, from Debian 13's copy of the upstream source
# (checksum checked), into $TOOLMESH_CACHE_DIR (default ~/.cache/toolmesh)/pgbouncer-<version>. The build
# needs a C compiler, make and pkg-config; libevent's headers are unpacked from Debian's libevent-dev by
# scripts/debian-package.sh when not installed. About 20 s the first time.
#
# PGBOUNCER_UPSTREAM=/path/to/pgbouncer uses that executable instead (any release from 1.24 on).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=1.24.1
sha256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
source_url="${DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/p/pgbouncer/pgbouncer_$version.orig.tar.gz"

if [[ -n "${PGBOUNCER_UPSTREAM:-}" ]]; then
  [[ -x "$PGBOUNCER_UPSTREAM" ]] || { echo "pgbouncer-upstream: PGBOUNCER_UPSTREAM=$PGBOUNCER_UPSTREAM is not an executable" >&2; exit 1; }
  echo "$PGBOUNCER_UPSTREAM"
  exit 0
fi

cache="${TOOLMESH_CACHE_DIR:-$HOME/.cache/toolmesh}"
prefix="$cache/pgbouncer-$version"
fail() { echo "pgbouncer-upstream: $*" >&2; exit 1; }
mkdir -p "$cache"
(
  flock 9
  [[ -f "$prefix/.complete" ]] && exit 0
  for tool in cc make pkg-config curl; do command -v "$tool" >/dev/null || fail "building PgBouncer $version needs $tool"; done
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "pgbouncer-upstream: building PgBouncer $version from $source_url into $prefix" >&2
  curl -fsSL --retry 3 -o "$work/source.tar.gz" "$source_url" || fail "could not download $source_url"
  echo "$sha256  $work/source.tar.gz" | sha256sum --check --quiet - >&2 || fail "$source_url does not have the expected checksum"
  tar -xzf "$work/source.tar.gz" -C "$work"

  # libevent: the installed headers, else Debian's libevent-dev unpacked (its libraries are libevent's own,
  # which Debian installs with many packages; the linker is pointed at the versioned file the program uses).
  libevent=()
  if ! pkg-config --exists libevent 2>/dev/null; then
    { read -r events; read -r _; } < <(bash "$repo/scripts/debian-package.sh" libevent-dev) || fail "libevent's headers are missing: apt-get install libevent-dev"
    arch="$(uname -m)-linux-gnu"
    libevent=(LIBEVENT_CFLAGS="-I$events/usr/include" LIBEVENT_LIBS="-L$events/usr/lib/$arch -L/usr/lib/$arch -l:libevent-2.1.so.7")
  fi
  tls=()
  [[ -f /usr/include/openssl/ssl.h ]] || tls=(--without-openssl)
  (
    cd "$work/pgbouncer-$version"
    ./configure --prefix="$prefix" --without-cares --without-pam --without-systemd "${tls[@]}" "${libevent[@]}" >"$work/configure.log" 2>&1 ||
      { tail -n 20 "$work/configure.log" >&2; exit 1; }
    make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -n 20 "$work/make.log" >&2; exit 1; }
    rm -rf "$prefix"
    make install >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; exit 1; }
  ) || fail "the build failed (above)"
  "$prefix/bin/pgbouncer" --version >/dev/null || fail "the built $prefix/bin/pgbouncer does not run"
  touch "$prefix/.complete"
) 9>"$cache/.pgbouncer-upstream.lock"
echo "$prefix/bin/pgbouncer"
