import type { FastifyInstance } from "fastify";
import type { Dispatcher } from "../dispatch.js";
import { toGatewayError } from "../errors.js";
import type { ServiceTable } from "../services.js";

interface ServiceParams {
  flow: string;
  service: string;
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
      await dispatcher.dispatch(route, request.body, (r) => replies.push(r));
      return await reply.status(200).send(route.streamed ? replies : replies[0]);
    } catch (err) {
      const error = toGatewayError(err);
      if (error.status >= 500) request.log.warn({ err, service: request.params.service }, "request failed");
      return reply.status(error.status).send(error.body);
    }
  });
}
