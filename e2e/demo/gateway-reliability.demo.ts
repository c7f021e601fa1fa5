import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseEnv, DynamicToolService, ServiceRuntime, parseEnv } from "@toolmesh/base";
import { brokerEnv, requestTopic, responseTopic, ScriptedLlm, totalClients, waitFor } from "@toolmesh/test-support";
import { System } from "../test/system.js";

// Issue 12, items 1 and 2, on the whole running system (every service its own process, the real broker):
//   - a REST call of 60 s and an agent run of 60 s (REST and socket) answered, not cut;
//   - 1,000 tool-service descriptors created, invoked and deleted, the broker's producer and consumer
//     counts on their topics back to the baseline.
// Run: pnpm --filter @toolmesh/e2e demo:gateway (takes about 3 minutes). DEMO_DESCRIPTORS and DEMO_ROUND
// change the 1,000 and the 100 per round; DEMO_SLOW_MS the 60 s.
const SLOW_MS = Number(process.env.DEMO_SLOW_MS ?? 60_000);
const DESCRIPTORS = Number(process.env.DEMO_DESCRIPTORS ?? 1_000);
const ROUND = Number(process.env.DEMO_ROUND ?? 100);
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class SlowTool extends DynamicToolService {
  readonly id = "slow";
  readonly topic = `slow-${randomUUID().slice(0, 8)}`;
  async invoke() {
    await sleep(SLOW_MS);
    return `answered after ${SLOW_MS} ms`;
  }
}

class Echo extends DynamicToolService {
  readonly id = `echo-${randomUUID().slice(0, 12)}`;
  readonly topic = this.id;
  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    return `echo ${String(args.n)}`;
  }
}

const system = new System();
const llm = new ScriptedLlm();
const slow = new SlowTool();
let tools: ServiceRuntime;

const toolRuntime = () =>
  new ServiceRuntime({ name: "demo-tools", env: parseEnv(BaseEnv, { ...brokerEnv(system.broker), HTTP_PORT: "0", LOG_LEVEL: "silent" }) });

async function config(body: object) {
  const { body: reply } = await system.call("config", body);
  if ((reply as { error: unknown }).error) throw new Error(`config: ${JSON.stringify(reply)}`);
}

/** Calls a tool service through the gateway, retrying while the gateway has not yet read its descriptor. */
async function invoke(id: string, n: number): Promise<unknown> {
  return waitFor(
    async () => {
      const reply = await system.call(id, { user: "demo", config: "{}", arguments: JSON.stringify({ n }) });
      return reply.status === 404 ? undefined : reply;
    },
    { timeoutMs: 30_000, description: `the gateway to know ${id}` },
  );
}

beforeAll(async () => {
  await llm.start();
  await system.start([
    ["config"],
    ["tool-registry", { REGISTRY_REFRESH_INTERVAL_MS: "0" }],
    ["agent", { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }],
    // The REST call below waits 60 s for one reply: beyond the default 30 s, so the operator says so.
    ["api-gateway", { GATEWAY_REQUEST_TIMEOUT_MS: String(SLOW_MS + 30_000) }],
  ]);
  tools = toolRuntime();
  await slow.start(tools, { announce: false });
  await config({
    operation: "put",
    values: [
      { type: "tool-service", key: slow.id, value: JSON.stringify({ id: slow.id, topic: slow.topic }) },
      {
        type: "tool",
        key: "slow",
        value: JSON.stringify({ type: "tool-service", name: "slow", service: slow.id, description: "takes its time" }),
      },
    ],
  });
}, 240_000);

afterAll(async () => {
  await tools?.stop();
  await system.stop();
  await llm.close();
});

