import { describe, expect, it } from "vitest";
import { type ConfigView, parseItems } from "@toolmesh/base";
import { ServiceError, TenantPolicy, TopicLayout } from "@toolmesh/schema";
import { ServiceTable } from "../../src/services.js";
import { requestTopic, responseTopic, testTopics } from "@toolmesh/test-support";

// Only `ready` and `parsed` are read; a real ConfigView is exercised by the integration tests.
function table(descriptors: Record<string, string> | null, allowedTenants: string[] = [], topics: TopicLayout = testTopics()) {
  const view = {
    ready: descriptors !== null,
    parsed: (_type: string, schema: Parameters<typeof parseItems>[1]) => parseItems(descriptors ?? {}, schema),
  } as unknown as ConfigView;
  return new ServiceTable(
    view,
    topics,
    { requestMs: 1_000, agentMs: 9_000, mcpToolMs: 4_000 },
    new TenantPolicy(topics.tenant, allowedTenants),
  );
}

function failure(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
  }
  throw new Error("expected a ServiceError");
}

describe("ServiceTable", () => {
  it("follows the system's topic layout: its tenant, MCP_TOOL_TOPIC, and a descriptor's topic name", () => {
    const topics = new TopicLayout({ tenant: "staging", mcpTool: "mcp-tool-b" });
    const services = table({ jokes: JSON.stringify({ id: "jokes", topic: "joke" }) }, [], topics);
    expect(services.resolve("mcp-tool")).toMatchObject({
      requestTopic: "non-persistent://staging/request/mcp-tool-b",
      responseTopic: "non-persistent://staging/response/mcp-tool-b",
    });
    expect(services.resolve("agent").requestTopic).toBe("non-persistent://staging/request/agent");
    expect(services.resolve("jokes").requestTopic).toBe("non-persistent://staging/request/joke");
    expect(services.workspaceConfig("acme").requestTopic).toBe("non-persistent://staging/request/config:acme");
  });

  it("routes the fixed services to their topics, agent with its own idle timeout", () => {
    const services = table({});
    expect(services.resolve("config")).toMatchObject({ requestTopic: requestTopic("config"), streamed: false, timeoutMs: 1_000 });
    expect(services.resolve("tool-registry").responseTopic).toBe(responseTopic("tool-registry"));
    expect(services.resolve("agent")).toMatchObject({ streamed: true, timeoutMs: 9_000, timeoutSetting: "GATEWAY_AGENT_TIMEOUT_MS" });
    expect(services.resolve("mcp-tool")).toMatchObject({ timeoutMs: 4_000, timeoutSetting: "GATEWAY_MCP_TOOL_TIMEOUT_MS", pooled: false });
  });

  it("ends an agent stream on end_of_dialog or an error message", () => {
    const { isLast } = table({}).resolve("agent");
    const last = (reply: object) => isLast(reply as never);
    expect(last({ message_type: "thought", end_of_dialog: false })).toBe(false);
    expect(last({ message_type: "answer", end_of_dialog: true })).toBe(true);
    expect(last({ message_type: "error", end_of_dialog: false })).toBe(true);
  });

  it("finds a tool service by descriptor id, in the seed and TrustGraph forms", () => {
    const services = table({
      jokes: JSON.stringify({ id: "jokes", topic: "joke" }),
      tg: JSON.stringify({ id: "tg", "request-queue": requestTopic("x"), "response-queue": responseTopic("x") }),
    });
    const jokes = services.resolve("jokes");
    expect(jokes).toMatchObject({ kind: "tool-service", requestTopic: requestTopic("joke"), streamed: true });
    expect(jokes.isLast({ end_of_stream: false, error: null } as never)).toBe(false);
    expect(jokes.isLast({ end_of_stream: false, error: { type: "x", message: "y" } } as never)).toBe(true);
    expect(services.resolve("tg").responseTopic).toBe(responseTopic("x"));
    expect(jokes).toMatchObject({ name: "jokes", pooled: true });
  });

  it("refuses (403) a descriptor whose queues are in another tenant, unless that tenant is allowed", () => {
    const other = {
      elsewhere: JSON.stringify({
        id: "elsewhere",
        "request-queue": "non-persistent://tgb/request/joke",
        "response-queue": "non-persistent://tgb/response/joke",
      }),
    };
    const refused = failure(() => table(other).resolve("elsewhere"));
    expect(refused).toMatchObject({ status: 403, type: "forbidden" });
    expect(refused.message).toContain(
      "tool-service descriptor 'elsewhere' is refused: queue non-persistent://tgb/request/joke is in tenant 'tgb'",
    );
    const halfway = {
      half: JSON.stringify({ id: "half", "request-queue": requestTopic("joke"), "response-queue": "non-persistent://tgb/response/joke" }),
    };
    expect(failure(() => table(halfway).resolve("half"))).toMatchObject({
      status: 403,
      message: expect.stringContaining("tgb/response/joke"),
    });
    expect(table(other, ["tgb"]).resolve("elsewhere").requestTopic).toBe("non-persistent://tgb/request/joke");
  });

  it("says why a service cannot be used", () => {
    expect(failure(() => table({}).resolve("nope"))).toMatchObject({ status: 404, type: "unknown-service" });
    expect(failure(() => table({ bad: '{"id":"bad"}' }).resolve("bad"))).toMatchObject({
      status: 502,
      type: "config-error",
      message: expect.stringContaining("a tool-service needs 'topic' or 'request-queue'"),
    });
    const badTopic = JSON.stringify({ id: "q", "request-queue": "tg//joke", "response-queue": "x" });
    expect(failure(() => table({ q: badTopic }).resolve("q"))).toMatchObject({
      status: 502,
      message: expect.stringContaining("invalid topic name 'tg//joke'"),
    });
    expect(failure(() => table(null).resolve("jokes"))).toMatchObject({ status: 503, type: "unavailable" });
    for (const name of ["__proto__", "constructor", "toString"])
      expect(failure(() => table({}).resolve(name))).toMatchObject({ status: 404 });
  });
});
