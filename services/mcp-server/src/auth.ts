import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ErrorType, ServiceError } from "@toolmesh/schema";

// Hashing both sides gives equal lengths, so the comparison takes the same time whatever was sent.
const digest = (text: string) => createHash("sha256").update(text).digest();

export interface AuthOptions {
  /** GATEWAY_TOKEN: every /mcp request needs it; undefined = open. */
  token: string | undefined;
  /** Where the protected-resource metadata is served (set when an authorization server is configured). */
  metadataUrl: string | undefined;
}

/** RFC 9728's well-known path for a resource at `resource` (path-suffixed: `/.well-known/oauth-protected-resource/mcp`). */
export function metadataPath(resource: string): string {
  const path = new URL(resource).pathname.replace(/\/$/, "");
  return `/.well-known/oauth-protected-resource${path}`;
}

/**
 * An onRequest hook requiring `Authorization: Bearer <GATEWAY_TOKEN>`, as the api-gateway does: 401 with
 * `WWW-Authenticate` (naming the resource metadata when there is one, so OAuth-aware clients find the
 * authorization server). Not installed when no token is set.
 */
export function bearerAuth({ token, metadataUrl }: AuthOptions) {
  const expected = token === undefined ? undefined : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!expected) return;
    const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "");
    const presented = match?.[1]?.trim();
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return;
    const message = presented === undefined ? "missing bearer token: send 'Authorization: Bearer <token>'" : "invalid bearer token";
    const challenge = [
      'Bearer realm="toolmesh"',
      ...(presented === undefined ? [] : ['error="invalid_token"']),
      ...(metadataUrl ? [`resource_metadata="${metadataUrl}"`] : []),
    ].join(", ");
    await reply.status(401).header("www-authenticate", challenge).send(new ServiceError(ErrorType.unauthorized, message).body);
  };
}

export interface ResourceMetadata {
  resource: string;
  authorizationServers: string[];
}

/** RFC 9728 protected-resource metadata, at the root well-known path and the path-suffixed one. */
export function registerResourceMetadata(app: FastifyInstance, { resource, authorizationServers }: ResourceMetadata): void {
  const document = {
    resource,
    authorization_servers: authorizationServers,
    bearer_methods_supported: ["header"],
    resource_name: "toolmesh MCP server",
  };
  for (const path of new Set(["/.well-known/oauth-protected-resource", metadataPath(resource)])) {
    app.get(path, async (_request, reply) => reply.header("cache-control", "max-age=300").send(document));
  }
}

/**
 * An onRequest hook refusing browser requests from origins not listed (MCP_ALLOWED_ORIGINS): a page on
 * another site, or a DNS-rebinding one, must not reach tools on a local server. No Origin = not a browser.
 */
export function originCheck(allowed: readonly string[]) {
  const origins = new Set(allowed);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined || origins.has(origin)) return;
    await reply
      .status(403)
      .send(new ServiceError(ErrorType.forbidden, `origin '${origin}' may not call this MCP server (MCP_ALLOWED_ORIGINS)`).body);
  };
}
