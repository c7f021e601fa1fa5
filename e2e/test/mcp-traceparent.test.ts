import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OtlpReceiver, PythonMcpServer, type ReceivedSpan, ScriptedLlm, waitFor } from "@toolmesh/test-support";
import { addMcpEntry, lastToolResult, setTool, waitForCatalog } from "./fixtures/tools.js";
import { System } from "./system.js";

// Issue 17 item 4, the last hop: the remote MCP server's HTTP call joins the run's trace. The server is the
// Python MCP SDK's (nobody here wrote it); its `traceparent` tool answers the W3C traceparent header of the
// HTTP request that carried the call, and the SDK's own span for the request (its OpenTelemetry middleware
// reads the trace context from the request's `_meta`) is exported to the same receiver. Only what is seen
// from outside is checked: that header, and the spans at the OTLP receiver. Every service is its own
// process, traced through the standard OTEL_* variables.
const system = new System();
const llm = new ScriptedLlm();
const receiver = new OtlpReceiver();
let python: PythonMcpServer;
const TOOL = "show-traceparent";
const QUESTION = "Which trace is the MCP server in?";
const NO_HEADER = "no traceparent header";
const PYTHON_SERVICE = "python-mcp-server";
/** The MCP SDK's span for one tools/call request: `<method> <tool>`. */
const PYTHON_SPAN = "tools/call traceparent";

beforeAll(async () => {
  await receiver.start();
  // Export soon after each span ends, so the test does not wait for the default 5 s batch delay.
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };
  python = await PythonMcpServer.start({ env: { ...tracing, OTEL_SERVICE_NAME: PYTHON_SERVICE } });
  await llm.start();
  await system.start([
    ["config", tracing],
    ["mcp-tool", tracing],
    ["tool-registry", { ...tracing, REGISTRY_REFRESH_INTERVAL_MS: "0" }],
    ["agent", { ...tracing, OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }],
    ["api-gateway", tracing],
  ]);
  await addMcpEntry(system, TOOL, python.url, "traceparent");
  await setTool(system, { id: TOOL, description: "Tells which trace the MCP server saw the call in", mcpTool: TOOL });
  await waitForCatalog(system, [TOOL]);
}, 180_000);

afterAll(async () => {
  await system.stop();
  await llm.close();
  await python?.stop();
  await receiver.close();
});

