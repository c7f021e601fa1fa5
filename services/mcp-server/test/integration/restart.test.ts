import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PythonMcpServer, ServiceProcess, pythonPeer } from "@toolmesh/test-support";
import { clientConfig } from "../support/client-config.js";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const here = dirname(fileURLToPath(import.meta.url));
const DAD_CATS = "Why don't cats play poker in the jungle? Too many cheetahs.";
const ALL_TOOLS = [ECHO_TOOL, ...JOKE_TOOLS, "slow"].sort();

const system = new McpSystem();
let python: PythonMcpServer | undefined;
beforeAll(async () => {
  await system.start();
  // A tool that takes its time: the Python MCP SDK server's `sleep`, reached through mcp-tool.
  python = await PythonMcpServer.start();
  await system.putConfig([
    { type: "mcp", key: "python", value: { url: python.url, "remote-name": "sleep" } },
    {
      type: "tool",
      key: "slow",
      value: {
        type: "mcp-tool",
        name: "slow",
        "mcp-tool": "python",
        description: "sleeps",
        arguments: [{ name: "seconds", type: "number", description: "how long" }],
      },
    },
  ]);
  await system.waitForTools([...ALL_TOOLS, "slow"]);
}, 180_000);
afterAll(async () => {
  await python?.stop();
  await system.stop();
});

interface Outcome {
  before: string[];
  call: { is_error: boolean; text: string[] } | { error: { code: number; message: string } };
  /** Null when the restart came during the call (not listed again). */
  after: string[] | { error: { code: number; message: string } } | null;
  list_changed: number;
  stderr: string;
}

/**
 * Runs python_mcp_restart.py with `args`: it opens a session and lists the tools; then the same session calls
 * `tool` and lists again. mcp-server restarts before the call, or (`during`) one second into it.
 */
