// The system as far as it exists: an echo tool service on the real broker, one request/response round
// trip through the client layer, then it keeps serving until Ctrl-C.
import { PulsarClient, RequestClient, serve } from "../packages/pulsar/dist/index.js";
import { ToolServiceRequest, ToolServiceResponse, requestTopic, responseTopic } from "../packages/schema/dist/index.js";

const webServiceUrl = process.env.PULSAR_WEB_URL ?? "http://127.0.0.1:8080";
const client = new PulsarClient({ webServiceUrl });
const topics = { requestTopic: requestTopic("echo"), responseTopic: responseTopic("echo") };

const server = await serve(client, {
  ...topics,
  subscription: "echo-service-request",
  requestSchema: ToolServiceRequest,
  errorReply: (error) => ({ error, response: "", end_of_stream: true }),
  handler: async (request) => ({ error: null, response: JSON.stringify(request.arguments), end_of_stream: true }),
});
const caller = await RequestClient.create(client, { ...topics, responseSchema: ToolServiceResponse });
const started = performance.now();
const reply = await caller.request(ToolServiceRequest.encode({ user: "demo", config: {}, arguments: { hello: "world" } }));
console.log(`echo round trip via ${topics.requestTopic}: ${JSON.stringify(reply)} in ${(performance.now() - started).toFixed(1)} ms`);
console.log("echo service serving; Ctrl-C to stop");

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await caller.close();
    await server.close();
    await client.close();
    process.exit(0);
  });
}
