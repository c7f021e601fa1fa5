import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { z } from "zod";
import { Backoff, FirstContact, type PulsarClient, RequestClient, type Subscription, decodeJson } from "@toolmesh/pulsar";
import { ConfigPush, ConfigResponse, ServiceName, type TopicLayout } from "@toolmesh/schema";
import { fetchConfigTypes } from "./config-fetch.js";
import { FailureStreak } from "./failure-streak.js";
import type { ReadinessResult } from "./http.js";

export interface ConfigViewOptions {
  /**
   * Config types this service uses: only these are read, each with its own `getvalues`. Every push re-reads
   * all of them, not only the changed ones.
   */
  types: string[];
  /** The system's topics: config's request/response pair and its push topic. */
  topics: TopicLayout;
  workspace?: string;
  /** A safety net for pushes missed while disconnected (non-persistent topics do not keep them). */
  pollIntervalMs?: number;
  requestTimeoutMs?: number;
  /** Consecutive failed reloads after which readiness() reports not ready (default 3). */
  unreadyAfterFailures?: number;
  /** Start of the private subscription names (the service id). */
  subscriber: string;
}

export type ConfigSnapshot = Record<string, Record<string, string>>;

export interface ParsedItems<T> {
  items: Map<string, T>;
  invalid: Array<{ key: string; reason: string }>;
}

/** Parses config values (key -> JSON string) with a schema; bad items are listed with the reason. */
export function parseItems<S extends z.ZodType>(values: Record<string, string>, schema: S): ParsedItems<z.output<S>> {
  const items = new Map<string, z.output<S>>();
  const invalid: ParsedItems<z.output<S>>["invalid"] = [];
  for (const [key, value] of Object.entries(values)) {
    const decoded = decodeJson(schema, Buffer.from(value));
    if (decoded.ok) items.set(key, decoded.value);
    else invalid.push({ key, reason: decoded.reason });
  }
  return { items, invalid };
}

const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/**
 * A live, read-only copy of the config types a service cares about: loaded at start, re-read on every
 * push on notify/config and every poll interval, kept at the highest version seen. A reload that keeps
 * failing keeps the last good copy for serving, and shows in readiness() and (once per streak) in the log.
 */
export class ConfigView {
  private snapshot: ConfigSnapshot = {};
  /** parsed() results for the current snapshot, by type and schema; dropped whenever a load replaces it. */
  private parsedCache = new Map<string, Map<z.ZodType, ParsedItems<unknown>>>();
  private currentVersion: number | null = null;
  private client: RequestClient<typeof ConfigResponse> | undefined;
  private push: Subscription | undefined;
  private readonly listeners: Array<(snapshot: ConfigSnapshot, version: number) => void> = [];
  private refreshing: Promise<void> | undefined;
  private again = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly backoff = new Backoff({ initialMs: 250, maxMs: 5_000 });
  // Short timeouts until config first answers (it may start after this service): see FirstContact.
  private readonly firstContact: FirstContact;
  private readyWaiters: Array<() => void> = [];
  private readonly streak: FailureStreak;

