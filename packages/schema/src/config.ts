import { z } from "zod";
import { NullableWireError } from "./errors.js";

export const ConfigOperation = z.enum(["get", "list", "getvalues", "put", "delete", "config"]);
export type ConfigOperation = z.infer<typeof ConfigOperation>;

export const ConfigKey = z.object({
  type: z.string().min(1),
  key: z.string().min(1),
});
export type ConfigKey = z.infer<typeof ConfigKey>;

/** A stored item; `value` is the item's JSON, kept as a string exactly as TrustGraph stores it. */
export const ConfigValue = z.object({
  type: z.string().min(1),
  key: z.string().min(1),
  value: z.string(),
});
export type ConfigValue = z.infer<typeof ConfigValue>;

export const ConfigRequest = z.object({
  operation: ConfigOperation,
  workspace: z.string().min(1).default("default"),
  keys: z.array(ConfigKey).default([]),
  type: z.string().optional(),
  values: z.array(ConfigValue).default([]),
});
export type ConfigRequest = z.output<typeof ConfigRequest>;
export type ConfigRequestWire = z.input<typeof ConfigRequest>;

export const ConfigResponse = z.object({
  version: z.number().int().nullable().default(null),
  values: z.array(ConfigValue).default([]),
  directory: z.array(z.string()).default([]),
  /** For `config`: type -> key -> JSON string. */
  config: z.record(z.string(), z.record(z.string(), z.string())).nullable().default(null),
  error: NullableWireError,
});
export type ConfigResponse = z.output<typeof ConfigResponse>;

/**
 * Pushed on `notify/config` after every change: which types changed, in which workspaces. Receivers re-read
 * every type they care about, not only the changed ones.
 */
export const ConfigPush = z.object({
  version: z.number().int(),
  changes: z.record(z.string(), z.array(z.string())).default({}),
});
export type ConfigPush = z.output<typeof ConfigPush>;
