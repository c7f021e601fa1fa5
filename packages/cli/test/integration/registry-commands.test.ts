import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayDouble, ok } from "../support/gateway-double.js";
import { oneErrorLine, tg } from "../support/run-tg.js";

let gateway: GatewayDouble;
let env: Record<string, string>;

const tool = (name: string, hash: string) => ({
  tool_id: name,
  name,
  description: `does ${name}`,
  parameters_schema: { type: "object", properties: {} },
  binding: {
    kind: "tool-service",
    request_topic: "non-persistent://tg/request/joke",
    response_topic: "non-persistent://tg/response/joke",
    config: {},
  },
  source: "config",
  content_hash: hash,
});
const revision = (n: number, tools: ReturnType<typeof tool>[]) => ({
  revision_number: n,
  content_hash: `sha256-${n}`.padEnd(20, "0"),
  created_at: "2026-12-03T10:00:00.000Z",
  tool_count: tools.length,
  tools,
});
const REV2 = revision(2, [tool("tell-joke", "a".repeat(64)), tool("tell-pun", "b".repeat(64))]);

beforeAll(async () => {
  gateway = await GatewayDouble.start();
  env = { TG_URL: gateway.url };
  gateway.handle("tool-registry", (body) => {
    switch (body.operation) {
      case "current":
        return ok({ error: null, revision: REV2 });
      case "get-revision":
        return body.revision_number === 2
          ? ok({ error: null, revision: REV2 })
          : ok({ error: { type: "not-found", message: `no revision ${String(body.revision_number)}` } });
      case "list-revisions":
        return ok({
          error: null,
          revisions: [
            { ...REV2, tools: undefined },
            { ...revision(1, [tool("tell-joke", "a".repeat(64))]), tools: undefined },
          ],
        });
      case "diff":
        return ok({
          error: null,
          diff: {
            from_revision: body.from_revision,
            to_revision: body.to_revision,
            added: ["tell-pun"],
            removed: [],
            changed: ["tell-joke"],
          },
        });
      case "refresh":
        return ok({
          error: null,
          revision: REV2,
          created: false,
          sources: [{ source: "source:weather", status: "degraded", reason: "HTTP 500", tool_count: 1, last_success_at: null }],
        });
      case "sources":
        return ok({
          error: null,
          sources: [{ source: "source:weather", status: "ok", reason: null, tool_count: 3, last_success_at: "2026-12-03T10:00:00.000Z" }],
        });
      default:
        return ok({ error: { type: "bad-request", message: "unknown operation" } });
    }
  });
  gateway.handle("mcp-tool", (body) =>
    body.operation === "list-tools"
      ? ok({
          error: null,
          text: null,
          object: JSON.stringify([{ name: "echo", description: "Echoes back the input", inputSchema: { type: "object" } }]),
        })
      : ok({ error: { type: "bad-request", message: "not a list" } }),
  );
});
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.requests.length = 0;
  gateway.config.clear();
});

