import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayDouble, ok } from "../support/gateway-double.js";
import { oneErrorLine, tg } from "../support/run-tg.js";

let gateway: GatewayDouble;
let env: Record<string, string>;

beforeAll(async () => {
  gateway = await GatewayDouble.start();
  env = { TG_URL: gateway.url };
});
afterAll(() => gateway.close());

const jokeService = { id: "joke-service", topic: "joke", "config-params": [{ name: "style", required: false }] };
const tellJoke = {
  type: "tool-service",
  name: "tell-joke",
  description: "Tells a joke",
  service: "joke-service",
  style: "pun",
  arguments: [{ name: "topic", type: "string" }],
};

beforeEach(() => {
  gateway.requests.length = 0;
  gateway.config.clear();
  gateway
    .seed("tool-service", "joke-service", jokeService)
    .seed("tool", "tell-joke", tellJoke)
    .seed("tool", "calc", { type: "mcp-tool", name: "calc", "mcp-tool": "calculator" })
    .seed("tool", "summarise", { type: "text-completion", name: "summarise" })
    .seed("mcp", "calculator", { url: "http://127.0.0.1:3901/mcp", "remote-name": "add" });
  gateway.handle("joke-service", () =>
    ok([
      { error: null, response: "Why did the cat ", end_of_stream: false },
      { error: null, response: "sit on the computer? To keep an eye on the mouse.", end_of_stream: true },
    ]),
  );
  gateway.handle("mcp-tool", (body) => ok(body.name === "calculator" ? { text: "4" } : { object: { echo: { k: "v" } } }));
});

describe("invoke-tool", () => {
  it("sends a tool-service tool's config values and arguments and prints the joined stream", async () => {
    const result = await tg(["invoke-tool", "-n", "tell-joke", "-a", '{"topic":"cats"}', "-u", "alice"], env);
    expect(result).toEqual({
      code: 0,
      stdout: "Why did the cat sit on the computer? To keep an eye on the mouse.\n",
      stderr: "",
    });
    expect(gateway.requestsTo("joke-service")).toEqual([
      {
        flow: "default",
        service: "joke-service",
        authorization: undefined,
        body: { user: "alice", config: '{"style":"pun"}', arguments: '{"topic":"cats"}' },
      },
    ]);
  });

  it("sends empty config and arguments as '{}'", async () => {
    gateway.seed("tool", "tell-joke", { ...tellJoke, style: undefined });
    await tg(["invoke-tool", "-n", "tell-joke"], env);
    expect(gateway.requestsTo("joke-service")[0]!.body).toEqual({ user: "", config: "{}", arguments: "{}" });
  });

  it("refuses a tool missing a required config value, calling nothing", async () => {
    gateway.seed("tool-service", "joke-service", { ...jokeService, "config-params": [{ name: "lang", required: true }] });
    const result = await tg(["invoke-tool", "-n", "tell-joke"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: tool 'tell-joke' does not set 'lang', which service 'joke-service' requires");
    expect(gateway.requestsTo("joke-service")).toEqual([]);
  });

  it("fails on an error in any streamed reply", async () => {
    gateway.handle("joke-service", () =>
      ok([
        { error: null, response: "partial ", end_of_stream: false },
        { error: { type: "tool-service-error", message: "the joke generator broke" }, response: "", end_of_stream: true },
      ]),
    );
    const result = await tg(["invoke-tool", "-n", "tell-joke", "-a", '{"topic":"cats"}'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(oneErrorLine(result)).toBe("tg: tool-service-error: the joke generator broke");
  });

  it("calls mcp-tool for an mcp-tool tool with the arguments as parameters", async () => {
    const result = await tg(["invoke-tool", "-n", "calc", "-a", '{"a":2,"b":2}'], env);
    expect(result).toEqual({ code: 0, stdout: "4\n", stderr: "" });
    expect(gateway.requestsTo("mcp-tool")[0]!.body).toEqual({ name: "calculator", parameters: { a: 2, b: 2 } });
  });

  it("reports a tool that is not configured, a broken descriptor, and a text-completion tool", async () => {
    // Not in config: the catalog is asked next (announced tools live only there).
    const unreachable = await tg(["invoke-tool", "-n", "ghost"], env);
    expect(oneErrorLine(unreachable)).toMatch(/^tg: no tool 'ghost' in config, and the catalog could not be read: /);
    gateway.handle("tool-registry", () =>
      ok({ revision: { revision_number: 1, content_hash: "h", created_at: "2026-01-01T00:00:00.000Z", tool_count: 0, tools: [] } }),
    );
    const missing = await tg(["invoke-tool", "-n", "ghost"], env);
    expect(oneErrorLine(missing)).toBe("tg: no tool 'ghost' in config or in the catalog");
    expect(gateway.requestsTo("tool-registry").at(-1)!.body).toMatchObject({ operation: "current" });

    gateway.seed("tool", "broken", { type: "tool-service", name: "broken" });
    const broken = await tg(["invoke-tool", "-n", "broken"], env);
    expect(oneErrorLine(broken)).toMatch(/^tg: tool 'broken' in config is invalid: service: /);

    const completion = await tg(["invoke-tool", "-n", "summarise"], env);
    expect(completion.code).toBe(1);
    expect(oneErrorLine(completion)).toBe("tg: tool 'summarise' is a text-completion tool: only the agent can run it");
  });

  it("refuses -a that is not a JSON object, calling nothing", async () => {
    const result = await tg(["invoke-tool", "-n", "tell-joke", "-a", "[1]"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe(`tg: -a/--arguments must be a JSON object, e.g. '{"topic": "cats"}'`);
    expect(gateway.requests).toEqual([]);
  });
});

describe("invoke-mcp-tool", () => {
  it("prints the text of the reply", async () => {
    const result = await tg(["invoke-mcp-tool", "-n", "calculator", "-P", '{"expression":"2 + 2"}'], env);
    expect(result).toEqual({ code: 0, stdout: "4\n", stderr: "" });
    expect(gateway.requestsTo("mcp-tool")[0]!.body).toEqual({ name: "calculator", parameters: { expression: "2 + 2" } });
  });

  it("pretty-prints an object reply", async () => {
    const result = await tg(["invoke-mcp-tool", "-n", "echo", "-P", '{"k":"v"}'], env);
    expect(result.stdout).toBe('{\n  "echo": {\n    "k": "v"\n  }\n}\n');
  });

  it("sends '{}' without -P and reports the service's error", async () => {
    gateway.handle("mcp-tool", () => ok({ error: { type: "mcp-tool-error", message: "no mcp entry 'nope'" }, text: null, object: null }));
    const result = await tg(["invoke-mcp-tool", "-n", "nope"], env);
    expect(gateway.requestsTo("mcp-tool")[0]!.body).toEqual({ name: "nope", parameters: {} });
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: mcp-tool-error: no mcp entry 'nope'");
  });

  it("refuses -P that is not JSON, calling nothing", async () => {
    const result = await tg(["invoke-mcp-tool", "-n", "calculator", "-P", "expression=2+2"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toMatch(/^tg: -P\/--parameters is not valid JSON: /);
    expect(gateway.requests).toEqual([]);
  });
});
