import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  INVALID_TRACEID,
  type TextMapGetter,
  TraceFlags,
  context,
  propagation,
  trace,
} from "@opentelemetry/api";
import { UnsampledSpan } from "./unsampled-trace.js";

/**
 * toolmesh's spans, through the OpenTelemetry API only: with no SDK registered (tracing off, the default)
 * every call here is a no-op. packages/base's tracing.ts registers the SDK when OTEL_* variables ask for it.
 *
 * The parent of a span is passed explicitly (`TraceOptions.parent`, a `TraceScope`'s `context`), never
 * looked up in an async context: Node 20's AsyncLocalStorage hooks every promise in the process, which
 * cost more than the spans themselves (bench/README.md, "Tracing cost"). A caller that runs its own
 * context manager still gets its active span as the default parent.
 *
 * A span says what ran, where and how it ended: tool name, topic, catalog revision, outcome and duration.
 * Never arguments, results or error texts (a tool's error may quote its input): only error types.
 */
export const TraceAttr = {
  tool: "toolmesh.tool.name",
  toolService: "toolmesh.tool_service.id",
  topic: "messaging.destination.name",
  revision: "toolmesh.catalog.revision",
  runId: "toolmesh.run.id",
  outcome: "toolmesh.outcome",
  errorType: "error.type",
  durationMs: "toolmesh.duration_ms",
} as const;

export { SpanKind };
/** A trace position to continue from: a span's context (`TraceScope.context`) or one read off a message. */
export type TraceContext = Context;
/** No trace to continue: a span made under it starts a new trace. */
export const ROOT_TRACE_CONTEXT: TraceContext = ROOT_CONTEXT;

// Looked up per span (a map lookup once an SDK is registered), not cached: a cached tracer stays bound to
// the SDK registered when it was made, so tracing could not be turned off again (the bench toggles it).
const tracer = () => trace.getTracer("toolmesh");

/** One span in progress: its attributes and how it ended (default `ok`, or `error` when the work throws). */
export class TraceScope {
  private outcome: string | undefined;
  private readonly started = performance.now();

  /** `context`: the span's own context, the parent to give the work it does (calls, child spans). */
  constructor(
    readonly span: Span,
    readonly context: Context,
  ) {}

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  /** How the work ended, when that is not plain `ok` / `error` (e.g. `bad-request`, `error-reply`). */
  setOutcome(outcome: string, errorType?: string): void {
    this.outcome = outcome;
    if (errorType) this.span.setAttribute(TraceAttr.errorType, errorType);
  }

