import { BrokerError } from "./broker-error.js";
import { BrokerConnection, type ConnectionOptions, DEFAULT_MAX_MESSAGE_SIZE } from "./connection.js";
import type { BrokerAddress } from "./service-url.js";

export type PoolSettings = Omit<ConnectionOptions, "logical" | "physical">;

/**
 * One connection per broker (per broker-through-proxy pair) and lane, opened on first use and dropped from
 * the pool when it closes, so the next user opens a fresh one. Lane 0 is shared by everything; the other
 * lanes carry the extra sessions of Shared subscriptions (see BinaryTransport.subscribe).
 */
export class ConnectionPool {
  private readonly connections = new Map<string, Promise<BrokerConnection>>();
  private readonly open = new Set<BrokerConnection>();
  /** The limit the most recent CONNECTED announced. */
  maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
  private closed = false;
  /**
   * The last token a broker refused: the next connections ask the token source with it, so a source whose
   * cache still holds it (its clock says the token is good) gets a new one instead of offering it again.
   */
  private rejectedToken: string | undefined;
  private readonly connectionSettings: PoolSettings;

  constructor(private readonly settings: PoolSettings) {
    const authToken = settings.authToken;
    this.connectionSettings = {
      ...settings,
      ...(authToken ? { authToken: (hint) => authToken(hint ?? (this.rejectedToken ? { rejected: this.rejectedToken } : undefined)) } : {}),
      onTokenRejected: (token) => (this.rejectedToken = token),
    };
  }

  /**
   * The connection for this broker and lane. A token refused at CONNECT gets one more attempt: the token
   * source is then asked with the refused token (`rejected`), so a token that expired in the source's cache,
   * or between the source's clock check and the broker's, costs a round trip instead of the caller's operation.
   */
  get(logical: BrokerAddress, physical: BrokerAddress = logical, lane = 0): Promise<BrokerConnection> {
    return this.connect(logical, physical, lane).catch((err: unknown) => {
      const refusedToken = err instanceof BrokerError && err.code === "AuthenticationError" && this.settings.authToken !== undefined;
      if (!refusedToken || this.closed) throw err;
      return this.connect(logical, physical, lane);
    });
  }

  private connect(logical: BrokerAddress, physical: BrokerAddress, lane: number): Promise<BrokerConnection> {
    if (this.closed) return Promise.reject(new Error("the Pulsar transport is closed"));
    const key = `${logical.url}|${physical.url}|${lane}`;
    let connection = this.connections.get(key);
    if (!connection) {
      const created = new BrokerConnection({ ...this.connectionSettings, logical, physical });
      created.onClose(() => {
        this.open.delete(created);
        if (this.connections.get(key) === connection) this.connections.delete(key);
      });
      connection = created.open().then(
        () => {
          if (this.closed) {
            // Opened while the transport was closing: nobody will use or close it.
            created.close();
            throw new Error("the Pulsar transport is closed");
          }
          this.maxMessageSize = created.maxMessageSize;
          this.open.add(created);
          return created;
        },
        (err: unknown) => {
          if (this.connections.get(key) === connection) this.connections.delete(key);
          throw err;
        },
      );
      this.connections.set(key, connection);
    }
    return connection;
  }

  close(): void {
    this.closed = true;
    for (const connection of this.open) connection.close();
    this.open.clear();
    this.connections.clear();
  }
}
