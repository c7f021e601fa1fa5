import { waitFor } from "./wait.js";

const CONFIG_QUEUE = "non-persistent/tg/request/config";

/** Consumers on TrustGraph's system config queue, by subscription (none when the topic does not exist). */
async function configConsumers(webServiceUrl: string): Promise<string[]> {
  const response = await fetch(`${webServiceUrl}/admin/v2/${CONFIG_QUEUE}/stats`);
  if (response.status === 404) return [];
  if (!response.ok) throw new Error(`GET ${CONFIG_QUEUE}/stats: HTTP ${response.status}`);
  const stats = (await response.json()) as { subscriptions?: Record<string, { consumers?: unknown[] }> };
  return Object.entries(stats.subscriptions ?? {}).flatMap(([name, s]) => ((s.consumers?.length ?? 0) > 0 ? [name] : []));
}

/**
 * For a test file that runs toolmesh in tenant `tg`. TrustGraph's processors cannot be given another tenant:
 * they load their configuration from `request:tg:config`, a queue id fixed in trustgraph-base
 * (`schema/config.py`), so the config service they talk to must serve tenant `tg`. The per-file tenants the
 * other tests use cannot isolate such a file; instead it waits here until no other config service serves
 * `tg` on this broker (another run of a tg-tenant test), so two systems never share that queue. A check, not
 * a lock: two such files starting at the same moment both pass it, so e2e runs them one at a time
 * (e2e/vitest.config.ts). The file
 * must set TOOLMESH_TENANT=tg before @toolmesh/schema loads (`vi.hoisted`), keep its data in its own
 * folders and give every topic it adds a unique name.
 */
export async function claimTrustGraphTenant(webServiceUrl: string, { timeoutMs = 180_000 } = {}): Promise<void> {
  if (process.env.TOOLMESH_TENANT !== "tg")
    throw new Error(`claimTrustGraphTenant: set TOOLMESH_TENANT=tg first (it is '${process.env.TOOLMESH_TENANT}')`);
  let busy: string[] = [];
  try {
    await waitFor(
      async () => {
        busy = await configConsumers(webServiceUrl);
        return busy.length === 0;
      },
      { timeoutMs, intervalMs: 1_000, description: `no other config service on ${CONFIG_QUEUE}` },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; subscriptions still consuming it: ${busy.join(", ") || "(none seen)"}`);
  }
}
