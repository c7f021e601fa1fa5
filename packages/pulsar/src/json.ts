import type { z } from "zod";
import { describeIssues } from "@toolmesh/schema";

export function encodeJson(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body), "utf8");
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

// JSON on the wire is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, as Python's json.loads does,
// rather than read as U+FFFD and stored or passed on.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Payload -> JSON -> schema, with a one-line reason when either step fails. */
export function decodeJson<T extends z.ZodType>(schema: T, payload: Buffer): DecodeResult<z.output<T>> {
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch {
    return { ok: false, reason: "payload is not valid UTF-8" };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `payload is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `invalid message: ${describeIssues(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
