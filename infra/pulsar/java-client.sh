#!/usr/bin/env bash
# Runs a single-file Java program on Apache's Java client: the pulsar-client jars the broker ships (fetched
# as start.sh fetches them), so a test can use the reference client as a peer with nothing else to install.
#   infra/pulsar/java-client.sh Program.java ARGS...
set -euo pipefail

# shellcheck source=common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

require_java
ensure_broker_jars
# Pulsar's own log4j2 settings: the client's log lines go to stdout at WARN, apart from the program's output.
exec "$JAVA" -cp "$BROKER_LIB/*" -Dlog4j.configurationFile="$PULSAR_DIR/log4j2.xml" "$@"
