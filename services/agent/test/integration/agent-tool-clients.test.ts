import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPLY_SESSIONS } from "@toolmesh/pulsar";
import { BaseEnv, DynamicToolService, ServiceRuntime, parseEnv } from "@toolmesh/base";
import {
  type ChatRequest,
  ServiceProcess,
  ensureTenant,
  totalClients,
  useBroker,
  waitFor,
  requestTopic,
  responseTopic,
  testTopics,
} from "@toolmesh/test-support";
import { AgentSystem, jokeTool } from "./system.js";

// Issue 12, items 2 and 6 in the agent's tool invoker: clients of tool topics are released after idling and
// bounded (they were kept forever), and a binding into another tenant is refused (it was called).
class Echo extends DynamicToolService {
  readonly id = `echo-${randomUUID().slice(0, 8)}`;
  readonly topic = this.id;
  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    return `echo ${String(args.topic)}`;
  }
}

const system = new AgentSystem();
const echoes = [new Echo(), new Echo(), new Echo()];
const OTHER = `${testTopics().tenant}-b`;
let webServiceUrl: string;
let tools: ServiceRuntime;
let theirJokes: ServiceProcess;
const lastTools = (r: ChatRequest) =>
  r.messages
    .filter((m) => m.role === "tool")
    .map((m) => m.content)
    .join(" | ");

/** The agent's side on the echo topics: producers of requests and consumers of replies. */
async function agentClients() {
  const requests = await totalClients(
    webServiceUrl,
    echoes.map((e) => requestTopic(e.topic)),
  );
  const responses = await totalClients(
    webServiceUrl,
    echoes.map((e) => responseTopic(e.topic)),
  );
  return { producers: requests.producers, consumers: responses.consumers };
}
// `count` clients that have had replies: each reads them with REPLY_SESSIONS sessions (the echoes are
// served by serve(), which numbers its replies).
const settlesAt = (count: number, description: string) =>
  waitFor(
    async () => {
      const now = await agentClients();
      return now.producers === count && now.consumers === count * REPLY_SESSIONS;
    },
    { timeoutMs: 20_000, intervalMs: 250, description },
  );

async function askAllEchoes(question: string) {
  system.llm.script(question, [
    { tool_calls: echoes.map((e, i) => ({ name: e.id, arguments: { topic: `call ${i}` } })) },
    (r) => ({ content: lastTools(r) }),
  ]);
  const messages = await system.ask(question);
  expect(messages.at(-1)).toMatchObject({ message_type: "answer", content: "echo call 0 | echo call 1 | echo call 2" });
}

beforeAll(async () => {
  ({ webServiceUrl } = await useBroker());
  await system.start({ AGENT_TOOL_CLIENT_IDLE_MS: "1000" });
  tools = new ServiceRuntime({
    name: "echo-tools",
    env: parseEnv(BaseEnv, { PULSAR_WEB_URL: webServiceUrl, TOOLMESH_TENANT: process.env.TOOLMESH_TENANT, HTTP_PORT: "0" }),
    logger: pino({ level: "silent" }),
  });
  for (const echo of echoes) await echo.start(tools, { announce: false });
  await ensureTenant(webServiceUrl, OTHER);
  theirJokes = await ServiceProcess.start({
    service: "joke-service",
    env: { PULSAR_WEB_URL: webServiceUrl, TOOLMESH_TENANT: OTHER, JOKE_ANNOUNCE: "false" },
  });
  await system.putTools(
    {
      ...Object.fromEntries(
        echoes.map((e) => [e.id, { type: "tool-service", name: e.id, service: e.id, arguments: [{ name: "topic", type: "string" }] }]),
      ),
      "their-pun": jokeTool("their-pun", "pun", "their-jokes"),
    },
    {
      ...Object.fromEntries(echoes.map((e) => [e.id, { id: e.id, topic: e.topic }])),
      "their-jokes": {
        id: "their-jokes",
        "request-queue": `non-persistent://${OTHER}/request/joke`,
        "response-queue": `non-persistent://${OTHER}/response/joke`,
        "config-params": ["style"],
      },
    },
  );
}, 180_000);

afterAll(async () => {
  await system.stop();
  await tools?.stop();
  await theirJokes?.stop();
});

describe("the agent's tool-service clients", () => {
  it("are released after AGENT_TOOL_CLIENT_IDLE_MS: broker counts back to the baseline", async () => {
    expect(await agentClients()).toEqual({ producers: 0, consumers: 0 });
    await askAllEchoes("Echo three times");
    await settlesAt(0, "the agent's idle tool clients to be released");
    await askAllEchoes("Echo three times again");
  });

  it("are at most AGENT_MAX_TOOL_CLIENTS", async () => {
    await system.replaceAgent({ OPENAI_BASE_URL: system.llm.url, OPENAI_MODEL: "scripted", AGENT_MAX_TOOL_CLIENTS: "1" });
    await askAllEchoes("Echo three times, one client");
    await settlesAt(1, "one tool client left");
  });

  it("refuse a binding into another tenant: the model reads why, the other system gets nothing", async () => {
    system.llm.script("Tell me their pun", [
      { tool_calls: [{ name: "their-pun", arguments: { topic: "cats" } }] },
      (r) => ({ content: lastTools(r) }),
    ]);
    const messages = await system.ask("Tell me their pun");
    expect(messages.map((m) => m.message_type)).toEqual(["thought", "observation", "answer"]);
    expect(messages[1]!.content).toBe(
      `tool their-pun failed: tool their-pun is refused: queue non-persistent://${OTHER}/request/joke is in tenant '${OTHER}', ` +
        `outside the tenants this system may use ('${testTopics().tenant}'); an operator can allow more with TOOLMESH_ALLOWED_TENANTS`,
    );
    expect(await totalClients(webServiceUrl, [`non-persistent://${OTHER}/request/joke`])).toMatchObject({ producers: 0 });
  });
});
