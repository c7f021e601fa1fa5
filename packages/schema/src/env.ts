import type { z } from "zod";

/** Raised at start-up for a bad environment; the message names every offending variable. */
export class EnvError extends Error {
  override name = "EnvError";
  constructor(
    /** One entry per bad variable: `NAME="value": what is wrong`. */
    readonly problems: string[],
  ) {
    super(`invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
}

/** A URL's password is never echoed: `scheme://user:secret@host` is shown as `scheme://user:***@host`. */
const withoutPassword = (value: string) => value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/i, "$1***@");

/**
 * Parses `source` (process.env by default) with a zod object whose keys are variable names. Empty strings
 * count as unset, so `PORT=` falls back to the default instead of failing as "not a number".
 */
export function parseEnv<S extends z.ZodObject>(schema: S, source: NodeJS.ProcessEnv = process.env): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const value = typeof issue.path[0] === "string" ? cleaned[issue.path[0]] : undefined;
    return `${name}${value !== undefined ? `=${JSON.stringify(withoutPassword(value))}` : ""}: ${issue.message}`;
  });
  throw new EnvError(problems);
}
