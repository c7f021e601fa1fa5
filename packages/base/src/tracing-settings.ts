import type { BaseEnv, TracePropagator, TracesSampler } from "./env.js";

/** Where spans go once tracing is on. */
export interface TracingSettings {
  serviceName: string;
  exporter: "otlp" | "console";
  /** OTLP over HTTP: `http/protobuf` (the OpenTelemetry default) or `http/json`. */
  protocol: "http/protobuf" | "http/json";
  /** The OTLP traces URL (`.../v1/traces`). */
  url: string;
  /** OTEL_TRACES_SAMPLER, which the SDK reads itself; here it tells whether unsampled spans can be skipped. */
  sampler: TracesSampler;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the `*traceidratio` samplers. */
  samplerArg?: number | undefined;
  /** OTEL_PROPAGATORS: the formats trace context is written in and read from (default W3C trace context and baggage). */
  propagators?: TracePropagator[];
}

const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";

/**
 * Whether this process traces, from the standard OTEL_* variables (parsed in BaseEnv). Off by default:
 * on when OTEL_TRACES_EXPORTER names an exporter (`otlp`, `console`), or when it is unset and an OTLP
 * endpoint is (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). OTEL_SDK_DISABLED=true
 * and OTEL_TRACES_EXPORTER=none keep it off. Returns undefined when off.
 */
export function tracingSettings(env: BaseEnv, serviceName: string): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED) return undefined;
  const endpointGiven = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  const exporter = env.OTEL_TRACES_EXPORTER ?? (endpointGiven ? "otlp" : "none");
  if (exporter === "none") return undefined;
  // The signal-specific URL is used as given; the general endpoint gets the traces path (OTLP spec).
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, "")}/v1/traces`;
  return {
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    exporter,
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    url,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerArg: env.OTEL_TRACES_SAMPLER_ARG,
    propagators: env.OTEL_PROPAGATORS,
  };
}
