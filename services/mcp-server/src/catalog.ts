import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { FirstContact, type PulsarClient, RequestClient, type Subscription, decodeJson } from "@toolmesh/pulsar";
import { type CatalogRevision, ErrorType, ServiceName, ToolRegistryPush, ToolRegistryResponse, type TopicLayout } from "@toolmesh/schema";

/** The registry answered that it has no such revision (or no revision at all yet). */
export class UnknownRevisionError extends Error {
  override name = "UnknownRevisionError";
}

export interface RevisionCatalogOptions {
  pulsar: PulsarClient;
  /** The system's topics: the registry's pair and its push topic. */
  topics: TopicLayout;
  logger: Logger;
  /** Start of the private subscription names. */
  subscriber: string;
  timeoutMs: number;
  pollMs: number;
}

const MAX_CACHED = 64;
// Tries time out after 250, 500, 1000 and 2000 ms with 250 ms between them: the fourth fails about 4.75 s in.
const WARN_AFTER_FAILURES = 4;

/**
 * The tool registry as seen from here: revisions by number (immutable, so each is fetched once and
 * cached), the newest revision number (from `notify/tool-registry` pushes, with a poll as safety net for
 * pushes missed while disconnected), and listeners told about each newer revision.
 */
export class RevisionCatalog {
  private readonly cache = new Map<number, Promise<CatalogRevision>>();
  private readonly listeners: Array<(revision: CatalogRevision) => void> = [];
  private registry: RequestClient<typeof ToolRegistryResponse> | undefined;
  private push: Subscription | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private newest = 0;
  // Short timeouts until the registry first answers (it may start after this service): see FirstContact.
  private readonly timeouts: FirstContact;
  private closed = false;

  constructor(private readonly options: RevisionCatalogOptions) {
    this.timeouts = new FirstContact(options.timeoutMs);
  }

  async start(): Promise<void> {
    const { pulsar, subscriber, timeoutMs } = this.options;
    this.registry = await RequestClient.create(pulsar, {
      ...this.options.topics.pair(ServiceName.toolRegistry),
      responseSchema: ToolRegistryResponse,
      subscriptionPrefix: `${subscriber}-registry`,
      timeoutMs,
    });
    // Every replica needs every push: an Exclusive subscription of its own.
    this.push = await pulsar.subscribe(
      { topic: this.options.topics.toolRegistryNotify, subscription: `${subscriber}-registry-push-${randomUUID()}`, type: "Exclusive" },
      async (message) => {
        const decoded = decodeJson(ToolRegistryPush, message.payload);
        if (!decoded.ok) {
          this.options.logger.warn({ reason: decoded.reason }, "ignored malformed tool-registry push");
          return;
        }
        await this.advance(decoded.value.revision_number);
      },
    );
    this.pollTimer = setInterval(() => void this.current().catch(() => undefined), this.options.pollMs).unref();
    void this.firstContact();
  }

  /** Asks for the current revision until the registry answers at all (readiness waits for that). */
  private async firstContact(): Promise<void> {
    let failures = 0;
    while (!this.timeouts.reached && !this.closed) {
      try {
        await this.current();
      } catch (err) {
        if (this.timeouts.reached) return;
        // Tries come quickly at first (FirstContact) and the registry often starts with this service: an info
        // line at first, one warning once the tries have waited about 4 s in all, the rest at debug; /readyz
        // tells meanwhile.
        failures += 1;
        const fields = { reason: (err as Error).message, failures };
        if (failures === 1) this.options.logger.info(fields, "waiting for the tool registry to answer");
        else if (failures === WARN_AFTER_FAILURES) this.options.logger.warn(fields, "the tool registry has not answered yet; retrying");
        else this.options.logger.debug(fields, "tool registry still not answering");
        await new Promise((resolve) => setTimeout(resolve, 250).unref());
      }
    }
  }

  /** The registry has answered at least once (with a revision or with "none yet"). */
  get reachable(): boolean {
    return this.timeouts.reached;
  }

  /** The newest revision number seen so far (0 = none yet). */
  get latestNumber(): number {
    return this.newest;
  }

  /** Called with each revision newer than any seen before. */
  onNewRevision(listener: (revision: CatalogRevision) => void): void {
    this.listeners.push(listener);
  }

  /** The registry's current revision; throws UnknownRevisionError when it has none yet. */
  async current(): Promise<CatalogRevision> {
    const reply = await this.ask({ operation: "current" });
    const revision = this.remember(reply);
    await this.advance(revision.revision_number);
    return revision;
  }

  /** One revision by number (cached); throws UnknownRevisionError when the registry has no such revision. */
  revision(number: number): Promise<CatalogRevision> {
    let found = this.cache.get(number);
    if (!found) {
      found = this.ask({ operation: "get-revision", revision_number: number }).then((reply) => this.remember(reply));
      found.catch(() => this.cache.delete(number));
      this.cache.set(number, found);
      this.trim();
    }
    return found;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    await this.push?.close();
    await this.registry?.close();
  }

  private async ask(request: { operation: "current" } | { operation: "get-revision"; revision_number: number }) {
    if (!this.registry) throw new Error("the revision catalog is not started");
    const reply = await this.registry.request(request, { timeoutMs: this.timeouts.timeout() });
    this.timeouts.answered();
    if (reply.error) {
      if (reply.error.type === ErrorType.notFound) throw new UnknownRevisionError(reply.error.message);
      throw new Error(`tool registry: ${reply.error.type}: ${reply.error.message}`);
    }
    return reply;
  }

  private remember(reply: ToolRegistryResponse): CatalogRevision {
    const revision = reply.revision;
    if (!revision) throw new Error("the tool registry answered without a revision");
    if (!this.cache.has(revision.revision_number)) this.cache.set(revision.revision_number, Promise.resolve(revision));
    this.trim();
    return revision;
  }

  /**
   * Records a newer revision number and tells the listeners (with its tools). The number counts as seen
   * only once its revision has been read: one that could not be read (the registry slow or away) is
   * tried again by the next push or poll, instead of leaving `latest` sessions a revision behind.
   */
  private async advance(number: number): Promise<void> {
    if (number <= this.newest) return;
    let revision: CatalogRevision;
    try {
      revision = await this.revision(number);
    } catch (err) {
      this.options.logger.warn({ revision: number, reason: (err as Error).message }, "could not read a new catalog revision");
      return;
    }
    // A push and a poll may have read it at the same time, or a newer one may have come in meanwhile.
    if (number <= this.newest) return;
    this.newest = number;
    this.options.logger.info({ revision: number, tools: revision.tool_count }, "new catalog revision");
    for (const listener of this.listeners) {
      try {
        listener(revision);
      } catch (err) {
        this.options.logger.error({ err }, "new-revision listener failed");
      }
    }
  }

  /** Keeps the newest revisions only; older ones are fetched again if a pinned session asks. */
  private trim(): void {
    while (this.cache.size > MAX_CACHED) {
      const oldest = Math.min(...this.cache.keys());
      this.cache.delete(oldest);
    }
  }
}
