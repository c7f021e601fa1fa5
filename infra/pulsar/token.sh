#!/usr/bin/env bash
# Prints a token for SUBJECT signed with the key of a broker instance started with PULSAR_TOKEN_AUTH=1:
# secret.key, or private.key under PULSAR_TOKEN_SIGNING=key-pair (Pulsar's own token tool, broker's jars).
#   PULSAR_HOME=/tmp/x infra/pulsar/token.sh alice [1h]
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"
# shellcheck source=security.sh
. "$PULSAR_DIR/security.sh"

[[ $# -ge 1 && -n "$1" ]] || die "usage: token.sh SUBJECT [EXPIRY, e.g. 1h]"
key="$(signing_key_file)"
[[ -s "$key" ]] || die "$key is missing: start the instance with PULSAR_TOKEN_AUTH=1 (PULSAR_TOKEN_SIGNING=$PULSAR_TOKEN_SIGNING) first"
[[ -f "$BROKER_LIB/.complete" ]] || die "$BROKER_LIB is not populated: run start.sh once"
require_java
make_token "$1" "${2:-}"
