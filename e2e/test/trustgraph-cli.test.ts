import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EverythingServer, ScriptedLlm } from "@toolmesh/test-support";
import { System } from "./system.js";
import { printed, trustGraphCli } from "./trustgraph-cli.js";

// Issue 14: TrustGraph 2.11.1's own commands, unchanged, against toolmesh's gateway, printing what they
// print against TrustGraph's gateway (spec §1.7 and §6.2 of the drop-in spec, verified on TrustGraph's CLI).
const system = new System();
const llm = new ScriptedLlm();
let everything: EverythingServer;
const runTg = trustGraphCli();
const tg = (command: string, ...args: string[]) => runTg(system.gatewayUrl, command, ...args);

const ok = async (command: string, ...args: string[]) => printed(await tg(command, ...args), [command, ...args].join(" "));

beforeAll(async () => {
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  await system.start([
    ["config"],
    ["mcp-tool"],
    ["tool-registry", { REGISTRY_REFRESH_INTERVAL_MS: "0" }],
    ["agent", { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }],
    ["api-gateway"],
  ]);
}, 180_000);

afterAll(async () => {
  await system.stop();
  await llm.close();
  await everything?.stop();
});

describe("TrustGraph's config commands", () => {
  it("tg-put-config-item, tg-get-config-item (text and json), tg-list-config-items, tg-show-config", async () => {
    expect(await ok("tg-put-config-item", "--type", "demo", "--key", "k1", "--value", '{"a": 1}')).toBe(
      "Configuration item set: demo/k1\n",
    );
    expect(await ok("tg-put-config-item", "--type", "demo", "--key", "k2", "--value", "plain")).toBe("Configuration item set: demo/k2\n");
    expect(await ok("tg-get-config-item", "--type", "demo", "--key", "k1")).toBe('{"a": 1}\n');
    expect(await ok("tg-get-config-item", "--type", "demo", "--key", "k1", "--format", "json")).toBe('"{\\"a\\": 1}"\n');
    expect(await ok("tg-list-config-items", "--type", "demo")).toBe("k1\nk2\n");
    expect(await ok("tg-list-config-items", "--type", "demo", "--format", "json")).toBe('["k1", "k2"]\n');
    const shown = await ok("tg-show-config");
    const [first, ...rest] = shown.split("\n");
    expect(first).toMatch(/^Version: \d+$/);
    expect(JSON.parse(rest.join("\n")).demo).toEqual({ k1: '{"a": 1}', k2: "plain" });
    // json.dumps(config, indent=4): TrustGraph's layout, four spaces.
    expect(rest.join("\n")).toContain('    "demo": {\n        "k1": "{\\"a\\": 1}",\n        "k2": "plain"\n    }');
  });

  it("tg-delete-config-item, after which tg-get-config-item prints None (TrustGraph's null value)", async () => {
    await ok("tg-put-config-item", "--type", "gone", "--key", "k", "--value", "v");
    expect(await ok("tg-delete-config-item", "--type", "gone", "--key", "k")).toBe("Configuration item deleted: gone/k\n");
    expect(await ok("tg-list-config-items", "--type", "gone")).toBe("");
    // Needs the config service's TrustGraph semantics (get of a missing key -> value null).
    expect(await ok("tg-get-config-item", "--type", "gone", "--key", "k")).toBe("None\n");
  });
});

describe("TrustGraph's MCP tool commands", () => {
  it("tg-set-mcp-tool prints nothing; tg-show-mcp-tools shows the tables; tg-delete-mcp-tool", async () => {
    expect(await ok("tg-set-mcp-tool", "-i", "echo", "-r", "echo", "--tool-url", everything.url)).toBe("");
    expect(
      await ok("tg-set-mcp-tool", "-i", "weather", "-r", "get-structured-content", "--tool-url", everything.url, "--auth-token", "s3cret"),
    ).toBe("");
    await ok("tg-set-mcp-tool", "-i", "doomed", "--tool-url", everything.url);
    const shown = await ok("tg-show-mcp-tools");
    expect(shown).toContain(`| id          | echo`);
    expect(shown).toMatch(/\| remote-name \| get-structured-content\s+\|/);
    expect(shown).toMatch(/\| auth {8}\| Yes \(configured\)\s+\|/);
    expect(shown).toMatch(/\| auth {8}\| No\s+\|/);
    expect(await ok("tg-delete-mcp-tool", "--id", "doomed")).toBe("MCP tool 'doomed' deleted successfully.\n");
    expect(await ok("tg-delete-mcp-tool", "--id", "doomed")).toBe("MCP tool 'doomed' not found.\n");
  });

  it("tg-invoke-mcp-tool prints a text tool's text and a structured tool's object as TrustGraph does", async () => {
    expect(await ok("tg-invoke-mcp-tool", "-n", "echo", "-P", '{"message": "hello"}')).toBe("Echo: hello\n");
    const structured = await ok("tg-invoke-mcp-tool", "-n", "weather", "-P", '{"location": "Chicago"}');
    expect(structured).toBe(`${JSON.stringify({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 }, null, 4)}\n`);
  });

  it("tg-invoke-mcp-tool prints a tool's error as TrustGraph's client reports one", async () => {
    const r = await tg("tg-invoke-mcp-tool", "-n", "nope", "-P", "{}");
    expect(r.stdout).toMatch(/^Exception: .*nope/);
  });

  it("tg-invoke-mcp-tool while mcp-tool is stopped: 'not running' in seconds, not at the gateway's 45 s timeout", async () => {
    const mcpTool = system.get("mcp-tool");
    await mcpTool.stop();
    try {
      const started = Date.now();
      const r = await tg("tg-invoke-mcp-tool", "-n", "echo", "-P", '{"message": "anyone?"}');
      console.log(`mcp-tool stopped: TrustGraph's CLI printed after ${Date.now() - started} ms: ${r.stdout.trim()}`);
      expect(r.stdout).toMatch(
        /^Exception: .*service 'mcp-tool' is not running: nothing consumes non-persistent:\/\/[^/]+\/request\/mcp-tool and nothing publishes on /,
      );
    } finally {
      await mcpTool.restart();
    }
    expect(await ok("tg-invoke-mcp-tool", "-n", "echo", "-P", '{"message": "back"}')).toBe("Echo: back\n");
  });
});

