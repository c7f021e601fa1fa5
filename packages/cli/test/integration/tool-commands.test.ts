import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayDouble } from "../support/gateway-double.js";
import { oneErrorLine, tg } from "../support/run-tg.js";

let gateway: GatewayDouble;
let env: Record<string, string>;

beforeAll(async () => {
  gateway = await GatewayDouble.start();
  env = { TG_URL: gateway.url };
});
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.requests.length = 0;
  gateway.config.clear();
});

describe("set-tool-service", () => {
  it("stores the seed form under tool-service/<id>", async () => {
    const result = await tg(
      ["set-tool-service", "--id", "joke-service", "--topic", "joke", "--config-param", "style", "--config-param", "lang:required"],
      env,
    );
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(gateway.stored("tool-service", "joke-service")).toEqual({
      id: "joke-service",
      topic: "joke",
      "config-params": [
        { name: "style", required: false },
        { name: "lang", required: true },
      ],
    });
  });

  it("stores the TrustGraph queue form", async () => {
    await tg(
      [
        "set-tool-service",
        "--id",
        "q",
        "--request-queue",
        "non-persistent://tg/request/q",
        "--response-queue",
        "non-persistent://tg/response/q",
      ],
      env,
    );
    expect(gateway.stored("tool-service", "q")).toMatchObject({ "request-queue": "non-persistent://tg/request/q" });
  });

  it("refuses an invalid descriptor without sending it", async () => {
    const result = await tg(["set-tool-service", "--id", "q", "--request-queue", "non-persistent://tg/request/q"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: invalid tool-service descriptor: 'request-queue' needs a matching 'response-queue'");
    expect(gateway.requests).toEqual([]);
  });
});

describe("set-tool / show-tools / delete-tool", () => {
  it("stores a tool with its config values at the top level and shows it", async () => {
    const set = await tg(
      [
        "set-tool",
        "--id",
        "tell-joke",
        "--name",
        "tell-joke",
        "--type",
        "tool-service",
        "--description",
        "Tells a joke",
        "--service",
        "joke-service",
        "--argument",
        "topic:string:what the joke is about",
        "--config",
        "style=pun",
      ],
      env,
    );
    expect(set).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(gateway.stored("tool", "tell-joke")).toEqual({
      type: "tool-service",
      name: "tell-joke",
      description: "Tells a joke",
      service: "joke-service",
      arguments: [{ name: "topic", type: "string", description: "what the joke is about" }],
      style: "pun",
    });

    await tg(
      ["set-tool", "--id", "calc", "--name", "calc", "--type", "mcp-tool", "--description", "Adds", "--mcp-tool", "calculator"],
      env,
    );
    const show = await tg(["show-tools"], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe(
      [
        "id         name       type          service/mcp-tool  description   arguments",
        "calc       calc       mcp-tool      calculator        Adds",
        "tell-joke  tell-joke  tool-service  joke-service      Tells a joke  topic:string",
        "",
      ].join("\n"),
    );
    expect(gateway.requestsTo("config").at(-1)!.body).toMatchObject({ operation: "getvalues", type: "tool" });

    expect((await tg(["delete-tool", "--id", "calc"], env)).code).toBe(0);
    expect(gateway.stored("tool", "calc")).toBeUndefined();
  });

  it("refuses an unknown --type as a usage error", async () => {
    const result = await tg(["set-tool", "--id", "x", "--name", "x", "--type", "llm", "--description", "d"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toMatch(
      /^tg: option '--type <type>' argument 'llm' is invalid\. Allowed choices are tool-service, mcp-tool, text-completion\.$/,
    );
    expect(gateway.requests).toEqual([]);
  });

  it("refuses a tool that fails ToolDescriptor without sending it", async () => {
    const result = await tg(["set-tool", "--id", "x", "--name", "bad name", "--type", "text-completion", "--description", "d"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toMatch(/^tg: invalid tool descriptor: name: /);
    expect(gateway.requests).toEqual([]);
  });

  it("reports deleting a tool that does not exist", async () => {
    const result = await tg(["delete-tool", "--id", "ghost"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: no tool 'ghost' in config");
  });
});

describe("set-mcp-tool / show-mcp-tools / delete-mcp-tool", () => {
  it("stores, shows (without the token) and deletes an MCP tool", async () => {
    const set = await tg(
      [
        "set-mcp-tool",
        "--id",
        "calc",
        "--url",
        "http://127.0.0.1:3901/mcp",
        "--remote-name",
        "add",
        "--auth-token",
        "s3cret",
        "--header",
        "X-Team=tools",
      ],
      env,
    );
    expect(set.code).toBe(0);
    expect(gateway.stored("mcp", "calc")).toEqual({
      url: "http://127.0.0.1:3901/mcp",
      "remote-name": "add",
      "auth-token": "s3cret",
      headers: { "X-Team": "tools" },
    });

    const show = await tg(["show-mcp-tools"], env);
    expect(show.stdout).toBe(
      [
        "id    url                        remote-name  transport  auth-token  oauth2  headers",
        "calc  http://127.0.0.1:3901/mcp  add          auto       (set)               X-Team",
        "",
      ].join("\n"),
    );
    expect(show.stdout).not.toContain("s3cret");

    expect((await tg(["delete-mcp-tool", "--id", "calc"], env)).code).toBe(0);
    expect(gateway.stored("mcp", "calc")).toBeUndefined();
  });

  it("stores oauth2 client credentials from the --oauth2-* flags and shows the client id, never the secret", async () => {
    const flags = ["--oauth2-client-id", "svc", "--oauth2-client-secret", "${env:SEARCH_SECRET}", "--oauth2-scope", "mcp:tools"];
    expect((await tg(["set-mcp-tool", "--id", "search", "--url", "https://mcp.example/mcp", ...flags], env)).code).toBe(0);
    expect(gateway.stored("mcp", "search")).toEqual({
      url: "https://mcp.example/mcp",
      oauth2: { "client-id": "svc", "client-secret": "${env:SEARCH_SECRET}", scope: "mcp:tools" },
    });
    const show = await tg(["show-mcp-tools"], env);
    expect(show.stdout).toContain("client svc (mcp:tools)");
    expect(show.stdout).not.toContain("SEARCH_SECRET");
    expect((await tg(["delete-mcp-tool", "--id", "search"], env)).code).toBe(0);
  });

  it("refuses a URL McpDescriptor rejects", async () => {
    const result = await tg(["set-mcp-tool", "--id", "calc", "--url", "not-a-url"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: invalid mcp descriptor: url: url must be an http(s) URL");
    expect(gateway.requests).toEqual([]);
  });
});
