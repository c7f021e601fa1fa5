import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

// Hashing both sides gives equal lengths, so the comparison takes the same time whatever was sent.
const digest = (text: string) => createHash("sha256").update(text).digest();

/** The token a request presents: `Authorization: Bearer <t>`, or `?token=` where `allowQuery` says so. */
export function presentedToken(request: FastifyRequest, allowQuery: boolean): string | undefined {
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
 * Whether a presented token is accepted: with no GATEWAY_TOKEN configured every caller is (TrustGraph's
 * no-auth IAM: anonymous, workspace `default`); with one, only that token.
 */
export function tokenChecker(token: string | undefined): (presented: unknown) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(token);
  return (presented) => typeof presented === "string" && presented !== "" && timingSafeEqual(digest(presented), expected);
}

/**
 * An onRequest hook requiring `Authorization: Bearer <token>` on REST routes, answering TrustGraph's
 * 401 `{"error": "auth failure"}`. The socket is left to its own first-frame auth (`skip`).
 */
export function bearerAuth(token: string, skip: (request: FastifyRequest) => boolean) {
  const accepts = tokenChecker(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (skip(request)) return;
    if (accepts(presentedToken(request, false))) return;
    await reply.status(401).header("www-authenticate", 'Bearer realm="toolmesh"').send({ error: "auth failure" });
  };
}
