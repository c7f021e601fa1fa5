import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goPeer, pythonPeer, waitFor } from "@toolmesh/test-support";
import { clientConfig } from "../support/client-config.js";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js");
const DAD_CATS = "Why don't cats play poker in the jungle? Too many cheetahs.";
const ALL_TOOLS = [ECHO_TOOL, ...JOKE_TOOLS].sort();

const system = new McpSystem();
beforeAll(() => system.start(), 180_000);
afterAll(() => system.stop());

describe("the MCP TypeScript SDK client", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "sdk-client-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
  });
  afterAll(() => client?.close());

  it("negotiates the SDK's newest protocol version and lists the catalog", async () => {
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools, _meta } = await client.listTools();
    console.log("TS SDK tools/list:", tools.map((t) => t.name).join(", "), "| revision", _meta?.["io.toolmesh/catalog_revision"]);
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    const pun = tools.find((t) => t.name === "tell-pun")!;
    expect(pun.description).toBe("Tells a pun about a topic");
    expect(pun.inputSchema).toMatchObject({ type: "object", required: ["topic"], properties: { topic: { type: "string" } } });
  });

  it("calls a joke-service tool and an mcp-tool tool (server-everything)", async () => {
    const joke = await client.callTool({ name: "tell-dad-joke", arguments: { topic: "cats" } });
    console.log("TS SDK tools/call tell-dad-joke:", JSON.stringify(joke));
    expect(joke).toMatchObject({ content: [{ type: "text", text: DAD_CATS }] });
    expect(joke.isError).toBeFalsy();
    const echo = await client.callTool({ name: ECHO_TOOL, arguments: { message: "hello from the TS SDK" } });
    console.log(`TS SDK tools/call ${ECHO_TOOL}:`, JSON.stringify(echo));
    expect(echo).toMatchObject({ content: [{ type: "text", text: "Echo: hello from the TS SDK" }] });
  });
});

describe("the Python MCP SDK client (mcp 2.3.0)", () => {
  it("lists the catalog and calls a joke-service tool and an mcp-tool tool", async () => {
    const python = pythonPeer("mcp");
    const { stdout } = await run(
      python,
      [
        join(here, "../support/python_mcp_client.py"),
        system.mcpUrl,
        TOKEN,
        "tell-dad-joke",
        '{"topic": "cats"}',
        ECHO_TOOL,
        '{"message": "hello from Python"}',
      ],
      { timeout: 60_000 },
    );
    console.log("Python SDK:", stdout.trim());
    const out = JSON.parse(stdout) as {
      protocol_version: string;
      server: string;
      tools: string[];
      calls: Array<{ tool: string; is_error: boolean; text: string[] }>;
    };
    expect(out.server).toBe("toolmesh");
    expect(out.protocol_version).toBe(LATEST_PROTOCOL_VERSION);
    expect(out.tools).toEqual(ALL_TOOLS);
    expect(out.calls).toEqual([
      expect.objectContaining({ tool: "tell-dad-joke", is_error: false, text: [DAD_CATS] }),
      expect.objectContaining({ tool: ECHO_TOOL, is_error: false, text: ["Echo: hello from Python"] }),
    ]);
  });
});

describe("the Go MCP SDK client (go-sdk 1.8.0)", () => {
  it("falls back from its 2026-07-28 discovery to initialize, lists the catalog and calls both kinds of tool", async () => {
    // packages/test-support/go/mcp-client. The SDK first tries the stateless protocol's server/discover;
    // toolmesh answers it with an error (HTTP 400, method not found), and the SDK initializes at 2025-11-25.
    const { stdout } = await run(
      goPeer("mcp-client"),
      [system.mcpUrl, TOKEN, "tell-dad-joke", '{"topic": "cats"}', ECHO_TOOL, '{"message": "hello from Go"}'],
      { timeout: 60_000 },
    );
    console.log("Go SDK:", stdout.trim());
    const out = JSON.parse(stdout) as { protocol_version: string; server: string; tools: string[]; calls: unknown[] };
    expect(out.server).toBe("toolmesh");
    expect(out.protocol_version).toBe("2025-11-25");
    expect(out.tools).toEqual(ALL_TOOLS);
    expect(out.calls).toEqual([
      { tool: "tell-dad-joke", is_error: false, text: [DAD_CATS] },
      { tool: ECHO_TOOL, is_error: false, text: ["Echo: hello from Go"] },
    ]);
  });
});

describe("the MCP Inspector's CLI mode, configured with README's snippet", () => {
  let configFile = "";
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), "inspector-"));
    configFile = join(dir, "mcp.json");
    writeFileSync(configFile, JSON.stringify(clientConfig(system.mcpUrl, TOKEN), null, 2));
  });
  const inspector = async (server: string, ...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", "--config", configFile, "--server", server, ...args], {
      timeout: 60_000,
    });
    return stdout;
  };

  it.each(["toolmesh", "toolmesh-stdio"])("lists the catalog (%s)", async (server) => {
    const { tools } = JSON.parse(await inspector(server, "--method", "tools/list")) as { tools: Array<{ name: string }> };
    console.log(`Inspector (${server}) tools/list:`, tools.map((t) => t.name).join(", "));
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
  });

  it("calls a joke-service tool and an mcp-tool tool", async () => {
    const joke = JSON.parse(
      await inspector("toolmesh", "--method", "tools/call", "--tool-name", "tell-dad-joke", "--tool-arg", "topic=cats"),
    );
    console.log("Inspector tools/call tell-dad-joke:", JSON.stringify(joke));
    expect(joke).toMatchObject({ content: [{ type: "text", text: DAD_CATS }] });
    const echo = JSON.parse(
      await inspector("toolmesh", "--method", "tools/call", "--tool-name", ECHO_TOOL, "--tool-arg", "message=hello from the Inspector"),
    );
    console.log(`Inspector tools/call ${ECHO_TOOL}:`, JSON.stringify(echo));
    expect(echo).toMatchObject({ content: [{ type: "text", text: "Echo: hello from the Inspector" }] });
  });
});

describe("tg mcp (stdio bridge) driven by the TS SDK client, launched as README's snippet says", () => {
  it("initializes, lists, calls both kinds of tool, and passes list_changed through", async () => {
    const { command, args, env } = clientConfig(system.mcpUrl, TOKEN).mcpServers["toolmesh-stdio"];
    const transport = new StdioClientTransport({ command, args, env: { ...getDefaultEnvironment(), ...env }, stderr: "pipe" });
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("toolmesh");
      expect(client.getInstructions()).toMatch(/following the newest catalog revision/);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
      const joke = await client.callTool({ name: "tell-dad-joke", arguments: { topic: "cats" } });
      const echo = await client.callTool({ name: ECHO_TOOL, arguments: { message: "hello over stdio" } });
      console.log("tg mcp:", tools.length, "tools;", JSON.stringify(joke), JSON.stringify(echo));
      expect(joke).toMatchObject({ content: [{ type: "text", text: DAD_CATS }] });
      expect(echo).toMatchObject({ content: [{ type: "text", text: "Echo: hello over stdio" }] });
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool 'nope'/);

      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      await system.putConfig([
        { type: "tool-service", key: "jokes", value: { id: "jokes", topic: "joke", "config-params": ["style"] } },
        {
          type: "tool",
          key: "tell-another",
          value: { type: "tool-service", name: "tell-another", service: "jokes", style: "one-liner", arguments: [{ name: "topic" }] },
        },
      ]);
      await waitFor(() => changed > 0, { timeoutMs: 15_000, description: "list_changed through tg mcp" });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("tell-another");
    } finally {
      await client.close();
    }
  });
});
