# syntax=docker/dockerfile:1
# One image recipe for every service; SERVICE names the folder under services/. The build context is the
# repository root:
#   docker build -f infra/docker/service.Dockerfile --build-arg SERVICE=config -t toolmesh/config .
# scripts/deploy-check.sh runs the same prune -> install -> build -> deploy steps without Docker and starts
# the result; keep the two in step.

# One pin for every stage: a native module compiled in `build` must match the Node that runs it.
ARG NODE_IMAGE=node:20.19.5-bookworm-slim

# ---- prune: this service, the workspace packages it depends on, and a lockfile cut down to them ----
FROM ${NODE_IMAGE} AS prune
ARG SERVICE
RUN test -n "$SERVICE" || { echo "--build-arg SERVICE=<folder under services/> is required" >&2; exit 1; }
WORKDIR /repo
COPY . .
RUN npx --yes turbo@2.11.11 prune "@toolmesh/${SERVICE}" --docker --out-dir /pruned

# ---- build: install (dev dependencies included), compile, deploy the production dependencies only ----
FROM ${NODE_IMAGE} AS build
ARG SERVICE
ENV CI=true TURBO_TELEMETRY_DISABLED=1 npm_config_store_dir=/pnpm/store
# better-sqlite3 (config, tool-registry, agent) compiles its bundled SQLite when installed: node-gyp needs
# python3, make and g++, and nodedir points it at this image's own Node headers instead of downloading
# them. Services whose pruned lockfile has no native module skip the compiler.
ENV npm_config_nodedir=/usr/local
COPY --from=prune /pruned/json/pnpm-lock.yaml /pruned/json/pnpm-workspace.yaml /app/
# hadolint ignore=DL3008
RUN if grep -q "better-sqlite3" /app/pnpm-lock.yaml; then \
      apt-get update \
      && apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/*; \
    fi
RUN npm install --global pnpm@10.34.8
WORKDIR /app
# The lockfile alone decides what is downloaded, so this layer stays cached until a dependency changes.
# pnpm fetch also wants the patches the lockfile names (patches/, e.g. the postgres driver's).
COPY --from=prune /pruned/json/patches/ /app/patches/
RUN pnpm fetch
COPY --from=prune /pruned/json/ ./
RUN pnpm install --frozen-lockfile --offline
COPY --from=prune /pruned/full/ ./
COPY tsconfig.base.json ./
RUN pnpm exec turbo run build "--filter=@toolmesh/${SERVICE}..."
# pnpm 10 deploys from the shared lockfile only with inject-workspace-packages=true; the repo does not set
# it, and passing it here affects this command alone. (--legacy also deploys, but without the lockfile: it
# resolves every transitive version again, needs registry metadata, and can drift from pnpm-lock.yaml.)
# Then keep only what runs: dist/, node_modules/ and package.json (no src/, test/, tsconfig).
RUN pnpm --config.inject-workspace-packages=true --filter "@toolmesh/${SERVICE}" deploy --prod --offline /out \
 && find /out -mindepth 1 -maxdepth 1 ! -name dist ! -name node_modules ! -name package.json -exec rm -rf {} +
# better-sqlite3 needs only build/Release/better_sqlite3.node at run time: drop the SQLite sources, object
# files, static library and test extension the compile leaves behind (15-25 MB).
RUN for m in /out/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3; do \
      [ -d "$m" ] || continue; \
      rm -rf "$m/deps" "$m/src" "$m/build/deps" "$m/build/Release/obj" "$m/build/Release/obj.target" \
             "$m/build/Release/test_extension.node" "$m"/build/Release/*.a; \
    done

# ---- runtime: Node, tini and the deployed folder; no compiler, no pnpm, no dev dependencies ----
FROM ${NODE_IMAGE} AS runtime
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 toolmesh \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin toolmesh \
 && mkdir -p /data \
 && chown 10001:10001 /data
WORKDIR /app
# Owned by root, so the service user cannot change its own code.
COPY --from=build /out/ ./
# Services with state (SQLite) keep it in /data: mount a volume there. A new named volume copies this
# folder's owner (10001). Each variable is read only by the service it names; the others ignore it.
ENV NODE_ENV=production HTTP_HOST=0.0.0.0 CONFIG_DATA_DIR=/data REGISTRY_DATA_DIR=/data AGENT_DATA_DIR=/data
USER 10001:10001
# No EXPOSE: each service's port is defined once, as the HTTP_PORT default in its src/env.ts (from
# @toolmesh/schema's ServicePorts); compose and Kubernetes publish it from the same table.
# The slim image has no curl: Node's own fetch asks /healthz on the port the service's own env parser
# chooses (HTTP_PORT if set, else its default).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "--input-type=module", "-e", "const { loadEnv } = await import('./dist/env.js'); const r = await fetch(`http://127.0.0.1:${loadEnv().HTTP_PORT}/healthz`, { signal: AbortSignal.timeout(4000) }).catch(() => null); process.exit(r?.ok ? 0 : 1);"]
# tini is PID 1: it passes SIGTERM on to node (graceful shutdown) and reaps zombies.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
