import closeWithGrace from "close-with-grace";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { z } from "zod";
import { BrokerDrops, PulsarClient, authTokenOf, serve, type ServeOptions, type Subscription, type Transport } from "@toolmesh/pulsar";
import { TopicLayout } from "@toolmesh/schema";
import { ConfigView } from "./config-view.js";
import type { BaseEnv } from "./env.js";
import { type ReadinessCheck, createHttpServer } from "./http.js";
import { createLogger } from "./logger.js";
import { ServiceMetrics } from "./metrics.js";
import { pulsarSettings } from "./pulsar-settings.js";
import type { Tracing } from "./tracing.js";
import { windDownBeforeShutdownTimeout } from "./wind-down.js";

export interface RuntimeOptions {
  /** Service id: log name, metrics label, and the start of its subscription names. */
  name: string;
  env: BaseEnv;
  logger?: Logger;
  /** Replaces the broker connection (the unit tier passes a MemoryTransport); the environment's otherwise. */
  transport?: Transport;
  /** The longest a route of this service waits before answering (see createHttpServer). */
  longestCallMs?: number;
  /** This process's OpenTelemetry SDK when tracing is on: flushed and stopped at the end of stop(). */
  tracing?: Tracing;
}

type ShutdownHook = () => void | Promise<void>;

/**
 * What every service runs on: a logger, a Pulsar client, an HTTP server with health/readiness/metrics,
 * metered request serving, and a graceful stop (stop taking work, finish what is in hand, close).
 */
export class ServiceRuntime {
  readonly name: string;
  readonly env: BaseEnv;
  readonly logger: Logger;
  readonly pulsar: PulsarClient;
  /** This system's topics, from TOOLMESH_TENANT and MCP_TOOL_TOPIC: pass it to whatever names a topic. */
  readonly topics: TopicLayout;
  readonly metrics: ServiceMetrics;
  readonly http: FastifyInstance;
  /** Counts what the broker dropped on this service's subscriptions (see BrokerDrops). */
  readonly brokerDrops: BrokerDrops;
  private readonly readiness = new Map<string, ReadinessCheck>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly shutdownHooks: ShutdownHook[] = [];
  private stopping: Promise<void> | undefined;
  private readonly stopBegun = new AbortController();
  private readonly windDown: AbortSignal;
  private readonly tracing: Tracing | undefined;

