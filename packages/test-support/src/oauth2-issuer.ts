import { createPrivateKey, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Events, OAuth2Server, type MutableResponse, type MutableToken } from "oauth2-mock-server";
import { z } from "zod";
import { freePort } from "./service-process.js";

export interface OAuth2IssuerOptions {
  /** The RSA key tokens are signed with, DER PKCS#8: a key-pair broker's `tokenPrivateKeyFile`. Absent: a new one. */
  privateKeyFile?: string;
  /** Port on 127.0.0.1; 0 or absent = a free one (from TOOLMESH_TEST_PORTS when set). */
  port?: number;
  /** The one client the issuer knows (default `toolmesh-test-client`); it becomes the tokens' `sub`. */
  clientId?: string;
  /** Its secret (default: 32 random bytes, base64url). */
  clientSecret?: string;
  /** Lifetime of an access token: its `exp` and the response's `expires_in` (default 3600). */
  tokenTtlSeconds?: number;
  /** The `expires_in` the response claims, when it should differ from the token's real lifetime (clock skew, a lying issuer). */
  advertisedTtlSeconds?: number;
}

/** One POST to the token endpoint, as the issuer judged it. */
export interface OAuth2TokenRequest {
  /** From HTTP Basic auth when sent, else the `client_id` form field. */
  clientId: string | undefined;
  audience: string | undefined;
  /** RFC 8707 `resource` (MCP clients name the server they want the token for). */
  resource: string | undefined;
  scope: string | undefined;
  granted: boolean;
}

/** A running OAuth2 authorization server for tests (client_credentials only). */
export interface OAuth2Issuer {
  /** `http://127.0.0.1:<port>`, no trailing slash; `<issuerUrl>/.well-known/openid-configuration` is its discovery document. */
  issuerUrl: string;
  /** `<issuerUrl>/token`, also named by discovery's `token_endpoint`. */
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  /**
   * A Pulsar OAuth2 key file (`{"type":"client_credentials","client_id","client_secret","issuer_url"}`), the
   * JSON Apache's clients read from their `privateKey` / `private_key` parameter (as `file://<path>`).
   */
  credentialsFile: string;
  /** The signing key (DER PKCS#8): the one given, or the one made for this issuer (tests forge tokens with it). */
  privateKeyFile: string;
  /** Every token request that reached a grant (malformed ones, which the mock answers 400, are not listed). */
  requests: OAuth2TokenRequest[];
  stop(): Promise<void>;
}

// The mock parses form and JSON bodies alike; only these fields matter here (RFC 6749 §4.4, plus the
// `audience` parameter Pulsar's clients send, as Auth0 and StreamNative's issuer expect). An empty field
// counts as absent (RFC 6749 §3.2; Apache's C++ client always sends `audience`), and so does one given twice
// or not as a string, so a hook never throws (the mock would answer 500).
const optionalText = z.string().min(1).optional().catch(undefined);
const TokenRequestBody = z.object({
  grant_type: z.string().catch(""),
  client_id: optionalText,
  client_secret: optionalText,
  audience: optionalText,
  // RFC 8707: the resource the token is for (what MCP clients send), taken as the audience when none is given.
  resource: optionalText,
  scope: optionalText,
});
type TokenRequestBody = z.infer<typeof TokenRequestBody>;

const KEY_ID = "pulsar-broker-key";

/** Client credentials from `Authorization: Basic` (form-urlencoded inside, RFC 6749 §2.3.1), else the form fields. */
function clientCredentials(req: IncomingMessage, body: TokenRequestBody): { id?: string; secret?: string } {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  if (!basic) return { id: body.client_id, secret: body.client_secret };
  const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return {};
  const formDecode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, " "));
    } catch {
      return text;
    }
  };
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/**
 * Starts an OAuth2 issuer (oauth2-mock-server) on 127.0.0.1 over http that signs RS256 access tokens with
 * the broker's private key, so a broker started with `tokenSigning: "key-pair"` accepts them. It grants
 * only client_credentials to its one client (Basic auth or form fields; anything else is 401
 * `invalid_client`, other grants 400 `unsupported_grant_type`); a token's `sub` is the client id, `aud` the
 * `audience` asked for (else the RFC 8707 `resource`), `scope` the scope asked for, `exp` now + `tokenTtlSeconds`.
 */
