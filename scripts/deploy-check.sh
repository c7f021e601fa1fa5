#!/usr/bin/env bash
# What infra/docker/service.Dockerfile does, without Docker (this machine has no engine): for each service,
#   turbo prune --docker -> pnpm install --frozen-lockfile --offline (pnpm fetch first only if the store
#   lacks something) -> turbo build -> pnpm deploy --prod -> the same trimming as the image
# into a temporary folder, then starts `node dist/main.js` from the deployed folder alone (a clean
# environment, like a container's) against a real broker, and prints one table row per service:
# deployed size, development dependencies found in it, /healthz, /readyz, cold start, SIGTERM stop.
#
#   scripts/deploy-check.sh                  # every services/*/ that has a package.json
#   scripts/deploy-check.sh config joke-service
#
# Environment: PULSAR_WEB_URL (default http://127.0.0.1:8080; when nothing answers there the script starts
# infra/pulsar/start.sh and stops it afterwards), PULSAR_SERVICE_URL (the services' binary-protocol address,
# default pulsar://127.0.0.1:6650), PULSAR_TRANSPORT (default binary), DEPLOY_CHECK_TIMEOUT (seconds to wait for /healthz,
# default 30), DEPLOY_CHECK_KEEP=1 (keep the work folder; it is also kept when a check fails).
# Exit status: 0 when every service deployed, had no development dependency, answered /healthz 200 and
# stopped by itself with status 0 on SIGTERM; 1 otherwise. A /readyz other than 200 is reported, not failed
# (readiness depends on other services, e.g. tool-registry's on config).
#
# The services run in a tenant of their own (deploycheck-<pid>, deleted at the end) so a development system
# on the same broker is not disturbed and does not share their Shared subscriptions. config, when it is
# checked, starts first and keeps running until the end, so the others' /readyz can see it.
# shellcheck disable=SC2329 # the functions below run through run_step and the EXIT trap
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# Same pin as the Dockerfile's `npx turbo@... prune`.
TURBO_VERSION=2.11.11
web="${PULSAR_WEB_URL:-http://127.0.0.1:8080}"
web="${web%/}"
service_url="${PULSAR_SERVICE_URL:-pulsar://127.0.0.1:6650}"
transport="${PULSAR_TRANSPORT:-binary}"
timeout_s="${DEPLOY_CHECK_TIMEOUT:-30}"

pnpm() { bash "$repo/scripts/pnpm.sh" "$@"; }
turbo() {
  if [[ -x "$repo/node_modules/.bin/turbo" && "$("$repo/node_modules/.bin/turbo" --version 2>/dev/null)" == "$TURBO_VERSION" ]]; then
    "$repo/node_modules/.bin/turbo" "$@"
  else
    npx --yes "turbo@$TURBO_VERSION" "$@"
  fi
}
log() { echo "deploy-check: $*" >&2; }
now_ms() { date +%s%3N; }
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'; }
http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true; }

