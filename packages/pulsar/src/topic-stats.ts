import { Agent, request } from "undici";
import { z } from "zod";
import { parseTopic } from "@toolmesh/schema";
import type { AuthToken, TlsSettings } from "./transport.js";

/** The parts of the broker's topic stats (`GET /admin/v2/{persistence}/{tenant}/{ns}/{topic}/stats`) toolmesh reads. */
export const TopicStats = z.object({
  msgInCounter: z.number(),
  publishers: z.array(z.object({ producerName: z.string().optional() })).default([]),
  subscriptions: z.record(
    z.string(),
    z.object({
      msgOutCounter: z.number(),
      consumers: z.array(z.object({ consumerName: z.string().optional(), connectedSince: z.string().optional() })).default([]),
    }),
  ),
});
export type TopicStats = z.output<typeof TopicStats>;

/** The broker's `reason` when it has not loaded a topic: `Topic non-persistent://t/ns/x not found`. */
const TOPIC_NOT_FOUND = /^Topic \S+ not found$/;

function reasonOf(body: string): string | undefined {
  try {
    const parsed = z.object({ reason: z.string() }).safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.reason : undefined;
  } catch {
    return undefined;
  }
}

/** What one read of a topic's stats gave. */
export type StatsRead =
  | { kind: "stats"; stats: TopicStats }
  /** 404 "Topic … not found": the broker has not loaded the topic (nothing published or subscribed since it started). */
  | { kind: "absent" }
  /** 401/403: the admin API refused the client's credentials. */
  | { kind: "refused"; status: number }
  | { kind: "failed"; reason: string };

export interface TopicStatsOptions {
  /** The broker's web service (admin REST API), e.g. `http://127.0.0.1:8080`. */
  webServiceUrl: string;
  /** The client's token, sent as `Authorization: Bearer` (a broker with token authentication refuses stats without one). */
  authToken?: AuthToken | undefined;
  /** For a web service on TLS (https://): the client's CA and certificate, as its transport uses them. */
  tls?: TlsSettings | undefined;
  /** How long one read may take (default 5 s). */
  timeoutMs?: number;
}

/** Reads topic stats from the broker's admin API, with the client's own credentials. */
export class TopicStatsReader {
  /** Connections made with the TLS settings; undici's shared agent when there are none. */
  private readonly dispatcher: Agent | undefined;

  constructor(private readonly options: TopicStatsOptions) {
    this.dispatcher = options.tls ? new Agent({ connect: options.tls }) : undefined;
  }

  async read(topic: string): Promise<StatsRead> {
    const t = parseTopic(topic);
    const path = [t.persistence, t.tenant, t.namespace, t.topic].map(encodeURIComponent).join("/");
    const url = `${this.options.webServiceUrl.replace(/\/+$/, "")}/admin/v2/${path}/stats`;
    try {
      const token = await this.options.authToken?.();
      const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
      const signal = AbortSignal.timeout(this.options.timeoutMs ?? 5_000);
      const response = await request(url, { headers, signal, dispatcher: this.dispatcher });
      if (response.statusCode === 401 || response.statusCode === 403) {
        await response.body.dump();
        return { kind: "refused", status: response.statusCode };
      }
      if (response.statusCode === 404) {
        // Only the broker's own answer (JSON `reason`) means the topic: a proxy or a wrong URL answers 404 too.
        const body = await response.body.text();
        if (TOPIC_NOT_FOUND.test(reasonOf(body) ?? "")) return { kind: "absent" };
        return { kind: "failed", reason: `HTTP 404 ${body.slice(0, 200)}`.trim() };
      }
      if (response.statusCode !== 200) {
        const body = (await response.body.text()).slice(0, 200);
        return { kind: "failed", reason: `HTTP ${response.statusCode} ${body}`.trim() };
      }
      const parsed = TopicStats.safeParse(await response.body.json());
      if (!parsed.success) return { kind: "failed", reason: `unexpected stats: ${parsed.error.issues[0]?.message ?? "?"}` };
      return { kind: "stats", stats: parsed.data };
    } catch (err) {
      return { kind: "failed", reason: (err as Error).message };
    }
  }

  close(): void {
    void this.dispatcher?.close().catch(() => {});
  }
}
