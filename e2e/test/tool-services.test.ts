import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PulsarClient } from "@toolmesh/pulsar";
import { ToolServiceResponse } from "@toolmesh/schema";
import { waitFor, clientOptions, requestTopic, responseTopic } from "@toolmesh/test-support";
import { System } from "./system.js";

// The first seed end to end: a new tool is a small service plus two descriptors, and works without
// restarting anything. Everything runs as separate processes on the real broker.
const system = new System();
const tools = {
  pun: "Here's a pun: my cat is a great DJ, he always brings the mewsic.",
  dad: "Why don't cats play poker in the jungle? Too many cheetahs.",
  oneLiner: "A cat's job is to sit on whatever you are using.",
};

beforeAll(async () => {
  await system.start([["config"], ["joke-service"], ["api-gateway", { GATEWAY_REQUEST_TIMEOUT_MS: "2000" }]]);
}, 120_000);

afterAll(() => system.stop());

const jokeTool = (id: string, style: string | undefined, service = "joke-service") => [
  "set-tool",
  "--id",
  id,
  "--name",
  id,
  "--type",
  "tool-service",
  "--service",
  service,
  "--description",
  `Tells a ${style ?? "default"} joke`,
  "--argument",
  "topic:string:what the joke is about",
  ...(style ? ["--config", `style=${style}`] : []),
];