# ---- which services ----
services=()
if (($# > 0)); then
  for svc in "$@"; do
    [[ -f "services/$svc/package.json" ]] || { log "no services/$svc/package.json"; exit 2; }
    services+=("$svc")
  done
else
  for dir in services/*/; do
    svc="$(basename "$dir")"
    if [[ -f "$dir/package.json" ]]; then services+=("$svc"); else log "skipping $svc: no package.json yet"; fi
  done
fi
# config first: it stays up so the others can load configuration (their /readyz waits for it).
ordered=()
for svc in "${services[@]}"; do if [[ "$svc" == config ]]; then ordered+=("$svc"); fi; done
for svc in "${services[@]}"; do if [[ "$svc" != config ]]; then ordered+=("$svc"); fi; done
services=("${ordered[@]}")

work="$(mktemp -d "${TMPDIR:-/tmp}/toolmesh-deploy-check.XXXXXX")"
tenant="deploycheck-$$"
started_broker=0
tenant_made=0
declare -A pids=()
failed=0

stop_service() { # stop_service SVC -> sets stop_result; SIGTERM, then SIGKILL after the service's own timeout + 5 s
  local svc="$1" pid="${pids[$1]:-}" t0 rc waited
  stop_result="-"
  [[ -n "$pid" ]] || return 0
  unset "pids[$svc]"
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null && rc=0 || rc=$?
    stop_result="already exited ($rc)"
    return 1
  fi
  t0="$(now_ms)"
  kill -TERM "$pid" 2>/dev/null || true
  waited=0
  while kill -0 "$pid" 2>/dev/null && ((waited < 150)); do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    stop_result="hung, killed"
    return 1
  fi
  wait "$pid" 2>/dev/null && rc=0 || rc=$?
  stop_result="exit $rc, $(($(now_ms) - t0)) ms"
  ((rc == 0))
}

# Brokers refuse forced namespace/tenant deletion by default (forceDeleteNamespaceAllowed=false), so
# empty the namespaces topic by topic, then delete them and the tenant.
delete_tenant() {
  local ns kind topic code
  for ns in request response notify flow; do
    for kind in persistent non-persistent; do
      for topic in $(curl -sf --max-time 10 "$web/admin/v2/$kind/$tenant/$ns" |
        node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { for (const t of JSON.parse(s || "[]")) console.log(t); });'); do
        curl -s -o /dev/null --max-time 30 -X DELETE "$web/admin/v2/${topic/:\/\//\/}?force=true" || true
      done
    done
    curl -s -o /dev/null --max-time 30 -X DELETE "$web/admin/v2/namespaces/$tenant/$ns" || true
  done
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X DELETE "$web/admin/v2/tenants/$tenant")" || code=000
  [[ "$code" == 204 || "$code" == 404 ]]
}

cleanup() {
  local svc
  for svc in "${!pids[@]}"; do stop_service "$svc" || true; done
  if ((tenant_made)); then delete_tenant || log "could not delete tenant $tenant on $web"; fi
  if ((started_broker)); then bash "$repo/infra/pulsar/stop.sh" >&2 || true; fi
  if ((failed)) || [[ "${DEPLOY_CHECK_KEEP:-}" == 1 ]]; then
    log "work folder kept: $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- broker and tenant ----
broker_ready() { curl -sf --max-time 3 "$web/admin/v2/namespaces/public" 2>/dev/null | grep -q '"public/default"'; }
if ! broker_ready; then
  if [[ -n "${PULSAR_WEB_URL:-}" ]]; then log "no broker answers at $web"; exit 1; fi
  log "no broker at $web; starting infra/pulsar/start.sh"
  bash "$repo/infra/pulsar/start.sh" >&2
  started_broker=1
fi
cluster="$(curl -sf --max-time 10 "$web/admin/v2/clusters" | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[0]));')"
put_admin() { # put_admin PATH JSON
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X PUT -H 'Content-Type: application/json' -d "$2" "$web/admin/v2/$1")" || code=000
  [[ "$code" == 204 || "$code" == 200 || "$code" == 409 ]] || { log "PUT /admin/v2/$1 failed with HTTP $code"; exit 1; }
}
put_admin "tenants/$tenant" "{\"allowedClusters\":[\"$cluster\"]}"
tenant_made=1
for ns in request response notify flow; do put_admin "namespaces/$tenant/$ns" '{}'; done
log "broker $web, tenant $tenant, work folder $work"

# ---- per service ----
declare -A size=() devdeps=() health=() ready=() cold=() stopped=() verdict=()
for svc in "${services[@]}"; do
  size[$svc]="-" devdeps[$svc]="-" health[$svc]="-" ready[$svc]="-" cold[$svc]="-" stopped[$svc]="-" verdict[$svc]="ok"
done
fail() { # fail SVC WHAT
  if [[ "${verdict[$1]}" == ok ]]; then verdict[$1]="FAIL: $2"; else verdict[$1]+=", $2"; fi
  failed=1
}

run_step() { # run_step SVC STEP DIR CMD... (runs CMD in DIR; output to $work/SVC/STEP.log)
  local svc="$1" step="$2" dir="$3"
  shift 3
  if (cd "$dir" && "$@") >"$work/$svc/$step.log" 2>&1; then return 0; fi
  log "$svc: $step failed; last lines of $work/$svc/$step.log:"
  tail -n 25 "$work/$svc/$step.log" >&2
  fail "$svc" "$step"
  return 1
}

# Mirrors the Dockerfile's `pnpm fetch` + `pnpm install --frozen-lockfile --offline`: offline straight
# away when the local store already has every package, else fetch first.
install_deps() {
  pnpm install --frozen-lockfile --offline || { pnpm fetch && pnpm install --frozen-lockfile --offline; }
}

# pnpm 10's `deploy` refuses a workspace without inject-workspace-packages=true
# (ERR_PNPM_DEPLOY_NONINJECTED_WORKSPACE). Two ways out, both tried here:
#  - --config.inject-workspace-packages=true for the deploy command alone: pnpm cuts a lockfile for the
#    service from the shared one, so the deployed versions are exactly pnpm-lock.yaml's and it works
#    offline after `pnpm fetch` (no registry metadata needed). Used here and in the Dockerfile.
#  - --legacy: deploys without any lockfile, resolving every dependency again. That needs registry
#    metadata (offline it fails with ERR_PNPM_NO_OFFLINE_META on a fresh store) and lets transitive
#    versions drift from the lockfile, so it is not used.
# Setting inject-workspace-packages for the whole workspace would change how every package links its
# workspace dependencies during development, which is why it is not set in pnpm-workspace.yaml.
deploy_service() { # deploy_service SVC TARGET (in the pruned workspace), then the same trimming as the image
  local out="$2" sqlite
  pnpm --config.inject-workspace-packages=true --filter "@toolmesh/$1" deploy --prod --offline "$out" || return 1
  [[ -f "$out/package.json" ]] || return 1
  find "$out" -mindepth 1 -maxdepth 1 ! -name dist ! -name node_modules ! -name package.json -exec rm -rf {} + || return 1
  for sqlite in "$out"/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3; do
    [[ -d "$sqlite" ]] || continue
    rm -rf "$sqlite/deps" "$sqlite/src" "$sqlite/build/deps" "$sqlite/build/Release/obj" "$sqlite/build/Release/obj.target" \
      "$sqlite/build/Release/test_extension.node" "$sqlite"/build/Release/*.a
  done
}

for svc in "${services[@]}"; do
  log "$svc: prune, install, build, deploy"
  dir="$work/$svc"
  mkdir -p "$dir"
  run_step "$svc" prune "$repo" turbo prune "@toolmesh/$svc" --docker --out-dir "$dir/pruned" || continue
  # The Dockerfile's layers: json/ (package.json files + lockfile) first, then full/ (sources) over it.
  mkdir -p "$dir/app"
  cp -R "$dir/pruned/json/." "$dir/app/"
  run_step "$svc" install "$dir/app" install_deps || continue
  cp -R "$dir/pruned/full/." "$dir/app/"
  cp tsconfig.base.json "$dir/app/"
  # One turbo cache for the whole run: the shared packages compile once, not once per service.
  run_step "$svc" build "$dir/app" pnpm exec turbo run build "--filter=@toolmesh/$svc..." --cache-dir="$work/turbo-cache" || continue
  run_step "$svc" deploy "$dir/app" deploy_service "$svc" "$dir/deploy" || continue
  rm -rf "$dir/pruned" "$dir/app" # the build workspace is large; the deployed folder is what counts

  size[$svc]="$(du -sh "$dir/deploy" | cut -f1)"
  devdeps[$svc]="$(node scripts/deploy/dev-deps.mjs "$svc" "$dir/deploy")" || fail "$svc" "dev dependencies"

  # Start it the way the image does: `node dist/main.js` in the deployed folder, only the variables a
  # container would get (the image's data dir becomes a folder here).
  port="$(free_port)"
  # The image points every *_DATA_DIR variable at /data; here each gets the service's own data folder.
  data_vars=($(grep -o '[A-Z_]*_DATA_DIR=/data' infra/docker/service.Dockerfile | cut -d= -f1))
  env_args=(PATH="$PATH" HOME="$HOME" NODE_ENV=production HTTP_HOST=127.0.0.1 HTTP_PORT="$port"
    PULSAR_WEB_URL="$web" PULSAR_SERVICE_URL="$service_url" PULSAR_TRANSPORT="$transport" TOOLMESH_TENANT="$tenant"
    LOG_FORMAT=json LOG_LEVEL=info)
  for data_var in "${data_vars[@]}"; do env_args+=("$data_var=$dir/data"); done
  t0="$(now_ms)"
  (cd "$dir/deploy" && exec env -i "${env_args[@]}" node dist/main.js) >"$dir/service.log" 2>&1 &
  pids[$svc]=$!
  deadline=$((t0 + timeout_s * 1000))
  code=000
  while (($(now_ms) < deadline)) && kill -0 "${pids[$svc]}" 2>/dev/null; do
    code="$(http_code "http://127.0.0.1:$port/healthz")"
    [[ "$code" == 200 ]] && break
    sleep 0.05
  done
  if [[ "$code" == 200 ]]; then
    cold[$svc]="$(($(now_ms) - t0)) ms"
    health[$svc]="200"
    # Readiness may need a moment more (the first config load); a few seconds, then report what it says.
    ready_deadline=$(($(now_ms) + 10000))
    while ready[$svc]="$(http_code "http://127.0.0.1:$port/readyz")" && [[ "${ready[$svc]}" != 200 ]] && (($(now_ms) < ready_deadline)); do
      sleep 0.2
    done
  else
    health[$svc]="${code/000/no answer}"
    kill -0 "${pids[$svc]}" 2>/dev/null || health[$svc]="process exited"
    log "$svc: /healthz not 200 within ${timeout_s}s; last lines of $dir/service.log:"
    tail -n 25 "$dir/service.log" >&2
    fail "$svc" healthz
  fi
  if [[ "$svc" != config ]]; then
    stop_service "$svc" || fail "$svc" stop
    stopped[$svc]="$stop_result"
  fi
done
if [[ -n "${pids[config]:-}" ]]; then
  stop_service config || fail config stop
  stopped[config]="$stop_result"
fi

# ---- table ----
row() { printf '%-14s %-9s %-22s %-15s %-8s %-11s %-20s %s\n' "$@"; }
echo
row service size dev-deps /healthz /readyz cold-start SIGTERM result
for svc in "${services[@]}"; do
  row "$svc" "${size[$svc]}" "${devdeps[$svc]}" "${health[$svc]}" "${ready[$svc]}" "${cold[$svc]}" "${stopped[$svc]}" "${verdict[$svc]}"
done
exit "$failed"
