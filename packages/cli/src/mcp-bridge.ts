import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, type JSONRPCMessage, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { McpHttpLink } from "./mcp-http-link.js";

export interface McpBridgeOptions {
  url: URL;
  token: string | undefined;
  /** Diagnostics (stdout carries the protocol). */
  log: (line: string) => void;
}

/**
 * An MCP stdio server that forwards every JSON-RPC message to toolmesh's Streamable HTTP endpoint and every
 * message from it back: the SDK's stdio server transport on one side, an McpHttpLink on the other (the SDK's
 * Streamable HTTP client transport, which keeps the session id and opens the server's notification stream,
 * plus a new session when the server has forgotten the old one). Messages pass through unchanged, so
 * whatever the client and server negotiate is what they get. A request the HTTP side cannot deliver is
 * answered with a JSON-RPC error carrying the reason.
 * Resolves when stdin closes.
 */
export async function runMcpBridge({ url, token, log }: McpBridgeOptions): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new McpHttpLink({
    url,
    token,
    log,
    onmessage: (message) => void stdio.send(message).catch((err: unknown) => log(`could not write to stdout: ${(err as Error).message}`)),
  });

  stdio.onmessage = (message: JSONRPCMessage) => {
    http.send(message).catch((err: unknown) => {
      const reason = (err as Error).message;
      log(`forwarding ${"method" in message ? message.method : "a reply"} failed: ${reason}`);
      if (isJSONRPCRequest(message)) {
        void stdio.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: `toolmesh MCP endpoint ${url.href}: ${reason}` },
        });
      }
    });
  };

  const closed = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await http.start();
  await stdio.start();
  log(`forwarding stdio to ${url.href}`);
  await closed;
  await http.close();
  await stdio.close();
}
