import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Logger } from "pino";
import { PulsarError } from "../errors.js";
import type { AuthTokenHint, TlsSettings } from "../transport.js";
import { BrokerError } from "./broker-error.js";
import { type BaseCommandData, responseRequestId, toNumber } from "./commands.js";
import { encodeCommand, type Frame, FrameReader } from "./frame-codec.js";
import { CommandType, serverErrorName } from "./pulsar-api.js";
import { type BrokerAddress, hostPort } from "./service-url.js";

export const CLIENT_VERSION = "toolmesh-pulsar 0.1.0 (Node.js)";
/** v19 includes everything used here (Key_Shared from v14, max_message_size in CONNECTED). */
export const PROTOCOL_VERSION = 19;
/** Until CONNECTED says otherwise: the broker's default maxMessageSize. */
export const DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024;
/** Room for command and metadata on top of the message limit (the broker allows the same). */
const FRAME_PADDING = 10 * 1024;

export interface ConnectionOptions {
  /** The broker this connection reaches (what lookups answered). */
  logical: BrokerAddress;
  /** Where the socket goes: the broker itself, or the service URL (a Pulsar proxy) when proxying. */
  physical: BrokerAddress;
  tls?: TlsSettings;
  authToken?: (hint?: AuthTokenHint) => Promise<string | undefined>;
  /** The broker refused this token (at CONNECT, or in answer to a challenge). */
  onTokenRejected?: (token: string) => void;
  logger: Logger;
  operationTimeoutMs: number;
  keepAliveIntervalMs: number;
}

/** What a producer registers to receive its commands. */
export interface ProducerListener {
  onReceipt(sequenceId: number, command: NonNullable<BaseCommandData["send_receipt"]>): void;
  onSendError(sequenceId: number, error: BrokerError): void;
  onClosedByBroker(): void;
  onConnectionLost(): void;
}

export interface ConsumerListener {
  onMessage(frame: Frame): void;
  onClosedByBroker(): void;
  onConnectionLost(): void;
}

interface PendingRequest {
  what: string;
  resolve: (command: BaseCommandData) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One TCP (or TLS) connection to a broker, shared by every producer and consumer on that broker:
 * CONNECT handshake, requests matched to responses by request id, commands routed to producers and
 * consumers by id, pings both ways. A frame it cannot read ends the connection (logged); the producers
 * and consumers on it are told and reconnect.
 */
export class BrokerConnection {
  readonly label: string;
  maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
  private socket: Socket | undefined;
  private readonly reader = new FrameReader(() => this.maxMessageSize + FRAME_PADDING);
  private readonly pending = new Map<number, PendingRequest>();
  private readonly producers = new Map<number, ProducerListener>();
  private readonly consumers = new Map<number, ConsumerListener>();
  private nextRequestId = 0;
  private nextProducerId = 0;
  private nextConsumerId = 0;
  private receivedSinceLastPing = true;
  private keepAlive: NodeJS.Timeout | undefined;
  private corked = false;
  /** The token this connection authenticated with last (CONNECT or a challenge's answer). */
  private sentToken: string | undefined;
  private closedReason: string | undefined;
  private readonly closeListeners: Array<() => void> = [];

  constructor(private readonly options: ConnectionOptions) {
    const { logical, physical } = options;
    this.label = logical.url === physical.url ? logical.url : `${logical.url} via ${physical.url}`;
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Opens the socket and completes CONNECT/CONNECTED; rejects (and closes) on failure or timeout. */
  async open(): Promise<void> {
    const { physical, tls } = this.options;
    const handshake = new Promise<BaseCommandData>((resolve, reject) => {
      this.pending.set(-1, { what: `CONNECT to ${this.label}`, resolve, reject, timer: this.timeout(-1) });
    });
    const socket = physical.tls
      ? tlsConnect({
          host: physical.host,
          port: physical.port,
          ca: tls?.ca,
          cert: tls?.cert,
          key: tls?.key,
          rejectUnauthorized: tls?.rejectUnauthorized ?? true,
          servername: tls?.servername ?? (/^[\d.:]+$/.test(physical.host) ? undefined : physical.host),
        })
      : netConnect({ host: physical.host, port: physical.port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on(physical.tls ? "secureConnect" : "connect", () => void this.sendConnect());
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) => this.shutdown(`socket error: ${err.message}`));
    socket.on("close", () => this.shutdown("the connection closed"));
    const connected = await handshake;
    const limit = connected.connected?.max_message_size;
    if (limit && limit > 0) this.maxMessageSize = limit;
    this.keepAlive = setInterval(() => this.ping(), this.options.keepAliveIntervalMs).unref();
  }

  newProducerId(): number {
    return this.nextProducerId++;
  }

  newConsumerId(): number {
    return this.nextConsumerId++;
  }

  addProducer(id: number, listener: ProducerListener): void {
    this.producers.set(id, listener);
  }

  removeProducer(id: number): void {
    this.producers.delete(id);
  }

  addConsumer(id: number, listener: ConsumerListener): void {
    this.consumers.set(id, listener);
  }

  removeConsumer(id: number): void {
    this.consumers.delete(id);
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Sends a command carrying a request id and resolves with the broker's answer (ERROR rejects). */
  request(what: string, build: (requestId: number) => object, timeoutMs = this.options.operationTimeoutMs): Promise<BaseCommandData> {
    if (this.closed) return Promise.reject(new PulsarError(`${what}: connection to ${this.label} is closed`));
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { what, resolve, reject, timer: this.timeout(requestId, timeoutMs) });
      this.write(encodeCommand(build(requestId)));
    });
  }

