import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigResponse, ToolRegistryResponse } from "@toolmesh/schema";
import { EverythingServer, ServiceProcess, useBroker, waitFor, serviceTopics } from "@toolmesh/test-support";

export const TOKEN = "mcp-test-token-0123456789";
/** The tools every system has: joke-service's announced manifest, and server-everything's echo via mcp-tool. */
export const JOKE_TOOLS = ["tell-dad-joke", "tell-one-liner", "tell-pun"];
export const ECHO_TOOL = "everything-echo";

/**
 * The whole system as operators run it: config, tool-registry, joke-service (announcing its tools),
 * mcp-tool and mcp-server as processes on the real broker (in this test file's tenant), server-everything
 * as the remote MCP server behind an `mcp-tool` tool, and Pulsar clients for config and the registry.
 */
export class McpSystem {
  readonly dataDir = mkdtempSync(join(tmpdir(), "mcp-server-test-"));
  readonly processes = new Map<string, ServiceProcess>();
  everything!: EverythingServer;
  pulsar!: PulsarClient;
  config!: RequestClient<typeof ConfigResponse>;
  registry!: RequestClient<typeof ToolRegistryResponse>;
  webServiceUrl = "";

  async start(mcpServerEnv: Record<string, string> = {}): Promise<void> {
    this.webServiceUrl = (await useBroker()).webServiceUrl;
    // Config first: the others are ready only once they have loaded config. Then the rest at once.
    [this.everything] = await Promise.all([
      EverythingServer.start("streamableHttp"),
      this.add("config", { CONFIG_DATA_DIR: join(this.dataDir, "config") }),
    ]);
    await Promise.all([
      this.add("tool-registry", { REGISTRY_DATA_DIR: join(this.dataDir, "registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" }),
      this.add("joke-service"),
      this.add("mcp-tool"),
    ]);
    this.pulsar = new PulsarClient({ webServiceUrl: this.webServiceUrl });
    const client = <S extends Parameters<typeof RequestClient.create>[1]["responseSchema"]>(name: string, responseSchema: S) =>
      RequestClient.create(this.pulsar, {
        ...serviceTopics(name),
        responseSchema,
        timeoutMs: 15_000,
      });
    this.config = await client("config", ConfigResponse);
    this.registry = await client("tool-registry", ToolRegistryResponse);
    await this.putConfig([
      { type: "mcp", key: "everything", value: { url: this.everything.url, "remote-name": "echo" } },
      {
        type: "tool",
        key: ECHO_TOOL,
        value: {
          type: "mcp-tool",
          name: ECHO_TOOL,
          "mcp-tool": "everything",
          description: "Echoes a message (server-everything)",
          arguments: [{ name: "message", type: "string", description: "what to echo" }],
        },
      },
    ]);
    await this.waitForTools([...JOKE_TOOLS, ECHO_TOOL]);
    await this.add("mcp-server", { GATEWAY_TOKEN: TOKEN, MCP_CALL_TIMEOUT_MS: "3000", ...mcpServerEnv });
  }

  async add(service: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const process = await ServiceProcess.start({ service, env: { PULSAR_WEB_URL: this.webServiceUrl, ...env } });
    this.processes.set(service, process);
    return process;
  }

  get mcpUrl(): string {
    return `${this.processes.get("mcp-server")!.url}/mcp`;
  }

  async putConfig(values: Array<{ type: string; key: string; value: object }>): Promise<void> {
    const reply = await this.config.request({ operation: "put", values: values.map((v) => ({ ...v, value: JSON.stringify(v.value) })) });
    if (reply.error) throw new Error(reply.error.message);
  }

  /** Waits until the registry's current revision has every one of `names`; returns its number. */
  async waitForTools(names: string[]): Promise<number> {
    const revision = await waitFor(
      async () => {
        const reply = await this.registry.request({ operation: "current" });
        const have = new Set(reply.revision?.tools.map((t) => t.name));
        return names.every((n) => have.has(n)) ? reply.revision : undefined;
      },
      { timeoutMs: 20_000, description: `a catalog revision with ${names.join(", ")}` },
    );
    return revision.revision_number;
  }

  async stop(): Promise<void> {
    await this.registry?.close();
    await this.config?.close();
    await this.pulsar?.close();
    await Promise.all([...this.processes.values()].map((p) => p.stop()));
    await this.everything?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
