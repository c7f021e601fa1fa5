import WebSocket from "ws";
import { benchAnswer, benchArgs, benchRequestWire } from "../workload.js";
import { BENCH_SERVICE_ID, type GatewaySystem } from "./gateway-system.js";
import type { CallTarget } from "./types.js";

interface AnswerFrame {
  id: number;
  response?: { response?: string };
  error?: unknown;
  complete: boolean;
}

/** One WebSocket to `/api/v1/socket` with every call in flight on it, answers matched by frame id. */
export async function gatewaySocket(system: GatewaySystem): Promise<CallTarget> {
  const socket = new WebSocket(`${system.url.replace(/^http/, "ws")}/api/v1/socket`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const pending = new Map<number, { resolve: (frame: AnswerFrame) => void; timer: NodeJS.Timeout }>();
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as AnswerFrame;
    const call = pending.get(frame.id);
    if (!call || !frame.complete) return;
    pending.delete(frame.id);
    clearTimeout(call.timer);
    call.resolve(frame);
  });
  return {
    async call(i) {
      const answer = new Promise<AnswerFrame>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(i);
          reject(new Error(`socket call ${i}: no answer within 10000 ms`));
        }, 10_000);
        pending.set(i, { resolve, timer });
      });
      socket.send(JSON.stringify({ id: i, service: BENCH_SERVICE_ID, request: benchRequestWire(i) }));
      const frame = await answer;
      if (frame.error || frame.response?.response !== benchAnswer(benchArgs(i))) {
        throw new Error(`socket call ${i}: ${JSON.stringify(frame).slice(0, 200)}`);
      }
    },
    async close() {
      socket.close();
    },
  };
}
