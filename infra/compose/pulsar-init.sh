#!/usr/bin/env bash
# One-shot (the `pulsar-init` compose service, run in the Pulsar image, which has curl): creates the
# toolmesh tenant and its namespaces over the broker's admin REST API. Idempotent: 409 = already there.
set -euo pipefail
admin="${PULSAR_ADMIN_URL:-http://pulsar:8080}/admin/v2"
tenant="${TOOLMESH_TENANT:-tg}"
cluster="${PULSAR_CLUSTER:-standalone}"

put() { # put PATH JSON
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X PUT -H 'Content-Type: application/json' -d "$2" "$admin/$1")" || code=000
  case "$code" in
    200 | 204) echo "pulsar-init: created $1" ;;
    409) echo "pulsar-init: $1 already exists" ;;
    *) echo "pulsar-init: PUT $admin/$1 failed with HTTP $code" >&2; exit 1 ;;
  esac
}

put "tenants/$tenant" "{\"allowedClusters\":[\"$cluster\"]}"
for ns in request response notify flow; do
  put "namespaces/$tenant/$ns" '{}'
done
echo "pulsar-init: tenant $tenant ready (namespaces request, response, notify, flow)"
