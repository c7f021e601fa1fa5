import { z } from "zod";
import { BaseEnv, DatabaseEnv, parseEnv } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

export const AgentEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts.agent),
  ...DatabaseEnv.shape,
  /** Folder for the SQLite file of recorded runs when DATABASE_URL is unset. */
  AGENT_DATA_DIR: z.string().min(1).default("./data/agent"),
  /** OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server). Unset = no LLM. */
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  /** Many local servers need no key; the SDK still wants a value. */
  OPENAI_API_KEY: z.string().min(1).default("not-needed"),
  /** native = the API's tool calling; react = Thought/Action/Args/Final Answer text, for models without it. */
  AGENT_TOOL_MODE: z.enum(["native", "react"]).default("native"),
  AGENT_MAX_ITERATIONS: z.coerce.number().int().min(1).max(100).default(10),
  /** Time allowed for one tool call. */
  AGENT_TOOL_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** A tool service's client (producer + subscription) unused this long is closed. */
  AGENT_TOOL_CLIENT_IDLE_MS: z.coerce.number().int().positive().default(300_000),
  /** Tool-service clients kept at most; the least recently used idle one is closed to make room. */
  AGENT_MAX_TOOL_CLIENTS: z.coerce.number().int().positive().default(256),
  /** Time allowed for one LLM call. */
  AGENT_LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Runs handled at once by one agent instance. */
  AGENT_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /** How often this instance records that it is alive, and fails runs left by instances that are not. */
  AGENT_HEARTBEAT_INTERVAL_MS: z.coerce.number().int().positive().default(10_000),
  /** An instance that has not beaten for this long is gone: its runs still `running` are failed. */
  AGENT_INSTANCE_STALE_MS: z.coerce.number().int().positive().default(30_000),
}).superRefine((env, ctx) => {
  if (env.AGENT_INSTANCE_STALE_MS < 2 * env.AGENT_HEARTBEAT_INTERVAL_MS) {
    ctx.addIssue({
      code: "custom",
      path: ["AGENT_INSTANCE_STALE_MS"],
      message: `must be at least twice AGENT_HEARTBEAT_INTERVAL_MS (${env.AGENT_HEARTBEAT_INTERVAL_MS}), or a live instance's runs could be failed between two beats`,
    });
  }
});
export type AgentEnv = z.output<typeof AgentEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): AgentEnv => parseEnv(AgentEnv, source);