export async function startOAuth2Issuer(options: OAuth2IssuerOptions): Promise<OAuth2Issuer> {
  const clientId = options.clientId ?? "toolmesh-test-client";
  const clientSecret = options.clientSecret ?? randomBytes(32).toString("base64url");
  const ttl = options.tokenTtlSeconds ?? 3600;
  const requests: OAuth2TokenRequest[] = [];

  const dir = mkdtempSync(join(tmpdir(), "toolmesh-oauth2-"));
  const privateKeyFile = options.privateKeyFile ?? join(dir, "issuer.key");
  if (!options.privateKeyFile) {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(privateKeyFile, privateKey.export({ format: "der", type: "pkcs8" }), { mode: 0o600 });
  }
  const server = new OAuth2Server();
  const jwk = createPrivateKey({ key: readFileSync(privateKeyFile), format: "der", type: "pkcs8" }).export({ format: "jwk" });
  await server.issuer.keys.add({ ...jwk, kid: KEY_ID, alg: "RS256" });

  const bodyOf = (req: IncomingMessage & { body?: unknown }) => TokenRequestBody.parse(req.body);
  server.service.on(Events.BeforeTokenSigning, (token: MutableToken, req: IncomingMessage) => {
    const body = bodyOf(req);
    token.payload.sub = clientCredentials(req, body).id;
    const audience = body.audience ?? body.resource;
    if (audience !== undefined) token.payload.aud = audience;
    if (body.scope !== undefined) token.payload.scope = body.scope;
    token.payload.exp = Number(token.payload.iat) + ttl;
    // Each token its own (as real issuers' jti makes them): two grants within a second are not the same string.
    token.payload.jti = randomUUID();
  });
  // The mock signs whatever it is asked for; the verdict is given here, before the answer goes out.
  server.service.on(Events.BeforeResponse, (response: MutableResponse, req: IncomingMessage) => {
    const body = bodyOf(req);
    const client = clientCredentials(req, body);
    const known = client.id === clientId && client.secret === clientSecret;
    const clientCredentialsGrant = body.grant_type === "client_credentials";
    requests.push({
      clientId: client.id,
      audience: body.audience,
      resource: body.resource,
      scope: body.scope,
      granted: known && clientCredentialsGrant,
    });
    if (!known) {
      response.statusCode = 401;
      response.body = { error: "invalid_client" };
    } else if (!clientCredentialsGrant) {
      response.statusCode = 400;
      response.body = { error: "unsupported_grant_type" };
    } else if (response.body !== "") {
      response.body.expires_in = options.advertisedTtlSeconds ?? ttl;
    }
  });
  // Discovery tells clients what this issuer really does (the mock advertises more grants, and only the
  // "none" client authentication, which clients that follow the metadata, like the MCP SDK's, would use).
  server.service.on(Events.BeforeWellKnownOpenIdConfiguration, (response: MutableResponse) => {
    if (response.body === "") return;
    response.body.grant_types_supported = ["client_credentials"];
    response.body.token_endpoint_auth_methods_supported = ["client_secret_basic", "client_secret_post"];
  });

  await server.start(options.port || (await freePort()), "127.0.0.1");
  // The mock names 127.0.0.1 "localhost", which may resolve to ::1 where nothing listens.
  const issuerUrl = `http://127.0.0.1:${server.address().port}`;
  server.issuer.url = issuerUrl;

  const credentialsFile = join(dir, "credentials.json");
  const keyFile = { type: "client_credentials", client_id: clientId, client_secret: clientSecret, issuer_url: issuerUrl };
  writeFileSync(credentialsFile, JSON.stringify(keyFile), { mode: 0o600 });

  return {
    issuerUrl,
    tokenEndpoint: `${issuerUrl}/token`,
    clientId,
    clientSecret,
    credentialsFile,
    privateKeyFile,
    requests,
    stop: async () => {
      rmSync(dir, { recursive: true, force: true });
      if (server.listening) await server.stop();
    },
  };
}
