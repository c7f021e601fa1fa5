import pino, { type Logger } from "pino";
import { type AuthTokenSetting, authTokenOf } from "../auth/auth-token.js";
import type { ConsumerChannel, IncomingMessage, ProducerChannel, SubscribeOptions, TlsSettings, Transport } from "../transport.js";
import { isRetriable } from "./broker-error.js";
import { ConnectionPool } from "./connection-pool.js";
import { BinaryConsumer } from "./consumer.js";
import { TopicLookup } from "./lookup.js";
import { PartitionedConsumer, PartitionedProducer, partitionTopic } from "./partitioned.js";
import { BinaryProducer } from "./producer.js";
import type { HandleContext } from "./reconnecting-handle.js";
import { type BrokerAddress, parseBrokerUrl } from "./service-url.js";
import { type LaneLease, SessionLanes } from "./session-lanes.js";
import { Backoff } from "../backoff.js";

export interface BinaryTransportOptions {
  /** pulsar://host:port or pulsar+ssl://host:port: a broker or a Pulsar proxy. */
  serviceUrl: string;
  logger?: Logger;
  /** AuthenticationToken (the "token" method); a function is asked on every new connection. */
  authToken?: AuthTokenSetting;
  tls?: TlsSettings;
  /** How long a message may wait for the broker's confirmation, across reconnects (default 30 000). */
  sendTimeoutMs?: number;
  /** Lookup, subscribe and producer round trips (default 30 000). */
  operationTimeoutMs?: number;
  /** Ping interval; a broker silent for a whole interval is taken as gone (default 30 000). */
  keepAliveIntervalMs?: number;
  /** Permits per consumer unless the subscription asks for another size (default 10 000). */
  receiverQueueSize?: number;
  /** Unconfirmed messages a producer keeps for resending before refusing more (default 10 000). */
  maxPendingMessages?: number;
}

/**
 * Sessions of one Shared or Key_Shared subscription spread over this many connections per broker. On a non-persistent
 * topic the broker drops a message when no session of the subscription can take it at once, and a
 * session whose connection is still carrying a multi-megabyte message cannot (its write buffer is over
 * Netty's high-water mark: `isWritable()` is false until the client has read most of it, longer when the
 * client is short of CPU). Sessions on separate connections leave the broker one that can take the small
 * requests arriving meanwhile, instead of dropping them.
 */
const SHARED_LANES = 4;

/**
 * Pulsar's binary protocol over TCP or TLS, written in TypeScript: what Apache's own clients speak,
 * without the broker's WebSocket service in between. One connection per broker is shared by every
 * producer and consumer on it, except the second and later sessions of a Shared or Key_Shared
 * subscription (lanes).
 */
export class BinaryTransport implements Transport {
  private readonly pool: ConnectionPool;
  private readonly context: HandleContext;
  private readonly serviceUrl: BrokerAddress;
  private readonly channels = new Set<{ close(): Promise<void> }>();
  private readonly lanes = new SessionLanes(SHARED_LANES);
  private closed = false;

  constructor(private readonly options: BinaryTransportOptions) {
    this.serviceUrl = parseBrokerUrl(options.serviceUrl);
    const logger = options.logger ?? pino({ level: "silent" });
    const operationTimeoutMs = options.operationTimeoutMs ?? 30_000;
    this.pool = new ConnectionPool({
      logger,
      tls: options.tls,
      authToken: authTokenOf(options),
      operationTimeoutMs,
      keepAliveIntervalMs: options.keepAliveIntervalMs ?? 30_000,
    });
    const lookup = new TopicLookup(this.pool, this.serviceUrl);
    this.context = { pool: this.pool, lookup, logger, operationTimeoutMs };
  }

  /** The broker's message size limit from its CONNECTED (5 MiB until a connection is made). */
  get maxMessageSize(): number {
    return this.pool.maxMessageSize;
  }

  async createProducer(topic: string): Promise<ProducerChannel> {
    const partitions = await this.partitions(topic);
    const make = (name: string, partition: number) =>
      new BinaryProducer(this.context, name, {
        sendTimeoutMs: this.options.sendTimeoutMs ?? 30_000,
        maxPendingMessages: this.options.maxPendingMessages ?? 10_000,
        partition,
        maxMessageSize: () => this.pool.maxMessageSize,
      });
    if (partitions === 0) {
      const producer = make(topic, -1);
      return this.track(producer, [producer]);
    }
    const producers = Array.from({ length: partitions }, (_, i) => make(partitionTopic(topic, i), i));
    return this.track(new PartitionedProducer(topic, producers), producers);
  }

  async subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel> {
    if (!options.subscription) throw new Error(`refused: subscribing to ${options.topic} needs a subscription name`);
    const partitions = await this.partitions(options.topic);
    const lease = this.lane(options);
    const settings = {
      receiverQueueSize: options.receiverQueueSize ?? this.options.receiverQueueSize ?? 10_000,
      reportedTopic: options.topic,
      lane: lease.lane,
    };
    const make = (name: string, partition: number) =>
      new BinaryConsumer(this.context, name, options, { ...settings, partition }, onMessage);
    if (partitions === 0) {
      const consumer = make(options.topic, -1);
      return this.track(consumer, [consumer], lease);
    }
    const consumers = Array.from({ length: partitions }, (_, i) => make(partitionTopic(options.topic, i), i));
    return this.track(new PartitionedConsumer(options.topic, options.subscription, consumers), consumers, lease);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.channels].map((channel) => channel.close()));
    this.channels.clear();
    this.pool.close();
  }

  /** Subscriptions with a Shared or Key_Shared session open here (each holds lanes until closed). */
  get laneHolders(): number {
    return this.lanes.subscriptions;
  }

  /** Channels open here (closed ones are let go). */
  get openChannels(): number {
    return this.channels.size;
  }

  /** The connection lane of a new session: the sessions of a Shared or Key_Shared subscription spread out. */
  private lane(options: SubscribeOptions): LaneLease {
    if (options.type !== "Shared" && options.type !== "Key_Shared") return { lane: 0, release: () => {} };
    return this.lanes.take(`${options.topic}|${options.subscription}`);
  }

  /** Partition count, retrying while the broker is unreachable, up to the operation timeout. */
  private async partitions(topic: string): Promise<number> {
    const deadline = Date.now() + (this.options.operationTimeoutMs ?? 30_000);
    const backoff = new Backoff();
    for (;;) {
      try {
        return await this.context.lookup.partitions(topic);
      } catch (err) {
        if (!isRetriable(err) || Date.now() >= deadline || this.closed) throw err;
        const delay = backoff.next();
        this.context.logger.warn({ topic, err: (err as Error).message, delay }, "pulsar lookup failed; retrying");
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /**
   * Starts the handles (every partition's) and keeps the channel for close(), until it is closed by itself
   * (then its lane goes back too); a failed start closes them all.
   */
  private async track<T extends { close(): Promise<void> }>(
    channel: T,
    handles: Array<{ start(): Promise<void> }>,
    lease?: LaneLease,
  ): Promise<T> {
    this.channels.add(channel);
    const close = channel.close.bind(channel);
    channel.close = () => {
      this.channels.delete(channel);
      lease?.release();
      return close();
    };
    try {
      await Promise.all(handles.map((h) => h.start()));
      return channel;
    } catch (err) {
      this.channels.delete(channel);
      await channel.close();
      throw err;
    }
  }
}
