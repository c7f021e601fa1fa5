import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Dispatcher } from "../dispatch.js";
import { toGatewayError } from "../errors.js";
import type { ServiceTable } from "../services.js";

interface ServiceParams {
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

/**
 * `POST /flow/:flow/service/:service`: the body is the service's wire request. A single-reply service
 * answers with its reply, a streamed one with the array of all its replies in order. A reply carrying its
 * own `error` is still 200: it is the service's answer. Any flow name is accepted; there is one flow.
 */
export function registerRestRoutes(app: FastifyInstance, services: ServiceTable, dispatcher: Dispatcher): void {
  app.post<{ Params: ServiceParams }>("/flow/:flow/service/:service", async (request, reply) => {
    try {
      const route = services.resolve(request.params.service);
      const replies: unknown[] = [];
      const touch = progress(request);
      await dispatcher.dispatch(route, request.body, {
        onSent: touch,
        onReply: (r) => {
          replies.push(r);
          touch();
        },
      });
      return await reply.status(200).send(route.streamed ? replies : replies[0]);
    } catch (err) {
      const error = toGatewayError(err);
      if (error.status >= 500) request.log.warn({ err, service: request.params.service }, "request failed");
      return reply.status(error.status).send(error.body);
    }
  });
}
