import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { EverythingServer, OtlpReceiver, type ReceivedSpan, ScriptedLlm, waitFor } from "@toolmesh/test-support";
import { PUN, addPunAndEchoTools, scriptPunThenEcho, waitForCatalog } from "./fixtures/tools.js";
import { System } from "./system.js";

// Issue 17 item 4: one agent run, every service its own process with tracing on through the standard
// OTEL_* variables (protobuf, OpenTelemetry's default), exported to an OTLP receiver started here. The run's
// spans must form ONE trace: gateway -> agent -> LLM -> tool service (and the MCP hop) -> reply.
const system = new System();
const llm = new ScriptedLlm();
const receiver = new OtlpReceiver();
let everything: EverythingServer;
const QUESTION = "Trace my cat joke echo";

beforeAll(async () => {
  await receiver.start();
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  // Export soon after each span ends, so the test does not wait for the default 5 s batch delay.
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };
  await system.start([
    ["config", tracing],
    ["joke-service", { ...tracing, JOKE_ANNOUNCE: "false" }],
    ["mcp-tool", tracing],
    ["tool-registry", { ...tracing, REGISTRY_REFRESH_INTERVAL_MS: "0" }],
    ["agent", { ...tracing, OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }],
    ["api-gateway", tracing],
  ]);
  await addPunAndEchoTools(system, everything.url);
  await waitForCatalog(system, ["tell-pun", "echo"]);
}, 180_000);

afterAll(async () => {
  await system.stop();
  await llm.close();
  await everything?.stop();
  await receiver.close();
});

const SERVER = 2;
const CLIENT = 3;

