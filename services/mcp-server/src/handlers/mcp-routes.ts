import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { type RevisionCatalog, UnknownRevisionError } from "../catalog.js";
import { BodyTooLarge, jsonBodyReader } from "../json-body.js";
import { checkRpcBody } from "../rpc-check.js";
import { type PinMode, SessionCatalog } from "../session-catalog.js";
import { type SessionFactoryDeps, openSession } from "../session-factory.js";
import type { SessionRegistry } from "../sessions.js";
import type { ToolViews } from "../tool-view.js";
import { ErrorType } from "@toolmesh/schema";

export interface McpRouteDeps extends SessionFactoryDeps {
  catalog: RevisionCatalog;
  views: ToolViews;
  sessions: SessionRegistry;
  logger: Logger;
}

/** JSON-RPC's error shape (what MCP clients read), with toolmesh's `{type}` in `data`; each refusal is logged. */
function rpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  type: string,
  message: string,
  id: unknown = null,
  log: Record<string, unknown> = {},
) {
  reply.log.info({ status, type, ...log, reason: message }, "refused an MCP request");
  return reply.status(status).send({ jsonrpc: "2.0", id, error: { code, message, data: { type } } });
}

/** Bodies up to this many times the limit are read to their end before the refusal, so the client can read it. */
const DRAIN_FACTOR = 4;

const GROUP = /^[A-Za-z0-9_.-]{1,64}$/;

/** `?revision=`: absent = pinned to the current revision, `latest` = follow new revisions, N = pinned to N. */
function parsePin(raw: unknown): { mode: PinMode; number: number | null } | string {
  if (raw === undefined || raw === "") return { mode: "pinned", number: null };
  if (raw === "latest") return { mode: "latest", number: null };
  if (typeof raw === "string" && /^[1-9][0-9]{0,15}$/.test(raw)) return { mode: "pinned", number: Number(raw) };
  return `revision must be 'latest' or a revision number, not '${String(raw)}'`;
}

/**
 * The Streamable HTTP endpoint, at `/mcp` (the whole catalog) and `/mcp/groups/:group` (one tool group):
 * POST carries JSON-RPC, GET opens the server-to-client stream, DELETE ends a session. An initialize
 * without a session id opens one, pinned as `?revision=` says; every other request names its session.
 */
