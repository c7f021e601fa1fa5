import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, ServiceProcess, useBroker, brokerEnv, type Broker } from "@toolmesh/test-support";

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a gateway answered a POST: its status and body (a tool service's list of replies: the last one). */
export interface GatewayReply {
  status: number;
  body: Record<string, unknown>;
}

/** POST `body` to `gatewayUrl`'s /api/v1/`path`, given up after `timeoutMs`. */
export async function postToGateway(gatewayUrl: string, path: string, body: unknown, timeoutMs: number): Promise<GatewayReply> {
  const response = await fetch(`${gatewayUrl}/api/v1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const reply = (await response.json()) as Record<string, unknown> | Array<Record<string, unknown>>;
  return { status: response.status, body: Array.isArray(reply) ? reply.at(-1)! : reply };
}

/** The whole system as operators run it: every service its own process on the real broker. */
export class System {
  readonly services = new Map<string, ServiceProcess>();
  readonly dataDir = mkdtempSync(join(tmpdir(), "toolmesh-e2e-"));
  broker: Broker = { webServiceUrl: "", serviceUrl: "" };

  async start(names: Array<[name: string, env?: Record<string, string>]>): Promise<void> {
    this.broker = await useBroker();
    // Config first: every other service is ready only once it has loaded config. Then the rest at once.
    const [first, rest] = names[0]?.[0] === "config" ? [names.slice(0, 1), names.slice(1)] : [[], names];
    for (const [name, env] of first) await this.add(name, name, env);
    await Promise.all(rest.map(([name, env]) => this.add(name, name, env)));
  }

  /** Starts one more process (e.g. a second replica) under its own label. */
  async add(label: string, service: string, env: Record<string, string> = {}, dir?: string): Promise<ServiceProcess> {
    const process = await ServiceProcess.start({
      service,
      ...(dir ? { dir } : {}),
      env: {
        ...brokerEnv(this.broker),
        CONFIG_DATA_DIR: join(this.dataDir, "config"),
        REGISTRY_DATA_DIR: join(this.dataDir, "registry"),
        AGENT_DATA_DIR: join(this.dataDir, "agent"),
        ...env,
      },
    });
    this.services.set(label, process);
    return process;
  }

  get(label: string): ServiceProcess {
    const service = this.services.get(label);
    if (!service) throw new Error(`no service '${label}' in this system`);
    return service;
  }

  get gatewayUrl(): string {
    return this.get("api-gateway").url;
  }

  /** Runs the built `tg` CLI against this system's gateway. */
  async tg(...args: string[]): Promise<CliResult> {
    const main = resolve(REPO_ROOT, "packages/cli/dist/main.js");
    try {
      const { stdout, stderr } = await run(process.execPath, [main, ...args], {
        env: {
          ...process.env,
          TG_URL: this.gatewayUrl,
          ...(this.services.has("mcp-server") ? { TG_MCP_URL: `${this.get("mcp-server").url}/mcp` } : {}),
        },
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  }

  /** POST /api/v1/flow/default/service/{service}. */
  async call(service: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${this.gatewayUrl}/api/v1/flow/default/service/${service}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.stop()));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
