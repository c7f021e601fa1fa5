import type { z } from "zod";
import { describeIssues } from "@toolmesh/schema";

export function encodeJson(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body), "utf8");
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Payload -> JSON -> schema, with a one-line reason when either step fails. */
export function decodeJson<T extends z.ZodType>(schema: T, payload: Buffer): DecodeResult<z.output<T>> {
  let json: unknown;
  try {
    json = JSON.parse(payload.toString("utf8"));
  } catch (err) {
    return { ok: false, reason: `payload is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `invalid message: ${describeIssues(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