export async function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): Promise<void> {
  // The body is parsed here, not by fastify, so a malformed or oversized one gets a JSON-RPC error.
  const limit = app.initialConfig.bodyLimit ?? 5 * 1024 * 1024;
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", jsonBodyReader(limit, DRAIN_FACTOR * limit));

  const groupOf = (request: FastifyRequest): string | null | undefined => {
    const group = (request.params as { group?: string }).group;
    if (group === undefined) return null;
    return GROUP.test(group) ? group : undefined;
  };

  /** The session a request names, if it exists here and belongs to this URL's group. */
  const existing = (request: FastifyRequest, group: string | null) => {
    const id = request.headers["mcp-session-id"];
    if (typeof id !== "string") return { id: undefined, session: undefined };
    const session = deps.sessions.get(id);
    return { id, session: session && session.catalog.group === group ? session : undefined };
  };

  const post = async (request: FastifyRequest, reply: FastifyReply) => {
    const group = groupOf(request);
    if (group === undefined)
      return rpcError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        "bad-request",
        "group names are 1-64 characters of A-Z, a-z, 0-9, '_', '.' and '-'",
      );
    if (request.body instanceof BodyTooLarge)
      return rpcError(
        reply,
        413,
        ErrorCode.InvalidRequest,
        ErrorType.tooLarge,
        `the request body of ${request.body.bytes} bytes is over this MCP server's limit of ${request.body.limit} bytes`,
      );
    let body: unknown;
    try {
      body = JSON.parse(typeof request.body === "string" ? request.body : "");
    } catch (err) {
      return rpcError(reply, 400, ErrorCode.ParseError, "bad-request", `parse error: the body is not JSON (${(err as Error).message})`);
    }
    const refusal = checkRpcBody(body);
    if (refusal) {
      const { status, code, id: rpcId, message, method } = refusal;
      return rpcError(reply, status, code, "bad-request", message, rpcId, { session: request.headers["mcp-session-id"], method });
    }
    const { id, session } = existing(request, group);
    const rpcId = requestId(body);
    if (id !== undefined) {
      // The spec's answer for a session this instance does not hold: 404, and the client initializes again.
      if (!session)
        return rpcError(
          reply,
          404,
          -32001,
          ErrorType.notFound,
          `session '${id}' not found (closed, expired, or opened at another URL): initialize again`,
          rpcId,
        );
      deps.sessions.track(reply.raw);
      return handOver(session.transport, request, reply, deps.logger, body);
    }
    if (isDiscoverRequest(body)) {
      // MCP 2026-07-28's stateless opening (SEP-2575): its clients (the Go SDK 1.8, ...) fall back to
      // initialize on an error like this one.
      return rpcError(
        reply,
        400,
        ErrorCode.MethodNotFound,
        "bad-request",
        "server/discover is MCP 2026-07-28's; this server speaks MCP 2025-11-25 and older: initialize a session",
        rpcId,
      );
    }
    if (!isInitializeRequest(body)) {
      return rpcError(
        reply,
        400,
        ErrorCode.InvalidRequest,
        "bad-request",
        "no Mcp-Session-Id header: the first request of a session must be initialize",
        rpcId,
      );
    }
    const pin = parsePin((request.query as { revision?: unknown }).revision);
    if (typeof pin === "string") return rpcError(reply, 400, ErrorCode.InvalidParams, "bad-request", pin, rpcId);
    if (deps.sessions.shuttingDown)
      return rpcError(
        reply,
        503,
        ErrorCode.InternalError,
        "unavailable",
        "this instance is shutting down; retry (another instance answers)",
        rpcId,
      );
    if (deps.sessions.full)
      return rpcError(
        reply,
        503,
        ErrorCode.InternalError,
        "unavailable",
        "this instance has no room for another session; retry later",
        rpcId,
      );
    let catalog: SessionCatalog;
    try {
      const revision = pin.number === null ? await deps.catalog.current() : await deps.catalog.revision(pin.number);
      catalog = new SessionCatalog(deps.views, pin.mode, group, revision);
    } catch (err) {
      const reason = (err as Error).message;
      if (err instanceof UnknownRevisionError && pin.number !== null) {
        const newest = deps.catalog.latestNumber;
        const hint = newest > 0 ? ` (the newest is ${newest}; omit ?revision= for it)` : "";
        return rpcError(
          reply,
          404,
          ErrorCode.InvalidParams,
          ErrorType.notFound,
          `unknown catalog revision ${pin.number}: ${reason}${hint}`,
          rpcId,
        );
      }
      deps.logger.warn({ reason }, "could not open a session: no catalog revision");
      return rpcError(reply, 503, ErrorCode.InternalError, "unavailable", `no catalog to serve: ${reason}`, rpcId);
    }
    deps.sessions.track(reply.raw);
    return handOver(await openSession(deps, catalog), request, reply, deps.logger, body);
  };

  /** GET (the server's stream) and DELETE (end the session) need an existing session. */
  const withSession = async (request: FastifyRequest, reply: FastifyReply) => {
    const group = groupOf(request);
    const { id, session } = existing(request, group ?? null);
    if (id === undefined)
      return rpcError(reply, 400, ErrorCode.InvalidRequest, "bad-request", "no Mcp-Session-Id header: initialize first");
    if (!session) return rpcError(reply, 404, -32001, ErrorType.notFound, `session '${id}' not found: initialize again`);
    if (request.method === "GET") {
      session.openStreams++;
      reply.raw.once("close", () => {
        session.openStreams--;
        session.lastUsed = Date.now();
      });
    }
    return handOver(session.transport, request, reply, deps.logger);
  };

  for (const path of ["/mcp", "/mcp/groups/:group"]) {
    app.post(path, post);
    app.get(path, withSession);
    app.delete(path, withSession);
  }
}

/** The SDK transport answers on the raw response from here on; a failure inside it still gets an answer. */
async function handOver(
  transport: StreamableHTTPServerTransport,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Logger,
  body?: unknown,
) {
  reply.hijack();
  try {
    await transport.handleRequest(request.raw, reply.raw, body);
  } catch (err) {
    logger.error({ err }, "MCP transport failed on a request");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: ErrorCode.InternalError, message: "internal error; see the service log", data: { type: ErrorType.internal } },
        }),
      );
    } else reply.raw.end();
  }
}

function requestId(body: unknown): unknown {
  return typeof body === "object" && body !== null && "id" in body ? (body as { id: unknown }).id : null;
}

function isDiscoverRequest(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "server/discover";
}
