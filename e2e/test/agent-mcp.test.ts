import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { EverythingServer, ScriptedLlm, waitFor } from "@toolmesh/test-support";
import { PUN, addMcpEntry, addPunAndEchoTools, scriptPunThenEcho, tgOk, waitForCatalog } from "./fixtures/tools.js";
import { System } from "./system.js";

// Seeds 003 and 004 end to end: MCP tools from a real MCP server nobody here wrote, and the agent using
// a tool-service tool and an MCP tool from its catalog revision, every part a separate process.
const system = new System();
const llm = new ScriptedLlm();
let everything: EverythingServer;
const ok = (args: string[]) => tgOk(system, ...args);

beforeAll(async () => {
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  await system.start([
    ["config"],
    ["joke-service", { JOKE_ANNOUNCE: "false" }],
    ["mcp-tool"],
    ["tool-registry", { REGISTRY_REFRESH_INTERVAL_MS: "0" }],
    ["agent", { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }],
    ["api-gateway"],
  ]);
  await addPunAndEchoTools(system, everything.url);
  await addMcpEntry(system, "weather", everything.url, "get-structured-content");
}, 180_000);

afterAll(async () => {
  await system.stop();
  await llm.close();
  await everything?.stop();
});

describe("MCP tools through every front door", () => {
  it("calls a text tool and a structured tool through tg invoke-mcp-tool", async () => {
    expect(await ok(["invoke-mcp-tool", "-n", "echo", "-P", '{"message": "hello"}'])).toBe("Echo: hello");
    expect(JSON.parse(await ok(["invoke-mcp-tool", "-n", "weather", "-P", '{"location": "Chicago"}']))).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
  });

  it("answers REST with the seed-003 text and object responses (parameters as an object, or a string)", async () => {
    expect((await system.call("mcp-tool", { name: "echo", parameters: { message: "rest" } })).body).toEqual({ text: "Echo: rest" });
    expect((await system.call("mcp-tool", { name: "echo", parameters: '{"message": "rest"}' })).body).toEqual({ text: "Echo: rest" });
    expect((await system.call("mcp-tool", { name: "weather", parameters: { location: "Chicago" } })).body).toEqual({
      object: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
    });
  });

  it("answers the WebSocket envelope, one frame per request", async () => {
    const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const frames: Array<{ id?: string; type?: string }> = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    socket.send(JSON.stringify({ type: "auth", token: "" }));
    await waitFor(() => frames.length === 1, { description: "the auth reply" });
    expect(frames[0]).toEqual({ type: "auth-ok", default_workspace: "default" });
    socket.send(
      JSON.stringify({ id: "t", service: "mcp-tool", flow: "default", request: { name: "echo", parameters: { message: "ws" } } }),
    );
    socket.send(
      JSON.stringify({ id: "o", service: "mcp-tool", flow: "default", request: { name: "weather", parameters: { location: "Chicago" } } }),
    );
    await waitFor(() => frames.length === 3, { description: "two socket replies" });
    const byId = Object.fromEntries(frames.slice(1).map((f) => [f.id, f]));
    expect(byId.t).toEqual({ id: "t", response: { text: "Echo: ws" }, complete: true });
    expect(byId.o).toEqual({
      id: "o",
      response: { object: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 } },
      complete: true,
    });
    socket.close();
  });

  it("reports an unknown MCP tool clearly", async () => {
    const r = await system.tg("invoke-mcp-tool", "-n", "nope", "-P", "{}");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tg: .*no mcp tool 'nope' in config/);
  });

  it("answers bad input on the TrustGraph surfaces in TrustGraph's error shapes, never a 500, and keeps serving", async () => {
    const post = async (path: string, body: string) => {
      const response = await fetch(`${system.gatewayUrl}/api/v1/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      return { status: response.status, body: (await response.json()) as { error?: string & { type?: string }; [key: string]: unknown } };
    };
    expect(await post("config", "{not json")).toEqual({ status: 400, body: { error: "invalid json" } });
    expect(await post("config", "[1]")).toEqual({ status: 400, body: { error: "body must be an object" } });
    expect(await post("config", "{}")).toEqual({ status: 400, body: { error: "missing operation" } });
    expect(await post("config", '{"operation": "explode"}')).toEqual({ status: 400, body: { error: "unknown operation" } });
    expect(await post("nothing", '{"operation": "get"}')).toEqual({ status: 400, body: { error: "unknown operation" } });
    const badKeys = await post("config", '{"operation": "get", "keys": [{"type": "tool"}]}');
    expect(badKeys.status).toBe(200);
    expect(badKeys.body.error).toEqual({ type: "bad-request", message: expect.stringContaining("keys.0.key") });
    expect(await post("config", '{"operation": "getvalues-all-ws", "type": "tool"}')).toEqual({
      status: 200,
      body: { error: { type: "bad-operation", message: "Bad operation" } },
    });
    const unknownKind = await post("flow/default/service/no-such-kind", "{}");
    expect(unknownKind.status).toBe(404);
    expect(unknownKind.body.error).toBe("unknown kind");
    expect(await post("flow/other/service/mcp-tool", '{"name": "echo"}')).toEqual({
      status: 200,
      body: { error: "Invalid flow default/other" },
    });
    const badJson = await post("flow/default/service/mcp-tool", "{oops");
    expect(badJson.status).toBe(200);
    expect(typeof badJson.body.error).toBe("string");
    const noName = await post("flow/default/service/mcp-tool", "{}");
    expect(noName.status).toBe(200);
    expect(noName.body.error?.type).toBe("bad-request");
    // Still serving.
    expect(await post("config", '{"operation": "list", "type": "mcp"}')).toMatchObject({
      status: 200,
      body: { directory: expect.arrayContaining(["echo"]) },
    });
  });

  it("answers bad socket frames in TrustGraph's error frames and keeps the socket open", async () => {
    const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const frames: unknown[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    socket.send("{nope");
    socket.send(JSON.stringify({ id: "x" }));
    socket.send(JSON.stringify({ id: "u", service: "no-such", flow: "default", request: {} }));
    socket.send(JSON.stringify({ id: "c", service: "config", request: { operation: "list", type: "mcp" } }));
    await waitFor(() => frames.length === 4, { description: "four replies" });
    expect(frames[0]).toEqual({ error: { type: "error", message: expect.any(String) }, complete: true });
    expect(frames[1]).toEqual({ id: "x", error: { type: "error", message: "Bad message" }, complete: true });
    expect(frames[2]).toEqual({ id: "u", error: { type: "unknown-service", message: "unknown service" }, complete: true });
    expect(frames[3]).toMatchObject({ id: "c", response: { directory: expect.arrayContaining(["echo"]) }, complete: true });
    socket.close();
  });
});

describe("the agent over the catalog", () => {
  it("calls tell-pun, then an MCP tool, then answers; the run records the revision and both calls", async () => {
    const catalog = await waitForCatalog(system, ["tell-pun", "echo"]);
    scriptPunThenEcho(llm, "Make my cat joke echo");
    const out = await ok(["agent", "-q", "Make my cat joke echo", "-u", "alice"]);
    const lines = out.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "thought: First a pun.",
      `observation: ${PUN}`,
      "thought: Now echo it.",
      `observation: Echo: ${PUN}`,
      `Done: Echo: ${PUN}`,
    ]);
    const runId = /\(run ([0-9a-f-]{36}) on catalog revision (\d+);/.exec(lines[5]!)?.[1];
    expect(runId).toBeDefined();
    expect(lines[5]).toContain(`catalog revision ${catalog.revision_number}`);

    const shown = await ok(["show-run", runId!]);
    expect(shown).toContain(`catalog revision ${catalog.revision_number}`);
    expect(shown).toMatch(/tool-call \[tell-pun\].*\{"topic":"cats"\}/);
    expect(shown).toMatch(/tool-call \[echo\]/);
    expect(shown).toContain(`answer: Done: Echo: ${PUN}`);

    // run -> revision -> tools, byte for byte: the tools the LLM was offered are the revision's.
    const run = (
      (await system.call("agent-runs", { operation: "get", run_id: runId })).body as {
        run: { catalog_revision: number; catalog_hash: string; user: string };
      }
    ).run;
    expect(run.user).toBe("alice");
    const revision = (
      (await system.call("tool-registry", { operation: "get-revision", revision_number: run.catalog_revision })).body as {
        revision: { content_hash: string; tools: Array<{ name: string; description: string; parameters_schema: unknown }> };
      }
    ).revision;
    expect(revision.content_hash).toBe(run.catalog_hash);
    const offered = llm.requestsFor("Make my cat joke echo")[0]!.tools!.map((t) => t.function);
    expect(offered).toEqual(revision.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters_schema })));
  });

  it("serves the agent over the WebSocket as a stream of frames", async () => {
    llm.script("Socket question", [{ content: "socket answer" }]);
    const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const frames: Array<{ response: { message_type: string; content: string; end_of_dialog: boolean }; complete: boolean }> = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    socket.send(JSON.stringify({ id: "a1", service: "agent", flow: "default", request: { question: "Socket question", streaming: true } }));
    await waitFor(() => frames.at(-1)?.complete, { description: "the final agent frame" });
    expect(frames.at(-1)!.response).toMatchObject({
      message_type: "answer",
      content: "socket answer",
      end_of_message: true,
      end_of_dialog: true,
    });
    expect(frames.at(-1)!.response).not.toHaveProperty("error");
    socket.close();
  });
});
