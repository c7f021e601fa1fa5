/* global process, console */
// A request server in its own process (built dist) that holds every reply until it gets SIGUSR2, then
// sends the big ones first and the small ones right behind them: serve() on REQUEST_TOPIC, over
// PULSAR_TRANSPORT. A request `{text, replyChars?}` is answered with `replyChars` x's (a big reply) or its
// own `text`; one with `chunks` gets a stream: `replyChars` x's, then `<text>-1` .. `<text>-<chunks>`,
// the last one marked `end_of_stream`. With REPLY_SEQ=none its replies go without `seq`, as TrustGraph's
// servers send them (serve() numbers them; here that number is taken off on the way out).
import { setImmediate as nextTurn } from "node:timers/promises";
import { z } from "zod";
import { PulsarClient, serve } from "../../../dist/index.js";

const client = new PulsarClient({
  kind: process.env.PULSAR_TRANSPORT,
  serviceUrl: process.env.PULSAR_SERVICE_URL,
  webServiceUrl: process.env.PULSAR_WEB_URL,
});
if (process.env.REPLY_SEQ === "none") {
  const sendJson = client.sendJson.bind(client);
  client.sendJson = (topic, body, { seq: _seq, ...properties } = {}, key) => sendJson(topic, body, properties, key);
}
let release;
let gate = new Promise((resolve) => (release = resolve));
process.on("SIGUSR2", () => {
  const open = release;
  gate = new Promise((resolve) => (release = resolve));
  open();
});
let inHand = 0;

/** Resolves once SIGUSR2 came, with every request that arrived before it counted as in hand meanwhile. */
async function held() {
  const released = gate;
  console.log(`${++inHand} requests in hand`);
  await released;
  inHand -= 1;
}

async function oneReply({ text, replyChars }) {
  await held();
  if (replyChars) return { error: null, text: "x".repeat(replyChars) };
  // One turn later: the big replies are on their way to the broker first, these queued behind them.
  await nextTurn();
  return { error: null, text };
}

async function* streamedReply({ text, replyChars, chunks }) {
  await held();
  yield { error: null, text: "x".repeat(replyChars ?? 1), end_of_stream: false };
  for (let i = 1; i <= chunks; i++) yield { error: null, text: `${text}-${i}`, end_of_stream: i === chunks };
}

await serve(client, {
  requestTopic: process.env.REQUEST_TOPIC,
  responseTopic: process.env.RESPONSE_TOPIC,
  subscription: "gated-request",
  requestSchema: z.object({
    text: z.string(),
    replyChars: z.number().int().positive().optional(),
    chunks: z.number().int().positive().optional(),
  }),
  errorReply: (error) => ({ error, text: "", end_of_stream: true }),
  concurrency: 100,
  handler: (request) => (request.chunks ? streamedReply(request) : oneReply(request)),
});
console.log("gated reply server ready");
process.on("SIGTERM", () => void client.close().then(() => process.exit(0)));
