import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker, waitFor } from "@toolmesh/test-support";
import {
  type RunningGateway,
  SocketClient,
  brokenTool,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  streamTool,
  textTool,
  toolRequest,
} from "./fixture.js";

const text = textTool();
const stream = streamTool();
const broken = brokenTool();
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let gw: RunningGateway;
let client: SocketClient;

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [text, stream, broken]);
  gw = await startGateway(broker);
  for (const tool of [text, stream, broken]) await registerToolService(gw, tool.id, tool.topic);
  const address = await gw.runtime.listen();
  client = await SocketClient.connect(`${address.replace(/^http/, "ws")}/api/v1/socket`);
});

afterAll(async () => {
  client?.close();
  await gw?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("WebSocket /api/v1/socket", () => {
  it("answers a tool with one complete frame", async () => {
    client.send({ id: "t1", service: text.id, flow: "default", request: toolRequest({ topic: "cats" }) });
    expect(await client.answer("t1")).toEqual([
      { id: "t1", response: { response: "hello alice, about cats", end_of_stream: true }, complete: true },
    ]);
  });

  it("sends a 3-chunk stream as 3 frames, only the last complete", async () => {
    client.send({ id: "s1", service: stream.id, request: toolRequest() });
    const frames = await client.answer("s1");
    expect(frames.map((f) => [(f.response as { response: string }).response, f.complete])).toEqual([
      ["one ", false],
      ["two ", false],
      ["three", true],
    ]);
  });

  it("interleaves many requests in flight by id", async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `many-${i}`);
    ids.forEach((id, i) => client.send({ id, service: i % 2 ? stream.id : text.id, request: toolRequest({ topic: id }) }));
    const answers = await Promise.all(ids.map((id) => client.answer(id)));
    answers.forEach((frames, i) => {
      expect(frames).toHaveLength(i % 2 ? 3 : 1);
      expect(frames.at(-1)?.complete).toBe(true);
    });
    expect((answers[0]?.[0]?.response as { response: string }).response).toBe("hello alice, about many-0");
  });

  it("forwards a tool's error reply as its response", async () => {
    client.send({ id: 7, service: broken.id, request: toolRequest() });
    expect(await client.answer(7)).toEqual([
      {
        id: 7,
        response: { error: { type: "tool-service-error", message: "the tool broke" }, response: "", end_of_stream: true },
        complete: true,
      },
    ]);
  });

  it("answers bad frames with error frames and keeps the socket working", async () => {
    // TrustGraph's Mux: no id could be read, so none is echoed; type "error".
    client.send("not json at all");
    await waitFor(() => client.frames.some((f) => f.id === undefined && f.complete === true), { description: "the error frame" });
    expect(client.frames.find((f) => f.id === undefined)).toEqual({
      error: { type: "error", message: expect.any(String) },
      complete: true,
    });

    client.send({ id: "no-service", request: {} });
    expect(await client.answer("no-service")).toEqual([
      { id: "no-service", error: { type: "error", message: "Bad message" }, complete: true },
    ]);

    client.send({ id: "unknown", service: "nope", request: {} });
    const [unknown] = await client.answer("unknown");
    expect(unknown).toMatchObject({ error: { type: "unknown-service" }, complete: true });

    client.send({ id: "bad-body", service: text.id, request: { arguments: "{" } });
    const [badBody] = await client.answer("bad-body");
    expect(badBody).toMatchObject({ error: { type: "bad-request", message: expect.stringContaining("arguments: not valid JSON") } });

    client.send({ id: "after", service: text.id, request: toolRequest({ topic: "after" }) });
    const [after] = await client.answer("after");
    expect(after).toMatchObject({ response: { response: "hello alice, about after" }, complete: true });
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it("closes only the socket that sends an oversized frame (1009); others keep working", async () => {
    const big = await SocketClient.connect(client.socket.url);
    const closed = new Promise<number>((resolve) => big.socket.once("close", (code) => resolve(code)));
    big.send({ id: "big", service: text.id, request: toolRequest({ blob: "x".repeat(6 * 1024 * 1024) }) });
    expect(await closed).toBe(1009);
    client.send({ id: "still", service: text.id, request: toolRequest({ topic: "still" }) });
    const [frame] = await client.answer("still");
    expect(frame).toMatchObject({ response: { response: "hello alice, about still" }, complete: true });
  });
});
