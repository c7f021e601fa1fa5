import type { z } from "zod";
import { SpanKind, TraceAttr, traced } from "@toolmesh/base";
import type { RequestContext } from "@toolmesh/pulsar";
import { ErrorType, McpToolRequest, type McpToolResponse, ServiceError } from "@toolmesh/schema";
import { McpServerError } from "../mcp-errors.js";
import type { McpEntryLookup } from "../mcp-entries.js";
import { toWireReply } from "../result.js";
import { McpConfigError, type McpServerTarget, remoteToolName, resolveServer } from "../server-config.js";
import type { McpSessionPool } from "../sessions.js";

/** The seed-003 request with toolmesh's optional `operation` ("call" or "list-tools"); see the schema. */
export const McpToolServiceRequest = McpToolRequest;
export type McpToolServiceRequest = z.output<typeof McpToolServiceRequest>;

export interface McpToolHandlerDeps {
  lookup: (name: string) => McpEntryLookup;
  pool: McpSessionPool;
  /** Resolves once config is loaded, false when it did not load in time. */
  configLoaded: () => Promise<boolean>;
  /** Where `${env:NAME}` references are looked up (the live process environment). */
  env?: NodeJS.ProcessEnv;
}

const mcpError = (message: string) => new ServiceError(ErrorType.mcpToolError, message);

/** Answers one mcp-tool request: the `mcp` entry `name` says which server and remote tool. */
export function createMcpToolHandler({ lookup, pool, configLoaded, env = process.env }: McpToolHandlerDeps) {
  const targetFor = async (name: string): Promise<{ target: McpServerTarget; remote: string }> => {
    if (!(await configLoaded())) throw mcpError("the mcp-tool service has not loaded its config yet (is the config service running?)");
    const entry = lookup(name);
    if (!entry) throw mcpError(`no mcp tool '${name}' in config`);
    if ("problem" in entry) throw mcpError(`mcp tool '${name}' has an invalid config entry: ${entry.problem}`);
    try {
      return { target: resolveServer(name, entry.descriptor, env), remote: remoteToolName(name, entry.descriptor) };
    } catch (err) {
      if (err instanceof McpConfigError) throw mcpError(err.message);
      throw err;
    }
  };

  /** A call the server refused: when the tool is simply not there, say so and list what is. */
  const missingTool = async (
    target: McpServerTarget,
    name: string,
    remote: string,
    deadline: number,
  ): Promise<ServiceError | undefined> => {
    const tools = await pool.listTools(target, deadline).catch(() => undefined);
    if (!tools || tools.some((tool) => tool.name === remote)) return undefined;
    const offered = tools.map((tool) => tool.name);
    const shown = offered.length > 20 ? `${offered.slice(0, 20).join(", ")}, ...` : offered.join(", ") || "none";
    return mcpError(`MCP server at ${target.label} has no tool '${remote}' (mcp tool '${name}'); it offers: ${shown}`);
  };

  return async (request: McpToolServiceRequest, context?: Pick<RequestContext, "trace">): Promise<McpToolResponse> => {
    // One budget (MCP_CALL_TIMEOUT_MS) for everything this request does, so that mcp-tool answers with
    // "did not answer within" before whoever waits for it (the api-gateway, the agent) gives up.
    const deadline = pool.deadline();
    context?.trace.set({ [TraceAttr.tool]: request.name });
    const { target, remote } = await targetFor(request.name);
    if (request.operation === "list-tools") {
      return { error: null, text: null, object: JSON.stringify(await pool.listTools(target, deadline)) };
    }
    let reply: McpToolResponse;
    try {
      // The remote MCP server's HTTP call, in a span of its own (server without credentials, remote tool name).
      const attributes = { [TraceAttr.tool]: request.name, "toolmesh.mcp.remote_name": remote, "server.address": target.label };
      reply = toWireReply(
        await traced("mcp call", { kind: SpanKind.CLIENT, attributes, parent: context?.trace.context }, (scope) =>
          pool.callTool(target, remote, request.parameters, deadline, scope.context),
        ),
      );
    } catch (err) {
      if (err instanceof McpServerError && err.kind === "rejected")
        throw (await missingTool(target, request.name, remote, deadline)) ?? err;
      throw err;
    }
    if (reply.error) {
      // Thrown rather than returned, so the request counts as failed in the metrics; same wire reply.
      throw (await missingTool(target, request.name, remote, deadline)) ?? mcpError(reply.error.message);
    }
    return reply;
  };
}
