import { type PulsarClient, RequestClient, type TraceContext } from "@toolmesh/pulsar";
import { type CatalogRevision, ServiceError, ServiceName, ToolRegistryResponse, type TopicLayout } from "@toolmesh/schema";

/** Asks the tool registry for the revision a run uses; revisions never change, so each is fetched once. */
export class CatalogClient {
  private readonly cache = new Map<number, CatalogRevision>();

  private constructor(private readonly registry: RequestClient<typeof ToolRegistryResponse>) {}

  static async create(pulsar: PulsarClient, topics: TopicLayout, timeoutMs: number): Promise<CatalogClient> {
    const registry = await RequestClient.create(pulsar, {
      ...topics.pair(ServiceName.toolRegistry),
      responseSchema: ToolRegistryResponse,
      subscriptionPrefix: "agent-registry",
      timeoutMs,
    });
    return new CatalogClient(registry);
  }

  /** The pinned revision, or the registry's current one. */
  /** `trace`: the span asking (the agent request's); the registry request is its child. */
  async revision(pinned: number | null, trace?: TraceContext): Promise<CatalogRevision> {
    if (pinned !== null) {
      const cached = this.cache.get(pinned);
      if (cached) return cached;
    }
    const reply = await this.registry.request(
      pinned !== null ? { operation: "get-revision", revision_number: pinned } : { operation: "current" },
      { trace },
    );
    // The registry's error type goes along (`unavailable`: the caller may ask again).
    if (reply.error) throw new ServiceError(reply.error.type, `tool registry: ${reply.error.message}`);
    if (!reply.revision) throw new Error("tool registry answered without a revision");
    this.cache.set(reply.revision.revision_number, reply.revision);
    return reply.revision;
  }

  close(): Promise<void> {
    return this.registry.close();
  }
}
