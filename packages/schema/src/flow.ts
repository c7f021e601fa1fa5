import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { nullAsEmptyText } from "./trustgraph-nulls.js";

/**
 * TrustGraph 2.11's flow service (flow-svc): blueprints and the flows started from them, kept in config.
 * toolmesh runs no flow service; its gateway forwards these to TrustGraph's on `request:tg:flow:<ws>`.
 */
export const FlowOperation = z.enum([
  "list-blueprints",
  "get-blueprint",
  "put-blueprint",
  "delete-blueprint",
  "list-flows",
  "get-flow",
  "start-flow",
  "stop-flow",
]);
export type FlowOperation = z.infer<typeof FlowOperation>;

/** TrustGraph's FlowRequest on the wire: the fields an operation does not use may be null or absent. */
export const FlowRequest = z.object({
  operation: FlowOperation,
  blueprint_name: nullAsEmptyText(),
  /** A blueprint as JSON text (put-blueprint). */
  blueprint_definition: nullAsEmptyText(),
  description: nullAsEmptyText(),
  flow_id: nullAsEmptyText(),
  /** start-flow's parameters: name -> value. */
  parameters: z.record(z.string(), z.string()).nullable().default(null),
});
export type FlowRequest = z.output<typeof FlowRequest>;

/** TrustGraph's FlowResponse: each operation fills its own fields; `flow` and `blueprint_definition` are JSON text. */
export const FlowResponse = z.object({
  error: NullableWireError,
  blueprint_names: z.array(z.string()).nullable().default(null),
  flow_ids: z.array(z.string()).nullable().default(null),
  blueprint_definition: z.string().nullable().default(null),
  flow: z.string().nullable().default(null),
  description: z.string().nullable().default(null),
  parameters: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type FlowResponse = z.output<typeof FlowResponse>;
