import type { Logger } from "pino";

/** Anything with an asynchronous close: a RequestClient, a ToolServiceClient. */
export interface Closable {
  close(): Promise<void>;
}

export interface ClientPoolOptions {
  /** Clients kept at most; to make room, the least recently used idle one is closed. */
  maxClients: number;
  /** A client nobody has used for this long is closed. */
  idleMs: number;
  logger: Logger;
}

/** One use of a pooled client: await `client`, and call `release()` once done with it, whatever happened. */
export interface ClientLease<C> {
  readonly client: Promise<C>;
  release(): void;
}

interface Entry<C> {
  key: string;
  client: Promise<C>;
  /** Leases not yet released: a client in use is never closed under its callers. */
  users: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** Out of the pool (idle, evicted, or its key retired); closed once its last user is done. */
  retired: boolean;
  closing: boolean;
  /** Its creation has finished (either way). */
  settled: boolean;
}

/**
 * Clients by key (e.g. one per tool topic pair), created on first use and shared by every call. Unlike a
 * plain Map it lets go: a client idle for `idleMs` is closed, the pool holds at most `maxClients` (least
 * recently used idle ones go first; if every one is busy it stays over until calls finish), and `retain()`
 * closes the clients whose keys no longer exist (a descriptor deleted from config).
 */
export class ClientPool<C extends Closable> {
  /** In order of last use, oldest first (a Map keeps insertion order; a use re-inserts). */
  private readonly entries = new Map<string, Entry<C>>();
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: ClientPoolOptions) {}

  /** Clients open or opening. */
  get size(): number {
    return this.entries.size;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** The key's client, made by `create` when the pool has none; a creation that fails is not kept. */
  lease(key: string, create: () => Promise<C>): ClientLease<C> {
    if (this.closed) throw new Error("the client pool is closed");
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    else entry = this.open(key, create);
    this.entries.set(key, entry);
    entry.users += 1;
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    this.trim();
    let released = false;
    const used = entry;
    return {
      client: used.client,
      release: () => {
        if (released) return;
        released = true;
        this.done(used);
      },
    };
  }

  /** Closes the clients whose key `keep` refuses; those in use close when their calls finish. */
  retain(keep: (key: string) => boolean): void {
    for (const entry of [...this.entries.values()]) {
      if (!keep(entry.key)) this.retire(entry, "its service is gone");
    }
  }

  /**
   * Closes every client, in use or not (callers wait for their calls first), and waits for them; clients
   * still opening are not waited for (the broker may be away): they close as soon as they open.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of [...this.entries.values()]) {
      this.retire(entry, "shutting down");
      this.shut(entry);
    }
    await Promise.all(this.closing);
  }

  private open(key: string, create: () => Promise<C>): Entry<C> {
    const entry: Entry<C> = { key, client: create(), users: 0, idleTimer: undefined, retired: false, closing: false, settled: false };
    entry.client.then(
      () => (entry.settled = true),
      () => (entry.settled = true),
    );
    entry.client.catch(() => {
      // A failed creation is not cached: the next call tries again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      entry.retired = true;
    });
    return entry;
  }

  private done(entry: Entry<C>): void {
    entry.users -= 1;
    if (entry.users > 0) return;
    if (entry.retired) {
      this.shut(entry);
      return;
    }
    entry.idleTimer = setTimeout(() => this.retire(entry, "idle"), this.options.idleMs);
    entry.idleTimer.unref();
    this.trim();
  }

  /** Closes least recently used idle clients while the pool is over its bound. */
  private trim(): void {
    if (this.entries.size <= this.options.maxClients) return;
    for (const entry of this.entries.values()) {
      if (this.entries.size <= this.options.maxClients) return;
      if (entry.users === 0) this.retire(entry, "least recently used");
    }
  }

  private retire(entry: Entry<C>, reason: string): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    clearTimeout(entry.idleTimer);
    if (entry.retired) return;
    entry.retired = true;
    this.options.logger.debug({ key: entry.key, reason, open: this.entries.size }, "releasing a client");
    if (entry.users === 0) this.shut(entry);
  }

  private shut(entry: Entry<C>): void {
    if (entry.closing) return;
    entry.closing = true;
    // A client that failed to open has nothing to close (its callers got the error).
    const closing = entry.client
      .then(
        (client) => client.close(),
        () => undefined,
      )
      .catch((err: unknown) => this.options.logger.warn({ err, key: entry.key }, "closing a client failed"))
      .finally(() => this.closing.delete(closing));
    if (entry.settled) this.closing.add(closing);
  }
}
