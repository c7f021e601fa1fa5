import type { FastifyInstance } from "fastify";
import type { RawData } from "ws";
import { z } from "zod";
import { describeIssues, type WireError } from "@toolmesh/schema";
import type { Dispatcher } from "../dispatch.js";
import { GatewayErrorType, toGatewayError } from "../errors.js";
import type { ServiceTable } from "../services.js";

const FrameId = z.union([z.string().min(1), z.number()]);

/** What a client sends: one request to one service; `id` is the client's own, echoed on every answer. */
export const SocketRequestFrame = z.object({
  id: FrameId,
  service: z.string().min(1),
  flow: z.string().min(1).default("default"),
  request: z.record(z.string(), z.unknown()),
});

/** One reply of a service; `complete` marks the last reply for that id. */
export const SocketReplyFrame = z.object({ id: FrameId, response: z.unknown(), complete: z.boolean() });

/** The gateway could not get an answer for that id (id null when the frame had none). */
export const SocketErrorFrame = z.object({
  id: FrameId.nullable(),
  error: z.object({ type: z.string(), message: z.string() }),
  complete: z.literal(true),
});

type FrameIdValue = z.infer<typeof FrameId>;
type SocketRequest = z.output<typeof SocketRequestFrame>;

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

function parseFrame(data: string): { ok: true; frame: SocketRequest } | { ok: false; id: FrameIdValue | null; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (err) {
    return { ok: false, id: null, error: `frame is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = SocketRequestFrame.safeParse(json);
  if (parsed.success) return { ok: true, frame: parsed.data };
  const id = FrameId.safeParse((json as { id?: unknown } | null)?.id);
  return { ok: false, id: id.success ? id.data : null, error: `invalid frame: ${describeIssues(parsed.error)}` };
}

/**
 * `GET /socket`: many requests in flight on one socket, answers interleaved by id. A bad frame gets an
 * error frame and the socket stays open; a closed socket drops the answers still on their way.
 */
export function registerSocketRoute(app: FastifyInstance, services: ServiceTable, dispatcher: Dispatcher): void {
  app.get("/socket", { websocket: true }, (socket, request) => {
    const send = (frame: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
    };
    const sendError = (id: FrameIdValue | null, error: WireError) => send({ id, error, complete: true });

    const answer = async (frame: SocketRequest) => {
      try {
        const route = services.resolve(frame.service);
        await dispatcher.dispatch(route, frame.request, { onReply: (response, last) => send({ id: frame.id, response, complete: last }) });
      } catch (err) {
        const error = toGatewayError(err);
        if (error.status >= 500) request.log.warn({ err, service: frame.service }, "socket request failed");
        sendError(frame.id, error.body.error);
      }
    };

    socket.on("message", (data: RawData) => {
      const parsed = parseFrame(rawText(data));
      if (parsed.ok) void answer(parsed.frame);
      else sendError(parsed.id, { type: GatewayErrorType.badRequest, message: parsed.error });
    });
  });
}