describe("catalog commands", () => {
  it("show-catalog prints the current revision and its tools", async () => {
    const result = await tg(["show-catalog"], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`revision 2 (${REV2.content_hash}), 2 tools, created 2026-12-03T10:00:00.000Z`);
    expect(lines[1]).toMatch(/^name\s+source\s+hash\s+description$/);
    expect(lines[2]).toMatch(/^tell-joke\s+config\s+aaaaaaaaaaaa\s+does tell-joke$/);
  });

  it("show-revision N asks for that revision; --json prints it whole", async () => {
    const result = await tg(["show-revision", "2", "--json"], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(REV2);
    expect(gateway.requestsTo("tool-registry")[0]!.body).toMatchObject({ operation: "get-revision", revision_number: 2 });
  });

  it("show-revision of a missing revision and a bad number are one-line errors", async () => {
    expect(oneErrorLine(await tg(["show-revision", "9"], env))).toBe("tg: not-found: no revision 9");
    gateway.requests.length = 0;
    const bad = await tg(["show-revision", "two"], env);
    expect(oneErrorLine(bad)).toBe("tg: revision must be a whole number above 0, not 'two'");
    expect(gateway.requests).toEqual([]);
  });

  it("list-revisions and diff-revisions", async () => {
    const list = await tg(["list-revisions"], env);
    expect(list.stdout).toMatch(/^revision\s+tools\s+created\s+hash\n2\s+2\s/);
    const diff = await tg(["diff-revisions", "1", "2"], env);
    expect(diff.stdout).toBe("revision 1 -> 2: 1 added, 0 removed, 1 changed\n   tool\n+  tell-pun\n~  tell-joke\n");
    const json = await tg(["diff-revisions", "1", "2", "--json"], env);
    expect(JSON.parse(json.stdout)).toEqual({ from_revision: 1, to_revision: 2, added: ["tell-pun"], removed: [], changed: ["tell-joke"] });
  });

  it("refresh-tools reports the outcome and degraded sources", async () => {
    const result = await tg(["refresh-tools"], env);
    expect(result.stdout.split("\n")[0]).toBe(`unchanged revision 2 (${REV2.content_hash}), 2 tools`);
    expect(result.stdout).toMatch(/source:weather\s+degraded\s+1\s+HTTP 500/);
  });
});

describe("tool sources", () => {
  it("set-tool-source stores the descriptor; show-tool-sources joins the registry's status; delete removes it", async () => {
    expect((await tg(["set-tool-source", "--id", "weather", "--manifest-url", "http://127.0.0.1:9000/tools/manifest"], env)).code).toBe(0);
    expect(gateway.stored("tool-source", "weather")).toEqual({
      id: "weather",
      manifest_url: "http://127.0.0.1:9000/tools/manifest",
      active: true,
    });
    const shown = await tg(["show-tool-sources", "--json"], env);
    expect(JSON.parse(shown.stdout)).toEqual([
      {
        id: "weather",
        manifest_url: "http://127.0.0.1:9000/tools/manifest",
        active: true,
        status: "ok",
        tools: 3,
        reason: null,
        last_success_at: "2026-12-03T10:00:00.000Z",
      },
    ]);
    expect((await tg(["delete-tool-source", "--id", "weather"], env)).code).toBe(0);
    expect(gateway.stored("tool-source", "weather")).toBeUndefined();
  });

  it("refuses a manifest URL that is not http(s) without sending it", async () => {
    const result = await tg(["set-tool-source", "--id", "x", "--manifest-url", "file:///etc/passwd"], env);
    expect(oneErrorLine(result)).toBe("tg: invalid tool-source descriptor: manifest_url: manifest_url must be an http(s) URL");
    expect(gateway.requests).toEqual([]);
  });
});

describe("MCP entries", () => {
  it("set-mcp-tool --transport stores it and show-mcp-tools has a transport column", async () => {
    await tg(["set-mcp-tool", "--id", "calc", "--url", "http://127.0.0.1:3901/sse", "--transport", "sse"], env);
    expect(gateway.stored("mcp", "calc")).toEqual({ url: "http://127.0.0.1:3901/sse", transport: "sse" });
    const shown = await tg(["show-mcp-tools", "--json"], env);
    expect(JSON.parse(shown.stdout)).toEqual([
      { id: "calc", url: "http://127.0.0.1:3901/sse", "remote-name": "", transport: "sse", "auth-token": "", oauth2: "", headers: "" },
    ]);
    const bad = await tg(["set-mcp-tool", "--id", "calc", "--url", "http://h/mcp", "--transport", "carrier-pigeon"], env);
    expect(bad.code).toBe(1);
    expect(oneErrorLine(bad)).toMatch(/^tg: invalid mcp descriptor: .*transport/);
  });

  it("list-mcp-tools ID asks the mcp-tool service for the server's tools", async () => {
    const result = await tg(["list-mcp-tools", "everything"], env);
    expect(result.stdout).toMatch(/^name\s+description\necho\s+Echoes back the input\n$/);
    expect(gateway.requestsTo("mcp-tool")[0]!.body).toEqual({ name: "everything", parameters: "{}", operation: "list-tools" });
  });
});
