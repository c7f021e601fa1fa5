import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { nullAsEmptyText as text } from "./trustgraph-nulls.js";

/** An earlier step the caller passes back (TrustGraph's `history`; its other step fields are ignored). */
export const AgentStep = z.object({
  thought: text(),
  action: text(),
  arguments: z.record(z.string(), z.unknown()).nullable().default({}),
  observation: text(),
});
export type AgentStep = z.output<typeof AgentStep>;

/**
 * TrustGraph's AgentRequest (its collection, conversation_id, pattern, task_type, framing, correlation_id,
 * parent_session_id, subagent_goal and expected_siblings are accepted and ignored), plus toolmesh's `user`
 * and `catalog_revision`.
 */
export const AgentRequest = z.object({
  question: z.string().min(1, "question is required"),
  user: text(),
  streaming: z.boolean().nullable().default(false),
  session_id: text(),
  /** Tool groups the run may use; null or empty = all. */
  group: z.array(z.string()).nullable().default(null),
  state: text(),
  history: z.array(AgentStep).nullable().default([]),
  /** Pin the run to this catalog revision; absent = the registry's current one. */
  catalog_revision: z.number().int().positive().nullable().default(null),
});
export type AgentRequest = z.output<typeof AgentRequest>;
export type AgentRequestWire = z.input<typeof AgentRequest>;

export const AgentMessageType = z.enum(["thought", "observation", "answer", "error"]);
export type AgentMessageType = z.infer<typeof AgentMessageType>;

export const AgentResponse = z.object({
  message_type: AgentMessageType,
  content: z.string().default(""),
  end_of_message: z.boolean().default(true),
  end_of_dialog: z.boolean().default(false),
  error: NullableWireError,
  run_id: z.string().nullable().default(null),
  catalog_revision: z.number().int().nullable().default(null),
  /**
   * The run's LLM use, on its end_of_dialog message (TrustGraph 2.11's AgentResponse fields): prompt and
   * completion tokens summed over its chat completions (null when the model server reported none), and the
   * model that answered.
   */
  in_token: z.number().int().nonnegative().nullable().default(null),
  out_token: z.number().int().nonnegative().nullable().default(null),
  model: z.string().nullable().default(null),
});
export type AgentResponse = z.output<typeof AgentResponse>;

/** One recorded step of a run: what the model thought, which tool it called with what, what came back. */
export const AgentRunStep = z.object({
  seq: z.number().int().nonnegative(),
  kind: z.enum(["thought", "tool-call", "observation", "answer", "error"]),
  content: z.string(),
  tool: z.string().nullable().default(null),
  arguments: z.record(z.string(), z.unknown()).nullable().default(null),
  at: z.string(),
  duration_ms: z.number().nullable().default(null),
});
export type AgentRunStep = z.output<typeof AgentRunStep>;

export const AgentRunSummary = z.object({
  run_id: z.string(),
  user: z.string(),
  question: z.string(),
  /** The catalog revision the run was offered, exactly (run -> revision -> tools). */
  catalog_revision: z.number().int(),
  catalog_hash: z.string(),
  status: z.enum(["running", "answered", "failed"]),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type AgentRunSummary = z.output<typeof AgentRunSummary>;

export const AgentRun = AgentRunSummary.extend({
  answer: z.string().nullable(),
  error: z.string().nullable(),
  /** Tool names offered to the model, in the order offered. */
  tools_offered: z.array(z.string()),
  steps: z.array(AgentRunStep),
});
export type AgentRun = z.output<typeof AgentRun>;

/** Reading runs afterwards: topic `agent-runs`. */
export const AgentRunsRequest = z.object({
  operation: z.enum(["get", "list"]),
  run_id: z.string().optional(),
  limit: z.number().int().positive().max(500).default(20),
});
export type AgentRunsRequest = z.output<typeof AgentRunsRequest>;

export const AgentRunsResponse = z.object({
  error: NullableWireError,
  run: AgentRun.nullable().default(null),
  runs: z.array(AgentRunSummary).default([]),
});
export type AgentRunsResponse = z.output<typeof AgentRunsResponse>;
