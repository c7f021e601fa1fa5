import { parseTopic } from "@toolmesh/schema";
import type { SubscribeOptions } from "../transport.js";

/** `/ws/v2/{producer|consumer}/{persistence}/{tenant}/{namespace}/{topic}` under the broker's web URL. */
function topicPath(kind: "producer" | "consumer", topic: string): string {
  const t = parseTopic(topic);
  return `/ws/v2/${kind}/${t.persistence}/${encodeURIComponent(t.tenant)}/${encodeURIComponent(t.namespace)}/${encodeURIComponent(t.topic)}`;
}

export function producerUrl(baseUrl: string, topic: string): string {
  // Batching stays off: request/response latency matters more than throughput per frame.
  return `${baseUrl}${topicPath("producer", topic)}?batchingEnabled=false`;
}

export function consumerUrl(baseUrl: string, options: SubscribeOptions): string {
  const query = new URLSearchParams({
    subscriptionType: options.type,
    receiverQueueSize: String(Math.min(options.receiverQueueSize ?? 1000, 1000)),
    negativeAckRedeliveryDelay: String(options.negativeAckRedeliveryDelayMs ?? 1000),
  });
  if (options.initialPosition) query.set("subscriptionInitialPosition", options.initialPosition);
  if (options.consumerName) query.set("consumerName", options.consumerName);
  return `${baseUrl}${topicPath("consumer", options.topic)}/${encodeURIComponent(options.subscription)}?${query}`;
}
