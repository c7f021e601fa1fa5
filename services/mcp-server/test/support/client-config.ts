import { resolve } from "node:path";
import { REPO_ROOT } from "@toolmesh/test-support";

/**
 * The MCP client configuration README.md tells users to paste (`mcpServers`, as Claude Desktop, Claude Code,
 * Cursor and the MCP Inspector read it), with this test system's URL and token filled in.
 */
export function clientConfig(mcpUrl: string, token: string) {
  return {
    mcpServers: {
      toolmesh: {
        type: "http",
        url: `${mcpUrl}?revision=latest`,
        headers: { Authorization: `Bearer ${token}` },
      },
      "toolmesh-stdio": {
        command: "node",
        args: [resolve(REPO_ROOT, "packages/cli/dist/main.js"), "mcp"],
        env: { TG_MCP_URL: `${mcpUrl}?revision=latest`, TG_TOKEN: token },
      },
    },
  };
}
