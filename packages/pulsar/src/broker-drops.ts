import type { Logger } from "pino";
import { parseTopic } from "@toolmesh/schema";
import { type TopicStats, TopicStatsReader } from "./topic-stats.js";
import type { AuthToken, TlsSettings } from "./transport.js";

export interface BrokerDropsOptions {
  /** The broker's web service (admin REST API), e.g. `http://127.0.0.1:8080`. */
  webServiceUrl: string;
  /** The subscriptions to watch, asked at every poll (e.g. `() => pulsarClient.subscriptionNames`). */
  subscriptions: () => Array<{ topic: string; subscription: string }>;
  /** Called with each newly counted number of dropped messages (0 when a subscription is first seen). */
  onDropped: (topic: string, subscription: string, count: number) => void;
  logger: Logger;
  /** Time between polls; 0 polls only when asked (`poll()`). */
  intervalMs: number;
  /** The client's token, sent as `Authorization: Bearer` (a broker with token authentication refuses stats without one). */
  authToken?: AuthToken;
  /** For a web service on TLS (https://): the client's CA and certificate, as its transport uses them. */
  tls?: TlsSettings;
  /** After the admin API refuses the stats (401/403), how long until they are asked for again (default 10 polls, at least 5 s). */
  refusalRetryMs?: number;
}

interface Watched {
  baseline: number;
  counted: number;
  msgIn: number;
  msgOut: number;
  consumers: Set<string>;
}

/**
 * Counts the messages the broker dropped on this process's non-persistent subscriptions, from counters
 * the broker keeps. On a non-persistent topic every message published goes to each subscription at once
 * or nowhere (no permits left, no consumer), so `msgInCounter` of the topic minus `msgOutCounter` of the
 * subscription is what that subscription never got. Counting starts at the first poll that sees the
 * subscription; when the counters restart (topic reloaded, subscription made again: none of the consumers
 * seen before is left) counting starts over. It can only miss drops then, never invent them. (The
 * broker's own `msgDropRate` is a rate over its last stats interval, not a count.)
 */
export class BrokerDrops {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Until when a refusal (401/403) keeps the stats from being asked for; 0 when not refused. */
  private refusedUntil = 0;
  /** Whether the last read failed: the first failure of a streak is a warning, the rest debug lines. */
  private failing = false;
  private readonly stats: TopicStatsReader;

  constructor(private readonly options: BrokerDropsOptions) {
    this.stats = new TopicStatsReader(options);
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.options.intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stats.close();
  }

  /** Reads the stats of every watched topic once (a poll already running is joined, not repeated). */
  poll(): Promise<void> {
    this.polling ??= this.readAll().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async readAll(): Promise<void> {
    if (Date.now() < this.refusedUntil) return;
    const byTopic = new Map<string, string[]>();
    for (const { topic, subscription } of this.options.subscriptions()) {
      if (parseTopic(topic).persistence !== "non-persistent") continue;
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), subscription]);
    }
    for (const key of this.watched.keys()) {
      const [topic, subscription] = JSON.parse(key) as [string, string];
      if (!byTopic.get(topic)?.includes(subscription)) this.watched.delete(key);
    }
    for (const [topic, subscriptions] of byTopic) {
      const stats = await this.read(topic);
      if (!stats) continue;
      for (const subscription of subscriptions) this.count(topic, subscription, stats);
    }
  }

  private async read(topic: string): Promise<TopicStats | undefined> {
    const read = await this.stats.read(topic);
    switch (read.kind) {
      case "refused": {
        // Not for ever: a refusal can pass (a broker still starting, a role granted later).
        const retryMs = this.options.refusalRetryMs ?? Math.max(10 * this.options.intervalMs, 5_000);
        if (this.refusedUntil === 0) {
          this.options.logger.warn(
            { status: read.status, retryMs },
            "the broker's admin API refused topic stats; broker-reported drops are not counted until it allows them",
          );
        }
        this.refusedUntil = Date.now() + retryMs;
        return undefined;
      }
      case "absent":
        return undefined; // the topic is not loaded (nothing published or subscribed)
      case "failed":
        return this.failed(topic, read.reason);
      case "stats":
        if (this.refusedUntil !== 0) this.options.logger.info("the broker's admin API allows topic stats again; counting drops");
        this.refusedUntil = 0;
        this.failing = false;
        return read.stats;
    }
  }

  /** A read that failed: the first of a streak is a warning (a busy broker answering 500 included), the rest debug lines. */
  private failed(topic: string, why: string): undefined {
    const level = this.failing ? "debug" : "warn";
    this.failing = true;
    this.options.logger[level]({ topic, err: why }, "could not read topic stats (broker-reported drops); retrying at the next poll");
    return undefined;
  }

  private count(topic: string, subscription: string, stats: TopicStats): void {
    const key = JSON.stringify([topic, subscription]);
    const sub = stats.subscriptions[subscription];
    if (!sub) {
      this.watched.delete(key);
      return;
    }
    const consumers = new Set(sub.consumers.map((c) => `${c.consumerName ?? ""}@${c.connectedSince ?? ""}`));
    const undelivered = stats.msgInCounter - sub.msgOutCounter;
    const seen = this.watched.get(key);
    const restarted =
      !seen || stats.msgInCounter < seen.msgIn || sub.msgOutCounter < seen.msgOut || ![...seen.consumers].some((c) => consumers.has(c));
    if (restarted) {
      this.watched.set(key, { baseline: undelivered, counted: 0, msgIn: stats.msgInCounter, msgOut: sub.msgOutCounter, consumers });
      if (!seen) this.options.onDropped(topic, subscription, 0); // watched from now on: a 0 says so
      return;
    }
    Object.assign(seen, { msgIn: stats.msgInCounter, msgOut: sub.msgOutCounter, consumers });
    const dropped = undelivered - seen.baseline;
    if (dropped > seen.counted) {
      this.options.onDropped(topic, subscription, dropped - seen.counted);
      seen.counted = dropped;
    }
  }
}