async function acrossRestart(
  args: string[],
  { tool = "tell-dad-joke", input = { topic: "cats" } as object, during = false } = {},
): Promise<Outcome> {
  const child = spawn(pythonPeer("mcp"), [join(here, "../support/python_mcp_restart.py"), ...args, tool, JSON.stringify(input)], {
    stdio: ["pipe", "pipe", "pipe"],
    // With the restart during the call, the list after it would race the new server's start (see the script).
    env: { ...process.env, ...(during ? { MCP_RESTART_NO_RELIST: "1" } : {}) },
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const restart = () => system.processes.get("mcp-server")!.restart();
  try {
    const first = await lines.next();
    if (first.done) throw new Error(`the Python client ended early:\n${stderr}`);
    const { before } = JSON.parse(first.value) as { before: string[] };
    let restarted: Promise<void>;
    if (during) {
      child.stdin.write("go\n");
      restarted = new Promise((resolve) => setTimeout(resolve, 1_000)).then(restart);
    } else {
      await (restarted = restart());
      child.stdin.write("go\n");
    }
    const second = await lines.next();
    if (second.done) throw new Error(`the Python client ended early:\n${stderr}`);
    child.stdin.end();
    await Promise.all([exited, restarted]);
    return { before, ...(JSON.parse(second.value) as Omit<Outcome, "before" | "stderr">), stderr };
  } finally {
    child.kill();
  }
}

describe("a client whose session the MCP server forgot (restart, or another replica)", () => {
  it("tg mcp re-initializes by itself: the Python SDK's stdio client sees no error", async () => {
    const { command, args, env } = clientConfig(system.mcpUrl, TOKEN).mcpServers["toolmesh-stdio"];
    const outcome = await acrossRestart(["stdio", command, JSON.stringify(args), JSON.stringify({ ...process.env, ...env })]);
    console.log("tg mcp across a restart:", JSON.stringify({ ...outcome, stderr: undefined }), "\nstderr:", outcome.stderr);
    expect(outcome.before).toEqual(ALL_TOOLS);
    expect(outcome.call).toEqual({ is_error: false, text: [DAD_CATS] });
    expect(outcome.after).toEqual(ALL_TOOLS);
    // The new session may be on another catalog revision: the client is told to list again.
    expect(outcome.list_changed).toBe(1);
    expect(
      outcome.stderr.match(/^tg: session [0-9a-f-]{36} is unknown to the server .*: initialized a new one, [0-9a-f-]{36}$/gm),
    ).toHaveLength(1);
    // (The old session's notification stream may log its reconnect attempts while the server is down.)
    expect(outcome.stderr).not.toMatch(/forwarding .* failed/);
  }, 60_000);

  it("the Python SDK's Streamable HTTP client gets the server's 404 as a JSON-RPC error saying to initialize again", async () => {
    const outcome = await acrossRestart(["http", system.mcpUrl, TOKEN]);
    console.log("Python SDK over HTTP across a restart:", JSON.stringify({ ...outcome, stderr: undefined }));
    expect(outcome.before).toEqual(ALL_TOOLS);
    expect(outcome.call).toEqual({
      error: { code: -32001, message: expect.stringMatching(/^session '[0-9a-f-]{36}' not found .*initialize again$/) },
    });
    expect(outcome.after).toEqual(outcome.call);
    expect(outcome.list_changed).toBe(0);
  }, 60_000);

  it("a call in flight when mcp-server gets SIGTERM (a rolling restart) is finished before the sessions close", async () => {
    const outcome = await acrossRestart(["http", system.mcpUrl, TOKEN], { tool: "slow", input: { seconds: 2 }, during: true });
    console.log("Python SDK, a call across SIGTERM:", JSON.stringify({ ...outcome, stderr: undefined }));
    expect(outcome.call).toEqual({ is_error: false, text: ["slept 2.0 s"] });
    const logs = system.processes.get("mcp-server")!.logs;
    expect(logs).not.toMatch(/cancelled by the client/);
  }, 60_000);

  it("a call still running when SIGTERM's shutdown timeout runs out is answered 'cut short' (not left unanswered), and the server exits 0", async () => {
    // An instance whose shutdown waits less than its calls may take: SHUTDOWN_TIMEOUT_MS 3 s winds down
    // at 2.4 s (a fifth before), MCP_CALL_TIMEOUT_MS 15 s, and an 8 s call in flight.
    const short = await ServiceProcess.start({
      service: "mcp-server",
      env: { PULSAR_WEB_URL: system.webServiceUrl, GATEWAY_TOKEN: TOKEN, SHUTDOWN_TIMEOUT_MS: "3000", MCP_CALL_TIMEOUT_MS: "15000" },
    });
    const child = spawn(
      pythonPeer("mcp"),
      [join(here, "../support/python_mcp_restart.py"), "http", `${short.url}/mcp`, TOKEN, "slow", JSON.stringify({ seconds: 8 })],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    try {
      expect(JSON.parse(String((await lines.next()).value)).before).toContain("slow");
      child.stdin.write("go\n");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const sigterm = Date.now();
      const [exitCode, answer] = await Promise.all([short.stop(), lines.next()]);
      const answeredAfterMs = Date.now() - sigterm;
      if (answer.done) throw new Error(`the Python client ended early:\n${stderr}`);
      const outcome = JSON.parse(answer.value) as Pick<Outcome, "call">;
      console.log(
        "Python SDK, a call outlasting the shutdown timeout:",
        JSON.stringify(outcome),
        `answered ${answeredAfterMs} ms after SIGTERM`,
      );
      expect(outcome.call).toEqual({
        is_error: true,
        text: [
          "tool slow was cut short: this MCP server instance is stopping and its shutdown timeout (SHUTDOWN_TIMEOUT_MS) ran out before the tool answered; call it again",
        ],
      });
      // Answered at the wind-down (2.4 s), well before the tool's 8 s; exit 0: stopped by itself, not by the timeout.
      expect(answeredAfterMs).toBeLessThan(3_000);
      expect(exitCode).toBe(0);
      expect(short.logs).toMatch(/"outcome":"cut-short"/);
    } finally {
      child.kill();
      await short.stop();
    }
  }, 60_000);

  it.each([
    ["back at once (the notification stream's reconnect gets 404)", 0, "idle-news"],
    ["away 5 s (longer than the SDK's stream retries)", 5_000, "idle-news-late"],
  ])(
    "tg mcp opens a new session by itself when the server is %s: an idle client still hears list_changed",
    async (_case, awayMs, tool) => {
      const { command, args, env } = clientConfig(system.mcpUrl, TOKEN).mcpServers["toolmesh-stdio"];
      const child = spawn(
        pythonPeer("mcp"),
        [
          join(here, "../support/python_mcp_restart.py"),
          "stdio",
          command,
          JSON.stringify(args),
          JSON.stringify({ ...process.env, ...env }),
          "-",
          "{}",
        ],
        { stdio: ["pipe", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const next = async () => {
        const line = await lines.next();
        if (line.done) throw new Error(`the Python client ended early:\n${stderr}`);
        return JSON.parse(line.value) as { before?: string[]; list_changed?: number; after?: string[] };
      };
      try {
        // (An earlier case may have added its tool.)
        expect((await next()).before).toEqual(expect.arrayContaining(ALL_TOOLS));
        // The restart ends the session's notification stream; no request follows it.
        const server = system.processes.get("mcp-server")!;
        await server.stop();
        await new Promise((resolve) => setTimeout(resolve, awayMs));
        await server.restart();
        child.stdin.write("go\n");
        // tg mcp's new session tells the client to list again (the catalog may differ there) ...
        // (tg mcp logs each step of its recovery on stderr: the message shows them when this fails.)
        expect((await next()).list_changed, `tg mcp's stderr:\n${stderr}`).toBe(1);
        // ... and its notification stream is open: a new tool reaches the idle client as list_changed.
        await system.putConfig([
          {
            type: "tool",
            key: tool,
            value: { type: "mcp-tool", name: tool, "mcp-tool": "everything", description: "echoes", arguments: [] },
          },
        ]);
        child.stdin.write("go\n");
        const last = await next();
        console.log("tg mcp, an idle client across a restart:", JSON.stringify(last), "\nstderr:", stderr);
        expect(last.list_changed, `tg mcp's stderr:\n${stderr}`).toBe(2);
        expect(last.after).toContain(tool);
        expect(
          stderr.match(/^tg: session [0-9a-f-]{36} is unknown to the server .*: initialized a new one, [0-9a-f-]{36}$/gm),
        ).toHaveLength(1);
      } finally {
        child.kill();
      }
    },
    90_000,
  );
});
