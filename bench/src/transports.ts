import pino, { type Logger } from "pino";
import * as pulsarModule from "@toolmesh/pulsar";
import { PulsarClient, type Transport, WebSocketTransport } from "@toolmesh/pulsar";
import type { BenchContext } from "./scenarios/types.js";

/** Which Pulsar transport a scenario's toolmesh code runs on. */
export type TransportKind = "websocket" | "binary";

/** The agreed options of @toolmesh/pulsar's binary-protocol transport (issue 13). */
export interface BinaryTransportOptions {
  serviceUrl: string;
  logger?: Logger;
  authToken?: string | (() => string | Promise<string>);
  receiverQueueSize?: number;
  sendTimeoutMs?: number;
  operationTimeoutMs?: number;
}
export type BinaryTransportClass = new (options: BinaryTransportOptions) => Transport;

/**
 * BinaryTransport when @toolmesh/pulsar exports it, else undefined: the binary scenarios run only once it
 * exists. Looked up at run time so the bench builds before it does (then it can become a plain import).
 */
export function binaryTransportClass(): BinaryTransportClass | undefined {
  const exported = (pulsarModule as unknown as Record<string, unknown>).BinaryTransport;
  return typeof exported === "function" ? (exported as BinaryTransportClass) : undefined;
}

export function createTransport(ctx: BenchContext, kind: TransportKind): Transport {
  const logger = pino({ level: "warn" }, pino.destination(2));
  if (kind === "websocket") return new WebSocketTransport({ webServiceUrl: ctx.webServiceUrl, logger });
  const Binary = binaryTransportClass();
  if (!Binary) throw new Error("@toolmesh/pulsar has no BinaryTransport");
  return new Binary({ serviceUrl: ctx.serviceUrl, logger });
}

/** A client on the given transport (each call: its own connection, as a separate process would have). */
export function pulsarClient(ctx: BenchContext, kind: TransportKind): PulsarClient {
  return new PulsarClient({ webServiceUrl: ctx.webServiceUrl, transport: createTransport(ctx, kind) });
}

/**
 * The environment that selects a transport in a service (issue 13: PULSAR_SERVICE_URL selects the binary
 * transport; PULSAR_TRANSPORT=websocket, or no service URL, the WebSocket one). Empty = unset, so a
 * PULSAR_SERVICE_URL the bench itself was started with never leaks into a WebSocket scenario.
 */
export function transportEnv(ctx: BenchContext, kind: TransportKind): Record<string, string> {
  return kind === "binary"
    ? { PULSAR_WEB_URL: ctx.webServiceUrl, PULSAR_SERVICE_URL: ctx.serviceUrl, PULSAR_TRANSPORT: "" }
    : { PULSAR_WEB_URL: ctx.webServiceUrl, PULSAR_SERVICE_URL: "", PULSAR_TRANSPORT: "websocket" };
}

interface TopicStats {
  publishers?: Array<{ clientVersion?: string }>;
  subscriptions?: Record<string, { consumers?: Array<{ clientVersion?: string }> }>;
}

/** The broker's WebSocket service reaches topics with its own Java client; binary clients show their own. */
const WEBSOCKET_CLIENT = /^Pulsar-Java-v/;

/**
 * Checks, in the broker's topic stats, that every producer and consumer on `topic` came through `kind`,
 * so a row never measures another transport than its name says (e.g. a service that ignored the env).
 */
export async function assertTransport(ctx: BenchContext, topic: string, kind: TransportKind, what: string): Promise<void> {
  const path = topic.replace("://", "/");
  const response = await fetch(`${ctx.webServiceUrl}/admin/v2/${path}/stats`);
  if (!response.ok) throw new Error(`${what}: stats of ${topic}: HTTP ${response.status}`);
  const stats = (await response.json()) as TopicStats;
  const versions = [
    ...(stats.publishers ?? []).map((p) => p.clientVersion ?? ""),
    ...Object.values(stats.subscriptions ?? {}).flatMap((s) => (s.consumers ?? []).map((c) => c.clientVersion ?? "")),
  ];
  const wrong = versions.filter((v) => WEBSOCKET_CLIENT.test(v) !== (kind === "websocket"));
  if (versions.length === 0 || wrong.length > 0) {
    throw new Error(`${what}: expected only ${kind} clients on ${topic}, found ${JSON.stringify(versions)}`);
  }
}
