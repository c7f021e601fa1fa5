import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Dispatcher } from "../dispatch.js";
import { toServiceError } from "../errors.js";
import type { ServiceRoute, ServiceTable } from "../services.js";
import { isTrustGraphKind, present } from "../tg/present.js";
import { BAD_OPERATION, DEFAULT_WORKSPACE, GLOBAL_OPERATIONS, KNOWN_FLOWS, WORKSPACE_ONLY_REFUSED } from "../tg/registry.js";
import { decodeRequest } from "../tg/requests.js";
import { type KnownWorkspaces, WORKSPACE_NOT_FOUND } from "../tg/workspaces.js";
import { ErrorType } from "@toolmesh/schema";

interface FlowParams {
  flow: string;
  service: string;
}

/**
 * Re-arms the connection's idle timer. A REST call sends nothing until its last reply, so without this a
 * stream of replies (an agent run) that lasts longer than the idle timeout would lose its socket although
 * the service keeps answering; with it, the socket stays as long as the call makes progress, and the
 * gateway's own timeouts (each shorter than the idle timeout) always answer first.
 */
function progress(request: FastifyRequest): () => void {
  const idleMs = request.server.initialConfig.connectionTimeout ?? 0;
  const socket = request.raw.socket as Partial<Pick<typeof request.raw.socket, "setTimeout">> | undefined;
  return () => {
    // inject() (tests) has a socket without timers.
    if (idleMs > 0 && typeof socket?.setTimeout === "function") socket.setTimeout(idleMs);
  };
}

type Parsed = { ok: true; body: unknown } | { ok: false; message: string };

/** The raw body as JSON (the routes take it as text, so a parse failure can be answered in TrustGraph's shape). */
function parseBody(raw: unknown): Parsed {
  if (typeof raw !== "string") return { ok: true, body: raw };
  try {
    return { ok: true, body: JSON.parse(raw) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);

/**
 * Forwards one request and answers it. TrustGraph's kinds (config, mcp-tool, agent) answer like
 * TrustGraph's gateway: the final reply only (`?replies=all`: every reply, for streaming clients that
 * cannot hold a socket), translated, and a failure as 200 `{"error": {type, message}}` (TrustGraph's
 * requestor errors). toolmesh's own kinds keep its HTTP codes, and a tool service answers with the array
 * of its replies (a stream's chunks would otherwise be lost).
 */
async function forward(request: FastifyRequest, reply: FastifyReply, dispatcher: Dispatcher, route: ServiceRoute, body: unknown) {
  const trustGraph = isTrustGraphKind(route.kind);
  try {
    const replies: unknown[] = [];
    const touch = progress(request);
    await dispatcher.dispatch(route, decodeRequest(route.kind, body), {
      onSent: touch,
      via: { door: "rest", headers: request.headers },
      onReply: (r) => {
        replies.push(present(route.kind, r));
        touch();
      },
    });
    const all = (request.query as { replies?: unknown } | undefined)?.replies === "all";
    const answer = route.kind === "tool-service" || (all && route.streamed) ? replies : replies.at(-1);
    return await reply.status(200).send(answer);
  } catch (err) {
    const error = toServiceError(err);
    if (error.status >= 500) request.log.warn({ err, service: route.name }, "request failed");
    return reply.status(trustGraph ? 200 : error.status).send(error.body);
  }
}

/**
 * TrustGraph 2.11's REST surface (spec §1.2, §1.3): `POST /{kind}` for global services (config), checked
 * in TrustGraph's order with its bodies (`{"error": "invalid json"}`, ...), and
 * `POST /flow/{flow}/service/{kind}` for flow services (agent, mcp-tool) and toolmesh's own (tool services
 * by descriptor id, agent-runs, tool-registry, config).
 */
export function registerRestRoutes(
  app: FastifyInstance,
  services: ServiceTable,
  dispatcher: Dispatcher,
  workspaces: KnownWorkspaces,
): void {
  app.register(async (api) => {
    // The body is read as text and parsed here, whatever its content type: TrustGraph's gateway (aiohttp's
    // request.json()) does the same, and `curl -d` sends application/x-www-form-urlencoded.
    const asText = (_request: FastifyRequest, body: string | Buffer, done: (err: null, body: string | Buffer) => void) => done(null, body);
    api.removeAllContentTypeParsers();
    api.addContentTypeParser("*", { parseAs: "string" }, asText);

    api.post<{ Params: { kind: string } }>("/:kind", async (request, reply) => {
      const parsed = parseBody(request.body);
      if (!parsed.ok) return reply.status(400).send({ error: "invalid json" });
      if (!isObject(parsed.body)) return reply.status(400).send({ error: "body must be an object" });
      const body = parsed.body;
      const operation = body.operation;
      if (typeof operation !== "string" || operation === "") return reply.status(400).send({ error: "missing operation" });
      const name = `${request.params.kind}:${operation}`;
      if (!GLOBAL_OPERATIONS.has(name)) return reply.status(400).send({ error: "unknown operation" });
      if (WORKSPACE_ONLY_REFUSED.has(name)) return reply.status(200).send({ error: BAD_OPERATION });
      const workspace = typeof body.workspace === "string" && body.workspace !== "" ? body.workspace : DEFAULT_WORKSPACE;
      let known: boolean;
      try {
        known = workspaces.has(workspace);
      } catch (err) {
        return reply.status(200).send(toServiceError(err).body);
      }
      if (!known) return reply.status(404).send(WORKSPACE_NOT_FOUND.rest);
      return forward(request, reply, dispatcher, services.workspaceService(request.params.kind, workspace), { ...body, workspace });
    });

    api.post<{ Params: FlowParams }>("/flow/:flow/service/:service", async (request, reply) => {
      let route: ServiceRoute;
      try {
        route = services.resolve(request.params.service);
      } catch (err) {
        const error = toServiceError(err);
        // TrustGraph's body for a kind it does not have; toolmesh adds why (e.g. no such tool-service descriptor).
        if (error.type === ErrorType.unknownService) return reply.status(404).send({ error: "unknown kind", detail: error.message });
        if (error.status >= 500) request.log.warn({ err, service: request.params.service }, "request failed");
        return reply.status(error.status).send(error.body);
      }
      const parsed = parseBody(request.body);
      if (!parsed.ok) return reply.status(200).send({ error: parsed.message });
      const workspace =
        isObject(parsed.body) && typeof parsed.body.workspace === "string" && parsed.body.workspace
          ? parsed.body.workspace
          : DEFAULT_WORKSPACE;
      if (!KNOWN_FLOWS.has(request.params.flow))
        return reply.status(200).send({ error: `Invalid flow ${workspace}/${request.params.flow}` });
      return forward(request, reply, dispatcher, route, parsed.body);
    });
  });
}
