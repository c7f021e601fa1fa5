/** What the broker has open on one topic, from its admin REST topic stats. */
export interface TopicClients {
  producers: number;
  /** Consumers over all subscriptions. */
  consumers: number;
  subscriptions: string[];
}

interface TopicStatsBody {
  publishers?: unknown[];
  subscriptions?: Record<string, { consumers?: unknown[] }>;
}

/**
 * Producers and consumers the broker counts on `topic` (`GET /admin/v2/{persistence}/{tenant}/{ns}/{topic}/stats`).
 * A topic the broker does not know (a non-persistent one nobody has open is deleted) has none.
 */
export async function topicClients(webServiceUrl: string, topic: string): Promise<TopicClients> {
  const path = topic.replace("://", "/");
  const response = await fetch(`${webServiceUrl}/admin/v2/${path}/stats`);
  if (response.status === 404) return { producers: 0, consumers: 0, subscriptions: [] };
  if (!response.ok) throw new Error(`stats of ${topic}: HTTP ${response.status} ${await response.text()}`);
  const stats = (await response.json()) as TopicStatsBody;
  const subscriptions = Object.entries(stats.subscriptions ?? {});
  return {
    producers: stats.publishers?.length ?? 0,
    consumers: subscriptions.reduce((sum, [, s]) => sum + (s.consumers?.length ?? 0), 0),
    subscriptions: subscriptions.map(([name]) => name),
  };
}

/** Sums topicClients over many topics, a few requests at a time. */
export async function totalClients(webServiceUrl: string, topics: readonly string[]): Promise<{ producers: number; consumers: number }> {
  const total = { producers: 0, consumers: 0 };
  for (let i = 0; i < topics.length; i += 20) {
    const batch = await Promise.all(topics.slice(i, i + 20).map((topic) => topicClients(webServiceUrl, topic)));
    for (const clients of batch) {
      total.producers += clients.producers;
      total.consumers += clients.consumers;
    }
  }
  return total;
}