async function expectOk(result: Promise<{ code: number; stdout: string; stderr: string }>) {
  const r = await result;
  expect(r.stderr, r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

describe("tool services end to end", () => {
  it("registers the seed's joke-service and two tools on it with different styles", async () => {
    await expectOk(system.tg("set-tool-service", "--id", "joke-service", "--topic", "joke", "--config-param", "style:required"));
    await expectOk(system.tg(...jokeTool("tell-pun", "pun")));
    await expectOk(system.tg(...jokeTool("tell-dad-joke", "dad-joke")));
    const listed = await expectOk(system.tg("show-tools"));
    expect(listed).toContain("tell-pun");
    expect(listed).toContain("tell-dad-joke");
  });

  it("invokes each tool through tg and gets different results", async () => {
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-pun", "-a", '{"topic": "cats"}'))).toBe(tools.pun);
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-dad-joke", "-a", '{"topic": "cats"}'))).toBe(tools.dad);
  });

  it("invokes the service through the gateway's REST route and WebSocket with each tool's config", async () => {
    const rest = await system.call("joke-service", { user: "alice", config: '{"style": "dad-joke"}', arguments: '{"topic": "cats"}' });
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual([{ response: tools.dad, end_of_stream: true }]);

    const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const frames: unknown[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    socket.send(
      JSON.stringify({
        id: "w1",
        service: "joke-service",
        flow: "default",
        request: { user: "bob", config: '{"style":"pun"}', arguments: '{"topic":"cats"}' },
      }),
    );
    await waitFor(() => frames.length === 1, { description: "the socket reply" });
    expect(frames[0]).toEqual({ id: "w1", response: { response: tools.pun, end_of_stream: true }, complete: true });
    socket.close();
  });

  it("offers a third tool added while everything runs, with no restart", async () => {
    await expectOk(system.tg(...jokeTool("tell-one-liner", "one-liner")));
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-one-liner", "-a", '{"topic": "cats"}'))).toBe(tools.oneLiner);
  });

  it("serves a brand-new tool service started while everything runs: one process plus two descriptors", async () => {
    await system.add("jokes-2", "joke-service", { JOKE_TOPIC: "jokes-two", JOKE_ANNOUNCE: "false" });
    await expectOk(system.tg("set-tool-service", "--id", "jokes-two", "--topic", "jokes-two", "--config-param", "style"));
    await expectOk(system.tg(...jokeTool("tell-another", "one-liner", "jokes-two")));
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-another", "-a", '{"topic": "coffee"}'))).toBe(
      "Decaf is just coffee with the point removed.",
    );
    // The gateway learnt the new service from config alone.
    await waitFor(async () => (await system.call("jokes-two", { user: "u", config: "{}", arguments: '{"topic":"dogs"}' })).status === 200, {
      description: "the gateway to see jokes-two",
    });
  });
});

describe("errors end to end: each clear, every service still healthy", () => {
  it("unknown tool", async () => {
    const r = await system.tg("invoke-tool", "-n", "no-such-tool", "-a", "{}");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tg: .*no tool 'no-such-tool'/);
  });

  it("unknown service", async () => {
    await expectOk(system.tg(...jokeTool("ghost-tool", "pun", "ghost-service")));
    const r = await system.tg("invoke-tool", "-n", "ghost-tool", "-a", '{"topic":"x"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tg: .*ghost-service/);
    const rest = await system.call("ghost-service", { user: "u", config: "{}", arguments: "{}" });
    expect(rest.status).toBe(404);
    expect(rest.body).toMatchObject({ error: "unknown kind", detail: expect.stringContaining("ghost-service") });
  });

  it("missing required config param", async () => {
    await expectOk(system.tg(...jokeTool("styleless", undefined)));
    const r = await system.tg("invoke-tool", "-n", "styleless", "-a", '{"topic":"x"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tg: .*does not set 'style', which service 'joke-service' requires/);
  });

  it("a tool that throws", async () => {
    await expectOk(system.tg(...jokeTool("tell-limerick", "limerick")));
    const r = await system.tg("invoke-tool", "-n", "tell-limerick", "-a", '{"topic":"x"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tg: .*unknown style 'limerick'/);
  });

  it("a tool service that is not running times out naming its topic", async () => {
    await expectOk(system.tg("set-tool-service", "--id", "sleepy-service", "--topic", "sleepy"));
    await expectOk(system.tg(...jokeTool("sleepy-tool", "pun", "sleepy-service")));
    const r = await system.tg("invoke-tool", "-n", "sleepy-tool", "-a", '{"topic":"x"}');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(requestTopic("sleepy"));
  });

  it("malformed JSON sent straight onto the request topic gets an error reply with its id", async () => {
    const pulsar = new PulsarClient(clientOptions(system.broker));
    const id = randomUUID();
    const replies: unknown[] = [];
    await pulsar.subscribe({ topic: responseTopic("joke"), subscription: `e2e-${id}`, type: "Exclusive" }, async (m) => {
      if (m.properties.id === id) replies.push(ToolServiceResponse.parse(JSON.parse(m.payload.toString())));
    });
    await pulsar.send(requestTopic("joke"), Buffer.from('{"user": "x", "arguments": '), { id });
    await waitFor(() => replies.length === 1, { description: "the error reply" });
    expect(replies[0]).toMatchObject({
      error: { type: "bad-request", message: expect.stringMatching(/not valid JSON/) },
      end_of_stream: true,
    });
    await pulsar.close();
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-pun", "-a", '{"topic": "cats"}'))).toBe(tools.pun);
  });

  it("leaves every service healthy and ready", async () => {
    for (const [label, service] of system.services) {
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status, label).toBe(200);
    }
  });
});

describe("config survives a restart", () => {
  it("keeps every descriptor and keeps the version increasing", async () => {
    const before = (await system.call("config", { operation: "config" })).body as { version: number; config: unknown };
    await system.get("config").restart();
    const after = await waitFor(
      async () => {
        const r = await system.call("config", { operation: "config" });
        return r.status === 200 ? (r.body as { version: number; config: unknown }) : undefined;
      },
      { timeoutMs: 20_000, description: "config after restart" },
    );
    expect(after.version).toBe(before.version);
    expect(after.config).toEqual(before.config);
    await expectOk(system.tg("delete-tool", "--id", "ghost-tool"));
    const later = (await system.call("config", { operation: "config" })).body as { version: number };
    expect(later.version).toBe(before.version + 1);
    expect(await expectOk(system.tg("invoke-tool", "-n", "tell-pun", "-a", '{"topic": "cats"}'))).toBe(tools.pun);
  });
});
