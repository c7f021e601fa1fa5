import { type PythonRun, runPythonScript } from "./python-run.js";

export interface TrustGraphCall {
  config?: Record<string, unknown>;
  arguments?: Record<string, unknown>;
}

/** One result per call: TrustGraph's ToolServiceClient returned `response`, or raised `error`. */
export interface TrustGraphCallResults {
  results: Array<{ response?: string; error?: string }>;
}

/** How TrustGraph reaches a broker with token authentication: its own `pulsar_api_key` setting. */
export interface TrustGraphPulsarAuth {
  apiKey?: string;
}

const authArgs = (auth: TrustGraphPulsarAuth): string[] => (auth.apiKey ? ["--pulsar-api-key", auth.apiKey] : []);

/**
 * TrustGraph 2.11.1's ToolServiceClient (trustgraph-base, wired as its flow processors wire it) makes
 * `calls` in turn to the tool service on the given topics (packages/test-support/python/trustgraph_peer.py).
 */
export function trustGraphToolCalls(
  pulsarHost: string,
  topics: { requestTopic: string; responseTopic: string },
  calls: TrustGraphCall[],
  auth: TrustGraphPulsarAuth = {},
): Promise<TrustGraphCallResults> {
  return runPythonScript<TrustGraphCallResults>("trustgraph", "trustgraph_peer.py", [
    "call",
    "--pulsar-host",
    pulsarHost,
    ...authArgs(auth),
    "--request-topic",
    topics.requestTopic,
    "--response-topic",
    topics.responseTopic,
    "--calls",
    JSON.stringify(calls),
  ]).result;
}

/**
 * A TrustGraph DynamicToolService (trustgraph-base's AsyncProcessor underneath) on
 * `non-persistent://tg/{request,response}/<topic>` (TrustGraph fixes the tenant): it answers
 * `<style>: <topic> (trustgraph)` and replies with an error when `topic` is missing. `ready` resolves once
 * it is subscribed; `stop()` ends it.
 */
export function trustGraphToolService(pulsarHost: string, id: string, topic: string, auth: TrustGraphPulsarAuth = {}): PythonRun<unknown> {
  const args = ["serve", "--pulsar-host", pulsarHost, ...authArgs(auth), "--id", id, "--topic", topic];
  return runPythonScript("trustgraph", "trustgraph_peer.py", args, { announcesReady: true });
}
