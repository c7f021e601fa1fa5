import type { Logger } from "pino";
import type { ServiceMetrics } from "@toolmesh/base";
import { ClosedError, type PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { describeIssues } from "@toolmesh/schema";
import { GatewayError, GatewayErrorType } from "./errors.js";
import type { ServiceRoute } from "./services.js";

export interface DispatcherOptions {
  pulsar: PulsarClient;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Start of each response subscription's name. */
  subscriber: string;
}

/**
 * Forwards requests to services over Pulsar: validates the body against the service's request schema,
 * sends its encoded wire form, and hands each reply to the caller in order. One RequestClient per
 * service kind and topic pair, created on first use and reused; many calls share it.
 */
export class Dispatcher {
  private readonly clients = new Map<string, Promise<RequestClient<ServiceRoute["responseSchema"]>>>();
  private readonly open = new Set<RequestClient<ServiceRoute["responseSchema"]>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: DispatcherOptions) {}

  /**
   * Sends `body` to the route's service; `onReply` gets every reply with `last` set on the final one.
   * Resolves after the last reply; rejects with GatewayError (bad body), RequestTimeoutError, or others.
   */
  async dispatch(route: ServiceRoute, body: unknown, onReply: (reply: unknown, last: boolean) => void): Promise<void> {
    if (this.closed) throw new ClosedError("the gateway is shutting down");
    const parsed = route.requestSchema.safeParse(body);
    if (!parsed.success) {
      throw new GatewayError(400, GatewayErrorType.badRequest, `invalid ${route.kind} request: ${describeIssues(parsed.error)}`);
    }
    // Encoding the parsed value turns decoded fields (JSON-encoded strings) back into their wire form.
    const wire = route.requestSchema.encode(parsed.data);
    const topic = route.requestTopic;
    const started = performance.now();
    this.options.metrics.started(topic);
    const call = this.ready(route).then((client) =>
      client.request(wire, {
        timeoutMs: route.timeoutMs,
        isLast: (reply) => route.isLast(reply as never),
        onReply: (reply) => onReply(reply, route.isLast(reply as never)),
      }),
    );
    this.inFlight.add(call);
    try {
      await call;
      this.options.metrics.finished(topic, "ok", performance.now() - started);
    } catch (err) {
      this.options.metrics.finished(topic, "error", performance.now() - started);
      throw err;
    } finally {
      this.inFlight.delete(call);
    }
  }

  /** Takes no new calls, lets the ones in flight finish (up to `graceMs`), then closes every client. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled(this.inFlight), grace]);
    clearTimeout(timer);
    // Subscriptions still connecting are not awaited (the broker may be away); closing the Pulsar client
    // ends them, and one that connects after this closes itself.
    await Promise.all([...this.open].map((client) => client.close()));
    this.open.clear();
    this.clients.clear();
  }

  /** The route's client, waiting no longer than the route's timeout while the broker is away. */
  private async ready(route: ServiceRoute): Promise<RequestClient<ServiceRoute["responseSchema"]>> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const message = `could not subscribe to ${route.responseTopic} within ${route.timeoutMs} ms ` +
          "(is the broker reachable, and does the topic's namespace exist?)";
        reject(new GatewayError(503, GatewayErrorType.unavailable, message));
      }, route.timeoutMs);
    });
    try {
      return await Promise.race([this.client(route), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private client(route: ServiceRoute): Promise<RequestClient<ServiceRoute["responseSchema"]>> {
    const key = `${route.kind} ${route.requestTopic} ${route.responseTopic}`;
    let client = this.clients.get(key);
    if (!client) {
      client = RequestClient.create(this.options.pulsar, {
        requestTopic: route.requestTopic,
        responseTopic: route.responseTopic,
        responseSchema: route.responseSchema,
        subscriptionPrefix: this.options.subscriber,
        timeoutMs: route.timeoutMs,
      });
      client.then(
        (created) => (this.closed ? void created.close() : this.open.add(created)),
        // A failed subscribe is not cached: the next call tries again.
        (err: unknown) => {
          this.clients.delete(key);
          this.options.logger.warn({ err, topic: route.responseTopic }, "could not subscribe to a response topic");
        },
      );
      this.clients.set(key, client);
    }
    return client;
  }
}
