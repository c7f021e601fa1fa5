import {
  Configuration,
  ResponseBodyError,
  type ServerMetadata,
  allowInsecureRequests,
  clientCredentialsGrant,
  discovery,
} from "openid-client";
import { decodeJwt } from "jose";
import pino, { type Logger } from "pino";
import type { AuthTokenHint } from "../transport.js";
import { readOAuth2KeyFile } from "./oauth2-key-file.js";

/** The parameters of Apache's Pulsar clients' OAuth2 authentication (`AuthenticationOAuth2`, client-credentials flow). */
export interface OAuth2Options {
  /** The authorization server's issuer URL; its token endpoint is discovered from `/.well-known/openid-configuration`. */
  issuerUrl: string;
  /** The key file with `client_id` and `client_secret`: a path, `file://` or `data:` URL. Read at every token request. */
  privateKey: string;
  /** Sent as `audience` when given (the Pulsar cluster the token is for, as most issuers require). */
  audience?: string;
  /** Sent as `scope` when given. */
  scope?: string;
  /** Each HTTP request to the issuer gives up after this long (default 10 s). */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * A token is fetched again once this share of its lifetime has passed, less a second (an issuer's `exp`
 * is in whole seconds, so it may end up to a second before `expires_in` says), before the broker finds it
 * expired. A broker that finds it expired anyway challenges, and a new one is fetched then (`rejected`).
 */
const REFRESH_AT_SHARE = 0.9;
const EXP_ROUNDING_MS = 1_000;
/** After a failed request, callers get the same error for this long: many connections retrying must not flood the issuer. */
const FAILURE_HOLD_MS = 1_000;

interface CachedToken {
  token: string;
  refreshAt: number;
  expiresAt: number;
}

/**
 * Access tokens for Pulsar from an OAuth2 issuer (the client-credentials grant, done by openid-client), as
 * Apache's clients get them: cached, fetched again shortly before they expire, one request at a time however
 * many connections ask. The broker sees them as ordinary tokens (`auth_method_name` "token"), checked
 * against the issuer's signing key; when one expires it challenges the connection, which answers with a
 * fresh one (packages/pulsar/src/binary/connection.ts).
 */
export class OAuth2TokenSource {
  private readonly issuer: URL;
  private readonly logger: Logger;
  private metadata: ServerMetadata | undefined;
  private cached: CachedToken | undefined;
  private fetching: Promise<CachedToken> | undefined;
  private failure: { error: Error; until: number } | undefined;

  constructor(private readonly options: OAuth2Options) {
    try {
      this.issuer = new URL(options.issuerUrl);
    } catch {
      throw new Error(`the OAuth2 issuer URL ${JSON.stringify(options.issuerUrl)} is not a URL`);
    }
    if (this.issuer.protocol !== "https:" && this.issuer.protocol !== "http:") {
      throw new Error(`the OAuth2 issuer URL ${JSON.stringify(options.issuerUrl)} must be http(s)`);
    }
    this.logger = options.logger ?? pino({ level: "silent" });
  }

  /**
   * A token good for now: the cached one, or a new one from the issuer (also when the broker has just
   * rejected the cached one: `hint.rejected`). Rejects with one line saying why.
   */
  async token(hint?: AuthTokenHint): Promise<string> {
    const now = Date.now();
    const rejected = hint?.rejected !== undefined && hint.rejected === this.cached?.token;
    if (this.cached && now < this.cached.refreshAt && !rejected) return this.cached.token;
    try {
      if (!this.fetching) {
        if (this.failure && now < this.failure.until) throw this.failure.error;
        this.failure = undefined;
        this.fetching = this.request().finally(() => (this.fetching = undefined));
      }
      this.cached = await this.fetching;
      this.failure = undefined;
      return this.cached.token;
    } catch (err) {
      this.failure ??= { error: err as Error, until: Date.now() + FAILURE_HOLD_MS };
      // An issuer briefly away should not cost a connection while the last token is still valid.
      if (this.cached && Date.now() < this.cached.expiresAt && this.cached.token !== hint?.rejected) {
        this.logger.warn({ err: (err as Error).message }, "could not renew the OAuth2 token; using the current one until it expires");
        return this.cached.token;
      }
      throw err;
    }
  }

  private async request(): Promise<CachedToken> {
    const keyFile = readOAuth2KeyFile(this.options.privateKey);
    const where = `OAuth2 issuer ${this.issuer.href}`;
    try {
      const config = await this.configuration(keyFile.client_id, keyFile.client_secret);
      const parameters: Record<string, string> = {};
      if (this.options.audience) parameters.audience = this.options.audience;
      if (this.options.scope) parameters.scope = this.options.scope;
      const started = Date.now();
      const response = await clientCredentialsGrant(config, parameters);
      const lifetimeMs = Math.min(
        response.expires_in === undefined ? Infinity : response.expires_in * 1000,
        jwtLifetimeMs(response.access_token, started),
      );
      this.logger.info(
        { issuer: this.issuer.href, clientId: keyFile.client_id, expiresInS: response.expires_in ?? null },
        "got an OAuth2 token for Pulsar",
      );
      const refreshAt = started + Math.max(0, lifetimeMs * REFRESH_AT_SHARE - EXP_ROUNDING_MS);
      return { token: response.access_token, refreshAt, expiresAt: started + lifetimeMs };
    } catch (err) {
      if (err instanceof ResponseBodyError) {
        const description = err.error_description ? ` (${err.error_description})` : "";
        throw new Error(`${where} refused client ${JSON.stringify(keyFile.client_id)}: HTTP ${err.status} ${err.error}${description}`);
      }
      // Discovery is done again next time: the issuer may have moved or been down.
      this.metadata = undefined;
      throw new Error(`could not get a token from the ${where}: ${describeError(err)}`);
    }
  }

  /** The issuer's metadata is discovered once; each token request uses the key file's current credentials. */
  private async configuration(clientId: string, clientSecret: string): Promise<Configuration> {
    const timeout = Math.ceil((this.options.timeoutMs ?? 10_000) / 1000);
    // openid-client refuses plain http unless told; an http issuer is the operator's explicit choice (in-cluster or test issuers).
    const insecure = this.issuer.protocol === "http:";
    let config: Configuration;
    if (this.metadata) {
      config = new Configuration(this.metadata, clientId, clientSecret);
      if (insecure) allowInsecureRequests(config);
    } else {
      config = await discovery(this.issuer, clientId, clientSecret, undefined, {
        timeout,
        ...(insecure ? { execute: [allowInsecureRequests] } : {}),
      });
      this.metadata = config.serverMetadata();
    }
    config.timeout = timeout;
    return config;
  }
}

/** How long a JWT access token says it lives (`exp`), read without verifying it; Infinity for other tokens. */
function jwtLifetimeMs(token: string, now: number): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" ? exp * 1000 - now : Infinity;
  } catch {
    return Infinity;
  }
}

/** The error's message and, for fetch failures, the cause (ECONNREFUSED...). */
function describeError(err: unknown): string {
  const error = err as Error & { cause?: { code?: string; message?: string } };
  const cause = error.cause?.code ?? error.cause?.message;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}
