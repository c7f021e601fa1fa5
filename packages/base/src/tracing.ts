import { DiagLogLevel, type TextMapPropagator, context, diag, propagation, trace } from "@opentelemetry/api";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { B3InjectEncoding, B3Propagator } from "@opentelemetry/propagator-b3";
import type { Logger } from "pino";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { setPlainTraceparent, setRootSampling, setUnsampledParentsStayUnsampled } from "@toolmesh/pulsar";
import { DEFAULT_TRACE_PROPAGATORS, type TracePropagator, type TracesSampler } from "./env.js";
import type { TracingSettings } from "./tracing-settings.js";
import { type SamplingSetup, samplingFor } from "./trace-sampling.js";

/** One propagator for the formats OTEL_PROPAGATORS names: each is written, and read in that order. */
export function propagatorFor(names: TracePropagator[]): TextMapPropagator {
  const formats: Record<Exclude<TracePropagator, "none">, () => TextMapPropagator> = {
    tracecontext: () => new W3CTraceContextPropagator(),
    baggage: () => new W3CBaggagePropagator(),
    b3: () => new B3Propagator({ injectEncoding: B3InjectEncoding.SINGLE_HEADER }),
    b3multi: () => new B3Propagator({ injectEncoding: B3InjectEncoding.MULTI_HEADER }),
  };
  return new CompositePropagator({ propagators: names.flatMap((name) => (name === "none" ? [] : [formats[name]()])) });
}

/** Whether `sampler` never samples a span whose parent is unsampled (then such spans need not be made). */
function unsampledParentsStayUnsampled(sampler: TracesSampler): boolean {
  return sampler.startsWith("parentbased_") || sampler === "always_off";
}

function exporterFor(settings: TracingSettings): SpanExporter {
  if (settings.exporter === "console") return new ConsoleSpanExporter();
  // Headers, timeout and compression come from OTEL_EXPORTER_OTLP_* as the exporters read them.
  return settings.protocol === "http/json" ? new OtlpJsonExporter({ url: settings.url }) : new OtlpProtobufExporter({ url: settings.url });
}

/** Whether the propagators are W3C trace context, with or without baggage, and no other (see setPlainTraceparent). */
function onlyW3C(propagators: TracePropagator[]): boolean {
  return propagators.includes("tracecontext") && propagators.every((name) => name === "tracecontext" || name === "baggage");
}

/**
 * The OpenTelemetry SDK for this process (`@toolmesh/base/tracing`: a service loads it only when tracing is
 * on, since the SDK and its exporters take a noticeable part of a process's start to load): a tracer
 * provider registered globally (with the propagators OTEL_PROPAGATORS names: W3C trace context and baggage
 * by default), so the spans of @toolmesh/pulsar's tracing helpers are recorded and exported.
 * No context manager: toolmesh passes span parents explicitly, and an AsyncLocalStorage one would hook
 * every promise of the process (the largest part of tracing's cost on Node 20). Batched export, sampling and limits follow OTEL_BSP_*,
 * OTEL_TRACES_SAMPLER(_ARG) and OTEL_RESOURCE_ATTRIBUTES as the SDK reads them. One per process.
 */
export class Tracing {
  private constructor(
    private readonly provider: NodeTracerProvider,
    private readonly sampler: TracesSampler,
    private readonly sampling: SamplingSetup,
    private readonly propagator: TextMapPropagator,
    private readonly plainTraceparent: boolean,
  ) {}

  /**
   * `exporter` replaces the settings' one (tests record spans in memory), exported one by one. `logger`
   * gets the SDK's own warnings and errors (e.g. a collector that cannot be reached).
   */
  static start(settings: TracingSettings, exporter?: SpanExporter, logger?: Logger): Tracing {
    if (logger) {
      const log =
        (level: "warn" | "error") =>
        (message: string, ...args: unknown[]) =>
          logger[level]({ args }, `opentelemetry: ${message}`);
      const quiet = () => undefined;
      diag.setLogger({ error: log("error"), warn: log("warn"), info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
    }
    const resource = resourceFromAttributes({ "service.name": settings.serviceName }).merge(detectResources({ detectors: [envDetector] }));
    const processor = exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporterFor(settings));
    const sampling = samplingFor(settings.sampler, settings.samplerArg);
    const provider = new NodeTracerProvider({
      resource,
      spanProcessors: [processor],
      ...(sampling.sampler ? { sampler: sampling.sampler } : {}),
      ...(sampling.idGenerator ? { idGenerator: sampling.idGenerator } : {}),
    });
    const propagators = settings.propagators ?? DEFAULT_TRACE_PROPAGATORS;
    const tracing = new Tracing(provider, settings.sampler, sampling, propagatorFor(propagators), onlyW3C(propagators));
    tracing.register();
    return tracing;
  }

  /** Makes this SDK the process's tracer provider and propagator (start() does). */
  register(): void {
    this.provider.register({ contextManager: null, propagator: this.propagator });
    setUnsampledParentsStayUnsampled(unsampledParentsStayUnsampled(this.sampler));
    setRootSampling(this.sampling.roots);
    setPlainTraceparent(this.plainTraceparent);
  }

  /** Turns tracing off again without stopping this SDK (register() turns it back on); the bench compares both. */
  static unregister(): void {
    trace.disable();
    propagation.disable();
    context.disable();
    setUnsampledParentsStayUnsampled(false);
    setRootSampling(undefined);
    setPlainTraceparent(false);
  }

  /** Exports what is still buffered. */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /**
   * Exports what is buffered and stops; the last step of a service's shutdown. Tracing is then off in
   * this process (the globals are cleared), so a later start() can register a new SDK.
   */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
    Tracing.unregister();
  }
}
