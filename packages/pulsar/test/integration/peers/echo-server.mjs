/* global process, console */
// A request server in its own process (built dist), so a test can stop and resume it as a loaded machine
// would deschedule it: serve() on REQUEST_TOPIC, echoing each request's `text`, over PULSAR_TRANSPORT.
import { z } from "zod";
import { PulsarClient, serve } from "../../../dist/index.js";

const client = new PulsarClient({
  kind: process.env.PULSAR_TRANSPORT,
  serviceUrl: process.env.PULSAR_SERVICE_URL,
  webServiceUrl: process.env.PULSAR_WEB_URL,
});
await serve(client, {
  requestTopic: process.env.REQUEST_TOPIC,
  responseTopic: process.env.RESPONSE_TOPIC,
  subscription: "echo-request",
  requestSchema: z.object({ text: z.string() }),
  errorReply: (error) => ({ error, text: "" }),
  // A big request is answered by its length: the reply stays small.
  handler: async ({ text }) => ({ error: null, text: text.length > 1_000 ? `${text.length} chars` : text }),
});
console.log("echo server ready");
process.on("SIGTERM", () => void client.close().then(() => process.exit(0)));
