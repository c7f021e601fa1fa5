import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./broker.js";
import { pythonPeer } from "./python-peer.js";

const SCRIPT = resolve(REPO_ROOT, "packages/test-support/python/apache_client.py");

export interface ApacheClientOptions {
  /** `pulsar://…` or `pulsar+ssl://…` (a broker or a proxy). */
  url: string;
  topic: string;
  token?: string;
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

export interface ApacheClientRun {
  /** Resolves once a `consume` run has subscribed (at once for the other modes). */
  ready: Promise<void>;
  result: Promise<ApacheClientResult>;
}

/**
 * Apache's official client (C++, through PyPI's pulsar-client; packages/test-support/python/apache_client.py)
 * as a peer: `roundtrip` subscribes, produces and receives; `consume` subscribes, reports ready, then
 * receives; `produce` sends. The result is what the client reported, failures included.
 */
export function apacheClient(mode: ApacheClientMode, options: ApacheClientOptions): ApacheClientRun {
  const args = [SCRIPT, mode, "--url", options.url, "--topic", options.topic, "--count", String(options.count ?? 3)];
  if (options.token !== undefined) args.push("--token", options.token);
  if (options.ca) args.push("--ca", options.ca);
  if (options.subscription) args.push("--subscription", options.subscription);
  if (options.timeoutMs) args.push("--timeout-ms", String(options.timeoutMs));
  const child = spawn(pythonPeer("pulsar"), args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  if (mode !== "consume") markReady();
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    if (line.includes('"ready"')) markReady();
  });
  const result = new Promise<ApacheClientResult>((resolveResult, reject) => {
    child.on("error", reject);
    child.on("close", () => {
      const last = lines.at(-1);
      try {
        resolveResult(JSON.parse(last ?? "") as ApacheClientResult);
      } catch {
        reject(new Error(`apache_client.py ${mode} printed no result:\n${lines.join("\n")}\n${stderr.slice(-2000)}`));
      }
    });
  });
  // A consumer that fails before it is ready must not leave the caller waiting for `ready`.
  void result.finally(markReady).catch(() => {});
  return { ready, result };
}
