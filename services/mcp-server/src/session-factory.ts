import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { createToolsCallHandler } from "./handlers/tools-call.js";
import type { createToolsListHandler } from "./handlers/tools-list.js";
import type { SessionCatalog } from "./session-catalog.js";
import type { SessionRegistry } from "./sessions.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export interface SessionFactoryDeps {
  sessions: SessionRegistry;
  listTools: ReturnType<typeof createToolsListHandler>;
  callTool: ReturnType<typeof createToolsCallHandler>;
}

function instructions(catalog: SessionCatalog): string {
  const scope = catalog.group === null ? "toolmesh's tool catalog" : `toolmesh's tool group '${catalog.group}'`;
  return catalog.mode === "pinned"
    ? `${scope}, pinned to catalog revision ${catalog.revisionNumber}: the tool list never changes in this session.`
    : `${scope}, following the newest catalog revision (now ${catalog.revisionNumber}): tools/list_changed announces new revisions.`;
}

/**
 * A new session's SDK server and Streamable HTTP transport (stateful: the transport hands out the session
 * id). The session is registered once its initialize succeeds and forgotten when it closes. The SDK
 * negotiates the protocol version (its newest, or an older one the client asks for).
 */
export async function openSession(deps: SessionFactoryDeps, catalog: SessionCatalog): Promise<StreamableHTTPServerTransport> {
  const server = new Server(
    { name: "toolmesh", version },
    { capabilities: { tools: { listChanged: true } }, instructions: instructions(catalog) },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => deps.listTools(catalog, request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    deps.callTool(catalog, request.params, {
      sessionId: extra.sessionId,
      signal: extra.signal,
      progressToken: extra._meta?.progressToken,
      sendNotification: extra.sendNotification,
    }),
  );
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id): void => deps.sessions.add({ id, transport, server, catalog, lastUsed: Date.now(), openStreams: 0 }),
  });
  server.onclose = () => deps.sessions.remove(transport.sessionId);
  await server.connect(transport);
  return transport;
}
