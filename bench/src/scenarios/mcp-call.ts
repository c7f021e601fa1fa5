import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Pool } from "undici";
import type { ServiceRuntime } from "@toolmesh/base";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigResponse } from "@toolmesh/schema";
import { ServiceProcess, waitFor, requestTopic, responseTopic } from "@toolmesh/test-support";
import { BenchTool, benchRuntime } from "../bench-tool.js";
import { benchAnswer, benchArgs } from "../workload.js";
import { transportEnv } from "../transports.js";
import { profileEnv } from "./gateway-system.js";
import type { BenchContext, CallTarget } from "./types.js";

const TOOL = "bench-call";

export interface McpCallTarget extends CallTarget {
  /** The mcp-server process (its CPU is shown in the `gateway` column). */
  serverPid: number | undefined;
}

/**
 * MCP `tools/call` through the real mcp-server process (config and tool-registry as processes too, so the
 * tool comes from a real catalog revision); the trivial tool runs in this process as in `tool-call`. The
 * session is opened by the MCP TypeScript SDK client; the calls are then sent on it as plain Streamable
 * HTTP POSTs (JSON-RPC in, one SSE `message` event out) over keep-alive connections, as `gateway-rest`
 * does, because the SDK client's own CPU (about 1 ms a call) shares the two cores with the server and
 * would hide what the server costs. The mcp-server logs at info, as in production: its one log line per
 * call is part of what is measured.
 */
export async function startMcpCall(ctx: BenchContext): Promise<McpCallTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-bench-mcp-"));
  const base = { ...transportEnv(ctx, "binary"), LOG_LEVEL: "warn" };
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
    runtime = benchRuntime(ctx, "binary", "bench-mcp-tools");
    const tool = new BenchTool();
    await tool.start(runtime, { announce: false });

    pulsar = new PulsarClient({ webServiceUrl: ctx.webServiceUrl, serviceUrl: ctx.serviceUrl });
    const config = await RequestClient.create(pulsar, {
      requestTopic: requestTopic("config"),
      responseTopic: responseTopic("config"),
      responseSchema: ConfigResponse,
      timeoutMs: 10_000,
    });
    const value = (type: string, key: string, body: object) => ({ type, key, value: JSON.stringify(body) });
    const put = await config.request({
      operation: "put",
      values: [
        value("tool-service", tool.id, { id: tool.id, topic: tool.topic }),
        value("tool", TOOL, {
          type: "tool-service",
          name: TOOL,
          service: tool.id,
          arguments: [
            { name: "n", type: "integer" },
            { name: "q", type: "string" },
          ],
        }),
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
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
    const pool = new Pool(server.url, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": transport.sessionId!,
      "mcp-protocol-version": transport.protocolVersion!,
    };
    return {
      serverPid: server.pid,
      async call(i) {
        const args = benchArgs(i);
        const response = await pool.request({
          method: "POST",
          path: "/mcp",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: TOOL, arguments: args } }),
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const body = await response.body.text();
        const data = /^data: (.*)$/m.exec(body)?.[1];
        const reply = data
          ? (JSON.parse(data) as { id?: number; result?: { isError?: boolean; content?: Array<{ text?: string }> } })
          : undefined;
        if (
          response.statusCode !== 200 ||
          reply?.id !== i ||
          reply.result?.isError ||
          reply.result?.content?.[0]?.text !== benchAnswer(args)
        ) {
          throw new Error(`MCP call ${i}: HTTP ${response.statusCode} ${body.slice(0, 200)}`);
        }
      },
      close: async () => {
        await pool.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
