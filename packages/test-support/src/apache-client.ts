import { type PythonRun, runPythonScript } from "./python-run.js";

export interface ApacheClientOptions {
  /** `pulsar://…` or `pulsar+ssl://…` (a broker or a proxy). */
  url: string;
  topic: string;
  token?: string;
  /**
   * OAuth2 client credentials instead of a token: the client fetches its own access token from the issuer
   * (`AuthenticationOauth2`; `credentialsFile` is a Pulsar key file with client_id / client_secret).
   */
  oauth2?: { issuerUrl: string; credentialsFile: string; audience?: string; scope?: string };
  /** PEM file of the CA that signed the broker's certificate. */
  ca?: string;
  /** Messages `message-<i>` with property `i` (default 3). */
  count?: number;
  subscription?: string;
  timeoutMs?: number;
}

export interface ApacheMessage {
  payload: string;
  properties: Record<string, string>;
}

/** What apache_client.py printed last: `ok` with what it sent and received, or the client's error. */
export interface ApacheClientResult {
  ok: boolean;
  error?: string;
  sent?: string[];
  received?: ApacheMessage[];
}

export type ApacheClientMode = "roundtrip" | "consume" | "produce";

/**
 * Apache's official client (C++, through PyPI's pulsar-client; packages/test-support/python/apache_client.py)
 * as a peer: `roundtrip` subscribes, produces and receives; `consume` subscribes, reports ready, then
 * receives; `produce` sends. The result is what the client reported, failures included.
 */
export function apacheClient(mode: ApacheClientMode, options: ApacheClientOptions): PythonRun<ApacheClientResult> {
  const args = [mode, "--url", options.url, "--topic", options.topic, "--count", String(options.count ?? 3)];
  if (options.token !== undefined) args.push("--token", options.token);
  if (options.oauth2) {
    const { issuerUrl, credentialsFile, audience, scope } = options.oauth2;
    args.push("--oauth2", JSON.stringify({ issuer_url: issuerUrl, private_key: `file://${credentialsFile}`, audience, scope }));
  }
  if (options.ca) args.push("--ca", options.ca);
  if (options.subscription) args.push("--subscription", options.subscription);
  if (options.timeoutMs) args.push("--timeout-ms", String(options.timeoutMs));
  return runPythonScript<ApacheClientResult>("pulsar", "apache_client.py", args, { announcesReady: mode === "consume" });
}
