#!/usr/bin/env bash
# Builds (once) the Go programs that tests use as real peers: one per package packages/test-support/go/<name>/
# of the module there, cached under $TOOLMESH_CACHE_DIR (default ~/.cache/toolmesh)/go and keyed by the hash
# of the module's files, so a changed source or pin makes a fresh binary and an unchanged one costs nothing.
# The first build downloads the module's dependencies through Go's module proxy.
#
#   scripts/go-peers.sh             # every peer; prints "<name> <binary>" per line
#   scripts/go-peers.sh mcp-client  # just this one
#
# Concurrent callers (parallel test files) are serialised with flock; a binary appears only when its build
# finished (built beside it, then renamed).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo/packages/test-support/go"
cache="${TOOLMESH_CACHE_DIR:-$HOME/.cache/toolmesh}/go"
mkdir -p "$cache"

names=("$@")
if ((${#names[@]} == 0)); then
  for program in "$dir"/*/; do names+=("$(basename "$program")"); done
fi

command -v go >/dev/null || { echo "go-peers: go not found (Go 1.25+ is needed for the Go peer tests: https://go.dev/dl)" >&2; exit 1; }
hash="$(cd "$dir" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)"
for name in "${names[@]}"; do
  [[ -f "$dir/$name/main.go" ]] || { echo "go-peers: no $dir/$name/main.go" >&2; exit 2; }
  binary="$cache/$name-$hash/$name"
  (
    flock 9
    if [[ ! -x "$binary" ]]; then
      echo "go-peers: building $binary" >&2
      mkdir -p "$(dirname "$binary")"
      (cd "$dir" && GOFLAGS=-mod=readonly go build -o "$binary.partial" "./$name") >&2
      mv "$binary.partial" "$binary"
    fi
  ) 9>"$cache/$name.lock"
  echo "$name $binary"
done
