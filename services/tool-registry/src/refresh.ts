import type { Logger } from "pino";
import { type ConfigView, FailureStreak, TraceAttr, traced } from "@toolmesh/base";
import { ConfigType, type CatalogRevision, type SourceStatus, ToolSourceDescriptor, type TopicLayout } from "@toolmesh/schema";
import { catalogHash } from "./catalog/hashing.js";
import { type SourceTools, mergeSources } from "./catalog/merge.js";
import { validateManifest } from "./catalog/validate.js";
import { CONFIG_SOURCE, configTools } from "./sources/config-tools.js";
import type { ManifestFetcher } from "./sources/manifest-fetcher.js";
import type { RegistryStore } from "./store/index.js";
import { RefreshRetry } from "./refresh-retry.js";

export interface RefreshResult {
  revision: CatalogRevision;
  created: boolean;
  sources: SourceStatus[];
}

export interface CatalogRefresherDeps {
  store: RegistryStore;
  fetcher: ManifestFetcher;
  config: ConfigView;
  /** The system's topics: a tool-service descriptor's `topic` name is resolved in them. */
  topics: TopicLayout;
  logger: Logger;
  /** Called after a new revision is stored (publishes the push). */
  onRevision: (revision: CatalogRevision) => Promise<void>;
  /** Announcements older than this are dropped: their service stopped announcing. */
  announcementTtlMs: number;
  /** The longest wait between retries after a failed refresh (from 1 s, doubling); 0: no retries. */
  retryMaxMs?: number;
}

interface GatheredSource extends SourceTools {
  problems: string[];
  /** Entries that are fine but not for the catalog, with why (see SourceStatus.left_out). */
  leftOut?: string[];
  /** Set when the source could not be read this time; its entries are then the last good ones. */
  failure?: string;
}

const sourceName = (id: string) => `source:${id}`;
const announceName = (serviceId: string) => `announce:${serviceId}`;

/**
 * Builds the catalog from every source and stores a new immutable revision only when its hash changes, so
 * refreshing is idempotent. A failing source keeps its last good tools and is reported degraded.
 * Refreshes run one at a time; calls that arrive meanwhile share the next run. Across replicas sharing a
 * database they run one at a time too (store.exclusive), each starting from the newest revision stored.
 */
export class CatalogRefresher {
  private running: Promise<RefreshResult> | undefined;
  private queued: Promise<RefreshResult> | undefined;
  private readonly retry: RefreshRetry | undefined;
  // Failures in a row (retries of one cause, say its database away): one warning, one error at the third.
  private readonly failures = new FailureStreak(3);

  constructor(private readonly deps: CatalogRefresherDeps) {
    const maxMs = deps.retryMaxMs ?? 0;
    if (maxMs > 0) {
      this.retry = new RefreshRetry({ initialMs: Math.min(1_000, maxMs), maxMs }, () => {
        // Its failure is logged (and the next retry scheduled) like any other.
        this.refresh("retry after a failed refresh").catch(() => undefined);
      });
    }
  }

