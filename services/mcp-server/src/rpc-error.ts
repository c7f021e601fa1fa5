/**
 * A JSON-RPC error a request handler throws for the SDK to send as it is: the SDK sends any thrown error's
 * numeric `code`, `message` and `data`. (Its McpError writes "MCP error <code>: " into the message itself,
 * so clients showed "MCP error -32602: MCP error -32602: unknown tool ...".)
 */
export class RpcError extends Error {
  override name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
    readonly data: { type: string },
  ) {
    super(message);
  }
}
