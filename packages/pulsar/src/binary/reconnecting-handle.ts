import type { Logger } from "pino";
import { Backoff, type BackoffOptions, DEFAULT_BACKOFF } from "../backoff.js";
import { ClosedError } from "../errors.js";
import { isRetriable } from "./broker-error.js";
import type { BrokerConnection } from "./connection.js";
import type { ConnectionPool } from "./connection-pool.js";
import type { TopicLookup } from "./lookup.js";

const CLOSE_TIMEOUT_MS = 5_000;

export interface HandleContext {
  pool: ConnectionPool;
  lookup: TopicLookup;
  logger: Logger;
  operationTimeoutMs: number;
  backoff?: BackoffOptions;
}

/**
 * A producer or consumer on one topic (one partition) that stays attached to whichever broker owns the
 * topic: looks it up, attaches on that broker's connection, and after the connection drops or the broker
 * closes it (a topic unload) looks it up again and re-attaches, with backoff, until closed.
 */
export abstract class ReconnectingHandle {
  protected connection: BrokerConnection | undefined;
  private ready = false;
  protected closed = false;
  private readonly backoff: Backoff;
  private timer: NodeJS.Timeout | undefined;
  private attempting = false;

  /**
   * @param lane which of the pool's connections to the topic's broker this handle attaches on (0: the
   *   one everything shares).
   */
  constructor(
    protected readonly context: HandleContext,
    readonly topic: string,
    protected readonly label: string,
    private readonly lane = 0,
  ) {
    this.backoff = new Backoff(context.backoff ?? DEFAULT_BACKOFF);
  }

  get connected(): boolean {
    return this.ready && !this.connection?.closed;
  }

  /**
   * Attaches the first time. Transient failures (broker unreachable, not ready) are retried until the
   * operation timeout; a refusal no retry can fix rejects at once.
   */
  async start(): Promise<void> {
    const deadline = Date.now() + this.context.operationTimeoutMs;
    for (;;) {
      try {
        await this.attempt();
        return;
      } catch (err) {
        if (this.closed) throw new ClosedError(`${this.label}: closed before it connected`);
        if (!isRetriable(err) || Date.now() >= deadline) throw err;
        const delay = Math.min(this.backoff.next(), Math.max(0, deadline - Date.now()));
        // Said at once: a service that cannot connect (broker away, credentials refused) is otherwise silent until the timeout.
        this.context.logger.warn({ handle: this.label, err: (err as Error).message, delay }, "pulsar connect failed; retrying");
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Attaches on the given connection (PRODUCER or SUBSCRIBE) and registers for its commands. */
  protected abstract attach(connection: BrokerConnection): Promise<void>;
  /** Called when the attachment is gone, before reconnecting. */
  protected abstract detached(): void;

  /** The connection dropped or the broker closed this producer/consumer: look up and attach again. */
  protected lost(why: string): void {
    if (this.closed) return;
    const wasReady = this.ready;
    this.ready = false;
    this.connection = undefined;
    this.detached();
    if (wasReady) this.context.logger.info({ handle: this.label, why }, "pulsar handle lost; reconnecting");
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.attempting) return;
    const delay = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.attempt().then(
        () => this.context.logger.info({ handle: this.label }, "pulsar handle reconnected"),
        (err: unknown) => {
          if (this.closed) return;
          this.context.logger.warn({ handle: this.label, err: (err as Error).message, delay }, "pulsar reconnect failed; retrying");
          this.schedule();
        },
      );
    }, delay);
  }

  private async attempt(): Promise<void> {
    this.attempting = true;
    try {
      const location = await this.context.lookup.locate(this.topic);
      const connection = await this.context.pool.get(location.logical, location.physical, this.lane);
      if (this.closed) throw new ClosedError(`${this.label} is closed`);
      this.connection = connection;
      await this.attach(connection);
      if (this.closed) throw new ClosedError(`${this.label} is closed`);
      this.ready = true;
      this.backoff.reset();
      this.onReady();
    } catch (err) {
      this.connection = undefined;
      throw err;
    } finally {
      this.attempting = false;
    }
  }

  /** After (re)attaching: producers resend what is unconfirmed. */
  protected onReady(): void {}

  /**
   * Stops reconnecting and, when attached, tells the broker (CLOSE_PRODUCER / CLOSE_CONSUMER), waiting
   * at most CLOSE_TIMEOUT_MS for its answer: a shutdown must not hang on a broker that stopped answering.
   */
  protected async closeOnBroker(
    closeCommand: (requestId: number) => object,
    forget: (connection: BrokerConnection) => void | Promise<void>,
  ): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const connection = this.connection;
    if (!connection || connection.closed || !this.ready) return;
    await connection
      .request(`close of ${this.label}`, closeCommand, Math.min(CLOSE_TIMEOUT_MS, this.context.operationTimeoutMs))
      .catch(() => undefined);
    await forget(connection);
  }
}
