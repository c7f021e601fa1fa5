import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { GatewayError, GatewayErrorType } from "./errors.js";

// Hashing both sides gives equal lengths, so the comparison takes the same time whatever was sent.
const digest = (text: string) => createHash("sha256").update(text).digest();

function presentedToken(request: FastifyRequest, allowQuery: boolean): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  if (match?.[1]) return match[1].trim();
  // Browsers cannot set headers on a WebSocket, so the socket also takes `?token=`.
  if (allowQuery) {
    const token = (request.query as Record<string, unknown> | undefined)?.token;
    if (typeof token === "string" && token !== "") return token;
  }
  return undefined;
}

/**
 * An onRequest hook requiring `Authorization: Bearer <token>` (or `?token=` where `allowQuery` says so).
 * With no token configured the gateway is open and the hook is not installed.
 */
export function bearerAuth(token: string, allowQuery: (request: FastifyRequest) => boolean) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken(request, allowQuery(request));
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return;
    const error = new GatewayError(
      401,
      GatewayErrorType.unauthorized,
      presented === undefined ? "missing bearer token: send 'Authorization: Bearer <token>'" : "invalid bearer token",
    );
    await reply.status(401).header("www-authenticate", 'Bearer realm="toolmesh"').send(error.body);
  };
}
