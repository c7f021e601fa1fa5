import type { Properties } from "./transport.js";

/**
 * Message property with the time a caller stops waiting for its reply, in epoch milliseconds. Servers skip
 * requests whose deadline has passed: nobody would read the answer. Peers that do not know it (TrustGraph)
 * ignore unknown properties. Clocks of caller and server are assumed to agree to well within a timeout.
 */
export const DEADLINE_PROPERTY = "deadline";

export function deadlineAfter(timeoutMs: number, now: number = Date.now()): string {
  return String(now + timeoutMs);
}

/** The request's deadline, or undefined when it has none (or not a readable one). */
export function readDeadline(properties: Properties): number | undefined {
  const raw = properties[DEADLINE_PROPERTY];
  if (raw === undefined || !/^\d{1,16}$/.test(raw)) return undefined;
  return Number(raw);
}

export function isExpired(properties: Properties, now: number = Date.now()): boolean {
  const deadline = readDeadline(properties);
  return deadline !== undefined && now > deadline;
}
