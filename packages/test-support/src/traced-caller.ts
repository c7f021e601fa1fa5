import { type PythonRun, runPythonScript } from "./python-run.js";

export interface TracedCall {
  /** Whether the caller's span is recorded (its `traceparent` flags 01) or not (00). */
  sampled: boolean;
  arguments: Record<string, unknown>;
  /** Sent as the `traceparent` property instead of the SDK's (a broken peer's). */
  traceparent?: string;
}

export interface TracedCallResult {
  trace_id: string;
  span_id: string;
  /** The `traceparent` property OpenTelemetry's Python SDK wrote into the request (none with other propagators). */
  traceparent: string | null;
  /** Every property the request carried (`id` and what the SDK's propagators wrote). */
  properties: Record<string, string>;
  reply: { response?: string; error?: { type: string; message: string } | null };
}

/**
 * Calls a tool service from Python (packages/test-support/python/traced_caller.py): each call in a span of
 * OpenTelemetry's Python SDK, its context in the request's properties, sent and answered through Apache's
 * client. Resolves with each call's trace and span ids and reply; rejects with the script's error.
 */
export async function tracedPythonCalls(
  url: string,
  topics: { requestTopic: string; responseTopic: string },
  calls: TracedCall[],
  /** OTEL_PROPAGATORS for the Python SDK (its default: tracecontext,baggage). */
  propagators?: string,
): Promise<TracedCallResult[]> {
  const args = [
    "--url",
    url,
    "--request-topic",
    topics.requestTopic,
    "--response-topic",
    topics.responseTopic,
    "--calls",
    JSON.stringify(calls),
  ];
  const env: Record<string, string> = propagators ? { OTEL_PROPAGATORS: propagators } : {};
  const result = await runPythonScript<{ ok: boolean; error?: string; calls?: TracedCallResult[] }>("pulsar", "traced_caller.py", args, {
    env,
  }).result;
  if (!result.ok) throw new Error(`traced_caller.py: ${result.error}`);
  return result.calls!;
}

/** What a traced Python tool service (traced_service.py) saw of one request. */
export interface TracedServiceRequest {
  properties: Record<string, string>;
  /** The span context OpenTelemetry's Python propagators read off the request. */
  remote: { valid: boolean; remote: boolean; trace_id: string; span_id: string; sampled: boolean };
  /** Whether the SDK recorded the request's SERVER span (its default sampler, ParentBased(ALWAYS_ON)). */
  recording: boolean;
}

export interface TracedServiceResult {
  ok: boolean;
  error?: string;
  requests: TracedServiceRequest[];
  /** Every span the Python SDK recorded. */
  spans: Array<{ name: string; trace_id: string; span_id: string; parent_span_id: string | null }>;
}

/**
 * A tool service in Python (packages/test-support/python/traced_service.py) that reads each request's trace
 * context with OpenTelemetry's Python SDK and serves it in a span under it, through Apache's client. It
 * answers `echo: <arguments>` until stopped; `stop()` resolves with what it saw and recorded.
 */
export function tracedPythonService(url: string, topics: { requestTopic: string; responseTopic: string }): PythonRun<TracedServiceResult> {
  const args = ["--url", url, "--request-topic", topics.requestTopic, "--response-topic", topics.responseTopic];
  return runPythonScript<TracedServiceResult>("pulsar", "traced_service.py", args, { announcesReady: true });
}
