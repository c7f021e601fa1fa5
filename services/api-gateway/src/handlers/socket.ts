import type { FastifyInstance } from "fastify";
import type { RawData } from "ws";
import { z } from "zod";
import { ErrorType, type WireError } from "@toolmesh/schema";
import { presentedToken, tokenChecker } from "../auth.js";
import type { Dispatcher } from "../dispatch.js";
import { toServiceError } from "../errors.js";
import type { ServiceRoute, ServiceTable } from "../services.js";
import { isTrustGraphKind, present } from "../tg/present.js";
import { BAD_OPERATION, DEFAULT_WORKSPACE, GLOBAL_OPERATIONS, KNOWN_FLOWS, WORKSPACE_ONLY_REFUSED } from "../tg/registry.js";
import { decodeRequest } from "../tg/requests.js";
import { type KnownWorkspaces, WORKSPACE_NOT_FOUND } from "../tg/workspaces.js";

const FrameId = z.union([z.string().min(1), z.number()]);
type FrameIdValue = z.infer<typeof FrameId>;

/**
 * What a client sends (TrustGraph's Mux envelope): one request to one service; `id` is the client's own,
 * echoed on every answer. With `flow` the service is a flow service; without, a global one
 * (`{service}:{operation}`, e.g. config) — or, as toolmesh always allowed, a flow service of flow `default`.
 */
export const SocketRequestFrame = z.object({
  id: FrameId,
  service: z.string().min(1),
  flow: z.string().min(1).optional(),
  workspace: z.string().optional(),
  request: z.record(z.string(), z.unknown()),
});

/** TrustGraph's first frame (any time; again to re-authenticate): `{"type": "auth", "token": "..."}`. */
export const SocketAuthFrame = z.object({ type: z.literal("auth"), token: z.unknown().optional() });

/** One reply of a service; `complete` marks the last reply for that id. */
export const SocketReplyFrame = z.object({ id: FrameId, response: z.unknown(), complete: z.boolean() });

/** The gateway could not get an answer for that id (`id` absent when the frame had none). */
export const SocketErrorFrame = z.object({
  id: FrameId.optional(),
  error: z.object({ type: z.string(), message: z.string() }),
  complete: z.literal(true),
});

type SocketRequest = z.output<typeof SocketRequestFrame>;

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

type Frame =
  | { kind: "auth"; token: unknown }
  | { kind: "request"; frame: SocketRequest }
  | { kind: "bad"; id: FrameIdValue | undefined; message: string };

/** Classifies a frame in TrustGraph's order: not JSON / not an object, an auth frame, no id or request. */
function parseFrame(data: string): Frame {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (err) {
    return { kind: "bad", id: undefined, message: (err as Error).message };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return { kind: "bad", id: undefined, message: "Bad message" };
  const auth = SocketAuthFrame.safeParse(json);
  if (auth.success) return { kind: "auth", token: auth.data.token ?? "" };
  const parsed = SocketRequestFrame.safeParse(json);
  if (parsed.success) return { kind: "request", frame: parsed.data };
  const id = FrameId.safeParse((json as { id?: unknown }).id);
  return { kind: "bad", id: id.success ? id.data : undefined, message: "Bad message" };
}

const errorFrame = (id: FrameIdValue | undefined, error: WireError) => ({ ...(id === undefined ? {} : { id }), error, complete: true });

/**
 * `GET /socket`, TrustGraph 2.11's socket (spec §2): many requests in flight on one socket, answers
 * interleaved by id, the socket never closed for a bad frame. With GATEWAY_TOKEN set, requests need an
 * auth frame with that token first (or the token on the upgrade: header or `?token=`); unset, every
 * caller is in, and an auth frame with any token gets `auth-ok`.
 */
export function registerSocketRoute(
  app: FastifyInstance,
  services: ServiceTable,
  dispatcher: Dispatcher,
  workspaces: KnownWorkspaces,
  token: string | undefined,
): void {
  const accepts = tokenChecker(token);
  app.get("/socket", { websocket: true }, (socket, request) => {
    let authenticated = token === undefined || accepts(presentedToken(request, true));
    const send = (frame: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
    };

    /** The route for an envelope, or the error frame TrustGraph's Mux answers instead. */
    const lookup = (frame: SocketRequest): { route: ServiceRoute; body: unknown } | { error: WireError } => {
      const operation = frame.request.operation;
      const global = `${frame.service}:${typeof operation === "string" ? operation : ""}`;
      const workspace = frame.workspace || DEFAULT_WORKSPACE;
      if (frame.flow === undefined && GLOBAL_OPERATIONS.has(global)) {
        if (!workspaces.has(workspace)) return { error: WORKSPACE_NOT_FOUND.socket };
        if (WORKSPACE_ONLY_REFUSED.has(global)) return { error: BAD_OPERATION };
        return { route: services.workspaceService(frame.service, workspace), body: { ...frame.request, workspace } };
      }
      const flow = frame.flow ?? "default";
      let route: ServiceRoute;
      try {
        route = services.resolve(frame.service);
      } catch (err) {
        // Only a service nobody knows gets TrustGraph's terse answer; a refused one (another tenant's
        // queue, an unusable descriptor) says why.
        const error = toServiceError(err);
        if (error.type !== ErrorType.unknownService) return { error: error.body.error };
        return { error: { type: ErrorType.unknownService, message: "unknown service" } };
      }
      if (!workspaces.has(workspace)) return { error: WORKSPACE_NOT_FOUND.socket };
      if (!KNOWN_FLOWS.has(flow)) return { error: { type: "error", message: `Invalid flow ${workspace}/${flow}` } };
      return { route, body: frame.request };
    };

    const answer = async (frame: SocketRequest) => {
      let found;
      try {
        found = lookup(frame);
      } catch (err) {
        // A tool-service descriptor that cannot be used, or config not loaded yet.
        found = { error: toServiceError(err).body.error };
      }
      if ("error" in found) {
        // A bad-operation is the config service's answer in TrustGraph: it travels inside `response`.
        if (found.error === BAD_OPERATION) send({ id: frame.id, response: { error: BAD_OPERATION }, complete: true });
        else send(errorFrame(frame.id, found.error));
        return;
      }
      const { route, body } = found;
      try {
        await dispatcher.dispatch(route, decodeRequest(route.kind, body), {
          via: { door: "socket", headers: request.headers },
          onReply: (response, last) => send({ id: frame.id, response: present(route.kind, response), complete: last }),
        });
      } catch (err) {
        const error = toServiceError(err);
        if (error.status >= 500) request.log.warn({ err, service: frame.service }, "socket request failed");
        // TrustGraph's requestor errors travel inside `response`; toolmesh's own kinds keep the error frame.
        if (isTrustGraphKind(route.kind)) send({ id: frame.id, response: error.body, complete: true });
        else send(errorFrame(frame.id, error.body.error));
      }
    };

    socket.on("message", (data: RawData) => {
      const parsed = parseFrame(rawText(data));
      if (parsed.kind === "auth") {
        authenticated = accepts(parsed.token);
        send(authenticated ? { type: "auth-ok", default_workspace: DEFAULT_WORKSPACE } : { type: "auth-failed", error: "auth failure" });
      } else if (parsed.kind === "bad") {
        send(errorFrame(parsed.id, { type: "error", message: parsed.message }));
      } else if (!authenticated) {
        send(errorFrame(parsed.frame.id, { type: "auth-required", message: "auth failure" }));
      } else {
        void answer(parsed.frame);
      }
    });
  });
}
