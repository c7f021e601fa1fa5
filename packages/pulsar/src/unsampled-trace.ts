import { type Context, INVALID_SPANID, INVALID_TRACEID, ROOT_CONTEXT, type Span, type SpanContext, trace } from "@opentelemetry/api";

/**
 * The span of a call whose trace is not sampled, kept as the W3C `traceparent` it travels as.
 *
 * With head sampling at 10%, nine calls in ten are in such a trace: they record nothing, yet still send
 * `traceparent` on (flags `00`) so that the services they call do not sample them either. Made through the
 * OpenTelemetry API, that costs a span context object, a propagator writing the header from it and, on the
 * receiving side, a propagator parsing it back into one. This span keeps the header's text instead: a new
 * trace's root writes it once, a received one is kept as it came, and a call made under it sends it on
 * unchanged (tracing.ts's fast paths). `spanContext()` still gives its ids to whoever asks.
 */
export class UnsampledSpan implements Span {
  private constructor(
    readonly traceparent: string,
    private readonly remote: boolean,
  ) {}

  /** A new trace's root, not sampled. */
  static root(traceId: string, spanId: string): UnsampledSpan {
    return new UnsampledSpan(`00-${traceId}-${spanId}-00`, false);
  }

  /**
   * The context a message's `traceparent` continues, when it is a plain unsampled one (version 00, flags
   * 00, or 02: W3C level 2's "random trace id", which OpenTelemetry's Python SDK sets; valid ids) and the
   * carrier holds no `tracestate` or `baggage` to carry with it; else undefined, and the propagators read
   * the carrier as usual.
   */
  static received(carrier: Record<string, string | string[] | undefined>): Context | undefined {
    const traceparent = carrier.traceparent;
    if (typeof traceparent !== "string" || !UNSAMPLED_TRACEPARENT.test(traceparent) || carriesMore(carrier)) return undefined;
    if (traceparent.startsWith(INVALID_TRACEID, 3) || traceparent.startsWith(INVALID_SPANID, 36)) return undefined;
    return trace.setSpan(ROOT_CONTEXT, new UnsampledSpan(traceparent, true));
  }

  spanContext(): SpanContext {
    return {
      traceId: this.traceparent.slice(3, 35),
      spanId: this.traceparent.slice(36, 52),
      traceFlags: Number.parseInt(this.traceparent.slice(53), 16),
      isRemote: this.remote,
    };
  }

  isRecording(): boolean {
    return false;
  }

  // Nothing is recorded: every other method of a span is a no-op, as on the API's NonRecordingSpan.
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {}
  recordException(): void {}
}

// W3C Trace Context, version 00: lower-case hex ids, and flags 00 or 02 (not sampled; the random bit kept
// as the propagators keep it).
const UNSAMPLED_TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[02]$/;

/** Whether the carrier has `tracestate` or `baggage`, in any case (message properties keep their writer's). */
function carriesMore(carrier: Record<string, unknown>): boolean {
  for (const name in carrier) {
    if (name.length !== 10 && name.length !== 7) continue;
    const lower = name.toLowerCase();
    if (lower === "tracestate" || lower === "baggage") return true;
  }
  return false;
}
