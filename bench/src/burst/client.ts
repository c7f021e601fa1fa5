// One load process of the burst run (see run.ts): connects, waits for "go", then starts all its calls at
// once and reports how each ended. Run by run.ts with fork(), never by hand.
import { ToolServiceClient, ToolServiceError } from "@toolmesh/base";
import { PulsarClient, RequestTimeoutError } from "@toolmesh/pulsar";
import { requestTopic, responseTopic } from "@toolmesh/test-support";

export type CallEnd = "answered" | "overloaded" | "timed-out" | "wrong-answer" | `error:${string}`;

const [webServiceUrl, topic, label] = process.argv.slice(2) as [string, string, string];
const requests = Number(process.env.BURST_REQUESTS ?? 1_000);
const timeoutMs = Number(process.env.BURST_TIMEOUT_MS ?? 15_000);

const pulsar = new PulsarClient({ webServiceUrl });
const tools = await ToolServiceClient.create(pulsar, {
  requestTopic: requestTopic(topic),
  responseTopic: responseTopic(topic),
  subscriber: `burst-${label}`,
  timeoutMs,
});

async function call(i: number): Promise<CallEnd> {
  const subject = `burst-${label}-${i}`;
  try {
    const joke = await tools.call("burst", { style: "pun" }, { topic: subject });
    return joke.includes(subject) ? "answered" : "wrong-answer";
  } catch (err) {
    if (err instanceof ToolServiceError) return err.type === "overloaded" ? "overloaded" : `error:${err.type}`;
    if (err instanceof RequestTimeoutError) return "timed-out";
    return `error:${(err as Error).name}`;
  }
}

process.send!({ ready: true });
process.once("message", async () => {
  const started = performance.now();
  const ends = await Promise.all(Array.from({ length: requests }, (_, i) => call(i)));
  const counts: Record<string, number> = {};
  for (const end of ends) counts[end] = (counts[end] ?? 0) + 1;
  process.send!({ label, sent: requests, counts, seconds: (performance.now() - started) / 1000 });
  await tools.close();
  await pulsar.close();
  process.disconnect();
});
