import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { benchAnswer, benchRequestWire } from "../workload.js";
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
    if (!id) return;
    const request = body as { arguments: string };
    const args = JSON.parse(request.arguments) as { n: number; q: string };
    serverOut.send({ error: null, response: benchAnswer(args), end_of_stream: true }, id);
  });

  // A timer per call, as any real client needs, so a lost reply fails the call instead of hanging the run.
  const pending = new Map<string, { resolve: (body: unknown) => void; timer: NodeJS.Timeout }>();
  const clientIn = await open(
    `${path("consumer", "response")}/${name}-client-${randomUUID()}?subscriptionType=Exclusive&receiverQueueSize=1000`,
    coalesce,
  );
  const clientOut = new RawProducer(await open(`${path("producer", "request")}?batchingEnabled=false`, coalesce));
  onMessages(clientIn, (id, body) => {
    const call = id ? pending.get(id) : undefined;
    if (!call || !id) return;
    pending.delete(id);
    clearTimeout(call.timer);
    call.resolve(body);
  });

  return {
    async call(i) {
      const id = randomUUID();
      const reply = new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`raw call ${i}: no reply within 10000 ms`));
        }, 10_000);
        pending.set(id, { resolve, timer });
      });
      clientOut.send(benchRequestWire(i), id);
      const body = (await reply) as { response?: string };
      const expected = benchAnswer({ n: i, q: `query-${i}` });
      if (body.response !== expected) throw new Error(`raw call ${i}: unexpected reply ${JSON.stringify(body).slice(0, 200)}`);
    },
    async close() {
      if (serverOut.refused + clientOut.refused > 0) {
        console.error(`baseline: the broker refused ${serverOut.refused + clientOut.refused} messages`);
      }
      for (const socket of [clientOut.socket, clientIn, serverOut.socket, serverIn]) socket.close();
    },
  };
}
