import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repo root, from src/ or dist/ alike. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const START_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/start.sh");
const STOP_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/stop.sh");

export interface Broker {
  /** e.g. http://127.0.0.1:8080: admin REST and the WebSocket API (`ws://.../ws/v2`). */
  webServiceUrl: string;
}

const NAMESPACES = ["request", "response", "notify", "flow"];

/** Creates tenant and namespaces unless they exist (the local start script makes `tg`; tests make their own). */
export async function ensureTenant(webServiceUrl: string, tenant: string): Promise<void> {
  const put = async (path: string, body?: unknown) => {
    const response = await fetch(`${webServiceUrl}/admin/v2/${path}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok && response.status !== 409) throw new Error(`PUT ${path}: HTTP ${response.status} ${await response.text()}`);
  };
  await put(`tenants/${tenant}`, { allowedClusters: ["standalone"], adminRoles: [] });
  for (const ns of NAMESPACES) await put(`namespaces/${tenant}/${ns}`);
}

/** The broker's binary-protocol URL (`pulsar://host:port`), as its cluster record says, for peers that speak it. */
export async function brokerServiceUrl(webServiceUrl: string): Promise<string> {
  const response = await fetch(`${webServiceUrl}/admin/v2/clusters/standalone`);
  if (!response.ok) throw new Error(`GET ${webServiceUrl}/admin/v2/clusters/standalone: HTTP ${response.status}`);
  const url = ((await response.json()) as { brokerServiceUrl?: string }).brokerServiceUrl;
  if (!url) throw new Error(`cluster 'standalone' at ${webServiceUrl} names no brokerServiceUrl`);
  return url;
}

/** True when the broker answers and tenant `tg` has its namespaces. */
export async function brokerReady(webServiceUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${webServiceUrl}/admin/v2/namespaces/tg`, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return false;
    const namespaces = (await response.json()) as string[];
    return namespaces.includes("tg/request") && namespaces.includes("tg/response");
  } catch {
    return false;
  }
}

function runScript(script: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (!existsSync(script)) return reject(new Error(`missing ${script}`));
    const child = spawn("bash", [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${script} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/**
 * The test broker: its own instance (`.pulsar/test`, web port 18080), apart from the development broker
 * on 8080, so a running dev system (with its own config service on the fixed `config` topic) never
 * answers a test's requests.
 */
export const TEST_BROKER = {
  home: resolve(REPO_ROOT, ".pulsar/test"),
  webPort: 18080,
  brokerPort: 16650,
  bookiePort: 13181,
} as const;

/**
 * The broker the tests use. PULSAR_WEB_URL given: used as is (and must be up). Otherwise the test broker,
 * started from infra/pulsar when it is not running; the README's test command starts it beforehand and
 * stops it afterwards, so this only starts one when a package's tests run alone. The tenant named by
 * TOOLMESH_TENANT (each test file gets its own, see tenant-setup.ts) is created here.
 */
export async function useBroker(): Promise<Broker> {
  const given = process.env.PULSAR_WEB_URL;
  let webServiceUrl: string;
  if (given) {
    if (!(await brokerReady(given))) throw new Error(`PULSAR_WEB_URL=${given} is not a ready Pulsar broker (tenant tg missing or unreachable)`);
    webServiceUrl = given;
  } else {
    const instance = new BrokerInstance(TEST_BROKER);
    if (!(await brokerReady(instance.webServiceUrl))) await instance.start();
    if (!(await brokerReady(instance.webServiceUrl))) throw new Error(`started the test broker but ${instance.webServiceUrl} is not ready`);
    webServiceUrl = instance.webServiceUrl;
  }
  const tenant = process.env.TOOLMESH_TENANT;
  if (tenant && tenant !== "tg") await ensureTenant(webServiceUrl, tenant);
  return { webServiceUrl };
}

export interface BrokerInstanceOptions {
  /** Instance folder (data, logs, pid); separate from the shared broker's. */
  home: string;
  webPort: number;
  brokerPort: number;
  bookiePort: number;
}

/**
 * A second, private broker for tests that stop and restart it (reconnect tests), so the shared broker
 * other tests use is never disturbed.
 */
export class BrokerInstance implements Broker {
  readonly webServiceUrl: string;
  constructor(private readonly options: BrokerInstanceOptions) {
    this.webServiceUrl = `http://127.0.0.1:${options.webPort}`;
  }

  private get env(): NodeJS.ProcessEnv {
    return {
      PULSAR_HOME: this.options.home,
      PULSAR_WEB_PORT: String(this.options.webPort),
      PULSAR_BROKER_PORT: String(this.options.brokerPort),
      PULSAR_BOOKIE_PORT: String(this.options.bookiePort),
    };
  }

  start(): Promise<void> {
    return runScript(START_SCRIPT, this.env);
  }

  stop(): Promise<void> {
    return runScript(STOP_SCRIPT, this.env);
  }
}