  constructor(options: RuntimeOptions) {
    this.name = options.name;
    this.tracing = options.tracing;
    this.env = options.env;
    this.logger = options.logger ?? createLogger(options.name, options.env.LOG_LEVEL);
    this.topics = new TopicLayout({ tenant: options.env.TOOLMESH_TENANT, mcpTool: options.env.MCP_TOOL_TOPIC });
    const settings = pulsarSettings(options.env, this.logger);
    this.pulsar = new PulsarClient({
      ...settings,
      logger: this.logger.child({ component: "pulsar" }),
      ...(options.transport ? { transport: options.transport } : {}),
      brokerMaxMessageSize: options.env.PULSAR_MAX_MESSAGE_SIZE,
      serviceCheckAfterMs: options.env.REQUEST_SERVICE_CHECK_MS,
      webSocketMaxFrameSize: options.env.PULSAR_WS_MAX_FRAME_SIZE,
    });
    this.metrics = new ServiceMetrics(options.name);
    this.brokerDrops = new BrokerDrops({
      webServiceUrl: settings.webServiceUrl ?? "http://127.0.0.1:8080",
      subscriptions: () => this.pulsar.subscriptionNames,
      onDropped: (topic, subscription, count) => this.metrics.brokerDropped(topic, subscription, count),
      logger: this.logger.child({ component: "broker-drops" }),
      intervalMs: options.env.BROKER_DROPS_POLL_MS,
      authToken: authTokenOf(settings),
      tls: settings.tls,
    });
    // The broker's own counters exist only on a broker: none behind an injected (in-memory) transport.
    if (!options.transport) this.brokerDrops.start();
    this.windDown = windDownBeforeShutdownTimeout(this.stopBegun.signal, options.env.SHUTDOWN_TIMEOUT_MS);
    this.readiness.set("accepting", () => this.stopping === undefined);
    this.readiness.set("broker", () => this.pulsar.connected);
    this.http = createHttpServer({
      logger: this.logger,
      metrics: this.metrics,
      readiness: this.readiness,
      ...(options.longestCallMs !== undefined ? { longestCallMs: options.longestCallMs } : {}),
    });
  }

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.readiness.set(name, check);
  }

  /**
   * A ConfigView of `types` (of workspace `default`, or the one given) with this service's settings (env),
   * reported on /readyz as `config` (`config:<workspace>` for another workspace). The caller starts it, and
   * closes it on shutdown where its order among the hooks matters.
   */
  configView(types: string[], workspace?: string): ConfigView {
    const view = new ConfigView(this.pulsar, this.logger.child({ component: "config", ...(workspace ? { workspace } : {}) }), {
      types,
      topics: this.topics,
      ...(workspace ? { workspace } : {}),
      subscriber: workspace ? `${this.name}-${workspace.replace(/[^A-Za-z0-9-]/g, "")}` : this.name,
      requestTimeoutMs: this.env.CONFIG_REQUEST_TIMEOUT_MS,
      unreadyAfterFailures: this.env.CONFIG_UNREADY_AFTER_FAILURES,
    });
    this.addReadinessCheck(workspace ? `config:${workspace}` : "config", () => view.readiness());
    return view;
  }

  /**
   * Aborted a little before SHUTDOWN_TIMEOUT_MS runs out, counted from when stop() begins (see
   * windDownBeforeShutdownTimeout): work that may outlast the timeout (an agent run waiting on a slow LLM,
   * an MCP tools/call) then ends with an answer that says so ("cut short, ask again") while there is time
   * to send it, instead of being cut off with none.
   */
  get windDownSignal(): AbortSignal {
    return this.windDown;
  }

  /** Runs on stop, after request subscriptions have finished their work, newest first. */
  onShutdown(hook: ShutdownHook): void {
    this.shutdownHooks.push(hook);
  }

  /** `serve()` from @toolmesh/pulsar with metrics and REQUEST_BACKLOG, and closed first on shutdown. */
  async serve<S extends z.ZodType, R>(
    options: Omit<ServeOptions<S, R>, "onStarted" | "onFinished" | "onSkipped" | "windDown"> & {
      /**
       * Requests still in hand at windDownSignal are answered `unavailable` ("cut short ...; retry") by
       * default; `null` leaves it to a handler that winds down by itself (the agent records its runs first).
       */
      windDown?: AbortSignal | null;
    },
  ): Promise<Subscription> {
    const topic = options.requestTopic;
    const { windDown = this.windDown, ...rest } = options;
    const subscription = await serve(this.pulsar, {
      maxBacklog: this.env.REQUEST_BACKLOG,
      ...rest,
      ...(windDown ? { windDown } : {}),
      onStarted: () => this.metrics.started(topic),
      onFinished: (outcome, durationMs) => this.metrics.finished(topic, outcome, durationMs),
      onSkipped: (reason) => this.metrics.skipped(topic, reason),
    });
    this.metrics.watchBacklog(topic, () => subscription.backlog);
    // Counting the broker's drops starts at the first poll that sees the subscription: make that now.
    void this.brokerDrops.poll();
    this.subscriptions.add(subscription);
    this.logger.info({ topic, subscription: options.subscription }, "serving requests");
    return subscription;
  }

  /** Starts the HTTP server; returns its address (port 0 picks a free one). */
  async listen(): Promise<string> {
    const address = await this.http.listen({ host: this.env.HTTP_HOST, port: this.env.HTTP_PORT });
    this.logger.info({ address }, `${this.name} listening`);
    return address;
  }

  /** SIGTERM/SIGINT (and a crash) run stop(); a second signal, or the timeout, exits at once. */
  installSignalHandlers(): void {
    closeWithGrace({ delay: this.env.SHUTDOWN_TIMEOUT_MS, logger: this.logger }, async ({ signal, err }) => {
      if (err) this.logger.error({ err }, "fatal error; shutting down");
      else this.logger.info({ signal }, "shutting down");
      await this.stop();
    });
  }

  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.stopBegun.abort();
    this.brokerDrops.stop();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    for (const hook of [...this.shutdownHooks].reverse()) {
      try {
        await hook();
      } catch (err) {
        this.logger.error({ err }, "shutdown hook failed");
      }
    }
    await this.pulsar.close();
    await this.http.close();
    await this.tracing?.shutdown().catch((err: unknown) => this.logger.warn({ err }, "could not export the last spans"));
    this.logger.info("stopped");
  }
}