  /** Writes a frame; frames of one event-loop turn leave in one TCP write. False when closed. */
  write(frame: Buffer): boolean {
    const socket = this.socket;
    if (this.closed || !socket) return false;
    if (!this.corked) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    socket.write(frame);
    return true;
  }

  /** Ends the connection; everything on it is told it was lost. */
  close(reason = "closed by the client"): void {
    this.shutdown(reason, true);
  }

  private timeout(requestId: number, timeoutMs = this.options.operationTimeoutMs): NodeJS.Timeout {
    return setTimeout(() => {
      const request = this.pending.get(requestId);
      if (!request) return;
      this.pending.delete(requestId);
      request.reject(new PulsarError(`${request.what}: no answer from ${this.label} within ${timeoutMs} ms`));
      // A handshake that never completes leaves nothing worth keeping.
      if (requestId === -1) this.shutdown("CONNECT timed out");
    }, this.options.operationTimeoutMs);
  }

  private async sendConnect(): Promise<void> {
    const { logical, physical } = this.options;
    let token: string | undefined;
    try {
      token = await this.options.authToken?.();
      this.sentToken = token;
    } catch (err) {
      this.shutdown(`could not get the auth token: ${(err as Error).message}`);
      return;
    }
    this.write(
      encodeCommand({
        type: CommandType.CONNECT,
        connect: {
          client_version: CLIENT_VERSION,
          protocol_version: PROTOCOL_VERSION,
          ...(token !== undefined ? { auth_method_name: "token", auth_data: Buffer.from(token, "utf8") } : {}),
          // When a token expires the broker then asks for a fresh one (AUTH_CHALLENGE, answered below) instead
          // of closing the connection, which would drop what is in flight on non-persistent topics.
          feature_flags: { supports_auth_refresh: true },
          ...(logical.url !== physical.url ? { proxy_to_broker_url: hostPort(logical) } : {}),
        },
      }),
    );
  }

