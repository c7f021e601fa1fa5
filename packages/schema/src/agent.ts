import { z } from "zod";
import { NullableWireError } from "./errors.js";

/** An earlier step the caller passes back (TrustGraph's `history`). */
export const AgentStep = z.object({
  thought: z.string().default(""),
  action: z.string().default(""),
  arguments: z.record(z.string(), z.unknown()).default({}),
  observation: z.string().default(""),
});
export type AgentStep = z.output<typeof AgentStep>;

export const AgentRequest = z.object({
  question: z.string().min(1, "question is required"),
  user: z.string().default(""),
  streaming: z.boolean().default(false),
  session_id: z.string().default(""),
  /** Tool groups the run may use; null or empty = all. */
  group: z.array(z.string()).nullable().default(null),
  state: z.string().default(""),
  history: z.array(AgentStep).default([]),
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
});
export type AgentResponse = z.output<typeof AgentResponse>;
