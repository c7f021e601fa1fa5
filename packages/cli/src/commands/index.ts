import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { registerAgent } from "./agent.js";
import { registerCatalogCommands } from "./catalog.js";
import { registerDeleteConfig } from "./delete-config.js";
import { registerDeleteMcpTool } from "./delete-mcp-tool.js";
import { registerDeleteTool } from "./delete-tool.js";
import { registerGetConfig } from "./get-config.js";
import { registerInvokeMcpTool } from "./invoke-mcp-tool.js";
import { registerInvokeTool } from "./invoke-tool.js";
import { registerListMcpTools } from "./list-mcp-tools.js";
import { registerListConfig } from "./list-config.js";
import { registerMcp } from "./mcp.js";
import { registerNewToolService } from "./new-tool-service.js";
import { registerPutConfig } from "./put-config.js";
import { registerSetMcpTool } from "./set-mcp-tool.js";
import { registerSetToolService } from "./set-tool-service.js";
import { registerSetTool } from "./set-tool.js";
import { registerShowMcpTools } from "./show-mcp-tools.js";
import { registerShowRun } from "./show-run.js";
import { registerShowTools } from "./show-tools.js";
import { registerToolSourceCommands } from "./tool-sources.js";

/** Every `tg` command, in the order `tg --help` lists them. */
export function registerCommands(program: Command, context: CliContext): void {
  for (const register of [
    registerPutConfig,
    registerGetConfig,
    registerListConfig,
    registerDeleteConfig,
    registerSetToolService,
    registerSetTool,
    registerShowTools,
    registerDeleteTool,
    registerInvokeTool,
    registerSetMcpTool,
    registerShowMcpTools,
    registerDeleteMcpTool,
    registerListMcpTools,
    registerInvokeMcpTool,
    registerAgent,
    registerShowRun,
    registerCatalogCommands,
    registerToolSourceCommands,
    registerMcp,
    registerNewToolService,
  ]) {
    register(program, context);
  }
}
