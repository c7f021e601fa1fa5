import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonPeer } from "@toolmesh/test-support";
import { clientConfig } from "../support/client-config.js";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const here = dirname(fileURLToPath(import.meta.url));
const DAD_CATS = "Why don't cats play poker in the jungle? Too many cheetahs.";
const ALL_TOOLS = [ECHO_TOOL, ...JOKE_TOOLS].sort();

const system = new McpSystem();
beforeAll(() => system.start(), 180_000);
afterAll(() => system.stop());

interface Outcome {
  before: string[];
  call: { is_error: boolean; text: string[] } | { error: { code: number; message: string } };
  after: string[] | { error: { code: number; message: string } };
  list_changed: number;
  stderr: string;
}

/**
 * Runs python_mcp_restart.py with `args`: it opens a session and lists the tools, `between` runs (the restart),
 * then the same session calls tell-dad-joke and lists again.
 */
async function acrossRestart(args: string[], between: () => Promise<void>): Promise<Outcome> {
  const child = spawn(pythonPeer("mcp"), [join(here, "../support/python_mcp_restart.py"), ...args, "tell-dad-joke", '{"topic": "cats"}'], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const first = await lines.next();
    if (first.done) throw new Error(`the Python client ended early:\n${stderr}`);
    const { before } = JSON.parse(first.value) as { before: string[] };
    await between();
    child.stdin.write("go\n");
    const second = await lines.next();
    if (second.done) throw new Error(`the Python client ended early:\n${stderr}`);
    child.stdin.end();
    await exited;
    return { before, ...(JSON.parse(second.value) as Omit<Outcome, "before" | "stderr">), stderr };
  } finally {
    child.kill();
  }
}

const restartMcpServer = () => system.processes.get("mcp-server")!.restart();

describe("a client whose session the MCP server forgot (restart, or another replica)", () => {
  it("tg mcp re-initializes by itself: the Python SDK's stdio client sees no error", async () => {
    const { command, args, env } = clientConfig(system.mcpUrl, TOKEN).mcpServers["toolmesh-stdio"];
    const outcome = await acrossRestart(
      ["stdio", command, JSON.stringify(args), JSON.stringify({ ...process.env, ...env })],
      restartMcpServer,
    );
    console.log("tg mcp across a restart:", JSON.stringify({ ...outcome, stderr: undefined }), "\nstderr:", outcome.stderr);
    expect(outcome.before).toEqual(ALL_TOOLS);
    expect(outcome.call).toEqual({ is_error: false, text: [DAD_CATS] });
    expect(outcome.after).toEqual(ALL_TOOLS);
    // The new session may be on another catalog revision: the client is told to list again.
    expect(outcome.list_changed).toBe(1);
    expect(
      outcome.stderr.match(/^tg: session [0-9a-f-]{36} is unknown to the server .*: initialized a new one, [0-9a-f-]{36}$/gm),
    ).toHaveLength(1);
    expect(outcome.stderr).not.toMatch(/failed|error/i);
  }, 60_000);

  it("the Python SDK's Streamable HTTP client gets the server's 404 as a JSON-RPC error saying to initialize again", async () => {
    const outcome = await acrossRestart(["http", system.mcpUrl, TOKEN], restartMcpServer);
    console.log("Python SDK over HTTP across a restart:", JSON.stringify({ ...outcome, stderr: undefined }));
    expect(outcome.before).toEqual(ALL_TOOLS);
    expect(outcome.call).toEqual({
      error: { code: -32001, message: expect.stringMatching(/^session '[0-9a-f-]{36}' not found .*initialize again$/) },
    });
    expect(outcome.after).toEqual(outcome.call);
    expect(outcome.list_changed).toBe(0);
  }, 60_000);
});