  end(outcome: string, err?: unknown): void {
    // An unsampled span records nothing: skip building what it would drop.
    if (!this.span.isRecording()) return this.span.end();
    const final = this.outcome ?? outcome;
    if (err !== undefined) this.span.setAttribute(TraceAttr.errorType, errorTypeOf(err));
    this.span.setAttributes({ [TraceAttr.outcome]: final, [TraceAttr.durationMs]: performance.now() - this.started });
    if (final !== "ok") this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

/** The error's type, never its message: `type` of a wire error (ReplyError, ToolServiceError), else its class. */
function errorTypeOf(err: unknown): string {
  if (err && typeof err === "object") {
    const typed = err as { type?: unknown; name?: unknown };
    if (typeof typed.type === "string") return typed.type;
    if (typeof typed.name === "string") return typed.name;
  }
  return typeof err;
}

export interface TraceOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (a scope's `context`, or one extracted from a message); the active context when absent. */
  parent?: Context | undefined;
}

// Whether the registered SDK's sampler gives an unsampled parent only unsampled children (parent-based
// sampling, or none sampled at all). base's Tracing sets it from OTEL_TRACES_SAMPLER.
let unsampledParentsStayUnsampled = false;

/**
 * Tells the span helpers that an unsampled parent's children are never sampled (true for the parent-based
 * samplers and `always_off`), so a span under such a parent can be skipped: it would record nothing. The
 * work then runs under the parent's context, and the `traceparent` sent on names the parent's span (the
 * trace id, what log correlation uses, is the same). With a sampler that may sample under an unsampled
 * parent (`always_on`, `traceidratio`), leave it off.
 */
export function setUnsampledParentsStayUnsampled(on: boolean): void {
  unsampledParentsStayUnsampled = on;
}

/**
 * The parent's span when it is an unsampled one that records nothing (its end() is a no-op) in a real
 * trace. Its ids need no second check: the propagator validated a remote one, the SDK made a local one;
 * only the all-zero invalid context (a no-op tracer's) is left out.
 */
function unsampledParent(parent: Context): Span | undefined {
  const span = trace.getSpan(parent);
  if (span === undefined || span.isRecording()) return undefined;
  const spanContext = span.spanContext();
  return (spanContext.traceFlags & TraceFlags.SAMPLED) === 0 && spanContext.traceId !== INVALID_TRACEID ? span : undefined;
}

/**
 * How new traces are sampled, when the SDK decides a root span from its trace id alone (a ratio, or never):
 * base's Tracing sets it, built on the SDK's own id generator and root sampler. A new trace's id is then
 * made and judged here first, and only a sampled one is handed to the SDK (`startWithTraceId`): an unsampled
 * root span is a bare span context, as the SDK would make for it anyway, without its sampler and span-start
 * work. With the usual `parentbased_traceidratio` at 0.1 that is nine calls in ten.
 */
export interface RootSampling {
  newTraceId(): string;
  newSpanId(): string;
  /** The SDK's root sampler's decision for this trace id. */
  sampled(traceId: string): boolean;
  /** Runs `start` (the SDK's startSpan for a root) so that the new trace gets `traceId`. */
  startWithTraceId<T>(traceId: string, start: () => T): T;
}

let rootSampling: RootSampling | undefined;

/** Sets (or, with undefined, clears) how new traces are sampled; see RootSampling. */
export function setRootSampling(sampling: RootSampling | undefined): void {
  rootSampling = sampling;
}

function open(name: string, options: TraceOptions): TraceScope {
  const parent = options.parent ?? context.active();
  // Most traces are not sampled: making their spans (ids, sampler, context) is most of tracing's cost.
  if (rootSampling && trace.getSpan(parent) === undefined) {
    const traceId = rootSampling.newTraceId();
    const span = rootSampling.sampled(traceId)
      ? rootSampling.startWithTraceId(traceId, () => tracer().startSpan(name, spanOptions(options), parent))
      : UnsampledSpan.root(traceId, rootSampling.newSpanId());
    return new TraceScope(span, trace.setSpan(parent, span));
  }
  if (unsampledParentsStayUnsampled) {
    const span = unsampledParent(parent);
    if (span) return new TraceScope(span, parent);
  }
  const span = tracer().startSpan(name, spanOptions(options), parent);
  return new TraceScope(span, trace.setSpan(parent, span));
}

function spanOptions(options: TraceOptions): SpanOptions {
  return { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) };
}

/**
 * Runs `work` in a new span and ends it with the outcome. `work` gets the scope: its `context` is the
 * parent for whatever `work` calls (it is also made active, for a caller's own context manager).
 */
export async function traced<T>(name: string, options: TraceOptions, work: (scope: TraceScope) => Promise<T>): Promise<T> {
  const scope = open(name, options);
  try {
    const result = await context.with(scope.context, () => work(scope));
    scope.end("ok");
    return result;
  } catch (err) {
    scope.end("error", err);
    throw err;
  }
}

/**
 * The stream `source` makes, each step run in a new span that lasts until the stream ends (an async
 * generator's body runs at each `next()`, so the span is made active there, not only at creation).
 * A consumer that stops early ends it `cancelled`.
 */
export async function* tracedStream<T>(
  name: string,
  options: TraceOptions,
  source: (scope: TraceScope) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const scope = open(name, options);
  const iterator = context.with(scope.context, () => source(scope)[Symbol.asyncIterator]());
  let ended = false;
  try {
    for (;;) {
      const next = await context.with(scope.context, () => iterator.next());
      if (next.done) break;
      yield next.value;
    }
    ended = true;
    scope.end("ok");
  } catch (err) {
    ended = true;
    scope.end("error", err);
    throw err;
  } finally {
    if (!ended) {
      scope.end("cancelled");
      await iterator.return?.();
    }
  }
}

// Whether the registered propagators are W3C trace context (and baggage) alone, so an unsampled trace's
// `traceparent` may be passed on as text (UnsampledSpan). base's Tracing sets it from OTEL_PROPAGATORS.
let plainTraceparent = false;

/**
 * Tells the helpers that the propagators are W3C trace context, with or without baggage, and nothing else:
 * an unsampled trace's `traceparent` is then read and written as text, not through the propagators (what
 * they would write is the same text). Leave it off with any other propagator (B3, Jaeger), which must see
 * every call.
 */
export function setPlainTraceparent(on: boolean): void {
  plainTraceparent = on;
}

/** Writes the active trace context (W3C `traceparent`, `tracestate`) into message properties or HTTP headers. */
export function injectTraceContext<C extends Record<string, string>>(carrier: C, from: Context = context.active()): C {
  if (plainTraceparent) {
    const span = trace.getSpan(from);
    if (span instanceof UnsampledSpan && propagation.getBaggage(from) === undefined) {
      (carrier as Record<string, string>).traceparent = span.traceparent;
      return carrier;
    }
  }
  propagation.inject(from, carrier);
  return carrier;
}

type Carrier = Record<string, string | string[] | undefined>;

/**
 * Reads trace-context keys whatever their case. HTTP headers arrive lower-cased, but message properties
 * keep the case their writer gave them, and writers differ: OpenTelemetry's JS B3 propagator writes
 * `x-b3-traceid`, others `X-B3-TraceId`. The exact key is tried first (the common case costs one lookup).
 */
const anyCaseGetter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const exact = carrier[key];
    if (exact !== undefined) return exact;
    for (const name in carrier) if (name.length === key.length && name.toLowerCase() === key) return carrier[name];
    return undefined;
  },
};

/** The trace context a message (or HTTP request) carries; the root context when it carries none. */
export function extractTraceContext(carrier: Carrier): Context {
  return (plainTraceparent ? UnsampledSpan.received(carrier) : undefined) ?? propagation.extract(ROOT_CONTEXT, carrier, anyCaseGetter);
}

/** The last part of a topic (`non-persistent://tg/request/joke` -> `joke`): short span names. */
export function topicName(topic: string): string {
  return topic.slice(topic.lastIndexOf("/") + 1);
}
