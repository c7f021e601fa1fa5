import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { Logger } from "pino";
import type { ServiceMetrics } from "./metrics.js";

/** A check that can say why it fails; /readyz lists the reasons of failing checks. */
export interface ReadinessResult {
  ready: boolean;
  reason?: string;
}
export type ReadinessCheck = () => boolean | ReadinessResult | Promise<boolean | ReadinessResult>;

export interface HttpServerOptions {
  logger: Logger;
  metrics: ServiceMetrics;
  /** Named checks; /readyz is 200 only when all pass, and lists each. */
  readiness: Map<string, ReadinessCheck>;
  bodyLimitBytes?: number;
}

/**
 * The service's HTTP server with /healthz (the process is alive), /readyz (it can do its job) and
 * /metrics (Prometheus). Services add their own routes before listening. 5xx details stay in the log.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger.child({ component: "http" }) as FastifyBaseLogger,
    // Per-request log lines would drown the service's own; metrics count requests instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes ?? 5 * 1024 * 1024,
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 120_000,
    return503OnClosing: true,
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error, url: request.url }, "request failed");
      return reply.status(status).send({ error: { type: "internal-error", message: "internal error; see the service log" } });
    }
    return reply.status(status).send({ error: { type: "bad-request", message: error.message } });
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    const checks: Record<string, boolean> = {};
    const reasons: Record<string, string> = {};
    for (const [name, check] of options.readiness) {
      try {
        const result = await check();
        checks[name] = typeof result === "boolean" ? result : result.ready;
        if (typeof result !== "boolean" && !result.ready && result.reason) reasons[name] = result.reason;
      } catch (err) {
        checks[name] = false;
        reasons[name] = err instanceof Error ? err.message : String(err);
      }
    }
    const ready = Object.values(checks).every(Boolean);
    const body = { status: ready ? "ready" : "not-ready", checks, ...(Object.keys(reasons).length ? { reasons } : {}) };
    return reply.status(ready ? 200 : 503).send(body);
  });

  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", options.metrics.registry.contentType);
    return options.metrics.registry.metrics();
  });

  return app;
}
