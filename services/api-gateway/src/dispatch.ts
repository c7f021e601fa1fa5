import type { Logger } from "pino";
import {
  ClientPool,
  type ClientLease,
  type ServiceMetrics,
  SpanKind,
  TraceAttr,
  type TraceContext,
  extractTraceContext,
  traced,
} from "@toolmesh/base";
import { ClosedError, NotRunningError, type PulsarClient, RequestClient, RequestTimeoutError, unlessAborted } from "@toolmesh/pulsar";
import { describeIssues, ServiceError, ErrorType } from "@toolmesh/schema";
import type { ServiceRoute } from "./services.js";

type RouteClient = RequestClient<ServiceRoute["responseSchema"]>;

export interface DispatcherOptions {
  pulsar: PulsarClient;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Start of each response subscription's name. */
  subscriber: string;
  /** Tool-service clients (one producer + one subscription each): released after idling, and bounded. */
  toolClients: { idleMs: number; maxClients: number };
}

export interface DispatchHooks {
  /** Every reply, `last` set on the final one. */
  onReply: (reply: unknown, last: boolean) => void;
  /** The call has a client and goes on the wire: from here the reply timeout runs. */
  onSent?: () => void;
  /** The front door it came through, and its HTTP headers (a caller's `traceparent` continues its trace). */
  via?: { door: "rest" | "socket"; headers: Record<string, string | string[] | undefined> };
}

/** The topic pair a tool-service client serves; descriptors that share it share the client. */
export const toolClientKey = (route: Pick<ServiceRoute, "requestTopic" | "responseTopic">) =>
  `${route.requestTopic} ${route.responseTopic}`;

/**
 * Forwards requests to services over Pulsar: validates the body against the service's request schema,
 * sends its encoded wire form, and hands each reply to the caller in order. One RequestClient per topic
 * pair, shared by every call: the fixed services' for the gateway's lifetime, tool services' from a pool
 * that closes them when their descriptor goes, when idle, and beyond its bound.
 */