  private onData(chunk: Buffer): void {
    this.receivedSinceLastPing = true;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      this.options.logger.error({ broker: this.label, err: (err as Error).message }, "malformed frame from the broker; reconnecting");
      this.shutdown(`malformed frame: ${(err as Error).message}`);
      return;
    }
    for (const frame of frames) {
      if (this.closed) return;
      try {
        this.dispatch(frame);
      } catch (err) {
        this.options.logger.error({ broker: this.label, err }, "could not handle a command from the broker; reconnecting");
        this.shutdown(`unhandled command: ${(err as Error).message}`);
        return;
      }
    }
  }

  private dispatch(frame: Frame): void {
    const { command } = frame;
    switch (command.type) {
      case CommandType.CONNECTED:
        return this.settle(-1, command);
      case CommandType.PING:
        this.write(encodeCommand({ type: CommandType.PONG, pong: {} }));
        return;
      case CommandType.PONG:
        return;
      case CommandType.AUTH_CHALLENGE:
        void this.answerAuthChallenge();
        return;
      case CommandType.SEND_RECEIPT: {
        const receipt = command.send_receipt!;
        this.producers.get(toNumber(receipt.producer_id))?.onReceipt(toNumber(receipt.sequence_id), receipt);
        return;
      }
      case CommandType.SEND_ERROR: {
        const error = command.send_error!;
        const producer = this.producers.get(toNumber(error.producer_id));
        producer?.onSendError(toNumber(error.sequence_id), new BrokerError("a message", error.error, error.message));
        return;
      }
      case CommandType.MESSAGE: {
        const consumer = this.consumers.get(toNumber(command.message!.consumer_id));
        if (consumer) consumer.onMessage(frame);
        else
          this.options.logger.warn(
            { broker: this.label, consumer: toNumber(command.message!.consumer_id) },
            "a message for a consumer closed here; dropped (non-persistent: lost)",
          );
        return;
      }
      case CommandType.CLOSE_PRODUCER: {
        const id = toNumber(command.close_producer!.producer_id);
        const producer = this.producers.get(id);
        this.producers.delete(id);
        producer?.onClosedByBroker();
        return;
      }
      case CommandType.CLOSE_CONSUMER: {
        const id = toNumber(command.close_consumer!.consumer_id);
        const consumer = this.consumers.get(id);
        this.consumers.delete(id);
        consumer?.onClosedByBroker();
        return;
      }
      case CommandType.ERROR:
        if (serverErrorName(command.error!.error) === "AuthenticationError" && this.sentToken !== undefined) {
          this.options.onTokenRejected?.(this.sentToken);
        }
        if (this.pending.has(-1) && !this.pending.has(toNumber(command.error!.request_id))) {
          // An ERROR during the handshake (a bad token) answers CONNECT.
          return this.fail(-1, new BrokerError(`CONNECT to ${this.label}`, command.error!.error, command.error!.message));
        }
        return this.fail(toNumber(command.error!.request_id), undefined, command);
      case CommandType.PRODUCER_SUCCESS:
        // A producer waiting for exclusive access gets a second PRODUCER_SUCCESS once it is ready.
        if (command.producer_success!.producer_ready === false) return;
        return this.settle(toNumber(command.producer_success!.request_id), command);
      case CommandType.SUCCESS:
      case CommandType.LOOKUP_RESPONSE:
      case CommandType.PARTITIONED_METADATA_RESPONSE:
        return this.settle(responseRequestId(command)!, command);
      case CommandType.ACTIVE_CONSUMER_CHANGE:
      case CommandType.REACHED_END_OF_TOPIC:
        this.options.logger.debug({ broker: this.label, type: command.type }, "broker notice");
        return;
      default:
        throw new Error(`unexpected command type ${String(command.type)}`);
    }
  }

  private settle(requestId: number, command: BaseCommandData): void {
    const request = this.pending.get(requestId);
    if (!request) return;
    this.pending.delete(requestId);
    clearTimeout(request.timer);
    request.resolve(command);
  }

  private fail(requestId: number, error?: Error, command?: BaseCommandData): void {
    const request = this.pending.get(requestId);
    if (!request) {
      this.options.logger.warn({ broker: this.label, error: command?.error?.message }, "broker error for no pending request");
      return;
    }
    this.pending.delete(requestId);
    clearTimeout(request.timer);
    request.reject(error ?? new BrokerError(request.what, command?.error?.error, command?.error?.message));
  }

  private async answerAuthChallenge(): Promise<void> {
    // The broker challenges a token it finds expired: a fresh one is needed even if the source's clock disagrees.
    const token = await this.options
      .authToken?.(this.sentToken === undefined ? undefined : { rejected: this.sentToken })
      .catch((err: Error) => {
        // An empty answer makes the broker close the connection; it is made again with a fresh token.
        this.options.logger.warn({ broker: this.label, err: err.message }, "could not get a token to answer the broker's auth challenge");
        return undefined;
      });
    if (token !== undefined) this.sentToken = token;
    this.write(
      encodeCommand({
        type: CommandType.AUTH_RESPONSE,
        authResponse: {
          client_version: CLIENT_VERSION,
          protocol_version: PROTOCOL_VERSION,
          response: { auth_method_name: "token", auth_data: Buffer.from(token ?? "", "utf8") },
        },
      }),
    );
  }

  /** Apache's clients' rule: nothing heard since the last ping means the broker is gone. */
  private ping(): void {
    if (!this.receivedSinceLastPing) {
      this.options.logger.warn({ broker: this.label }, "broker silent for a keep-alive interval; reconnecting");
      this.shutdown("keep-alive timed out");
      return;
    }
    this.receivedSinceLastPing = false;
    this.write(encodeCommand({ type: CommandType.PING, ping: {} }));
  }

  private shutdown(reason: string, graceful = false): void {
    if (this.closed) return;
    this.closedReason = reason;
    clearInterval(this.keepAlive);
    if (!graceful) this.options.logger.debug({ broker: this.label, reason }, "broker connection closed");
    const socket = this.socket;
    if (graceful && socket) {
      socket.end();
      // A peer that never finishes the close must not keep the socket (or the process) alive.
      setTimeout(() => socket.destroy(), 2_000).unref();
    } else socket?.destroy();
    const lost = new PulsarError(`connection to ${this.label} lost: ${reason}`);
    for (const [id, request] of this.pending) {
      clearTimeout(request.timer);
      request.reject(id === -1 ? new PulsarError(`${request.what} failed: ${reason}`) : lost);
    }
    this.pending.clear();
    const producers = [...this.producers.values()];
    const consumers = [...this.consumers.values()];
    this.producers.clear();
    this.consumers.clear();
    for (const listener of this.closeListeners) listener();
    for (const producer of producers) producer.onConnectionLost();
    for (const consumer of consumers) consumer.onConnectionLost();
  }
}
