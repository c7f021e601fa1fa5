import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { BinaryTransport, SendError } from "../../src/index.js";
import { encodeCommand, FrameReader } from "../../src/binary/frame-codec.js";
import { CommandType } from "../../src/binary/pulsar-api.js";
import { toNumber } from "../../src/binary/commands.js";

// A fake broker on a local port that misbehaves on purpose: the first connection gets a frame that
// cannot be parsed, the second a command no client should receive, the third goes silent (no answers, no
// pongs); the fourth is served properly and pings the client. The transport must log each, drop that
// connection, connect again, and carry on (no crash); it must answer the broker's ping.
type Behaviour = "garbage" | "unknown-command" | "silent" | "good";

let server: Server;
let port = 0;
const connections: Behaviour[] = [];
const plan: Behaviour[] = ["garbage", "unknown-command", "silent"];
let pongs = 0;

function serveConnection(socket: Socket): void {
  const behaviour = plan.shift() ?? "good";
  connections.push(behaviour);
  const reader = new FrameReader(() => 10 * 1024 * 1024);
  const reply = (command: object) => socket.write(encodeCommand(command));
  // Producers on a "blackhole" topic never get a receipt.
  const blackholes = new Set<number>();
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    for (const { command } of reader.push(chunk)) {
      const c = command as unknown as Record<string, Record<string, unknown> | undefined> & { type: number };
      if (behaviour === "silent" && c.type !== CommandType.CONNECT) continue;
      if (c.type === CommandType.PONG) pongs += 1;
      else if (c.type === CommandType.PING) reply({ type: CommandType.PONG, pong: {} });
      else if (c.type === CommandType.CONNECT) {
        reply({ type: CommandType.CONNECTED, connected: { server_version: "fake", protocol_version: 19, max_message_size: 1024 } });
        if (behaviour === "garbage") {
          // totalSize 12 with a commandSize of 1000: a frame that lies about its own length.
          socket.write(Buffer.from([0, 0, 0, 12, 0, 0, 3, 232, 1, 2, 3, 4, 5, 6, 7, 8]));
        } else if (behaviour === "unknown-command") {
          reply({ type: CommandType.GET_LAST_MESSAGE_ID_RESPONSE });
        } else if (behaviour === "good") {
          reply({ type: CommandType.PING, ping: {} });
        }
      } else if (c.type === CommandType.PARTITIONED_METADATA) {
        reply({
          type: CommandType.PARTITIONED_METADATA_RESPONSE,
          partitionMetadataResponse: { request_id: c.partitionMetadata!.request_id, partitions: 0 },
        });
      } else if (c.type === CommandType.LOOKUP) {
        reply({
          type: CommandType.LOOKUP_RESPONSE,
          lookupTopicResponse: { request_id: c.lookupTopic!.request_id, response: 1, brokerServiceUrl: `pulsar://127.0.0.1:${port}` },
        });
      } else if (c.type === CommandType.PRODUCER) {
        if (String(c.producer!.topic).includes("blackhole")) blackholes.add(toNumber(c.producer!.producer_id as number));
        reply({ type: CommandType.PRODUCER_SUCCESS, producer_success: { request_id: c.producer!.request_id, producer_name: "fake-0" } });
      } else if (c.type === CommandType.CLOSE_PRODUCER) {
        reply({ type: CommandType.SUCCESS, success: { request_id: c.close_producer!.request_id } });
      } else if (c.type === CommandType.SEND) {
        const send = c.send!;
        if (blackholes.has(toNumber(send.producer_id as number))) continue;
        reply({
          type: CommandType.SEND_RECEIPT,
          send_receipt: {
            producer_id: send.producer_id,
            sequence_id: send.sequence_id,
            message_id: { ledgerId: 7, entryId: toNumber(send.sequence_id as number) },
          },
        });
      }
    }
  });
}

beforeAll(async () => {
  server = createServer(serveConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a broker that sends what cannot be read", () => {
  it("logs it, drops the connection, connects again and works", async () => {
    const logs: Array<{ level: number; msg: string; err?: string }> = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(JSON.parse(line)) });
    const transport = new BinaryTransport({
      serviceUrl: `pulsar://127.0.0.1:${port}`,
      logger,
      operationTimeoutMs: 20_000,
      keepAliveIntervalMs: 300,
    });
    const producer = await transport.createProducer("persistent://t/ns/fake");
    expect(await producer.send({ payload: Buffer.from("hi"), properties: {} })).toBe("7:0:-1:-1");
    expect(connections.slice(0, 4)).toEqual(["garbage", "unknown-command", "silent", "good"]);
    expect(pongs).toBeGreaterThanOrEqual(1);
    expect(logs.filter((l) => l.level === 40).map((l) => l.msg)).toContain("broker silent for a keep-alive interval; reconnecting");
    const errors = logs.filter((l) => l.level >= 50);
    expect(errors.map((l) => l.msg)).toEqual([
      "malformed frame from the broker; reconnecting",
      "could not handle a command from the broker; reconnecting",
    ]);
    expect(errors[0]!.err).toMatch(/command size 1000 exceeds the frame/);
    expect(transport.maxMessageSize).toBe(1024);
    // The limit CONNECTED announced is enforced before sending.
    await expect(producer.send({ payload: Buffer.alloc(2000), properties: {} })).rejects.toThrow(
      /exceeds the broker's limit of 1024 bytes; not sent/,
    );
    await transport.close();
  });

  it("fails a send the broker never confirms with an error naming the topic, and the producer goes on", async () => {
    const transport = new BinaryTransport({ serviceUrl: `pulsar://127.0.0.1:${port}`, sendTimeoutMs: 300 });
    const producer = await transport.createProducer("persistent://t/ns/blackhole");
    const error = await producer.send({ payload: Buffer.from("lost"), properties: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendError);
    expect((error as Error).message).toBe("broker did not confirm a message on persistent://t/ns/blackhole within 300 ms");
    const fine = await transport.createProducer("persistent://t/ns/fine");
    expect(await fine.send({ payload: Buffer.from("ok"), properties: {} })).toMatch(/^7:\d+:-1:-1$/);
    await transport.close();
  });
});
