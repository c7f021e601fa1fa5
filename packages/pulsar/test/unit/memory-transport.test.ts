import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryBroker, MemoryTransport, PulsarClient, RequestClient, serve, type IncomingMessage } from "../../src/index.js";

// The in-memory transport stands in for the broker in the unit tier, so its semantics must be Pulsar's:
// these are the same behaviours the integration contract tests check on the real broker.
const broker = new MemoryBroker();
const clients: PulsarClient[] = [];
function client(): PulsarClient {
  const c = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};
let n = 0;
const topic = (persistence = "non-persistent") => `${persistence}://t/ns/topic-${++n}`;

describe("MemoryTransport", () => {
  it("delivers payload, properties and key, in order, asynchronously", async () => {
    const c = client();
    const t = topic();
    const got: IncomingMessage[] = [];
    await c.subscribe({ topic: t, subscription: "s", type: "Exclusive" }, async (m) => void got.push(m));
    await c.send(t, Buffer.from("a"), { id: "1" });
    expect(got).toHaveLength(0); // never inside send()
    for (let i = 0; i < 9; i++) await c.send(t, Buffer.from(String(i)));
    await until(() => got.length === 10);
    expect(got[0]!.properties).toEqual({ id: "1" });
    expect(got.slice(1).map((m) => m.payload.toString())).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8"]);
  });

  it("drops non-persistent messages nobody is subscribed to, keeps persistent ones for Earliest", async () => {
    const c = client();
    const np = topic();
    const p = topic("persistent");
    await c.send(np, Buffer.from("lost"));
    await c.send(p, Buffer.from("kept"));
    const np_got: string[] = [];
    const p_got: string[] = [];
    await c.subscribe({ topic: np, subscription: "s", type: "Exclusive" }, async (m) => void np_got.push(m.payload.toString()));
    await c.subscribe(
      { topic: p, subscription: "s", type: "Exclusive", initialPosition: "Earliest" },
      async (m) => void p_got.push(m.payload.toString()),
    );
    await c.send(np, Buffer.from("seen"));
    await until(() => np_got.length === 1 && p_got.length === 1);
    expect(np_got).toEqual(["seen"]);
    expect(p_got).toEqual(["kept"]);
  });

  it("deals a Shared subscription across consumers and refuses a second Exclusive consumer", async () => {
    const t = topic();
    const a: string[] = [];
    const b: string[] = [];
    await client().subscribe({ topic: t, subscription: "work", type: "Shared" }, async (m) => void a.push(m.messageId));
    await client().subscribe({ topic: t, subscription: "work", type: "Shared" }, async (m) => void b.push(m.messageId));
    const producer = client();
    for (let i = 0; i < 10; i++) await producer.send(t, Buffer.from("x"));
    await until(() => a.length + b.length === 10);
    expect(a.length).toBe(5);
    expect(b.length).toBe(5);
    await client().subscribe({ topic: t, subscription: "mine", type: "Exclusive" }, async () => {});
    await expect(client().subscribe({ topic: t, subscription: "mine", type: "Exclusive" }, async () => {})).rejects.toThrow(/Exclusive/);
  });

  it("redelivers a nacked message (persistent) with a higher redelivery count, then not after the ack", async () => {
    const c = client();
    const t = topic("persistent");
    const attempts: IncomingMessage[] = [];
    await c.subscribe({ topic: t, subscription: "w", type: "Shared", negativeAckRedeliveryDelayMs: 10 }, async (m) => {
      attempts.push(m);
      if (attempts.length === 1) throw new Error("first attempt fails");
    });
    await c.send(t, Buffer.from("job"));
    await until(() => attempts.length === 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.messageId).toBe(attempts[0]!.messageId);
    expect(attempts[1]!.redeliveryCount).toBe(1);
  });

  it("hands a closed consumer's unacked persistent messages to the remaining one", async () => {
    const t = topic("persistent");
    const first = new MemoryTransport({ broker });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const channel = await first.subscribe({ topic: t, subscription: "w", type: "Shared" }, () => void held);
    await broker.publish(t, { payload: Buffer.from("only"), properties: {} });
    await new Promise((r) => setImmediate(r));
    const second: string[] = [];
    await client().subscribe({ topic: t, subscription: "w", type: "Shared" }, async (m) => void second.push(m.payload.toString()));
    await channel.close();
    release();
    await until(() => second.length === 1);
    expect(second).toEqual(["only"]);
  });

  it("carries request/response calls between two clients, as between two processes", async () => {
    const requestTopic = topic();
    const responseTopic = topic();
    const Reply = z.object({ echo: z.string() });
    await serve(client(), {
      requestTopic,
      responseTopic,
      subscription: "echo-request",
      requestSchema: z.object({ text: z.string() }),
      handler: async (request) => ({ echo: request.text.toUpperCase() }),
      errorReply: (error) => ({ echo: `error ${error.type}` }),
    });
    const caller = await RequestClient.create(client(), { requestTopic, responseTopic, responseSchema: Reply, timeoutMs: 1_000 });
    const replies = await Promise.all(["a", "b", "c"].map((text) => caller.request({ text })));
    expect(replies.map((r) => r.echo)).toEqual(["A", "B", "C"]);
    expect((await caller.request({ wrong: 1 })).echo).toBe("error bad-request");
    await caller.close();
  });
});
