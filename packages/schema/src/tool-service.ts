import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { jsonEncodedObject } from "./json-string.js";

/**
 * Request to a tool service (seed 000). `config` and `arguments` travel as JSON-encoded strings and are
 * decoded here; TrustGraph's own services omit `user`, so it defaults to "".
 */
export const ToolServiceRequest = z.object({
  user: z.string().default(""),
  config: jsonEncodedObject(),
  arguments: jsonEncodedObject(),
});
export type ToolServiceRequest = z.output<typeof ToolServiceRequest>;
export type ToolServiceRequestWire = z.input<typeof ToolServiceRequest>;

/** One reply; a stream is several with the same `id`, the last with `end_of_stream: true`. */
export const ToolServiceResponse = z.object({
  error: NullableWireError,
  response: z.string().default(""),
  // A peer that does not stream never sends it: its only reply is the last one.
  end_of_stream: z.boolean().default(true),
});
export type ToolServiceResponse = z.output<typeof ToolServiceResponse>;
export type ToolServiceResponseWire = z.input<typeof ToolServiceResponse>;
