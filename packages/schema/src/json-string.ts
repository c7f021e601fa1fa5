import { z } from "zod";

/** What a value is, in words for an error message: "an object", "an array", "a number", "null". */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" || type === "undefined" ? `an ${type}` : `a ${type}`;
}

/** A JSON object (string keys, any values), as carried inside the wire's JSON-encoded string fields. */
export const JsonObject = z.record(z.string(), z.unknown(), {
  error: (issue) => (issue.code === "invalid_type" ? `must be a JSON object ("name": value, ...), not ${kindOf(issue.input)}` : undefined),
});
export type JsonObject = z.infer<typeof JsonObject>;

/**
 * A field that travels as a JSON-encoded string (`"{\"topic\": \"cats\"}"`) but is used as a value.
 * `Schema.parse(wire)` decodes it; `Schema.encode(value)` turns it back into the string the wire carries.
 * An empty string or null counts as "{}": TrustGraph's services send "" when nothing is set, and its
 * api-gateway null when the caller gave no value (TrustGraph's services read both as `{}`).
 */
export function jsonEncoded<T extends z.ZodType>(inner: T) {
  return z.codec(z.string().nullable(), inner, {
    decode: (text, ctx) => {
      if (text === null || text.trim() === "") return {} as z.input<T>;
      try {
        return JSON.parse(text) as z.input<T>;
      } catch (err) {
        ctx.issues.push({
          code: "invalid_format",
          format: "json",
          input: text,
          message: `not valid JSON: ${(err as Error).message}`,
        });
        return z.NEVER;
      }
    },
    encode: (value) => JSON.stringify(value),
  });
}

/** The common case: a JSON-encoded object field, `"{}"` when absent. */
export const jsonEncodedObject = () => jsonEncoded(JsonObject).default({});
