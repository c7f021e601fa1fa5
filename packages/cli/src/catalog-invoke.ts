import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CliError } from "./errors.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/**
 * Calls a catalog tool (one a tool service announced, or a tool source offers) the way an agent outside
 * reaches the catalog: tools/call on toolmesh's MCP endpoint, which invokes the tool's binding. The text
 * parts of the result, joined; a tool error is a CliError with the tool's own message.
 */
export async function invokeCatalogTool(
  endpoint: { url: URL; token: string | undefined },
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const headers = endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : undefined;
  const client = new Client({ name: "tg", version });
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint.url, headers ? { requestInit: { headers } } : undefined));
  } catch (err) {
    throw new CliError(`cannot reach the MCP endpoint ${endpoint.url.href} to call catalog tool '${name}': ${(err as Error).message}`);
  }
  try {
    const result = await client.callTool({ name, arguments: args });
    const parts = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
    const text = parts.map((part) => (part.type === "text" ? (part.text ?? "") : JSON.stringify(part))).join("");
    if (result.isError) throw new CliError(`tool '${name}': ${text}`);
    return text;
  } finally {
    await client.close();
  }
}