export class Dispatcher {
  private readonly fixed = new Map<string, Promise<RouteClient>>();
  private readonly open = new Set<RouteClient>();
  private readonly tools: ClientPool<RouteClient>;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: DispatcherOptions) {
    this.tools = new ClientPool({ ...options.toolClients, logger: options.logger.child({ component: "tool-clients" }) });
  }

  /** Tool-service clients open or opening. */
  get toolClientCount(): number {
    return this.tools.size;
  }

  /**
   * Sends `body` to the route's service and hands every reply to `hooks.onReply`. Resolves after the last
   * reply; rejects with a ServiceError (bad body, no subscription, timeout naming the service and topics)
   * or a Pulsar error.
   */
  dispatch(route: ServiceRoute, body: unknown, hooks: DispatchHooks): Promise<void> {
    const attributes = {
      [TraceAttr.topic]: route.requestTopic,
      "toolmesh.gateway.door": hooks.via?.door ?? "internal",
      ...(route.pooled ? { [TraceAttr.tool]: route.name } : {}),
    };
    const parent = hooks.via ? extractTraceContext(hooks.via.headers) : undefined;
    return traced(`gateway ${route.kind}`, { kind: SpanKind.SERVER, attributes, parent }, (scope) =>
      this.forward(route, body, hooks, scope.context),
    );
  }

  private async forward(route: ServiceRoute, body: unknown, hooks: DispatchHooks, trace: TraceContext): Promise<void> {
    if (this.closed) throw new ClosedError("the gateway is shutting down");
    const parsed = route.requestSchema.safeParse(body);
    if (!parsed.success) {
      throw new ServiceError(ErrorType.badRequest, `invalid ${route.kind} request: ${describeIssues(parsed.error)}`);
    }
    // Encoding the parsed value turns decoded fields (JSON-encoded strings) back into their wire form.
    const wire = route.requestSchema.encode(parsed.data);
    const topic = route.requestTopic;
    const started = performance.now();
    this.options.metrics.started(topic);
    const call = this.call(route, wire, hooks, trace);
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

  /** Closes the tool-service clients whose topic pair no descriptor names any more (after a config change). */
  retainToolServices(live: ReadonlyArray<Pick<ServiceRoute, "requestTopic" | "responseTopic">>): void {
    const keys = new Set(live.map(toolClientKey));
    this.tools.retain((key) => keys.has(key));
  }

  /**
   * Takes no new calls, lets the ones in flight finish (until `windDown`, a little before the shutdown
   * timeout), then closes every client: a call still waiting is then answered `unavailable`, retry.
   */
  async close(windDown: AbortSignal): Promise<void> {
    this.closed = true;
    await unlessAborted(Promise.allSettled(this.inFlight), windDown);
    // Subscriptions still connecting are not awaited (the broker may be away); closing the Pulsar client
    // ends them, and one that connects after this closes itself.
    await Promise.all([...this.open].map((client) => client.close()));
    this.open.clear();
    this.fixed.clear();
    await this.tools.close();
  }

  private async call(route: ServiceRoute, wire: unknown, hooks: DispatchHooks, trace: TraceContext): Promise<void> {
    const lease = this.lease(route);
    let replies = 0;
    try {
      const client = await this.ready(route, lease.client);
      hooks.onSent?.();
      await client.request(wire, {
        timeoutMs: route.timeoutMs,
        trace,
        isLast: (reply) => route.isLast(reply as never),
        onReply: (reply) => {
          replies += 1;
          hooks.onReply(reply, route.isLast(reply as never));
        },
      });
    } catch (err) {
      if (err instanceof RequestTimeoutError) throw timeoutError(route, err, replies);
      if (err instanceof NotRunningError)
        throw new ServiceError(ErrorType.unavailable, `${describeService(route)} is not running: ${err.message}`);
      throw err;
    } finally {
      lease.release();
    }
  }

  /** The client, waiting no longer than the route's timeout while the broker is away. */
  private async ready(route: ServiceRoute, client: Promise<RouteClient>): Promise<RouteClient> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const message =
          `${describeService(route)}: could not subscribe to ${route.responseTopic} within ${route.timeoutMs} ms ` +
          "(is the broker reachable, and does the topic's namespace exist?)";
        reject(new ServiceError(ErrorType.unavailable, message));
      }, route.timeoutMs);
    });
    try {
      return await Promise.race([client, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private lease(route: ServiceRoute): ClientLease<RouteClient> {
    if (route.pooled) return this.tools.lease(toolClientKey(route), () => this.create(route));
    const key = `${route.kind} ${toolClientKey(route)}`;
    let client = this.fixed.get(key);
    if (!client) {
      client = this.create(route);
      client.then(
        (created) => (this.closed ? void created.close() : this.open.add(created)),
        // A failed subscribe is not cached: the next call tries again.
        () => this.fixed.delete(key),
      );
      this.fixed.set(key, client);
    }
    return { client, release: () => undefined };
  }

  private create(route: ServiceRoute): Promise<RouteClient> {
    const created = RequestClient.create(this.options.pulsar, {
      requestTopic: route.requestTopic,
      responseTopic: route.responseTopic,
      responseSchema: route.responseSchema,
      subscriptionPrefix: this.options.subscriber,
      timeoutMs: route.timeoutMs,
    });
    created.catch((err: unknown) =>
      this.options.logger.warn({ err, topic: route.responseTopic }, "could not subscribe to a response topic"),
    );
    return created;
  }
}

const describeService = (route: ServiceRoute) => (route.pooled ? `tool service '${route.name}'` : `service '${route.name}'`);

/** What timed out, in the service's terms: who was silent, for how long, which knob says so, and where. */
function timeoutError(route: ServiceRoute, err: RequestTimeoutError, replies: number): ServiceError {
  const silence =
    replies === 0
      ? `sent no reply within ${err.timeoutMs} ms`
      : `sent ${replies} ${replies === 1 ? "reply" : "replies"}, then nothing more for ${err.timeoutMs} ms`;
  return new ServiceError(
    ErrorType.timeout,
    `${describeService(route)} ${silence} (${route.timeoutSetting}): request ${err.requestId} went to ${err.requestTopic}, ` +
      `replies are read on ${err.responseTopic}; is a service consuming ${err.requestTopic}?`,
  );
}
