import { type ServiceRuntime, measuredStore } from "@toolmesh/base";
import { ServiceName, ToolRegistryRequest, type ToolRegistryResponse, requestSubscription } from "@toolmesh/schema";
import type { RegistryEnv } from "./env.js";
import { registerRegistryRoutes } from "./handlers/http-routes.js";
import { createRegistryHandler } from "./handlers/registry-request.js";
import { RegistryQueries } from "./queries.js";
import { CatalogRefresher } from "./refresh.js";
import { AddressPolicy } from "./sources/address-policy.js";
import { consumeAnnouncements } from "./sources/announcements.js";
import { CONFIG_TYPES } from "./sources/config-tools.js";
import { ManifestFetcher } from "./sources/manifest-fetcher.js";
import { type RegistryStore, openRegistryStore } from "./store/index.js";

export const SERVICE_ID = "tool-registry";

/**
 * The catalog: reads config, tool sources and announcements, makes content-hashed revisions, serves them
 * on the tool-registry topic and over HTTP (read API + admin refresh), and pushes each new revision.
 */
export async function buildToolRegistry(
  runtime: ServiceRuntime,
  env: RegistryEnv,
): Promise<{ store: RegistryStore; refresher: CatalogRefresher }> {
  const store = measuredStore(await openRegistryStore(env), runtime.metrics);
  runtime.logger.info({ store: store.location }, "registry store opened");
  const fetcher = new ManifestFetcher({
    policy: new AddressPolicy(env.REGISTRY_ALLOWED_NETWORKS),
    timeoutMs: env.REGISTRY_FETCH_TIMEOUT_MS,
    maxBytes: env.REGISTRY_MAX_MANIFEST_BYTES,
  });
  const config = runtime.configView(CONFIG_TYPES);
  const refresher = new CatalogRefresher({
    store,
    fetcher,
    config,
    topics: runtime.topics,
    logger: runtime.logger.child({ component: "catalog" }),
    announcementTtlMs: env.REGISTRY_ANNOUNCEMENT_TTL_MS,
    retryMaxMs: env.REGISTRY_REFRESH_RETRY_MAX_MS,
    onRevision: async (revision) => {
      const { tools: _tools, ...summary } = revision;
      await runtime.pulsar.sendJson(runtime.topics.toolRegistryNotify, summary);
    },
  });
  // A failed refresh is logged, and tried again, by the refresher.
  const refresh = (reason: string) => void refresher.refresh(reason).catch(() => undefined);
  const queries = new RegistryQueries(store);

  runtime.onShutdown(async () => {
    refresher.close();
    await config.close();
    await fetcher.close();
    await store.close();
  });

  registerRegistryRoutes(runtime.http, queries, refresher, env.REGISTRY_ADMIN_TOKEN);
  await config.start();
  config.onChange(() => refresh("config change"));
  await consumeAnnouncements(
    runtime.pulsar,
    env.TOOL_ANNOUNCE_TOPIC ?? runtime.topics.toolAnnouncements,
    store,
    runtime.logger.child({ component: "announcements" }),
    (serviceId) => refresh(`announcement from ${serviceId}`),
  );
  if (env.REGISTRY_REFRESH_INTERVAL_MS > 0) {
    const timer = setInterval(() => refresh("interval"), env.REGISTRY_REFRESH_INTERVAL_MS);
    timer.unref();
    runtime.onShutdown(() => clearInterval(timer));
  }

  await runtime.serve({
    ...runtime.topics.pair(ServiceName.toolRegistry),
    subscription: requestSubscription(SERVICE_ID),
    requestSchema: ToolRegistryRequest,
    errorType: "tool-registry-error",
    errorReply: (error): Partial<ToolRegistryResponse> => ({ error }),
    handler: createRegistryHandler(queries, refresher),
  });
  return { store, refresher };
}
