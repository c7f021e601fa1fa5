/* global process, console */
// A request server in its own process (built dist) that holds every reply until it gets SIGUSR2, then
// sends the big ones first and the small ones right behind them: serve() on REQUEST_TOPIC, each request
// `{text, replyChars?}` answered with `replyChars` x's (a big reply) or its own `text`, over PULSAR_TRANSPORT.
import { setImmediate as nextTurn } from "node:timers/promises";
import { z } from "zod";
import { PulsarClient, serve } from "../../../dist/index.js";

const client = new PulsarClient({
  kind: process.env.PULSAR_TRANSPORT,
  serviceUrl: process.env.PULSAR_SERVICE_URL,
  webServiceUrl: process.env.PULSAR_WEB_URL,
});
let release;
let gate = new Promise((resolve) => (release = resolve));
process.on("SIGUSR2", () => {
  const open = release;
  gate = new Promise((resolve) => (release = resolve));
  open();
});
let inHand = 0;
await serve(client, {
  requestTopic: process.env.REQUEST_TOPIC,
  responseTopic: process.env.RESPONSE_TOPIC,
  subscription: "gated-request",
  requestSchema: z.object({ text: z.string(), replyChars: z.number().int().positive().optional() }),
  errorReply: (error) => ({ error, text: "" }),
  concurrency: 100,
  handler: async ({ text, replyChars }) => {
    const released = gate;
    console.log(`${++inHand} requests in hand`);
    await released;
    inHand -= 1;
    if (replyChars) return { error: null, text: "x".repeat(replyChars) };
    // One turn later: the big replies are on their way to the broker first, these queued behind them.
    await nextTurn();
    return { error: null, text };
  },
});
console.log("gated reply server ready");
process.on("SIGTERM", () => void client.close().then(() => process.exit(0)));
