import { createHash } from "node:crypto";
import type { McpDescriptor } from "@toolmesh/schema";

export type McpTransportMode = McpDescriptor["transport"];

/** OAuth 2 client credentials for the server, secrets resolved (see McpOAuth2). */
export interface McpOAuth2Credentials {
  clientId: string;
  clientSecret: string;
  scope?: string;
  issuer?: string;
}

/** How to reach one MCP server, secrets resolved: what a session is opened with. */
export interface McpServerTarget {
  url: string;
  headers: Record<string, string>;
  oauth2?: McpOAuth2Credentials;
  transport: McpTransportMode;
  /** The url without credentials, query or fragment: safe for errors, logs and metric labels. */
  label: string;
  /** Sessions are pooled by this: same url, transport and resolved headers = same session. */
  key: string;
}

/** An `mcp` entry that cannot be used as configured (missing secret, conflicting headers, bad url). */
export class McpConfigError extends Error {
  override name = "McpConfigError";
}

const ENV_REFERENCE = /\$\{env:([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces every `${env:NAME}` in `value` with that environment variable. An unset or empty variable is an
 * error naming it: sending an empty credential would only turn into a confusing 401 further away.
 */
export function substituteEnv(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(ENV_REFERENCE, (_match, name: string) => {
    if (!ENV_NAME.test(name)) throw new McpConfigError(`${where}: '\${env:${name}}' does not name an environment variable`);
    const resolved = env[name];
    if (resolved === undefined || resolved === "") {
      throw new McpConfigError(`${where} uses \${env:${name}}, but environment variable ${name} is not set for the mcp-tool service`);
    }
    return resolved;
  });
}

/** `http://user:pw@host:1/mcp?key=x` -> `http://host:1/mcp`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "(invalid url)";
  }
}

function checkHeader(name: string, value: string, where: string): void {
  try {
    new Headers().set(name, value);
  } catch {
    // The value may hold a secret: name the header, never print the value.
    throw new McpConfigError(`${where}: header '${name}' is not a valid HTTP header (bad name, or a line break in its value)`);
  }
}

/**
 * Turns the `mcp` entry `name` into the server to connect to: headers with `${env:NAME}` substituted,
 * `auth-token` as `Authorization: Bearer ...` (it may use `${env:NAME}` too). Run at connect time, so a
 * secret rotated in the environment of a restarted service is picked up.
 */
export function resolveServer(name: string, descriptor: McpDescriptor, env: NodeJS.ProcessEnv = process.env): McpServerTarget {
  const where = `mcp tool '${name}'`;
  const url = new URL(descriptor.url);
  if (url.username || url.password) {
    throw new McpConfigError(`${where}: the url must not embed credentials; use 'auth-token' or 'headers'`);
  }
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(descriptor.headers)) {
    const lower = header.toLowerCase();
    if (lower in headers) throw new McpConfigError(`${where}: header '${header}' is given twice`);
    headers[lower] = substituteEnv(value, env, `${where} header '${header}'`);
    checkHeader(header, headers[lower], where);
  }
  const token = descriptor["auth-token"];
  if (token !== undefined) {
    if ("authorization" in headers) {
      throw new McpConfigError(`${where} sets both 'auth-token' and an Authorization header; keep one`);
    }
    headers.authorization = `Bearer ${substituteEnv(token, env, `${where} auth-token`)}`;
    checkHeader("authorization", headers.authorization, where);
  }
  const oauth2 = resolveOAuth2(descriptor, headers, env, where);
  const sorted = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Hashed so that pool keys (which may end up in logs or heap dumps) never hold a secret in clear.
  const key = createHash("sha256")
    .update(JSON.stringify([descriptor.url, descriptor.transport, sorted, oauth2 ?? null]))
    .digest("hex");
  return {
    url: descriptor.url,
    headers,
    ...(oauth2 ? { oauth2 } : {}),
    transport: descriptor.transport,
    label: redactUrl(descriptor.url),
    key,
  };
}

/** The entry's `oauth2` credentials with `${env:NAME}` resolved; refused beside a fixed token. */
function resolveOAuth2(
  descriptor: McpDescriptor,
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): McpOAuth2Credentials | undefined {
  const oauth2 = descriptor.oauth2;
  if (!oauth2) return undefined;
  if ("authorization" in headers) {
    throw new McpConfigError(`${where} sets both 'oauth2' and a token ('auth-token' or an Authorization header); keep one`);
  }
  return {
    clientId: substituteEnv(oauth2["client-id"], env, `${where} oauth2.client-id`),
    clientSecret: substituteEnv(oauth2["client-secret"], env, `${where} oauth2.client-secret`),
    ...(oauth2.scope ? { scope: oauth2.scope } : {}),
    ...(oauth2.issuer ? { issuer: oauth2.issuer } : {}),
  };
}

/** The tool's name on the server: `remote-name`, or the entry's own key. */
export function remoteToolName(name: string, descriptor: McpDescriptor): string {
  return descriptor["remote-name"] ?? name;
}
