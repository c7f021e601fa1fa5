import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-node";
import { afterAll, describe, expect, it } from "vitest";
import { type TracingSettings, traced } from "../../src/index.js";
import { Tracing } from "../../src/tracing.js";

const settings: TracingSettings = {
  serviceName: "unit",
  exporter: "otlp",
  protocol: "http/protobuf",
  url: "http://unused",
  sampler: "parentbased_always_on",
};

afterAll(() => Tracing.unregister());

describe("Tracing.shutdown", () => {
  it("leaves tracing off in the process, so a later start() registers and records with its own SDK", async () => {
    const first = new InMemorySpanExporter();
    await Tracing.start(settings, first).shutdown();
    // Off: the global tracer hands out spans that record nothing.
    expect(trace.getTracer("unit").startSpan("after shutdown").isRecording()).toBe(false);

    const second = new InMemorySpanExporter();
    const again = Tracing.start(settings, second);
    await traced("after a new start", {}, async () => undefined);
    expect(second.getFinishedSpans().map((span) => span.name)).toEqual(["after a new start"]);
    await again.shutdown();
  });
});
