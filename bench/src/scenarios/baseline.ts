import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { benchRequestWire, checkRawReply, rawEchoReply } from "../workload.js";
import { PendingReplies } from "./pending-replies.js";
import type { BenchContext, CallTarget } from "./types.js";

/**
 * The baseline: the same round trip on the same broker's WebSocket API with `ws` directly, no toolmesh
 * code. Client side: a producer on the request topic and an Exclusive consumer on the response topic;
 * server side: a Shared consumer on the request topic and a producer on the response topic. JSON frames,
 * base64 payloads, an `id` property, one ack per received message — the least any client must do.
 * Neither side waits for the producer's receipt before going on (receipts are read and checked).
 *
 * `coalesce` makes a second raw variant that gathers the frames of one event-loop turn into one TCP
 * write (cork until setImmediate), the write strategy @toolmesh/pulsar's link uses: with it, the gap
 * between toolmesh and raw is toolmesh's own code, not a difference in how frames reach the socket.
 */

function open(url: string, coalesce: boolean): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    if (coalesce) {
      socket.once("upgrade", (response) => {
        const tcp = response.socket;
        let corked = false;
        const send = socket.send.bind(socket);
        socket.send = ((data: string) => {
          if (!corked) {
            corked = true;
            tcp.cork();
            setImmediate(() => {
              corked = false;
              tcp.uncork();
            });
          }
          send(data);
        }) as typeof socket.send;
      });
    }
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
    socket.once("unexpected-response", (_req, res) => reject(new Error(`${url}: HTTP ${res.statusCode}`)));
  });
}

/** A raw producer: `send` writes one frame; refused receipts are counted so a broken run is visible. */
class RawProducer {
  private context = 0;
  refused = 0;
  constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const receipt = JSON.parse(data.toString()) as { result?: string };
      if (receipt.result !== "ok") this.refused += 1;
    });
  }
  send(body: unknown, id: string): void {
    const payload = Buffer.from(JSON.stringify(body)).toString("base64");
    this.socket.send(JSON.stringify({ payload, properties: { id }, context: String(this.context++) }));
  }
}

interface ConsumerFrame {
  messageId: string;
  payload: string;
  properties?: Record<string, string>;
}

/** A raw consumer: acks every message as it arrives, then hands over id and decoded body. */
function onMessages(socket: WebSocket, handle: (id: string | undefined, body: unknown) => void): void {
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as ConsumerFrame;
    socket.send(JSON.stringify({ messageId: frame.messageId }));
    handle(frame.properties?.id, JSON.parse(Buffer.from(frame.payload, "base64").toString("utf8")));
  });
}

export async function startBaseline(ctx: BenchContext, { coalesce = false } = {}): Promise<CallTarget> {
  const ws = ctx.webServiceUrl.replace(/^http/, "ws");
  const name = `bench-raw${coalesce ? "-coalesced" : ""}-${randomUUID().slice(0, 8)}`;
  const path = (kind: string, ns: string) => `${ws}/ws/v2/${kind}/non-persistent/${ctx.tenant}/${ns}/${name}`;

  // Server side first: non-persistent topics drop what nobody is subscribed to.
  const serverIn = await open(`${path("consumer", "request")}/${name}-request?subscriptionType=Shared&receiverQueueSize=1000`, coalesce);
  const serverOut = new RawProducer(await open(`${path("producer", "response")}?batchingEnabled=false`, coalesce));
  onMessages(serverIn, (id, body) => {
    if (id) serverOut.send(rawEchoReply(body), id);
  });

  const pending = new PendingReplies();
  const clientIn = await open(
    `${path("consumer", "response")}/${name}-client-${randomUUID()}?subscriptionType=Exclusive&receiverQueueSize=1000`,
    coalesce,
  );
  const clientOut = new RawProducer(await open(`${path("producer", "request")}?batchingEnabled=false`, coalesce));
  onMessages(clientIn, (id, body) => pending.settle(id, body));

  return {
    async call(i) {
      const id = randomUUID();
      const reply = pending.wait(id, `raw call ${i}`);
      clientOut.send(benchRequestWire(i), id);
      checkRawReply(i, await reply, "raw call");
    },
    async close() {
      if (serverOut.refused + clientOut.refused > 0) {
        console.error(`baseline: the broker refused ${serverOut.refused + clientOut.refused} messages`);
      }
      for (const socket of [clientOut.socket, clientIn, serverOut.socket, serverIn]) socket.close();
    },
  };
}