/** A fresh W3C trace context for a caller outside the system. */
function callerContext() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** POST /api/v1/flow/default/service/{service} with the caller's traceparent. */
async function callTraced(service: string, traceparent: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${system.gatewayUrl}/api/v1/flow/default/service/${service}`, {
    method: "POST",
    headers: { "content-type": "application/json", traceparent },
    body: JSON.stringify(body),
  });
  return response.json();
}

/** The received header's parts (W3C Trace Context: version-traceid-parentid-flags). */
function parseTraceparent(header: string) {
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header);
  expect(match, `a W3C traceparent: '${header}'`).not.toBeNull();
  const [, version, traceId, parentSpanId, flags] = match!;
  return { version, traceId, parentSpanId, flags };
}

/** Waits until the trace holds a span of each of `names`; returns all its spans. */
function spansOf(traceId: string, names: string[]): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const trace = receiver.trace(traceId);
      return names.every((name) => trace.some((s) => s.name === name)) ? trace : undefined;
    },
    { timeoutMs: 20_000, description: `spans ${names.join(", ")} of trace ${traceId}` },
  );
}

function one(spans: ReceivedSpan[], name: string, service: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name && s.service === service);
  expect(found, `${name} in ${service}; spans: ${spans.map((s) => `${s.service}/${s.name}`).join(", ")}`).toHaveLength(1);
  return found[0]!;
}

/** Each span is the child of the one before it. */
function expectChain(chain: ReceivedSpan[]): void {
  for (let i = 1; i < chain.length; i++) {
    const [parent, child] = [chain[i - 1]!, chain[i]!];
    expect(child.parentSpanId, `${child.service}/${child.name} is a child of ${parent.service}/${parent.name}`).toBe(parent.spanId);
  }
}

describe("the traceparent a real MCP server receives", () => {
  it("is the agent run's trace, and its parent is mcp-tool's `mcp call` span", async () => {
    llm.script(QUESTION, [
      { content: "Asking the server.", tool_calls: [{ name: TOOL, arguments: {} }] },
      (r) => ({ content: `Seen: ${lastToolResult(r)}` }),
    ]);
    const caller = callerContext();
    const answer = JSON.stringify(await callTraced("agent", caller.traceparent, { question: QUESTION, user: "alice" }));
    const header = /Seen: ([^"\\]*)/.exec(answer)?.[1];
    expect(header, `the answer names the header the server saw: ${answer}`).toBeDefined();
    expect(header).not.toBe(NO_HEADER);
    const received = parseTraceparent(header!);

    // Each process exports on its own: wait for every span of the chain (the agent's server span ends after
    // its reply has reached the gateway, so it may arrive after the gateway's).
    const spans = await spansOf(caller.traceId, [
      "gateway agent",
      "agent request",
      "agent serve",
      "agent run",
      `tool-call ${TOOL}`,
      "mcp-tool request",
      "mcp-tool serve",
      "mcp call",
      PYTHON_SPAN,
    ]);
    const gateway = one(spans, "gateway agent", "api-gateway");
    const mcpCall = one(spans, "mcp call", "mcp-tool");
    expectChain([
      { spanId: caller.spanId, name: "caller", service: "test" } as ReceivedSpan,
      gateway,
      one(spans, "agent request", "api-gateway"),
      one(spans, "agent serve", "agent"),
      one(spans, "agent run", "agent"),
      one(spans, `tool-call ${TOOL}`, "agent"),
      one(spans, "mcp-tool request", "agent"),
      one(spans, "mcp-tool serve", "mcp-tool"),
      mcpCall,
      one(spans, PYTHON_SPAN, PYTHON_SERVICE),
    ]);
    expect(mcpCall.attributes).toMatchObject({
      "toolmesh.tool.name": TOOL,
      "toolmesh.mcp.remote_name": "traceparent",
      "toolmesh.outcome": "ok",
    });

    expect(received).toEqual({ version: "00", traceId: gateway.traceId, parentSpanId: mcpCall.spanId, flags: "01" });
    console.log(`agent run: the Python MCP server received traceparent ${header}`);
    const served = one(spans, PYTHON_SPAN, PYTHON_SERVICE);
    console.log(
      `agent run: trace ${gateway.traceId} (${spans.length} spans), mcp call span ${mcpCall.spanId}, ` +
        `the Python SDK's '${served.name}' span ${served.spanId} (parent ${served.parentSpanId})`,
    );
  }, 60_000);

  it("is the gateway call's trace when the mcp-tool service is called directly", async () => {
    const caller = callerContext();
    const reply = (await callTraced("mcp-tool", caller.traceparent, { name: TOOL, parameters: {} })) as { text?: string };
    const received = parseTraceparent(reply.text ?? "");

    const spans = await spansOf(caller.traceId, ["gateway mcp-tool", "mcp-tool request", "mcp-tool serve", "mcp call", PYTHON_SPAN]);
    const mcpCall = one(spans, "mcp call", "mcp-tool");
    expectChain([
      { spanId: caller.spanId, name: "caller", service: "test" } as ReceivedSpan,
      one(spans, "gateway mcp-tool", "api-gateway"),
      one(spans, "mcp-tool request", "api-gateway"),
      one(spans, "mcp-tool serve", "mcp-tool"),
      mcpCall,
      one(spans, PYTHON_SPAN, PYTHON_SERVICE),
    ]);
    expect(received).toEqual({ version: "00", traceId: caller.traceId, parentSpanId: mcpCall.spanId, flags: "01" });
    console.log(`gateway call: the Python MCP server received traceparent ${reply.text}; mcp call span ${mcpCall.spanId}`);
  }, 60_000);

  it("is not sent by an mcp-tool with tracing off, though the request reached it traced", async () => {
    await system.get("mcp-tool").stop();
    await system.add("mcp-tool", "mcp-tool");
    const caller = callerContext();
    const reply = await waitFor(
      async () => {
        const r = (await callTraced("mcp-tool", caller.traceparent, { name: TOOL, parameters: {} })) as { text?: string };
        return r.text === undefined ? undefined : r;
      },
      { timeoutMs: 20_000, description: "a reply from the untraced mcp-tool" },
    );
    expect(reply.text).toBe(NO_HEADER);

    // The gateway traced the request (so a context was there to pass on); the untraced mcp-tool made no span.
    const spans = await spansOf(caller.traceId, ["gateway mcp-tool"]);
    expect(spans.filter((s) => s.service === "mcp-tool" || s.service === PYTHON_SERVICE)).toEqual([]);
    console.log(
      `tracing off: the Python MCP server answered '${reply.text}'; trace ${caller.traceId} has ${spans.length} spans, none from mcp-tool`,
    );
  }, 60_000);
});
