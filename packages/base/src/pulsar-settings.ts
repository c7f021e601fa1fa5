import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { EnvError } from "@toolmesh/schema";
import { type AuthTokenHint, OAuth2TokenSource, type PulsarClientOptions, readOAuth2KeyFile } from "@toolmesh/pulsar";
import type { BaseEnv } from "./env.js";

export const DEFAULT_SERVICE_URL = "pulsar://127.0.0.1:6650";
export const DEFAULT_WEB_URL = "http://127.0.0.1:8080";

type PulsarEnv = Pick<
  BaseEnv,
  | "PULSAR_SERVICE_URL"
  | "PULSAR_WEB_URL"
  | "PULSAR_TRANSPORT"
  | "PULSAR_AUTH_TOKEN"
  | "PULSAR_AUTH_TOKEN_FILE"
  | "PULSAR_OAUTH2_ISSUER_URL"
  | "PULSAR_OAUTH2_PRIVATE_KEY"
  | "PULSAR_OAUTH2_AUDIENCE"
  | "PULSAR_OAUTH2_SCOPE"
  | "PULSAR_TLS_CA_FILE"
  | "PULSAR_TLS_CERT_FILE"
  | "PULSAR_TLS_KEY_FILE"
  | "PULSAR_TLS_VERIFY"
  | "PULSAR_RECEIVER_QUEUE_SIZE"
>;

/**
 * How a service reaches Pulsar, from its environment. The rule: PULSAR_TRANSPORT decides when set;
 * otherwise a service URL means the binary protocol, a web URL alone means the WebSocket API (how
 * toolmesh ran before), and neither means the binary protocol on the default broker.
 */
export function pulsarSettings(env: PulsarEnv, logger?: Logger): Omit<PulsarClientOptions, "logger"> {
  const problems: string[] = [];
  const kind = env.PULSAR_TRANSPORT ?? (env.PULSAR_SERVICE_URL || !env.PULSAR_WEB_URL ? "binary" : "websocket");
  if (env.PULSAR_AUTH_TOKEN && env.PULSAR_AUTH_TOKEN_FILE) {
    problems.push("PULSAR_AUTH_TOKEN_FILE: give either PULSAR_AUTH_TOKEN or PULSAR_AUTH_TOKEN_FILE, not both");
  }
  if (Boolean(env.PULSAR_TLS_CERT_FILE) !== Boolean(env.PULSAR_TLS_KEY_FILE)) {
    problems.push("PULSAR_TLS_KEY_FILE: a client certificate needs both PULSAR_TLS_CERT_FILE and PULSAR_TLS_KEY_FILE");
  }
  const read = (name: keyof PulsarEnv): Buffer | undefined => {
    const path = env[name];
    if (typeof path !== "string") return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      problems.push(`${name}=${JSON.stringify(path)}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return undefined;
    }
  };
  const tls = { ca: read("PULSAR_TLS_CA_FILE"), cert: read("PULSAR_TLS_CERT_FILE"), key: read("PULSAR_TLS_KEY_FILE") };
  const tokenFile = env.PULSAR_AUTH_TOKEN_FILE;
  if (tokenFile) read("PULSAR_AUTH_TOKEN_FILE");
  const oauth2 = oauth2Source(env, problems, logger);
  if (problems.length > 0) throw new EnvError(problems);
  return {
    kind,
    serviceUrl: env.PULSAR_SERVICE_URL ?? DEFAULT_SERVICE_URL,
    webServiceUrl: env.PULSAR_WEB_URL ?? DEFAULT_WEB_URL,
    // A token file is read again at every connection, so a rotated token is picked up without a restart.
    authToken: oauth2
      ? (hint?: AuthTokenHint) => oauth2.token(hint)
      : (env.PULSAR_AUTH_TOKEN ?? (tokenFile ? () => readFileSync(tokenFile, "utf8").trim() : undefined)),
    tls: { ...tls, rejectUnauthorized: env.PULSAR_TLS_VERIFY },
    receiverQueueSize: env.PULSAR_RECEIVER_QUEUE_SIZE,
  };
}

/**
 * The OAuth2 token source PULSAR_OAUTH2_* describe, or undefined when they are unset. The key file is read
 * now, so a missing or malformed one stops the service at start; its problems go to `problems`.
 */
function oauth2Source(env: PulsarEnv, problems: string[], logger: Logger | undefined): OAuth2TokenSource | undefined {
  const issuerUrl = env.PULSAR_OAUTH2_ISSUER_URL;
  const privateKey = env.PULSAR_OAUTH2_PRIVATE_KEY;
  const others = env.PULSAR_OAUTH2_AUDIENCE !== undefined || env.PULSAR_OAUTH2_SCOPE !== undefined;
  if (!issuerUrl && !privateKey) {
    if (others)
      problems.push("PULSAR_OAUTH2_ISSUER_URL: PULSAR_OAUTH2_AUDIENCE and PULSAR_OAUTH2_SCOPE need the issuer and the key file too");
    return undefined;
  }
  if (!issuerUrl || !privateKey) {
    problems.push("PULSAR_OAUTH2_PRIVATE_KEY: OAuth2 needs both PULSAR_OAUTH2_ISSUER_URL and PULSAR_OAUTH2_PRIVATE_KEY (the key file)");
    return undefined;
  }
  if (env.PULSAR_AUTH_TOKEN || env.PULSAR_AUTH_TOKEN_FILE) {
    problems.push("PULSAR_OAUTH2_ISSUER_URL: give either a token (PULSAR_AUTH_TOKEN or PULSAR_AUTH_TOKEN_FILE) or OAuth2, not both");
    return undefined;
  }
  try {
    readOAuth2KeyFile(privateKey);
  } catch (err) {
    problems.push(`PULSAR_OAUTH2_PRIVATE_KEY: ${(err as Error).message}`);
    return undefined;
  }
  return new OAuth2TokenSource({
    issuerUrl,
    privateKey,
    audience: env.PULSAR_OAUTH2_AUDIENCE,
    scope: env.PULSAR_OAUTH2_SCOPE,
    logger: logger?.child({ component: "pulsar-oauth2" }),
  });
}