describe("TrustGraph's flow commands", () => {
  it("go to TrustGraph's flow-svc; with none running, tg-start-flow says so at once", async () => {
    // trustgraph-gateway.test.ts runs them against TrustGraph's flow-svc on toolmesh's config. (tg-show-flows
    // reads over the socket and prints "No flows." whatever the reply: TrustGraph's CLI skips its error.)
    const started = Date.now();
    const r = await tg("tg-start-flow", "-n", "any", "-i", "f", "-d", "no flow-svc here");
    console.log(`tg-start-flow, no flow-svc: after ${Date.now() - started} ms: ${r.stdout.trim()}`);
    expect(r.stdout).toMatch(
      /^Exception: .*service 'flow' is not running: nothing consumes non-persistent:\/\/[^/]+\/request\/flow:default/,
    );
  });
});

describe("TrustGraph's tool commands", () => {
  it("tg-set-tool, tg-show-tools, tg-delete-tool", async () => {
    await ok("tg-set-mcp-tool", "-i", "calc-echo", "-r", "echo", "--tool-url", everything.url);
    // tg-set-tool first reads agent/tool-index (missing: needs value null from the config service).
    expect(
      await ok(
        "tg-set-tool",
        "--id",
        "calc",
        "--name",
        "calculate",
        "--description",
        "Echo a message",
        "--type",
        "mcp-tool",
        "--mcp-tool",
        "calc-echo",
        "--argument",
        "message:string:What to echo",
      ),
    ).toBe("Tool set.\n");
    expect(await ok("tg-show-tools")).toBe(
      [
        "",
        // TrustGraph's show_tools.py lists `arg N` rows only for prompt tools (the loop sits inside its
        // `if tp == "prompt"`), so an mcp-tool's arguments are stored but not printed, on its gateway too.
        "+-------------+----------------+",
        "| id          | calc           |",
        "| name        | calculate      |",
        "| description | Echo a message |",
        "| type        | mcp-tool       |",
        "| mcp-tool    | calc-echo      |",
        "+-------------+----------------+",
        "",
        "",
      ].join("\n"),
    );
    expect(await ok("tg-delete-tool", "--id", "calc")).toBe("Tool 'calc' deleted successfully.\n");
    expect(await ok("tg-delete-tool", "--id", "calc")).toBe("Tool configuration for 'calc' not found.\n");
  });
});

describe("tg-invoke-agent", () => {
  it("streams thoughts, observations and the answer from toolmesh's agent", async () => {
    await ok("tg-set-mcp-tool", "-i", "agent-echo", "-r", "echo", "--tool-url", everything.url);
    await ok(
      "tg-put-config-item",
      "--type",
      "tool",
      "--key",
      "agent-echo",
      "--value",
      JSON.stringify({
        name: "agent-echo",
        description: "Echoes a message",
        type: "mcp-tool",
        "mcp-tool": "agent-echo",
        arguments: [{ name: "message", type: "string", description: "what to echo" }],
      }),
    );
    const question = "Echo hi please";
    llm.script(question, [
      { content: "I should use the echo tool.", tool_calls: [{ name: "agent-echo", arguments: { message: "hi" } }] },
      { content: "The tool said: Echo: hi" },
    ]);
    // The catalog picks the new tool up on the config push; the agent's first answer may predate it, so retry.
    let out = "";
    for (let attempt = 0; attempt < 20 && !out.includes("💡"); attempt += 1) {
      if (attempt > 0) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        llm.script(question, [
          { content: "I should use the echo tool.", tool_calls: [{ name: "agent-echo", arguments: { message: "hi" } }] },
          { content: "The tool said: Echo: hi" },
        ]);
      }
      out = await ok("tg-invoke-agent", "-q", question, "-v");
    }
    expect(out).toBe(`❓ ${question}\n\n🤔  I should use the echo tool.\n\n💡  Echo: hi\n\nThe tool said: Echo: hi\n`);
    // Without -v only the answer is printed.
    llm.script("Just answer", [{ content: "Plain answer." }]);
    expect(await ok("tg-invoke-agent", "-q", "Just answer")).toBe("Plain answer.\n");
  });

  it("--show-usage prints the run's tokens, summed over its LLM calls, and the model that answered", async () => {
    llm.script("Count my tokens", [
      {
        content: "Thinking first.",
        tool_calls: [{ name: "no-such-tool", arguments: {} }],
        usage: { prompt_tokens: 120, completion_tokens: 7 },
      },
      { content: "Counted.", usage: { prompt_tokens: 160, completion_tokens: 3 }, model: "scripted-2025" },
    ]);
    const r = await tg("tg-invoke-agent", "-q", "Count my tokens", "--show-usage");
    expect(r.stdout).toBe("Counted.\n");
    expect(r.stderr).toBe("Input tokens: 280  Output tokens: 10  Model: scripted-2025\n");
  });
});
