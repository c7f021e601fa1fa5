import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, LogController } from "fastify";
import type { Logger } from "pino";
import { ErrorType, ServiceError } from "@toolmesh/schema";
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
  /**
   * The longest a route may work on a request before its answer starts (a gateway waiting on a service).
   * The connection's idle timeout is derived from it, so the socket never dies under a call still waiting:
   * the route's own timeout answers first, with its cause.
   */
  longestCallMs?: number;
}

/** Idle connection timeout when no route waits long; a route's own timeouts always fit inside it. */
const DEFAULT_IDLE_MS = 30_000;
/** Time a route's timeout answer needs to reach the socket before the socket's own timeout. */
const IDLE_MARGIN_MS = 5_000;

/** The socket idle timeout for routes that wait up to `longestCallMs` (see HttpServerOptions). */
export function connectionTimeoutFor(longestCallMs = 0): number {
  return Math.max(DEFAULT_IDLE_MS, longestCallMs + IDLE_MARGIN_MS);
}

const errorBody = (type: string, message: string) => JSON.stringify({ error: { type, message } });

/** Fastify's own routing errors, in the project's error shape; the path is not echoed back. */
function frameworkError(error: Error & { code?: string }, _request: unknown, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return reply.status(414).header("content-type", "application/json").send(errorBody(ErrorType.badRequest, "a path segment is too long"));
  }
  if (error.code === "FST_ERR_BAD_URL") {
    return reply
      .status(400)
      .header("content-type", "application/json")
      .send(errorBody(ErrorType.badRequest, "the request path is not a valid URL (bad percent-encoding)"));
  }
  return reply
    .status(500)
    .header("content-type", "application/json")
    .send(errorBody(ErrorType.internal, "internal error; see the service log"));
}

/** Requests Node's HTTP parser refuses before fastify sees them (headers too large, timeouts, garbage). */
function clientError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, message] =
    err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "the request did not arrive in time"]
      : err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "the request headers are too large"]
        : [400, "the request is not valid HTTP"];
  const body = errorBody(status === 408 ? ErrorType.timeout : ErrorType.badRequest, message);
  this.log.debug({ code: err.code }, "client error");
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
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
    // Idle socket: longer than any route waits (and routes that stream replies re-arm it as they come).
    connectionTimeout: connectionTimeoutFor(options.longestCallMs),
    keepAliveTimeout: 5_000,
    // Node's requestTimeout covers receiving the request only (slow clients), not the route's work.
    requestTimeout: 120_000,
    return503OnClosing: true,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });

  app.setNotFoundHandler(async (_request, reply) => reply.status(404).send(new ServiceError(ErrorType.notFound, "no such route").body));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // A route's own refusal (not found, bad request, unauthorized), or a retry-later (`unavailable`,
    // `overloaded`: e.g. its database cannot be reached): its type, message and status as thrown. Those
    // messages are written for the caller; any other 5xx's may carry internals, so it is only logged.
    if (error instanceof ServiceError && (error.status < 500 || error.status === 503)) {
      if (error.status === 503) request.log.warn({ err: error, url: request.url }, "request answered unavailable");
      return reply.status(error.status).send(error.body);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error, url: request.url }, "request failed");
      return reply.status(status).send(new ServiceError(ErrorType.internal, "internal error; see the service log").body);
    }
    if (status === 413) {
      const limit = options.bodyLimitBytes ?? 5 * 1024 * 1024;
      return reply
        .status(413)
        .send(new ServiceError(ErrorType.tooLarge, `the request body is over this service's limit of ${limit} bytes`).body);
    }
    return reply.status(status).send(new ServiceError(ErrorType.badRequest, error.message).body);
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
