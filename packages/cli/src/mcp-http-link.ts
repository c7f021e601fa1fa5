import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from "@modelcontextprotocol/sdk/types.js";

/** How long a re-initialize may take before the request that needed it fails. */
const REINITIALIZE_TIMEOUT_MS = 30_000;
/** Waits between attempts to open a new session for the notification stream while the server is away. */
const RESTORE_DELAY_MS = { first: 1_000, max: 15_000 };

export interface McpHttpLinkOptions {
  url: URL;
  token: string | undefined;
  log: (line: string) => void;
  /** Every message the server sends the client (replies and notifications), from whichever session. */
  onmessage: (message: JSONRPCMessage) => void;
}

/** The server no longer knows this session (it restarted, idled it out, or the request reached another replica). */
const sessionGone = (err: unknown, transport: StreamableHTTPClientTransport) =>
  err instanceof StreamableHTTPError && err.code === 404 && transport.sessionId !== undefined;

/** The SDK stopped re-opening the server's notification stream (the GET) after its few retries. */
const streamGivenUp = (err: Error) => err.message.startsWith("Maximum reconnection attempts");

/**
 * A GET for the notification stream that did not open it: refused (503 from a server that began shutting
 * down, a proxy's 502, ...) or never answered. 404 (session gone) is handled apart; 405 means the server
 * offers no stream, which the SDK accepts; redirects are followed by the SDK.
 */
const refused = (status: number) => status >= 400 && status !== 404 && status !== 405;

/**
 * The Streamable HTTP side of `tg mcp`: one MCP session with toolmesh's endpoint, kept alive for a stdio
 * client that cannot know the server forgot it. On a 404 for the session (the spec's "start a new session")
 * it initializes a new one with the client's own initialize params, sends notifications/initialized, tells
 * the client its tool list may have changed, and sends the failed message once more. The same happens
 * without waiting for a request when the server's notification stream is lost for good (the server forgot
 * the session, was away longer than the SDK's retries, or refused to open the stream at all), so
 * notifications keep reaching an idle client.
 */
export class McpHttpLink {
  private transport: StreamableHTTPClientTransport;
  private initialize: JSONRPCRequest | undefined;
  private recovery: Promise<StreamableHTTPClientTransport> | undefined;
  private readonly pending = new Map<string, (reply: JSONRPCMessage) => void>();
  /** Sends not yet answered, per transport: a replaced transport is closed only once they settle. */
  private readonly sending = new Map<StreamableHTTPClientTransport, Set<Promise<void>>>();
  private reinitializations = 0;
  private restoring = false;
  /**
   * How long to wait before the next new session when a session's notification stream was refused: 0 the
   * first time, then growing up to RESTORE_DELAY_MS.max while streams keep being refused (a server that never
   * opens one gets a new session at most that often), back to 0 once a stream opens.
   */
  private refusedStreamDelayMs = 0;
  private closed = false;

