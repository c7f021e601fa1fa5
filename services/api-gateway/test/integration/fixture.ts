import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pino from "pino";
import WebSocket from "ws";
import { DynamicToolService, ServiceRuntime, type ToolResult } from "@toolmesh/base";
import { REPO_ROOT, ServiceProcess, waitFor, brokerEnv, type Broker } from "@toolmesh/test-support";
import { type Gateway, buildGateway, createGatewayRuntime } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

const quiet = () => pino({ level: "silent" });
export const unique = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;

/** The real config service (services/config) on the fixed `config` topic, with a fresh data folder. */
export async function startConfigService(broker: Broker): Promise<{ stop: () => Promise<void> }> {
  const main = resolve(REPO_ROOT, "services/config/dist/main.js");
  await waitFor(() => existsSync(main), { timeoutMs: 60_000, intervalMs: 1_000, description: `${main} (build services/config first)` });
  const dataDir = mkdtempSync(join(tmpdir(), "gateway-test-config-"));
  const service = await ServiceProcess.start({ service: "config", env: { CONFIG_DATA_DIR: dataDir, ...brokerEnv(broker) } });
  return {
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RunningGateway {
  runtime: ServiceRuntime;
  gateway: Gateway;
}

/** The gateway in-process on port 0 (inject() needs no port; the socket tests listen). */
export async function startGateway(broker: Broker, env: Record<string, string> = {}): Promise<RunningGateway> {
  const parsed = loadEnv({ ...brokerEnv(broker), HTTP_PORT: "0", ...env });
  const runtime = createGatewayRuntime(parsed, quiet());
  const gateway = await buildGateway(runtime, parsed);
  await waitFor(() => gateway.config.ready && gateway.workspaceRegistry.ready, {
    timeoutMs: 30_000,
    description: "the gateway's config views to load",
  });
  return { runtime, gateway };
}

/** A tool service on its own topic, started on a runtime of its own. */
export class TestTool extends DynamicToolService {
  readonly id = unique("gateway-test-tool");
  readonly topic = unique("gateway-test");

  constructor(
    private readonly behaviour: (args: Record<string, unknown>, user: string) => Promise<ToolResult> | AsyncIterable<ToolResult>,
  ) {
    super();
  }

  invoke(user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    return this.behaviour(args, user);
  }
}

export const textTool = () => new TestTool(async (args, user) => `hello ${user}, about ${String(args.topic)}`);
export const streamTool = () =>
  new TestTool(async function* () {
    yield "one ";
    yield "two ";
    yield "three";
  });
export const brokenTool = () => new TestTool(() => Promise.reject(new Error("the tool broke")));

export async function startTools(broker: Broker, tools: TestTool[]): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime({
    name: "gateway-test-tools",
    env: loadEnv({ ...brokerEnv(broker), HTTP_PORT: "0" }),
    logger: quiet(),
  });
  for (const tool of tools) await tool.start(runtime);
  return runtime;
}

/** Stores a tool-service descriptor through the gateway itself, then waits until its config view has it. */
export function registerToolService(gw: RunningGateway, id: string, topic: string, headers: Record<string, string> = {}) {
  return registerDescriptor(gw, id, JSON.stringify({ id, topic }), headers);
}

export async function registerDescriptor(
  { runtime, gateway }: RunningGateway,
  id: string,
  value: string,
  headers: Record<string, string> = {},
) {
  const response = await runtime.http.inject({
    method: "POST",
    url: "/api/v1/flow/default/service/config",
    headers,
    payload: { operation: "put", values: [{ type: "tool-service", key: id, value }] },
  });
  if (response.statusCode !== 200 || response.json().error) throw new Error(`config put failed: ${response.body}`);
  await waitFor(() => gateway.config.values("tool-service")[id] !== undefined, {
    timeoutMs: 15_000,
    // Another config service on the same broker shares the `config` topic and answers from its own store.
    description: `descriptor ${id} in the gateway's view (is another config service running on this broker?)`,
  });
}

export const toolRequest = (args: Record<string, unknown> = {}, user = "alice") => ({
  user,
  config: "{}",
  arguments: JSON.stringify(args),
});

/** A WebSocket client that keeps every frame it receives. */
export class SocketClient {
  readonly frames: Array<Record<string, unknown>> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => this.frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  }

  static async connect(url: string, options: WebSocket.ClientOptions = {}): Promise<SocketClient> {
    const socket = new WebSocket(url, options);
    await new Promise<void>((resolveOpen, reject) => {
      socket.once("open", () => resolveOpen());
      socket.once("error", reject);
    });
    return new SocketClient(socket);
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** Frames for `id`, once the one marked complete has arrived. */
  async answer(id: unknown, timeoutMs = 15_000): Promise<Array<Record<string, unknown>>> {
    await waitFor(() => this.frames.some((f) => f.id === id && f.complete === true), {
      timeoutMs,
      description: `complete answer for ${String(id)}`,
    });
    return this.frames.filter((f) => f.id === id);
  }

  close(): void {
    this.socket.close();
  }
}