  constructor(
    private readonly pulsar: PulsarClient,
    private readonly logger: Logger,
    private readonly options: ConfigViewOptions,
  ) {
    this.streak = new FailureStreak(options.unreadyAfterFailures ?? 3);
    this.firstContact = new FirstContact(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  }

  /** The first load has succeeded: there is config to serve with (perhaps stale; see readiness()). */
  get ready(): boolean {
    return this.currentVersion !== null;
  }

  /** For /readyz: not ready before the first load, nor while reloads keep failing; the reason says which. */
  readiness(): ReadinessResult {
    const last = this.streak.lastReason;
    if (!this.ready) return { ready: false, reason: `config not loaded yet${last ? `: ${last}` : ""}` };
    if (!this.streak.failing) return { ready: true };
    return {
      ready: false,
      reason:
        `config reloads failing since ${this.streak.startedAt!.toISOString()} (${this.streak.failures} attempts), ` +
        `still serving version ${this.currentVersion}: ${last}`,
    };
  }

  get version(): number | null {
    return this.currentVersion;
  }

  /** Raw JSON strings of one type, by key. */
  values(type: string): Record<string, string> {
    return this.snapshot[type] ?? {};
  }

  /**
   * One type parsed with a schema; bad items are listed, not thrown, so one bad entry hides no others.
   * Parsed once per loaded snapshot, so callers on a hot path (the gateway, per request) may call it freely.
   * The result is shared: do not modify it.
   */
  parsed<S extends z.ZodType>(type: string, schema: S): ParsedItems<z.output<S>> {
    let byType = this.parsedCache.get(type);
    if (!byType) this.parsedCache.set(type, (byType = new Map()));
    const cached = byType.get(schema);
    if (cached) return cached as ParsedItems<z.output<S>>;
    const result = parseItems(this.values(type), schema);
    byType.set(schema, result);
    return result;
  }

  onChange(listener: (snapshot: ConfigSnapshot, version: number) => void): void {
    this.listeners.push(listener);
  }

  /** Subscribes to pushes, then loads (retrying in the background until the config service answers). */
  async start(): Promise<void> {
    this.client = await RequestClient.create(this.pulsar, {
      ...this.options.topics.pair(ServiceName.config),
      responseSchema: ConfigResponse,
      subscriptionPrefix: `${this.options.subscriber}-config`,
      timeoutMs: this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    });
    this.push = await this.pulsar.subscribe(
      {
        topic: this.options.topics.configNotify,
        subscription: `${this.options.subscriber}-config-push-${randomUUID()}`,
        type: "Exclusive",
      },
      async (message) => {
        const decoded = decodeJson(ConfigPush, message.payload);
        if (!decoded.ok) {
          this.logger.warn({ reason: decoded.reason }, "ignored malformed config push");
          return;
        }
        if (this.currentVersion === null || decoded.value.version > this.currentVersion) void this.refresh();
      },
    );
    const poll = this.options.pollIntervalMs ?? 30_000;
    this.pollTimer = setInterval(() => void this.refresh(), poll).unref();
    void this.refresh();
  }

  /** Resolves once the first load has succeeded. */
  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Re-reads every type; concurrent calls coalesce into one more read after the current one. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = this.load().finally(() => {
      this.refreshing = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.refreshing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.retryTimer);
    await this.push?.close();
    await this.client?.close();
  }

  private async load(): Promise<void> {
    if (this.closed || !this.client) return;
    const client = this.client;
    try {
      const timeoutMs = this.firstContact.timeout();
      const ask = (request: Parameters<typeof client.request>[0]) => client.request(request, { timeoutMs });
      const fetched = await fetchConfigTypes(ask, this.options.workspace ?? "default", this.options.types);
      this.firstContact.answered();
      // A change landed between the per-type reads: keep this copy (every type is at least this version) and read again.
      if (!fetched.consistent) this.again = true;
      this.succeeded();
      const { version } = fetched;
      if (this.currentVersion !== null && version < this.currentVersion) return;
      this.snapshot = fetched.snapshot;
      this.parsedCache = new Map();
      const changed = version !== this.currentVersion;
      this.currentVersion = version;
      for (const resolve of this.readyWaiters.splice(0)) resolve();
      if (changed) {
        this.logger.info({ version, types: this.options.types }, "config loaded");
        for (const listener of this.listeners) {
          try {
            listener(this.snapshot, version);
          } catch (err) {
            this.logger.error({ err }, "config listener failed");
          }
        }
      }
    } catch (err) {
      this.failed(err instanceof Error ? err.message : String(err));
    }
  }

  private succeeded(): void {
    this.backoff.reset();
    const ended = this.streak.succeeded();
    if (ended) this.logger.info({ failures: ended.failures, since: ended.since.toISOString() }, "config reload works again");
  }

  /**
   * Logs one warning when a streak starts and one error when it makes the service unready; retries with
   * backoff. Until config has answered once, the service is starting with (or before) it, as on every
   * `npm run up` or rollout: an info line first, and one warning if it still has not answered when a
   * streak would make a running service unready. Readiness says "config not loaded yet" meanwhile.
   */
  private failed(reason: string): void {
    const level = this.streak.failed(reason);
    const fields = { reason, failures: this.streak.failures, since: this.streak.startedAt!.toISOString() };
    if (!this.firstContact.reached) {
      if (level === "warn") this.logger.info(fields, "waiting for the config service to answer");
      else if (level === "error") this.logger.warn(fields, "the config service has not answered yet; retrying");
      else this.logger.debug(fields, "config service still not answering");
    } else if (level === "error") this.logger.error(fields, "config reloads keep failing; /readyz reports not ready until one succeeds");
    else if (level === "warn") this.logger.warn(fields, "config reload failed; retrying");
    else this.logger.debug(fields, "config reload failed again");
    if (!this.closed) {
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => void this.refresh(), this.backoff.next()).unref();
    }
  }
}