  constructor(private readonly options: McpHttpLinkOptions) {
    this.transport = this.open();
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCRequest(message) && message.method === "initialize") this.initialize ??= message;
    const used = this.transport;
    try {
      await this.track(used, used.send(message));
    } catch (err) {
      // A reply to a request of the forgotten session means nothing to a new one.
      if (!sessionGone(err, used) || !this.initialize || !("method" in message)) throw err;
      const fresh = await this.recover(used);
      await this.track(fresh, fresh.send(message));
    }
  }

  private async track(transport: StreamableHTTPClientTransport, sent: Promise<void>): Promise<void> {
    let inFlight = this.sending.get(transport);
    if (!inFlight) this.sending.set(transport, (inFlight = new Set()));
    inFlight.add(sent);
    try {
      await sent;
    } finally {
      inFlight.delete(sent);
    }
  }

  /**
   * Closes a replaced transport once its sends are answered. Closing aborts its requests: one the client
   * sent while the notification stream's recovery was under way would fail with "This operation was
   * aborted" instead of getting the server's 404 and going out again on the new session.
   */
  private retire(stale: StreamableHTTPClientTransport): void {
    const inFlight = [...(this.sending.get(stale) ?? [])];
    this.sending.delete(stale);
    void Promise.allSettled(inFlight).then(() => stale.close());
  }

  /** Ends the session on the server (DELETE), then stops. */
  async close(): Promise<void> {
    this.closed = true;
    await this.transport.terminateSession().catch(() => undefined);
    await this.transport.close();
  }

  private open(): StreamableHTTPClientTransport {
    const { url, token, log } = this.options;
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(url, {
      ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
      fetch: (input, init) => this.watchStream(transport, input, init),
    });
    transport.onmessage = (message) => {
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && typeof message.id === "string") {
        const waiting = this.pending.get(message.id);
        if (waiting) return waiting(message);
      }
      // The HTTP transport must send the negotiated version on every later request.
      if (isJSONRPCResultResponse(message) && message.id === this.initialize?.id && typeof message.result.protocolVersion === "string") {
        transport.setProtocolVersion(message.result.protocolVersion);
      }
      this.options.onmessage(message);
    };
    let reported: Error | undefined;
    transport.onerror = (err) => {
      // A forgotten session is handled (or reported) where the request failed, or by restoreStream.
      const gone = sessionGone(err, transport);
      // (The SDK reports a GET refused after notifications/initialized twice, as the same error.)
      if (!gone && err !== reported) log(`MCP endpoint ${url.href}: ${err.message}`);
      reported = err;
      if ((gone || streamGivenUp(err)) && transport === this.transport) void this.restoreStream(transport);
    };
    return transport;
  }

  /**
   * Every request of `transport`, passed through; a GET's outcome is noted. The SDK re-opens a stream that
   * ended (a few times), but not one it could not open right after `notifications/initialized`: a session
   * opened just as its server began shutting down would get no notification again. So a refused or failed
   * GET starts a new session here, whichever way the SDK went.
   */
  private async watchStream(transport: StreamableHTTPClientTransport, input: string | URL, init?: RequestInit): Promise<Response> {
    if (init?.method !== "GET") return fetch(input, init);
    try {
      const response = await fetch(input, init);
      if (response.ok) this.refusedStreamDelayMs = 0;
      else if (refused(response.status)) this.streamRefused(transport);
      return response;
    } catch (err) {
      // Aborted: the transport was closed on purpose.
      if (!init.signal?.aborted) this.streamRefused(transport);
      throw err;
    }
  }

  private streamRefused(transport: StreamableHTTPClientTransport): void {
    if (this.closed || transport !== this.transport) return;
    const delay = this.refusedStreamDelayMs;
    this.refusedStreamDelayMs = Math.min(Math.max(delay * 2, RESTORE_DELAY_MS.first), RESTORE_DELAY_MS.max);
    setTimeout(() => void this.restoreStream(transport), delay).unref();
  }

  /**
   * A new session, so that the server's notifications reach the client again: tried until one opens (the
   * server may still be restarting), the link closes, or a request has already replaced `stale`.
   */
  private async restoreStream(stale: StreamableHTTPClientTransport): Promise<void> {
    if (this.restoring || !this.initialize) return;
    this.restoring = true;
    try {
      for (
        let delay = RESTORE_DELAY_MS.first;
        !this.closed && this.transport === stale;
        delay = Math.min(delay * 2, RESTORE_DELAY_MS.max)
      ) {
        try {
          await this.recover(stale);
          return;
        } catch (err) {
          const cause = ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
          this.options.log(
            `the server's notifications stopped, and a new session could not be opened yet (${cause}); trying again in ${delay / 1000} s`,
          );
          await new Promise((resolve) => setTimeout(resolve, delay).unref());
        }
      }
    } finally {
      this.restoring = false;
    }
  }

  /** One re-initialize for every request that found `stale` forgotten; later ones use its result. */
  private recover(stale: StreamableHTTPClientTransport): Promise<StreamableHTTPClientTransport> {
    if (this.transport !== stale) return Promise.resolve(this.transport);
    this.recovery ??= this.reinitialize(stale).finally(() => (this.recovery = undefined));
    return this.recovery;
  }

  private async reinitialize(stale: StreamableHTTPClientTransport): Promise<StreamableHTTPClientTransport> {
    const fresh = this.open();
    await fresh.start();
    const id = `tg-mcp-reinitialize-${++this.reinitializations}`;
    let timer: NodeJS.Timeout | undefined;
    const reply = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.pending.set(id, resolve);
      timer = setTimeout(() => reject(new Error(`no answer to initialize in ${REINITIALIZE_TIMEOUT_MS} ms`)), REINITIALIZE_TIMEOUT_MS);
    });
    try {
      await fresh.send({ ...this.initialize!, id });
      const answer = await reply;
      if (!isJSONRPCResultResponse(answer)) throw new Error(`initialize refused: ${JSON.stringify(answer)}`);
      const { protocolVersion, capabilities } = answer.result as {
        protocolVersion?: unknown;
        capabilities?: { tools?: { listChanged?: boolean } };
      };
      if (typeof protocolVersion === "string") fresh.setProtocolVersion(protocolVersion);
      await fresh.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      this.transport = fresh;
      this.retire(stale);
      this.options.log(
        `session ${stale.sessionId} is unknown to the server (restarted, idle too long, or another replica): initialized a new one, ${fresh.sessionId}`,
      );
      // The new session may serve another catalog revision than the old one did.
      if (capabilities?.tools?.listChanged) this.options.onmessage({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      return fresh;
    } catch (err) {
      void fresh.close();
      throw new Error(`session ${stale.sessionId} is unknown to the server, and a new one could not be opened: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
    }
  }
}
