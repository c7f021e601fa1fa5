import { randomUUID } from "node:crypto";

/** Polls until `check` returns a truthy value; fails with `description` after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  { timeoutMs = 10_000, intervalMs = 100, description = "condition" } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const suffix = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${suffix}`);
}

/** A topic no other test uses: `{persistence}://{tenant}/{namespace}/{base}-{uuid8}`. */
export function uniqueTopic(
  base: string,
  { persistence = "non-persistent", namespace = "request" }: { persistence?: string; namespace?: string } = {},
): string {
  return `${persistence}://${process.env.TOOLMESH_TENANT || "tg"}/${namespace}/${base}-${randomUUID().slice(0, 8)}`;
}
