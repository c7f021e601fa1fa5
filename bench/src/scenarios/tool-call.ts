import { ToolServiceClient } from "@toolmesh/base";
import { BenchTool, benchRuntime } from "../bench-tool.js";
import { type TransportKind, assertTransport, pulsarClient } from "../transports.js";
import { BENCH_USER, benchAnswer, benchArgs } from "../workload.js";
import type { BenchContext, CallTarget } from "./types.js";
import { requestTopic, responseTopic } from "@toolmesh/test-support";

/**
 * ToolServiceClient -> DynamicToolService, both in this process but each with its own PulsarClient (so
 * its own connections), mirroring the baseline's two sides, on the transport `kind`. The tool keeps its
 * defaults (concurrency 8, metrics, logging) as a service would run it.
 */
export async function startToolCall(ctx: BenchContext, kind: TransportKind = "websocket"): Promise<CallTarget> {
  const runtime = benchRuntime(ctx, kind);
  const tool = new BenchTool();
  await tool.start(runtime, { announce: false });
  const pulsar = pulsarClient(ctx, kind);
  const client = await ToolServiceClient.create(pulsar, {
    requestTopic: requestTopic(tool.topic),
    responseTopic: responseTopic(tool.topic),
    timeoutMs: 10_000,
    subscriber: "bench-client",
  });
  const target: CallTarget = {
    async call(i) {
      const args = benchArgs(i);
      const text = await client.call(BENCH_USER, {}, { ...args });
      if (text !== benchAnswer(args)) throw new Error(`tool call ${i}: unexpected reply ${text.slice(0, 200)}`);
    },
    async close() {
      await client.close();
      await pulsar.close();
      await runtime.stop();
    },
  };
  try {
    await target.call(-1); // the first call opens the client's producer
    for (const topic of [requestTopic(tool.topic), responseTopic(tool.topic)])
      await assertTransport(ctx, topic, kind, `tool-call on ${kind}`);
  } catch (err) {
    await target.close();
    throw err;
  }
  return target;
}