describe("one agent run's trace, received over OTLP", () => {
  it("joins gateway -> agent -> LLM -> tool service -> MCP -> reply into one trace with correct parents", async () => {
    scriptPunThenEcho(llm, QUESTION);
    // The caller's own trace context: the gateway continues it, so the whole run is found by this id.
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const response = await fetch(`${system.gatewayUrl}/api/v1/flow/default/service/agent`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ question: QUESTION, user: "alice" }),
    });
    const answer = (await response.json()) as { answer?: string; content?: string };
    expect(JSON.stringify(answer)).toContain(`Done: Echo: ${PUN}`);

    // Each process exports on its own, and the agent's server span ends after its reply reached the
    // gateway: wait for the gateway's and the agent's outermost spans, and the inner ones.
    const spans = await waitFor(
      () => {
        const trace = receiver.trace(traceId);
        return ["gateway agent", "agent serve", "agent run", "mcp call"].every((name) => trace.some((s) => s.name === name)) &&
          trace.filter((s) => s.name === "llm chat").length === 3
          ? trace
          : undefined;
      },
      { timeoutMs: 20_000, description: "the run's spans at the OTLP receiver" },
    );

    const one = (name: string, service: string): ReceivedSpan => {
      const found = spans.filter((s) => s.name === name && s.service === service);
      expect(found, `${name} in ${service}; spans: ${spans.map((s) => `${s.service}/${s.name}`).join(", ")}`).toHaveLength(1);
      return found[0]!;
    };
    const childOf = (child: ReceivedSpan, parent: ReceivedSpan) =>
      expect(child.parentSpanId, `${child.service}/${child.name} is a child of ${parent.service}/${parent.name}`).toBe(parent.spanId);

    const gateway = one("gateway agent", "api-gateway");
    const agentRequest = one("agent request", "api-gateway");
    const agentServe = one("agent serve", "agent");
    const run = one("agent run", "agent");
    const llmCalls = spans.filter((s) => s.name === "llm chat");
    const punCall = one("tool-call tell-pun", "agent");
    const jokeRequest = one("joke request", "agent");
    const jokeServe = one("joke serve", "joke-service");
    const echoCall = one("tool-call echo", "agent");
    const mcpRequest = one("mcp-tool request", "agent");
    const mcpServe = one("mcp-tool serve", "mcp-tool");
    const mcpCall = one("mcp call", "mcp-tool");

    // gateway -> agent (across Pulsar) -> run -> LLM calls and tool calls -> tool service (across Pulsar).
    childOf(gateway, { spanId: callerSpanId, name: "caller", service: "test" } as ReceivedSpan);
    childOf(agentRequest, gateway);
    childOf(agentServe, agentRequest);
    childOf(run, agentServe);
    for (const call of llmCalls) childOf(call, run);
    childOf(punCall, run);
    childOf(jokeRequest, punCall);
    childOf(jokeServe, jokeRequest);
    childOf(echoCall, run);
    childOf(mcpRequest, echoCall);
    childOf(mcpServe, mcpRequest);
    childOf(mcpCall, mcpServe);

    expect(gateway).toMatchObject({ kind: SERVER, attributes: { "toolmesh.gateway.door": "rest", "toolmesh.outcome": "ok" } });
    expect(agentRequest).toMatchObject({
      kind: CLIENT,
      attributes: {
        "messaging.destination.name": expect.stringMatching(/^non-persistent:\/\/[^/]+\/request\/agent$/),
        "toolmesh.outcome": "ok",
      },
    });
    expect(run.attributes["toolmesh.catalog.revision"]).toBeGreaterThan(0);
    expect(run.attributes["toolmesh.outcome"]).toBe("ok");
    expect(llmCalls.map((s) => s.attributes["gen_ai.request.model"])).toEqual(["scripted", "scripted", "scripted"]);
    // Each LLM call's HTTP request carried its span's context, for a traced model server to continue.
    for (const call of llmCalls) expect(llm.traceparents).toContain(`00-${traceId}-${call.spanId}-01`);
    expect(punCall.attributes).toMatchObject({
      "toolmesh.tool.name": "tell-pun",
      "toolmesh.catalog.revision": run.attributes["toolmesh.catalog.revision"],
      "toolmesh.outcome": "ok",
    });
    expect(jokeServe.attributes).toMatchObject({
      "messaging.destination.name": expect.stringMatching(/^non-persistent:\/\/[^/]+\/request\/joke$/),
      "toolmesh.tool_service.id": "joke-service",
      "toolmesh.outcome": "ok",
    });
    expect(jokeServe.attributes["toolmesh.duration_ms"]).toBeTypeOf("number");
    expect(mcpCall).toMatchObject({
      kind: CLIENT,
      attributes: { "toolmesh.tool.name": "echo", "toolmesh.mcp.remote_name": "echo", "toolmesh.outcome": "ok" },
    });

    // Exported as protobuf (OTLP's default), and never an argument or a result in any span.
    expect([...receiver.contentTypes]).toEqual(["application/x-protobuf"]);
    const dump = JSON.stringify(spans);
    for (const secret of [PUN, QUESTION, "cats", "mewsic"]) expect(dump).not.toContain(secret);
  }, 60_000);

  it("traces a socket frame from the upgrade request's traceparent, and the registry's refreshes", async () => {
    const traceId = randomBytes(16).toString("hex");
    const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
    });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const frames: Array<{ id?: string; complete?: boolean }> = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    socket.send(
      JSON.stringify({ id: "e", service: "mcp-tool", flow: "default", request: { name: "echo", parameters: { message: "traced" } } }),
    );
    await waitFor(() => frames.some((f) => f.id === "e" && f.complete), { description: "the socket reply" });
    socket.close();
    const spans = await waitFor(
      () => {
        const trace = receiver.trace(traceId);
        return trace.some((s) => s.name === "gateway mcp-tool") && trace.some((s) => s.name === "mcp call") ? trace : undefined;
      },
      { timeoutMs: 20_000, description: "the socket request's spans" },
    );
    const gateway = spans.find((s) => s.name === "gateway mcp-tool")!;
    expect(gateway.attributes["toolmesh.gateway.door"]).toBe("socket");
    const serve = spans.find((s) => s.name === "mcp-tool serve")!;
    expect(spans.find((s) => s.name === "mcp call")!.parentSpanId).toBe(serve.spanId);

    // The refreshes that built the catalog: the last one that made a revision names it.
    const refreshes = receiver.spans.filter((s) => s.service === "tool-registry" && s.name === "registry refresh");
    const created = refreshes.filter((s) => s.attributes["toolmesh.refresh.created"] === true);
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((s) => Number(s.attributes["toolmesh.catalog.revision"]) > 0 && s.attributes["toolmesh.outcome"] === "ok")).toBe(
      true,
    );
  }, 60_000);
});
