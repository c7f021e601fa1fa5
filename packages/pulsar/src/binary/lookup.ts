import { PulsarError } from "../errors.js";
import { BrokerError } from "./broker-error.js";
import type { ConnectionPool } from "./connection-pool.js";
import { CommandType } from "./pulsar-api.js";
import { type BrokerAddress, parseBrokerUrl } from "./service-url.js";

export interface TopicLocation {
  /** The broker that owns the topic. */
  logical: BrokerAddress;
  /** Where to connect to reach it: the broker, or the service URL when the lookup says to proxy. */
  physical: BrokerAddress;
}

const MAX_REDIRECTS = 20;
const LOOKUP_FAILED = 2;
const LOOKUP_REDIRECT = 0;
const METADATA_FAILED = 1;

/** Topic lookup and partition metadata, both asked of the service URL (a broker or a Pulsar proxy). */
export class TopicLookup {
  constructor(
    private readonly pool: ConnectionPool,
    private readonly serviceUrl: BrokerAddress,
  ) {}

  /** Partitions of a topic; 0 when it is not partitioned. */
  async partitions(topic: string): Promise<number> {
    const connection = await this.pool.get(this.serviceUrl);
    const answer = await connection.request(`partition metadata of ${topic}`, (request_id) => ({
      type: CommandType.PARTITIONED_METADATA,
      partitionMetadata: { topic, request_id },
    }));
    const response = answer.partitionMetadataResponse!;
    if (response.response === METADATA_FAILED) {
      throw new BrokerError(`partition metadata of ${topic}`, response.error, response.message);
    }
    return response.partitions ?? 0;
  }

  /**
   * The broker serving `topic`, following redirects (each asked of the broker redirected to, with the
   * authoritative flag it returned). proxy_through_service_url keeps the physical connection on the
   * service URL and names the broker in CONNECT, which is how clients reach brokers behind a Pulsar proxy.
   */
  async locate(topic: string): Promise<TopicLocation> {
    let asked: TopicLocation = { logical: this.serviceUrl, physical: this.serviceUrl };
    let authoritative = false;
    for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
      const connection = await this.pool.get(asked.logical, asked.physical);
      const answer = await connection.request(`lookup of ${topic}`, (request_id) => ({
        type: CommandType.LOOKUP,
        lookupTopic: { topic, request_id, authoritative },
      }));
      const response = answer.lookupTopicResponse!;
      if (response.response === LOOKUP_FAILED) throw new BrokerError(`lookup of ${topic}`, response.error, response.message);
      const url = this.serviceUrl.tls ? response.brokerServiceUrlTls : response.brokerServiceUrl;
      if (!url) throw new PulsarError(`lookup of ${topic}: the broker named no ${this.serviceUrl.tls ? "TLS " : ""}service URL`);
      const logical = parseBrokerUrl(url);
      const location = { logical, physical: response.proxy_through_service_url ? this.serviceUrl : logical };
      if (response.response !== LOOKUP_REDIRECT) return location;
      asked = location;
      authoritative = Boolean(response.authoritative);
    }
    throw new PulsarError(`lookup of ${topic}: more than ${MAX_REDIRECTS} redirects`);
  }
}