describe("issue 12 on the whole system", () => {
  it(
    `answers a REST call and an agent run (REST and socket) of ${SLOW_MS / 1000} s`,
    async () => {
      llm.script("Think slowly", [{ content: "thought it through", delayMs: SLOW_MS }]);
      const started = Date.now();
      const timed = async <T>(work: () => Promise<T>) => {
        const value = await work();
        return { value, seconds: ((Date.now() - started) / 1000).toFixed(1) };
      };
      const socketRun = async () => {
        const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/v1/socket`);
        await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
        const frames: Array<{ response?: { message_type: string; content: string }; complete: boolean }> = [];
        socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
        socket.send(JSON.stringify({ id: "run", service: "agent", request: { question: "Think slowly (socket)", streaming: true } }));
        await waitFor(() => frames.at(-1)?.complete, { timeoutMs: SLOW_MS + 60_000, description: "the socket run" });
        socket.close();
        return frames.at(-1)!.response;
      };
      const [rest, agentRest, agentSocket] = await Promise.all([
        timed(() => invoke(slow.id, 0)),
        timed(() => system.call("agent", { question: "Think slowly (REST)", streaming: true })),
        timed(socketRun),
      ]);
      log(
        `REST tool call:    HTTP ${(rest.value as { status: number }).status} after ${rest.seconds} s: ${JSON.stringify((rest.value as { body: unknown }).body)}`,
      );
      const answer = (agentRest.value.body as Array<{ message_type: string; content: string }>).at(-1);
      log(`agent run, REST:   HTTP ${agentRest.value.status} after ${agentRest.seconds} s: ${answer?.message_type} "${answer?.content}"`);
      log(`agent run, socket: after ${agentSocket.seconds} s: ${agentSocket.value?.message_type} "${agentSocket.value?.content}"`);
      expect((rest.value as { status: number }).status).toBe(200);
      expect(agentRest.value.status).toBe(200);
      expect(answer).toMatchObject({ message_type: "answer", content: "thought it through" });
      expect(agentSocket.value).toMatchObject({ message_type: "answer", content: "thought it through" });
    },
    SLOW_MS + 120_000,
  );

  it(`creates, invokes and deletes ${DESCRIPTORS} descriptors; the broker's counts return to the baseline`, async () => {
    const all: Echo[] = [];
    /** The callers' side (the gateway's): producers on request topics, consumers on response topics. */
    const callers = async (of: Echo[]) => {
      const requests = await totalClients(
        system.broker.webServiceUrl,
        of.map((e) => requestTopic(e.topic)),
      );
      const responses = await totalClients(
        system.broker.webServiceUrl,
        of.map((e) => responseTopic(e.topic)),
      );
      return { producers: requests.producers, consumers: responses.consumers };
    };
    log(`round  descriptors  gateway producers/consumers while in use  ->  after delete`);
    for (let round = 0; round * ROUND < DESCRIPTORS; round++) {
      const echoes = Array.from({ length: Math.min(ROUND, DESCRIPTORS - round * ROUND) }, () => new Echo());
      all.push(...echoes);
      const runtime = toolRuntime();
      for (const echo of echoes) await echo.start(runtime, { announce: false });
      const baseline = await callers(echoes);
      await config({
        operation: "put",
        values: echoes.map((e) => ({ type: "tool-service", key: e.id, value: JSON.stringify({ id: e.id, topic: e.topic }) })),
      });
      for (let i = 0; i < echoes.length; i += 20) {
        const replies = await Promise.all(echoes.slice(i, i + 20).map((e, j) => invoke(e.id, i + j)));
        replies.forEach((reply, j) => expect((reply as { body: Array<{ response: string }> }).body[0]!.response).toBe(`echo ${i + j}`));
      }
      const inUse = await callers(echoes);
      await config({ operation: "delete", keys: echoes.map((e) => ({ type: "tool-service", key: e.id })) });
      const after = await waitFor(
        async () => {
          const now = await callers(echoes);
          return now.producers === baseline.producers && now.consumers === baseline.consumers ? now : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500, description: `round ${round + 1}: counts back to ${JSON.stringify(baseline)}` },
      );
      log(
        `${String(round + 1).padStart(5)}  ${String(all.length).padStart(11)}  ${`${inUse.producers}/${inUse.consumers}`.padStart(40)}  ->  ${after.producers}/${after.consumers}`,
      );
      expect(inUse).toEqual({ producers: echoes.length, consumers: echoes.length });
      await runtime.stop();
    }
    const total = await callers(all);
    const everything = await totalClients(
      system.broker.webServiceUrl,
      all.flatMap((e) => [requestTopic(e.topic), responseTopic(e.topic)]),
    );
    log(
      `all ${all.length} descriptors deleted: gateway producers ${total.producers}, consumers ${total.consumers}; every client on their ${all.length * 2} topics: producers ${everything.producers}, consumers ${everything.consumers} (baseline 0/0)`,
    );
    expect(total).toEqual({ producers: 0, consumers: 0 });
    expect(everything).toEqual({ producers: 0, consumers: 0 });
  }, 900_000);
});
