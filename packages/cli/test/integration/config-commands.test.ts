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
beforeEach(() => {
  gateway.requests.length = 0;
  gateway.config.clear();
});

describe("put-config", () => {
  it("sends a config put with the value as a JSON string and prints nothing", async () => {
    const result = await tg(["put-config", "-t", "prompt", "-k", "greeting", "-v", '{"text": "hi"}'], env);
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(gateway.requests).toEqual([
      {
        flow: "",
        service: "config",
        authorization: undefined,
        body: {
          operation: "put",
          workspace: "default",
          keys: [],
          values: [{ type: "prompt", key: "greeting", value: '{"text":"hi"}' }],
        },
      },
    ]);
  });

  it("validates descriptors of the types toolmesh knows before sending", async () => {
    const result = await tg(["put-config", "-t", "tool-service", "-k", "s", "-v", '{"id": "s"}'], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: invalid tool-service descriptor: a tool-service needs 'topic' or 'request-queue'");
    expect(gateway.requests).toEqual([]);
  });

  it("refuses a value that is not JSON, sending nothing", async () => {
    const result = await tg(["put-config", "-t", "prompt", "-k", "k", "-v", "{oops"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toMatch(/^tg: -v\/--value is not valid JSON: /);
    expect(gateway.requests).toEqual([]);
  });
});

describe("get-config", () => {
  it("prints the stored value as pretty JSON", async () => {
    gateway.seed("tool", "tell-joke", { type: "text-completion", name: "tell-joke" });
    const result = await tg(["get-config", "-t", "tool", "-k", "tell-joke"], env);
    expect(result).toEqual({
      code: 0,
      stdout: '{\n  "type": "text-completion",\n  "name": "tell-joke"\n}\n',
      stderr: "",
    });
    expect(gateway.requests[0]!.body).toMatchObject({ operation: "get", workspace: "default", keys: [{ type: "tool", key: "tell-joke" }] });
  });

  it("reports a missing key as the config service's error", async () => {
    const result = await tg(["get-config", "-t", "tool", "-k", "nope"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(oneErrorLine(result)).toBe("tg: no tool 'nope' in config");
  });
});

describe("list-config", () => {
  it("prints the keys one per line", async () => {
    gateway.seed("tool", "a", {}).seed("tool", "b", {}).seed("mcp", "c", {});
    const result = await tg(["list-config", "-t", "tool"], env);
    expect(result).toEqual({ code: 0, stdout: "a\nb\n", stderr: "" });
    expect(gateway.requests[0]!.body).toMatchObject({ operation: "list", type: "tool" });
  });

  it("prints nothing for an empty type", async () => {
    expect(await tg(["list-config", "-t", "tool"], env)).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("delete-config", () => {
  it("deletes the key", async () => {
    gateway.seed("prompt", "greeting", "hi");
    expect(await tg(["delete-config", "-t", "prompt", "-k", "greeting"], env)).toEqual({ code: 0, stdout: "", stderr: "" });
    // It looks first (the store deletes a missing key silently), then deletes.
    expect(gateway.requests.map((r) => r.body.operation)).toEqual(["get", "delete"]);
    expect(gateway.requests[1]!.body).toMatchObject({ operation: "delete", keys: [{ type: "prompt", key: "greeting" }] });
    expect(gateway.stored("prompt", "greeting")).toBeUndefined();
  });

  it("reports a key that is not there", async () => {
    const result = await tg(["delete-config", "-t", "prompt", "-k", "nope"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: no prompt 'nope' in config");
  });
});

describe("gateway selection", () => {
  it("routes flow services through --flow, config through TrustGraph's /api/v1/config, and sends TG_TOKEN as a bearer token", async () => {
    gateway.handle("mcp-tool", () => ok({ text: "x" }));
    await tg(["invoke-mcp-tool", "-n", "x", "--flow", "staging"], { ...env, TG_TOKEN: "t0k" });
    await tg(["-f", "blue", "invoke-mcp-tool", "-n", "x"], env);
    await tg(["-f", "blue", "list-config", "-t", "tool"], { ...env, TG_TOKEN: "t0k" });
    expect(gateway.requests.map((r) => [r.service, r.flow, r.authorization])).toEqual([
      ["mcp-tool", "staging", "Bearer t0k"],
      ["mcp-tool", "blue", undefined],
      ["config", "", "Bearer t0k"],
    ]);
  });

  it("accepts a base URL with a trailing slash", async () => {
    expect((await tg(["list-config", "-t", "tool"], { TG_URL: `${gateway.url}/` })).code).toBe(0);
  });
});
