#!/usr/bin/env bash
# Checks that the broker's jars (fetched as start.sh does) do not let the bookie's registration lock
# revalidate itself forever: check/BookieLockLoop.java on them prints how often the lock's node was
# deleted after one revalidation, and exits 1 when it loops. pom.xml's bookkeeper.version says why.
#   infra/pulsar/check-bookie-lock.sh
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

require_java
ensure_broker_jars
# Pulsar's own log4j2 settings, so only the result line reaches stdout.
exec "$JAVA" -cp "$BROKER_LIB/*" -Dlog4j.configurationFile="$PULSAR_DIR/log4j2.xml" "$PULSAR_DIR/check/BookieLockLoop.java"
