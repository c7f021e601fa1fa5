import { ROOT_CONTEXT } from "@opentelemetry/api";
import {
  type IdGenerator,
  ParentBasedSampler,
  RandomIdGenerator,
  type Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-node";
import type { RootSampling } from "@toolmesh/pulsar";
import type { TracesSampler } from "./env.js";

/** What the tracer provider is built with, and how @toolmesh/pulsar's helpers may sample new traces first. */
export interface SamplingSetup {
  /** Given to the provider; when absent the SDK builds its sampler from OTEL_TRACES_SAMPLER itself. */
  sampler?: Sampler;
  idGenerator?: IdGenerator;
  roots?: RootSampling;
}

/**
 * The SDK's trace ids, except that a root span started through `withTraceId` gets the one it was given
 * (the one the root decision was made on).
 */
class StagedTraceIds implements IdGenerator {
  private staged: string | undefined;
  constructor(private readonly ids: IdGenerator) {}

  generateTraceId(): string {
    return this.staged ?? this.ids.generateTraceId();
  }

  generateSpanId(): string {
    return this.ids.generateSpanId();
  }

  withTraceId<T>(traceId: string, start: () => T): T {
    this.staged = traceId;
    try {
      return start();
    } finally {
      this.staged = undefined;
    }
  }
}

/**
 * For the samplers whose root decision depends on the trace id alone, the decision is made before the SDK
 * is asked for a span (RootSampling in @toolmesh/pulsar), with the SDK's own ratio sampler, the instance the
 * provider then uses for the roots it is handed, so both always agree:
 * - `parentbased_traceidratio` (OTEL_TRACES_SAMPLER_ARG, 1 when unset, as the SDK reads it): the provider
 *   gets the same parent-based sampler the SDK would build, around that instance;
 * - `always_off`, `parentbased_always_off`: no new trace is ever sampled, the SDK's sampler is kept.
 * Any other sampler is left to the SDK as OTEL_TRACES_SAMPLER says.
 */
export function samplingFor(sampler: TracesSampler, ratio: number | undefined): SamplingSetup {
  if (sampler !== "parentbased_traceidratio" && sampler !== "always_off" && sampler !== "parentbased_always_off") return {};
  const ids = new StagedTraceIds(new RandomIdGenerator());
  const root = sampler === "parentbased_traceidratio" ? new TraceIdRatioBasedSampler(ratio ?? 1) : undefined;
  const roots: RootSampling = {
    newTraceId: () => ids.generateTraceId(),
    newSpanId: () => ids.generateSpanId(),
    sampled: root ? (traceId) => root.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED : () => false,
    startWithTraceId: (traceId, start) => ids.withTraceId(traceId, start),
  };
  // always_off keeps the SDK's own sampler (from OTEL_TRACES_SAMPLER); it never sees a root anyway.
  return { ...(root ? { sampler: new ParentBasedSampler({ root }) } : {}), idGenerator: ids, roots };
}
