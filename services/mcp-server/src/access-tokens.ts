import { type JWTVerifyGetKey, createRemoteJWKSet, decodeJwt, errors, jwtVerify } from "jose";
import type { Logger } from "pino";
import { z } from "zod";

/** What an authorization server's metadata (RFC 8414, or OpenID discovery) must say for its tokens to be checked. */
const ServerMetadata = z.object({ issuer: z.string().min(1), jwks_uri: z.url() });

export type TokenVerdict =
  | { ok: true; subject: string | undefined }
  | { ok: false; status: 401; error: "invalid_token"; description: string }
  | { ok: false; status: 403; error: "insufficient_scope"; description: string; scope: string };

export interface AccessTokensOptions {
  /** MCP_AUTHORIZATION_SERVERS: the issuers whose tokens are taken. */
  authorizationServers: string[];
  /** MCP_RESOURCE_URL: a token must name it in `aud` (RFC 8707: issued for this server). */
  resource: string;
  /** MCP_REQUIRED_SCOPES: scopes every token must carry. */
  requiredScopes: string[];
  logger: Logger;
}

interface Issuer {
  issuer: string;
  keys: JWTVerifyGetKey;
}

const withoutSlash = (url: string) => url.replace(/\/+$/, "");

/** The metadata URLs to try for `issuer`: RFC 8414's (path inserted after the well-known prefix), then OpenID's. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = withoutSlash(url.pathname);
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${withoutSlash(issuer)}/.well-known/openid-configuration`];
}

/**
 * OAuth 2 access tokens, checked as the MCP authorization spec asks a resource server to: a JWT signed
 * with a key of one of the configured authorization servers (their JWKS, found through their metadata and
 * cached by jose), from that issuer, for this server (`aud`), unexpired, with the required scopes.
 */
export class AccessTokens {
  private readonly issuers = new Map<string, Promise<Issuer>>();

  constructor(private readonly options: AccessTokensOptions) {}

  async verify(token: string): Promise<TokenVerdict> {
    let claimedIssuer: string | undefined;
    try {
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      return invalid("not a JWT");
    }
    const configured = this.options.authorizationServers.find((server) => withoutSlash(server) === withoutSlash(claimedIssuer ?? ""));
    if (!configured) return invalid("issued by an authorization server this server does not trust");
    let issuer: Issuer;
    try {
      issuer = await this.issuer(configured);
    } catch (err) {
      this.options.logger.warn(
        { issuer: configured, err: (err as Error).message },
        "cannot read the authorization server's metadata or keys",
      );
      return invalid("the authorization server's keys cannot be read now");
    }
    try {
      const { payload } = await jwtVerify(token, issuer.keys, { issuer: issuer.issuer, audience: this.options.resource });
      const scopes = new Set(typeof payload.scope === "string" ? payload.scope.split(" ") : []);
      const missing = this.options.requiredScopes.filter((scope) => !scopes.has(scope));
      if (missing.length > 0) {
        const scope = this.options.requiredScopes.join(" ");
        return { ok: false, status: 403, error: "insufficient_scope", description: `the token lacks scope ${missing.join(", ")}`, scope };
      }
      return { ok: true, subject: payload.sub };
    } catch (err) {
      if (err instanceof errors.JOSEError) return invalid(reasonOf(err));
      throw err;
    }
  }

  /** The issuer's metadata and key set, found once; a failed lookup is tried again at the next token. */
  private issuer(configured: string): Promise<Issuer> {
    let found = this.issuers.get(configured);
    if (!found) {
      found = discover(configured);
      this.issuers.set(configured, found);
      found.catch(() => this.issuers.delete(configured));
    }
    return found;
  }
}

async function discover(configured: string): Promise<Issuer> {
  const problems: string[] = [];
  for (const url of metadataUrls(configured)) {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch((err: Error) => err);
    if (response instanceof Error || !response.ok) {
      problems.push(`${url}: ${response instanceof Error ? response.message : `HTTP ${response.status}`}`);
      continue;
    }
    const metadata = ServerMetadata.safeParse(await response.json().catch(() => undefined));
    if (!metadata.success) {
      problems.push(`${url}: no issuer and jwks_uri`);
      continue;
    }
    if (withoutSlash(metadata.data.issuer) !== withoutSlash(configured)) {
      problems.push(`${url}: names issuer ${metadata.data.issuer}`);
      continue;
    }
    return { issuer: metadata.data.issuer, keys: createRemoteJWKSet(new URL(metadata.data.jwks_uri)) };
  }
  throw new Error(problems.join("; "));
}

const invalid = (description: string): TokenVerdict => ({ ok: false, status: 401, error: "invalid_token", description });

/** Why jose refused a token, in words for the WWW-Authenticate header (never the token itself). */
function reasonOf(err: errors.JOSEError): string {
  if (err instanceof errors.JWTExpired) return "the token has expired";
  if (err instanceof errors.JWTClaimValidationFailed) return `the token's ${err.claim} claim is not accepted here`;
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey) {
    return "the token's signature does not match the authorization server's keys";
  }
  return "the token cannot be verified";
}