  /**
   * Builds the catalog now (or shares the run already queued). A failure is logged here, with when it is
   * tried again, and rejects the promise for a caller that waits (the admin route, a refresh request).
   */
  refresh(reason: string): Promise<RefreshResult> {
    if (!this.running) {
      this.running = this.traced(reason)
        .then(
          (result) => {
            this.retry?.succeeded();
            const streak = this.failures.succeeded();
            if (streak) this.deps.logger.info({ failures: streak.failures, since: streak.since }, "catalog refresh back");
            return result;
          },
          (err: unknown) => {
            const retryInMs = this.retry?.failed();
            const level = this.failures.failed(err instanceof Error ? err.message : String(err));
            const fields = { err, reason, failures: this.failures.failures, ...(retryInMs !== undefined ? { retryInMs } : {}) };
            this.deps.logger[level](fields, "catalog refresh failed");
            throw err;
          },
        )
        .finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.refresh(reason);
      });
    return this.queued;
  }

  /** Stops retrying (shutdown). */
  close(): void {
    this.retry?.stop();
  }

  /** A run in a `registry refresh` span: why, which revision came of it, and whether it is new. */
  private traced(reason: string): Promise<RefreshResult> {
    return traced("registry refresh", { attributes: { "toolmesh.refresh.reason": reason } }, async (scope) => {
      const result = await this.run(reason);
      const degraded = result.sources.filter((s) => s.status !== "ok").length;
      scope.set({
        [TraceAttr.revision]: result.revision.revision_number,
        "toolmesh.refresh.created": result.created,
        "toolmesh.refresh.degraded_sources": degraded,
      });
      return result;
    });
  }

  private async run(reason: string): Promise<RefreshResult> {
    // A refresh before config has loaded would see no config tools and make a spurious revision.
    await this.deps.config.whenReady();
    return this.deps.store.exclusive(() => this.build(reason));
  }

  private async build(reason: string): Promise<RefreshResult> {
    const { store, logger } = this.deps;
    const started = performance.now();
    const fromConfig = configTools(this.deps.config, this.deps.topics);
    const toolSources = [...this.deps.config.parsed(ConfigType.toolSource, ToolSourceDescriptor).items.values()]
      .filter((s) => s.active)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const gathered: GatheredSource[] = [
      { source: CONFIG_SOURCE, entries: fromConfig.entries, problems: fromConfig.problems, leftOut: fromConfig.leftOut },
      ...(await Promise.all(toolSources.map((s) => this.fetchSource(s.id, s.manifest_url)))),
      ...(await store.announcements(new Date(Date.now() - this.deps.announcementTtlMs))).map(({ service_id, manifest }) => ({
        source: announceName(service_id),
        entries: manifest,
        problems: [],
      })),
    ];

    const latest = await store.latest();
    const { tools, refusals } = mergeSources(gathered, new Set(latest?.tools.map((t) => t.tool_id)));
    for (const g of gathered) {
      const problems = [...g.problems, ...(refusals.get(g.source) ?? [])];
      if (g.failure) await store.recordFailure(g.source, [g.failure, ...problems].join("; "));
      else await store.recordSuccess(g.source, g.entries, problems, g.leftOut);
    }
    await store.forgetSourcesExcept(gathered.map((g) => g.source));

    const hash = catalogHash(tools);
    let revision: CatalogRevision;
    let created = false;
    if (latest && latest.content_hash === hash) revision = latest;
    else if (!latest && tools.length === 0) {
      // Nothing yet: the first revision is the first catalog with a tool in it.
      return {
        revision: { revision_number: 0, content_hash: hash, created_at: "", tool_count: 0, tools: [] },
        created: false,
        sources: await store.statuses(),
      };
    } else {
      revision = await store.append(hash, tools);
      created = true;
      await this.deps.onRevision(revision);
    }
    logger.info(
      {
        reason,
        revision: revision.revision_number,
        created,
        tools: tools.length,
        leftOut: fromConfig.leftOut.length,
        ms: Math.round(performance.now() - started),
      },
      created ? "catalog revision created" : "catalog unchanged",
    );
    return { revision, created, sources: await store.statuses() };
  }

  /** A source's fresh tools, or its last good ones (with the failure) when it fails now. */
  private async fetchSource(id: string, url: string): Promise<GatheredSource> {
    const source = sourceName(id);
    try {
      const { entries, problems } = validateManifest(await this.deps.fetcher.fetch(url));
      const reasons = problems.map((p) => `${p.tool}: ${p.reason}`);
      if (entries.length === 0 && problems.length > 0) throw new Error(`no usable tools in the manifest: ${reasons.join("; ")}`);
      return { source, entries, problems: reasons };
    } catch (err) {
      const failure = (err as Error).message;
      this.deps.logger.warn({ source, reason: failure }, "tool source failed; keeping its last good tools");
      return { source, entries: await this.deps.store.lastGoodEntries(source), problems: [], failure };
    }
  }
}
