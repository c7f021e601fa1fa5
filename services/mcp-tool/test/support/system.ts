import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigResponse, type ConfigRequestWire, McpToolResponse } from "@toolmesh/schema";
import { ServiceProcess, useBroker, waitFor, brokerEnv, clientOptions, serviceTopics } from "@toolmesh/test-support";

/** The variable the `mcp` entries of tokenEntry read their token from: start the system with it set. */
export const TOKEN_VAR = "MCP_TEST_TOKEN";

/** An `mcp` entry for `tool` on the server at `url`, sending the token in TOKEN_VAR (`extra` overrides). */
export const tokenEntry = (url: string, tool: string, extra: Record<string, unknown> = {}) => ({
  url,
  "remote-name": tool,
  "auth-token": `\${env:${TOKEN_VAR}}`,
  ...extra,
});

/**
 * The real config service and the mcp-tool service as processes on the real broker, and Pulsar clients
 * for both. The mcp-tool service gets a topic of its own, so no other test's process answers.
 */
export class McpToolSystem {
  private constructor(
    readonly config: ServiceProcess,
    readonly mcpTool: ServiceProcess,
    private readonly pulsar: PulsarClient,
    private readonly configClient: RequestClient<typeof ConfigResponse>,
    private readonly mcpClient: RequestClient<typeof McpToolResponse>,
    private readonly dataDir: string,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<McpToolSystem> {
    const broker = await useBroker();
    const dataDir = mkdtempSync(join(tmpdir(), "mcp-tool-config-"));
    const topic = `mcp-tool-${randomUUID().slice(0, 8)}`;
    const config = await ServiceProcess.start({ service: "config", env: { ...brokerEnv(broker), CONFIG_DATA_DIR: dataDir } });
    const mcpTool = await ServiceProcess.start({ service: "mcp-tool", env: { ...brokerEnv(broker), MCP_TOOL_TOPIC: topic, ...env } });
    const pulsar = new PulsarClient(clientOptions(broker));
    const configClient = await RequestClient.create(pulsar, {
      ...serviceTopics("config"),
      responseSchema: ConfigResponse,
      timeoutMs: 10_000,
    });
    const mcpClient = await RequestClient.create(pulsar, {
      ...serviceTopics(topic),
      responseSchema: McpToolResponse,
      timeoutMs: 30_000,
    });
    return new McpToolSystem(config, mcpTool, pulsar, configClient, mcpClient, dataDir);
  }

  async stop(): Promise<void> {
    await this.mcpClient.close();
    await this.configClient.close();
    await this.pulsar.close();
    await this.mcpTool.stop();
    await this.config.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Sends a raw mcp-tool request body (as a TrustGraph peer would) and returns the reply. */
  request(body: unknown): Promise<McpToolResponse> {
    return this.mcpClient.request(body);
  }

  /** `{name, parameters: JSON string}`, the seed-003 request. */
  call(name: string, parameters: Record<string, unknown> = {}): Promise<McpToolResponse> {
    return this.request({ name, parameters: JSON.stringify(parameters) });
  }

  listTools(name: string): Promise<McpToolResponse> {
    return this.request({ name, operation: "list-tools" });
  }

  /** Puts `mcp` entries and waits until the mcp-tool service has loaded that config version. */
  async putMcp(entries: Record<string, Record<string, unknown>>): Promise<void> {
    const values = Object.entries(entries).map(([key, value]) => ({ type: "mcp", key, value: JSON.stringify(value) }));
    await this.changeConfig({ operation: "put", values });
  }

  async deleteMcp(...keys: string[]): Promise<void> {
    await this.changeConfig({ operation: "delete", keys: keys.map((key) => ({ type: "mcp", key })) });
  }

  /** A sample of a Prometheus metric from the mcp-tool service, matched by label values (0 when absent). */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${this.mcpTool.url}/metrics`)).text();
    const line = text
      .split("\n")
      .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line ? Number(line.split(" ").pop()) : 0;
  }

  async readyStatus(): Promise<number> {
    return (await fetch(`${this.mcpTool.url}/readyz`)).status;
  }

  private async changeConfig(request: ConfigRequestWire): Promise<void> {
    const reply = await this.configClient.request(request);
    if (reply.error) throw new Error(`config ${request.operation} failed: ${reply.error.type}: ${reply.error.message}`);
    const version = reply.version!;
    // The service logs every config version it loads; waiting on the log keeps the check free of side effects.
    await waitFor(() => this.loadedVersions().some((v) => v >= version), {
      timeoutMs: 15_000,
      description: `mcp-tool to load config version ${version}`,
    });
  }

  private loadedVersions(): number[] {
    const versions: number[] = [];
    for (const line of this.mcpTool.logs.split("\n")) {
      if (!line.includes('"config loaded"')) continue;
      try {
        const entry = JSON.parse(line) as { version?: number };
        if (typeof entry.version === "number") versions.push(entry.version);
      } catch {
        // a partial line still being written
      }
    }
    return versions;
  }
}
