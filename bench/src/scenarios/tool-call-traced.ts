import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { BaseEnv, parseEnv, tracingSettings } from "@toolmesh/base";
import { Tracing } from "@toolmesh/base/tracing";
import type { TransportKind } from "../transports.js";
import type { CallTarget } from "./types.js";

const SINK = resolve(dirname(fileURLToPath(import.meta.url)), "../otlp-sink.js");

/** Starts the OTLP sink process; resolves with it and its URL. */
async function startSink(): Promise<{ child: ChildProcess; url: string; lines: AsyncIterableIterator<string> }> {
  const child = spawn(process.execPath, [SINK], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  const url = /^listening (\S+)$/.exec(String(first.value ?? ""))?.[1];
  if (!url) throw new Error(`the OTLP sink did not start: ${String(first.value)}`);
  return { child, url, lines };
}

/**
 * The tool-call row with tracing on: `base` (the `tool-call` row's own client and tool) with the
 * OpenTelemetry SDK as a service runs it when OTEL_EXPORTER_OTLP_ENDPOINT is set (batched OTLP export to a
 * sink process; the bench's own OTEL_* variables apply, e.g. OTEL_TRACES_SAMPLER or
 * OTEL_EXPORTER_OTLP_PROTOCOL). Tracing is process-wide, so it is registered only while this row's levels
 * run (enter/leave): every other row keeps running with tracing off, interleaved with this one.
 */
export async function startToolCallTraced(base: CallTarget, kind: TransportKind): Promise<CallTarget> {
  const sink = await startSink();
  // The settings a service would take from this environment (OTEL_EXPORTER_OTLP_PROTOCOL, ...), sent to the sink.
  const env = parseEnv(BaseEnv, {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    OTEL_TRACES_EXPORTER: "otlp",
    HTTP_PORT: "0",
  });
  const tracing = Tracing.start(tracingSettings(env, "bench")!);
  Tracing.unregister();
  return {
    call: (i) => base.call(i),
    // BENCH_TRACING_AA=1 leaves tracing off in this row too: an A/A run, whose ratios show the noise.
    enter: () => (process.env.BENCH_TRACING_AA === "1" ? undefined : tracing.register()),
    leave: () => Tracing.unregister(),
    async close() {
      await base.close();
      await tracing.shutdown();
      sink.child.kill("SIGTERM");
      const last = String((await sink.lines.next()).value ?? "");
      // Two spans per call (client and server): fewer received would mean the SDK dropped some.
      process.stderr.write(`bench: tool-call-traced on ${kind}: the OTLP sink ${last.replace(/^received/, "received")} spans\n`);
    },
  };
}
