import closeWithGrace from "close-with-grace";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { z } from "zod";
import { PulsarClient, serve, type ServeOptions, type Subscription } from "@toolmesh/pulsar";
import type { BaseEnv } from "./env.js";
import { type ReadinessCheck, createHttpServer } from "./http.js";
import { createLogger } from "./logger.js";
import { ServiceMetrics } from "./metrics.js";
import { pulsarSettings } from "./pulsar-settings.js";

export interface RuntimeOptions {
  /** Service id: log name, metrics label, and the start of its subscription names. */
  name: string;
  env: BaseEnv;
  logger?: Logger;
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
  readonly metrics: ServiceMetrics;
  readonly http: FastifyInstance;
  private readonly readiness = new Map<string, ReadinessCheck>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly shutdownHooks: ShutdownHook[] = [];
  private stopping: Promise<void> | undefined;

  constructor(options: RuntimeOptions) {
    this.name = options.name;
    this.env = options.env;
    this.logger = options.logger ?? createLogger(options.name, options.env.LOG_LEVEL);
    this.pulsar = new PulsarClient({ ...pulsarSettings(options.env), logger: this.logger.child({ component: "pulsar" }) });
    this.metrics = new ServiceMetrics(options.name);
    this.readiness.set("accepting", () => this.stopping === undefined);
    this.readiness.set("broker", () => this.pulsar.connected);
    this.http = createHttpServer({ logger: this.logger, metrics: this.metrics, readiness: this.readiness });
  }

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.readiness.set(name, check);
  }

  /** Runs on stop, after request subscriptions have finished their work, newest first. */
  onShutdown(hook: ShutdownHook): void {
    this.shutdownHooks.push(hook);
  }

  /** `serve()` from @toolmesh/pulsar with metrics, and closed first on shutdown. */
  async serve<S extends z.ZodType, R>(options: Omit<ServeOptions<S, R>, "onStarted" | "onFinished">): Promise<Subscription> {
    const topic = options.requestTopic;
    const subscription = await serve(this.pulsar, {
      ...options,
      onStarted: () => this.metrics.started(topic),
      onFinished: (outcome, durationMs) => this.metrics.finished(topic, outcome, durationMs),
    });
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
    this.logger.info("stopped");
  }
}
