import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ServiceRuntime } from "@toolmesh/base";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigResponse, requestTopic, responseTopic } from "@toolmesh/schema";
import { ServiceProcess, waitFor } from "@toolmesh/test-support";
import { BenchTool, benchRuntime } from "../bench-tool.js";
import { benchAnswer, benchArgs } from "../workload.js";
import { profileEnv } from "./gateway-system.js";
import type { BenchContext, CallTarget } from "./types.js";

const TOOL = "bench-call";

export interface McpCallTarget extends CallTarget {
  /** The mcp-server process (its CPU is shown in the `gateway` column). */
  serverPid: number | undefined;
}

/**
 * MCP `tools/call` through the real mcp-server process (config and tool-registry as processes too, so the
 * tool comes from a real catalog revision), by one MCP TypeScript SDK client session shared by every
 * worker; the trivial tool runs in this process as in `tool-call`. The mcp-server logs at info, as it runs
 * in production: its one log line per call is part of what is measured.
 */
export async function startMcpCall(ctx: BenchContext): Promise<McpCallTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-bench-mcp-"));
  const base = { PULSAR_WEB_URL: ctx.webServiceUrl, LOG_LEVEL: "warn" };
  const processes: ServiceProcess[] = [];
  let runtime: ServiceRuntime | undefined;
  let pulsar: PulsarClient | undefined;
  let client: Client | undefined;
  const stop = async () => {
    await client?.close();
    await pulsar?.close();
    for (const p of processes.reverse()) await p.stop();
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const start = async (service: string, env: Record<string, string>) => {
      const p = await ServiceProcess.start({ service, env: { ...base, ...env } });
      processes.push(p);
      return p;
    };
    await start("config", { CONFIG_DATA_DIR: join(dataDir, "config") });
    const registry = await start("tool-registry", { REGISTRY_DATA_DIR: join(dataDir, "registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" });
    runtime = benchRuntime(ctx.webServiceUrl, "bench-mcp-tools");
    const tool = new BenchTool();
    await tool.start(runtime, { announce: false });

    pulsar = new PulsarClient({ webServiceUrl: ctx.webServiceUrl });
    const config = await RequestClient.create(pulsar, { requestTopic: requestTopic("config"), responseTopic: responseTopic("config"), responseSchema: ConfigResponse, timeoutMs: 10_000 });
    const value = (type: string, key: string, body: object) => ({ type, key, value: JSON.stringify(body) });
    const put = await config.request({
      operation: "put",
      values: [
        value("tool-service", tool.id, { id: tool.id, topic: tool.topic }),
        value("tool", TOOL, { type: "tool-service", name: TOOL, service: tool.id, arguments: [{ name: "n", type: "integer" }, { name: "q", type: "string" }] }),
      ],
    });
    await config.close();
    if (put.error) throw new Error(`descriptor put failed: ${put.error.message}`);
    await waitFor(
      async () => {
        const catalog = (await (await fetch(`${registry.url}/tools/catalog`)).json()) as { tools?: Array<{ name: string }> };
        return catalog.tools?.some((t) => t.name === TOOL);
      },
      { timeoutMs: 20_000, intervalMs: 200, description: "a catalog revision with the bench tool" },
    );
    const server = await start("mcp-server", { LOG_LEVEL: "info", ...profileEnv(ctx, "mcp-server") });
    client = new Client({ name: "toolmesh-bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const session = client;
    return {
      serverPid: server.pid,
      async call(i) {
        const args = benchArgs(i);
        const result = await session.callTool({ name: TOOL, arguments: { ...args } });
        const text = (result.content as Array<{ text?: string }>)[0]?.text;
        if (result.isError || text !== benchAnswer(args)) throw new Error(`MCP call ${i}: unexpected result ${JSON.stringify(result).slice(0, 200)}`);
      },
      close: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
