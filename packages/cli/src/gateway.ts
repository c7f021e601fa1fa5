import { describeIssues } from "@toolmesh/schema";
import type { z } from "zod";
import { CliError } from "./errors.js";

export interface GatewayOptions {
  /** Base URL, e.g. http://127.0.0.1:8088. */
  url: string;
  token?: string | undefined;
  flow: string;
  timeoutMs: number;
}

interface ErrorShape {
  type?: unknown;
  message?: unknown;
}

/** `type: message` for the wire's `{type, message}` (or whatever a peer put there instead). */
function describeWireError(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const { type, message } = error as ErrorShape;
    if (typeof message === "string") return typeof type === "string" && type ? `${type}: ${message}` : message;
  }
  return JSON.stringify(error);
}

/** The first service-level error in a reply (an object, or any element of an array of replies). */
export function serviceError(reply: unknown): string | undefined {
  const replies = Array.isArray(reply) ? reply : [reply];
  for (const item of replies) {
    if (item && typeof item === "object") {
      const error = (item as { error?: unknown }).error;
      if (error !== null && error !== undefined) return describeWireError(error);
    }
  }
  return undefined;
}

/** Node's fetch says only "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND, ...). */
function describeFetchFailure(err: unknown): string {
  const cause = (err as { cause?: { message?: unknown; code?: unknown } }).cause;
  if (cause) {
    if (typeof cause.message === "string" && cause.message) return cause.message;
    if (typeof cause.code === "string") return cause.code;
  }
  return err instanceof Error ? err.message : String(err);
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

/**
 * The api-gateway's REST front door: `POST /api/v1/flow/{flow}/service/{service}` with the service's wire
 * request as JSON. Every failure becomes a CliError with a one-line message.
 */
export class GatewayClient {
  private readonly baseUrl: string;

  constructor(private readonly options: GatewayOptions) {
    this.baseUrl = options.url.replace(/\/+$/, "");
  }

  /**
   * A flow service's parsed reply (`POST /api/v1/flow/{flow}/service/{service}`), service-level errors
   * included; gateway-level errors throw. `allReplies`: every reply of a stream (`?replies=all`), not only
   * the last (TrustGraph's REST answer).
   */
  async request(service: string, body: unknown, allReplies = false): Promise<unknown> {
    const path = `flow/${encodeURIComponent(this.options.flow)}/service/${encodeURIComponent(service)}${allReplies ? "?replies=all" : ""}`;
    return this.post(path, service, body);
  }

  /** A global service's reply (`POST /api/v1/{kind}`, TrustGraph's path for config); a service-level error throws. */
  async global(kind: string, body: unknown): Promise<unknown> {
    return this.checked(await this.post(encodeURIComponent(kind), kind, body));
  }

  private async post(path: string, service: string, body: unknown): Promise<unknown> {
    const { token, timeoutMs } = this.options;
    const url = `${this.baseUrl}/api/v1/${path}`;
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      if (isTimeout(err)) {
        throw new CliError(`no reply from the gateway at ${this.baseUrl} within ${timeoutMs} ms (service '${service}')`);
      }
      throw new CliError(`cannot reach the gateway at ${this.baseUrl}: ${describeFetchFailure(err)}`);
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      const excerpt = text.trim().slice(0, 200);
      throw new CliError(`the gateway replied HTTP ${status} with a body that is not JSON${excerpt ? `: ${excerpt}` : ""}`);
    }
    if (status < 200 || status > 299) throw new CliError(this.describeHttpError(status, reply));
    return reply;
  }

  /** Like `request`, but a service-level error inside the reply is a failure too. */
  async call(service: string, body: unknown): Promise<unknown> {
    return this.checked(await this.request(service, body));
  }

  private checked(reply: unknown): unknown {
    const error = serviceError(reply);
    if (error !== undefined) throw new CliError(error);
    return reply;
  }

  private describeHttpError(status: number, reply: unknown): string {
    const error = reply && typeof reply === "object" ? (reply as { error?: unknown }).error : undefined;
    const detail = error !== undefined && error !== null ? describeWireError(error) : "gateway error";
    const hint = status === 401 && !this.options.token ? "; set TG_TOKEN" : "";
    return `${detail} (HTTP ${status}${hint})`;
  }
}

/** Checks a reply against its wire schema; a peer speaking another shape is reported, not crashed on. */
export function parseReply<S extends z.ZodType>(schema: S, reply: unknown, service: string): z.output<S> {
  const parsed = schema.safeParse(reply);
  if (!parsed.success) throw new CliError(`unexpected reply from '${service}': ${describeIssues(parsed.error)}`);
  return parsed.data;
}
