#!/usr/bin/env bash
# Creates (once) the Python virtual environments that tests use as real peers: one per requirements file in
# packages/test-support/python/<name>.txt, cached under $TOOLMESH_CACHE_DIR (default ~/.cache/toolmesh)
# and keyed by the file's hash, so a changed pin makes a fresh venv and an unchanged one costs nothing.
#
#   scripts/python-peers.sh             # every peer; prints "<name> <venv dir>" per line
#   scripts/python-peers.sh mcp pulsar  # just these
#
# Concurrent callers (parallel test files) are serialised with flock; a half-built venv has no
# .complete marker and is rebuilt from scratch. A package that must be installed without its dependencies
# (trustgraph-flow's tree is large) goes in <name>.no-deps.txt beside <name>.txt.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo/packages/test-support/python"
cache="${TOOLMESH_CACHE_DIR:-$HOME/.cache/toolmesh}/venv"
python="${PYTHON:-python3}"
mkdir -p "$cache"

names=("$@")
if ((${#names[@]} == 0)); then
  for file in "$dir"/*.txt; do
    [[ "$file" == *.no-deps.txt ]] || names+=("$(basename "$file" .txt)")
  done
fi

command -v "$python" >/dev/null || { echo "python-peers: $python not found (Python 3.10+ is needed for the peer tests)" >&2; exit 1; }
for name in "${names[@]}"; do
  file="$dir/$name.txt"
  [[ -f "$file" ]] || { echo "python-peers: no $file" >&2; exit 2; }
  nodeps="$dir/$name.no-deps.txt"
  # Only files that exist: a missing one would fail cat, and with pipefail the whole script.
  hashed=("$file")
  if [[ -f "$nodeps" ]]; then hashed+=("$nodeps"); fi
  hash="$(cat "${hashed[@]}" | sha256sum | cut -c1-12)"
  venv="$cache/$name-$hash"
  (
    flock 9
    if [[ ! -f "$venv/.complete" ]]; then
      rm -rf "$venv"
      echo "python-peers: creating $venv" >&2
      "$python" -m venv "$venv"
      "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$file" >&2
      if [[ -f "$nodeps" ]]; then "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$nodeps" >&2; fi
      touch "$venv/.complete"
    fi
  ) 9>"$cache/$name.lock"
  echo "$name $venv"
done
