import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { AgentResponse, AgentRunsResponse, ConfigResponse, ToolRegistryResponse } from "@toolmesh/schema";
import { ScriptedLlm, ServiceProcess, useBroker, waitFor, brokerEnv, clientOptions, serviceTopics } from "@toolmesh/test-support";

/** The agent's REQUEST_SERVICE_CHECK_MS here: under its 2 s tool timeout, so a tool whose service is not running shows it. */
const SERVICE_CHECK_MS = "500";

/** config + joke-service + tool-registry + agent as processes, an LLM script, and clients for each. */
export class AgentSystem {
  readonly llm = new ScriptedLlm();
  readonly jokeTopic = `joke-${randomUUID().slice(0, 8)}`;
  private readonly dataDir = mkdtempSync(join(tmpdir(), "agent-test-"));
  private readonly processes: ServiceProcess[] = [];
  agent!: ServiceProcess;
  jokes!: ServiceProcess;
  pulsar!: PulsarClient;
  config!: RequestClient<typeof ConfigResponse>;
  registry!: RequestClient<typeof ToolRegistryResponse>;
  agentClient!: RequestClient<typeof AgentResponse>;
  runs!: RequestClient<typeof AgentRunsResponse>;

  async start(agentEnv: Record<string, string> = {}): Promise<void> {
    const broker = await useBroker();
    await this.llm.start();
    const base = { ...brokerEnv(broker) };
    const start = async (service: string, env: Record<string, string>) => {
      const p = await ServiceProcess.start({ service, env: { ...base, ...env } });
      this.processes.push(p);
      return p;
    };
    await start("config", { CONFIG_DATA_DIR: join(this.dataDir, "config") });
    this.jokes = await start("joke-service", { JOKE_TOPIC: this.jokeTopic, JOKE_ANNOUNCE: "false" });
    await start("tool-registry", { REGISTRY_DATA_DIR: join(this.dataDir, "registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" });
    this.agent = await start("agent", {
      AGENT_DATA_DIR: join(this.dataDir, "agent"),
      OPENAI_BASE_URL: this.llm.url,
      OPENAI_MODEL: "scripted",
      AGENT_TOOL_TIMEOUT_MS: "2000",
      REQUEST_SERVICE_CHECK_MS: SERVICE_CHECK_MS,
      ...agentEnv,
    });
    this.pulsar = new PulsarClient(clientOptions(broker));
    const client = <S extends Parameters<typeof RequestClient.create>[1]["responseSchema"]>(
      name: string,
      responseSchema: S,
      timeoutMs = 20_000,
    ) =>
      RequestClient.create(this.pulsar, {
        ...serviceTopics(name),
        responseSchema,
        timeoutMs,
      });
    this.config = await client("config", ConfigResponse);
    this.registry = await client("tool-registry", ToolRegistryResponse);
    this.agentClient = await client("agent", AgentResponse, 30_000);
    this.runs = await client("agent-runs", AgentRunsResponse);
  }

  /** Stops the agent and starts it again with other settings (same data, same tenant). */
  async replaceAgent(env: Record<string, string>): Promise<void> {
    await this.agent.stop();
    const broker = await useBroker();
    this.agent = await ServiceProcess.start({
      service: "agent",
      env: {
        ...brokerEnv(broker),
        AGENT_DATA_DIR: join(this.dataDir, "agent"),
        AGENT_TOOL_TIMEOUT_MS: "2000",
        REQUEST_SERVICE_CHECK_MS: SERVICE_CHECK_MS,
        ...env,
      },
    });
    this.processes.push(this.agent);
  }

  /** Puts tool descriptors (and the joke tool-service) and waits until the registry's current revision has them all. */
  async putTools(tools: Record<string, object>, services: Record<string, object> = {}): Promise<number> {
    const values = [
      ...Object.entries(services).map(([key, v]) => ({ type: "tool-service", key, value: JSON.stringify(v) })),
      ...Object.entries(tools).map(([key, v]) => ({ type: "tool", key, value: JSON.stringify(v) })),
    ];
    const put = await this.config.request({ operation: "put", values });
    if (put.error) throw new Error(put.error.message);
    const names = Object.values(tools).map((t) => (t as { name: string }).name);
    const revision = await waitFor(
      async () => {
        const reply = await this.registry.request({ operation: "current" });
        const have = new Set(reply.revision?.tools.map((t) => t.name));
        return names.every((n) => have.has(n)) ? reply.revision : undefined;
      },
      { timeoutMs: 15_000, description: `registry revision with ${names.join(", ")}` },
    );
    return revision.revision_number;
  }

  /** Asks the agent (streaming) and collects every message until end_of_dialog. */
  async ask(question: string, extra: Record<string, unknown> = {}) {
    const messages: Array<{ message_type: string; content: string; run_id: string | null; catalog_revision: number | null }> = [];
    await this.agentClient.request(
      { question, user: "alice", streaming: true, ...extra },
      { isLast: (r) => r.end_of_dialog, onReply: (r) => messages.push(r), timeoutMs: 30_000 },
    );
    return messages;
  }

  async run(runId: string) {
    const reply = await this.runs.request({ operation: "get", run_id: runId });
    if (reply.error) throw new Error(reply.error.message);
    return reply.run!;
  }

  async stop(): Promise<void> {
    for (const c of [this.agentClient, this.runs, this.registry, this.config]) await c?.close();
    await this.pulsar?.close();
    await Promise.all(this.processes.map((p) => p.stop()));
    await this.llm.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export const jokeService = (topic: string) => ({ id: "joke-service", topic, "config-params": [{ name: "style", required: true }] });
export const jokeTool = (name: string, style: string, service = "joke-service") => ({
  type: "tool-service",
  name,
  description: `Tells a ${style} about a topic`,
  service,
  style,
  arguments: [{ name: "topic", type: "string", description: "what the joke is about" }],
});
