import type { Socket } from "node:net";
import type { Logger } from "pino";
import WebSocket from "ws";
import { Backoff, type BackoffOptions, DEFAULT_BACKOFF } from "../backoff.js";
import { ClosedError, PulsarError } from "../errors.js";
import type { AuthToken, TlsSettings } from "../transport.js";

export interface LinkOptions {
  url: string;
  /** What the link is for, in log lines: `producer non-persistent://tg/request/joke`. */
  label: string;
  logger: Logger;
  /** The broker drops WebSocket sessions idle for 5 minutes; pings keep them alive and detect dead peers. */
  pingIntervalMs?: number;
  backoff?: BackoffOptions;
  /** A token sent as `Authorization: Bearer` on each upgrade (asked again at every reconnect, so a renewed one is used). */
  authToken?: AuthToken;
  /** For wss:// (the broker's web service on TLS): a private CA, a client certificate, verification. */
  tls?: TlsSettings;
  onOpen?: () => void;
  onFrame: (frame: string) => void;
  onDown?: () => void;
}

/** Upgrade refusals that retrying will not fix (bad request, unauthorised). */
const FATAL_STATUS = new Set([400, 401, 403]);

/** Node's codes for a broker certificate that does not verify (unknown CA, wrong host, expired). */
const isCertificateError = (err: Error): boolean => /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test((err as NodeJS.ErrnoException).code ?? "");

/**
 * One WebSocket session to the broker that comes back by itself: reconnects with backoff whenever the
 * session drops (broker restart, network), pings to stay alive, and closes cleanly on close().
 */
export class ReconnectingLink {
  private socket: WebSocket | undefined;
  /** The TCP socket under `socket`, once upgraded; corked while frames of this event-loop turn gather. */
  private tcp: Socket | undefined;
  private corked = false;
  private closed = false;
  private everOpened = false;
  private readonly backoff: Backoff;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private firstOpen: { resolve: () => void; reject: (err: Error) => void } | undefined;

  constructor(private readonly options: LinkOptions) {
    this.backoff = new Backoff(options.backoff ?? DEFAULT_BACKOFF);
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Resolves on the first successful open; rejects if the broker refuses for good or close() comes first. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.firstOpen = { resolve, reject };
      this.connect();
    });
  }

  /**
   * Sends a text frame; false when the session is not open (the caller keeps it for the next one).
   * Frames sent in one turn of the event loop leave in one TCP write (the socket is corked until the
   * turn's I/O callbacks are done): on loopback every write is a syscall plus a wake-up of the broker,
   * which costs far more than a frame, and under load many frames (requests, replies, acks) go out per turn.
   */
  send(frame: string): boolean {
    if (!this.connected) return false;
    this.cork();
    this.socket!.send(frame);
    return true;
  }

  private cork(): void {
    const tcp = this.tcp;
    if (this.corked || !tcp) return;
    this.corked = true;
    tcp.cork();
    setImmediate(() => {
      this.corked = false;
      tcp.uncork();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    this.firstOpen?.reject(new ClosedError(`${this.options.label}: closed before it connected`));
    this.firstOpen = undefined;
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2_000);
      socket.once("close", () => {
        clearTimeout(force);
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000);
    });
  }

  private connect(): void {
    if (this.closed) return;
    if (!this.options.authToken) return this.open(undefined);
    this.options.authToken().then(
      (token) => this.open(token),
      (err: Error) => {
        // Like a refused upgrade: retried with backoff (the token source may be briefly unreachable).
        this.options.logger.warn({ link: this.options.label, err: err.message }, "could not get the auth token for the pulsar link");
        this.scheduleReconnect();
      },
    );
  }

  private open(token: string | undefined): void {
    if (this.closed) return;
    const { logger, label } = this.options;
    const socket = new WebSocket(this.options.url, {
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      ...this.options.tls,
      ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });
    this.socket = socket;
    this.tcp = undefined;
    let alive = true;

    socket.on("upgrade", (response) => {
      this.tcp = response.socket;
    });
    socket.on("open", () => {
      this.backoff.reset();
      if (this.everOpened) logger.info({ link: label }, "pulsar link reconnected");
      this.everOpened = true;
      alive = true;
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => {
        if (!alive) {
          logger.warn({ link: label }, "pulsar link missed a pong; reconnecting");
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
      }, this.options.pingIntervalMs ?? 30_000).unref();
      this.options.onOpen?.();
      this.firstOpen?.resolve();
      this.firstOpen = undefined;
    });
    socket.on("pong", () => {
      alive = true;
    });
    socket.on("message", (data) => this.options.onFrame(data.toString()));
    socket.on("unexpected-response", (request, response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (body.length < 500) body += chunk;
      });
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        const reason = `broker refused ${label}: HTTP ${status} ${body.trim() || response.statusMessage || ""}`;
        if (!this.everOpened && FATAL_STATUS.has(status)) {
          this.firstOpen?.reject(new PulsarError(reason));
          this.firstOpen = undefined;
          this.closed = true;
          return;
        }
        logger.warn({ link: label, status }, reason);
        this.scheduleReconnect();
      });
      request.destroy();
    });
    socket.on("error", (err) => {
      // A certificate that never verified is a setting to fix (the CA), not an outage to wait out.
      if (!this.everOpened && isCertificateError(err)) {
        this.firstOpen?.reject(new PulsarError(`${label}: the broker's TLS certificate did not verify: ${err.message}`));
        this.firstOpen = undefined;
        this.closed = true;
        return;
      }
      // 'close' follows; log here only, reconnect there.
      logger.debug({ link: label, err: err.message }, "pulsar link error");
    });
    socket.on("close", () => {
      clearInterval(this.pingTimer);
      if (this.socket !== socket) return;
      this.options.onDown?.();
      if (!this.closed) this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer?.hasRef()) return;
    const delay = this.backoff.next();
    this.options.logger.debug({ link: this.options.label, delay }, "pulsar link reconnecting");
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, delay);
  }
}
