import { randomUUID } from "node:crypto";
import type { ConsumerChannel, IncomingMessage, ProducerChannel, Transport } from "@toolmesh/pulsar";
import { createTransport } from "../transports.js";
import { benchRequestWire, checkRawReply, rawEchoReply } from "../workload.js";
import { PendingReplies } from "./pending-replies.js";
import type { BenchContext, CallTarget } from "./types.js";

/** Counts sends the broker refused, so a broken run is visible (the round trip itself does not wait on receipts). */
function sender(producer: ProducerChannel, refused: { count: number }) {
  return (body: unknown, id: string) =>
    void producer.send({ payload: Buffer.from(JSON.stringify(body)), properties: { id } }).catch(() => (refused.count += 1));
}

/** Subscribes and acks every message as it arrives, then hands over id and decoded body. */
async function onMessages(
  transport: Transport,
  topic: string,
  subscription: string,
  type: "Shared" | "Exclusive",
  handle: (id: string | undefined, body: unknown) => void,
) {
  const bound: { channel?: ConsumerChannel } = {};
  const channel = await transport.subscribe({ topic, subscription, type, receiverQueueSize: 1000 }, (message: IncomingMessage) => {
    bound.channel?.ack(message.messageId);
    handle(message.properties.id, JSON.parse(message.payload.toString("utf8")));
  });
  bound.channel = channel;
  return channel;
}

/**
 * The raw round trip on our binary-protocol transport: the baseline's shape (a Shared consumer and a
 * producer on the server side, a producer and an Exclusive consumer on the client side, one ack per
 * message) through the `Transport` interface alone, two transports (two connections) as two processes
 * would have, no toolmesh request/response code.
 */
export async function startBinaryRaw(ctx: BenchContext): Promise<CallTarget> {
  const name = `bench-binary-raw-${randomUUID().slice(0, 8)}`;
  const requestTopic = `non-persistent://${ctx.tenant}/request/${name}`;
  const responseTopic = `non-persistent://${ctx.tenant}/response/${name}`;
  const refused = { count: 0 };
  const server = createTransport(ctx, "binary");
  const client = createTransport(ctx, "binary");

  // Server side first: non-persistent topics drop what nobody is subscribed to.
  const reply = sender(await server.createProducer(responseTopic), refused);
  await onMessages(server, requestTopic, `${name}-request`, "Shared", (id, body) => {
    if (id) reply(rawEchoReply(body), id);
  });
  const pending = new PendingReplies();
  await onMessages(client, responseTopic, `${name}-client-${randomUUID()}`, "Exclusive", (id, body) => pending.settle(id, body));
  const request = sender(await client.createProducer(requestTopic), refused);

  return {
    async call(i) {
      const id = randomUUID();
      const answer = pending.wait(id, `binary raw call ${i}`);
      request(benchRequestWire(i), id);
      checkRawReply(i, await answer, "binary raw call");
    },
    async close() {
      if (refused.count > 0) console.error(`binary-raw: the broker refused ${refused.count} messages`);
      await Promise.all([client.close(), server.close()]);
    },
  };
}
