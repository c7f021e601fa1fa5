import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { AccessTokens } from "./access-tokens.js";

// Hashing both sides gives equal lengths, so the comparison takes the same time whatever was sent.
const digest = (text: string) => createHash("sha256").update(text).digest();

export interface AuthOptions {
  /** GATEWAY_TOKEN: every /mcp request needs it (or an access token); undefined and no `accessTokens` = open. */
  token: string | undefined;
  /** Where the protected-resource metadata is served (set when an authorization server is configured). */
  metadataUrl: string | undefined;
  /** OAuth 2 access tokens from the authorization servers the metadata names, when there are any. */
  accessTokens?: AccessTokens;
  /** MCP_REQUIRED_SCOPES: named in 401 challenges, so clients ask their authorization server for them. */
  requiredScopes?: string[];
}

/** RFC 9728's well-known path for a resource at `resource` (path-suffixed: `/.well-known/oauth-protected-resource/mcp`). */
export function metadataPath(resource: string): string {
  const path = new URL(resource).pathname.replace(/\/$/, "");
  return `/.well-known/oauth-protected-resource${path}`;
}

/**
 * An onRequest hook requiring `Authorization: Bearer <token>`, as the api-gateway does: GATEWAY_TOKEN, or an
 * OAuth 2 access token from a configured authorization server (AccessTokens). Refusals are 401 (403 for a
 * token without the required scopes) with `WWW-Authenticate` naming the resource metadata when there is
 * one, so OAuth-aware clients find the authorization server. Open when neither is configured.
 */
export function bearerAuth({ token, metadataUrl, accessTokens, requiredScopes = [] }: AuthOptions) {
  const expected = token === undefined ? undefined : digest(token);
  const scope = accessTokens && requiredScopes.length > 0 ? [`scope="${requiredScopes.join(" ")}"`] : [];
  const challenge = (...params: string[]) =>
    ['Bearer realm="toolmesh"', ...params, ...(metadataUrl ? [`resource_metadata="${metadataUrl}"`] : [])].join(", ");
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!expected && !accessTokens) return;
    const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "");
    const presented = match?.[1]?.trim();
    if (presented === undefined) {
      const message = "missing bearer token: send 'Authorization: Bearer <token>'";
      return reply
        .status(401)
        .header("www-authenticate", challenge(...scope))
        .send(new ServiceError(ErrorType.unauthorized, message).body);
    }
    if (expected && timingSafeEqual(digest(presented), expected)) return;
    const verdict = accessTokens ? await accessTokens.verify(presented) : undefined;
    if (verdict?.ok) return;
    if (verdict?.status === 403) {
      return reply
        .status(403)
        .header("www-authenticate", challenge('error="insufficient_scope"', `scope="${verdict.scope}"`))
        .send(new ServiceError(ErrorType.forbidden, `insufficient scope: ${verdict.description}`).body);
    }
    const message = verdict ? `invalid bearer token: ${verdict.description}` : "invalid bearer token";
    return reply
      .status(401)
      .header("www-authenticate", challenge('error="invalid_token"', ...scope))
      .send(new ServiceError(ErrorType.unauthorized, message).body);
  };
}

export interface ResourceMetadata {
  resource: string;
  authorizationServers: string[];
  /** The scopes tokens must carry (MCP_REQUIRED_SCOPES), listed so clients ask for them. */
  scopes?: string[];
}

/** RFC 9728 protected-resource metadata, at the root well-known path and the path-suffixed one. */
export function registerResourceMetadata(app: FastifyInstance, { resource, authorizationServers, scopes = [] }: ResourceMetadata): void {
  const document = {
    resource,
    authorization_servers: authorizationServers,
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
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
