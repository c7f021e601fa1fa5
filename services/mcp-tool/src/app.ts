import type { ServiceRuntime } from "@toolmesh/base";
import { ConfigType, ErrorType, McpDescriptor, type McpToolResponse, requestSubscription } from "@toolmesh/schema";
import type { McpToolEnv } from "./env.js";
import { McpToolServiceRequest, createMcpToolHandler } from "./handlers/mcp-tool-request.js";
import { McpEntries } from "./mcp-entries.js";
import { SessionMetrics } from "./metrics.js";
import { McpSessionPool } from "./sessions.js";

export const SERVICE_ID = "mcp-tool";
/** How long a request that arrives before the first config load waits for it. */
const CONFIG_WAIT_MS = 5_000;

/** The MCP-tool gateway: `mcp` config entries -> pooled sessions to remote MCP servers, served on MCP_TOOL_TOPIC. */
export async function buildMcpTool(runtime: ServiceRuntime, env: McpToolEnv): Promise<{ pool: McpSessionPool }> {
  const pool = new McpSessionPool({
    connectTimeoutMs: env.MCP_CONNECT_TIMEOUT_MS,
    callTimeoutMs: env.MCP_CALL_TIMEOUT_MS,
    logger: runtime.logger.child({ component: "mcp-sessions" }),
    metrics: new SessionMetrics(runtime.metrics.registry),
  });
  runtime.onShutdown(() => pool.close());

  const entries = new McpEntries();
  const view = runtime.configView([ConfigType.mcp]);
  view.onChange((_snapshot, version) => {
    const parsed = view.parsed(ConfigType.mcp, McpDescriptor);
    for (const { key, reason } of parsed.invalid) runtime.logger.warn({ key, reason, version }, "ignored invalid mcp config entry");
    entries.replace(parsed);
    // A changed url, token or header gives an entry a new session key; sessions nobody uses any more close.
    void pool.retain(entries.sessionKeys(process.env));
  });
  runtime.onShutdown(() => view.close());
  await view.start();

  const configLoaded = async (): Promise<boolean> => {
    if (view.ready) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CONFIG_WAIT_MS)));
    const loaded = await Promise.race([view.whenReady().then(() => true), late]);
    clearTimeout(timer);
    return loaded;
  };

  await runtime.serve({
    // MCP_TOOL_TOPIC (BaseEnv): the agent, the gateway and the MCP face call the same name.
    ...runtime.topics.mcpTool,
    subscription: requestSubscription(SERVICE_ID),
    requestSchema: McpToolServiceRequest,
    errorType: ErrorType.mcpToolError,
    concurrency: env.MCP_CONCURRENCY,
    errorReply: (error): McpToolResponse => ({ error, text: null, object: null }),
    handler: createMcpToolHandler({ lookup: (name) => entries.get(name), pool, configLoaded, env: process.env }),
  });
  return { pool };
}
