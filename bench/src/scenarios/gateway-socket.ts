import WebSocket from "ws";
import { benchAnswer, benchArgs, benchRequestWire } from "../workload.js";
import type { GatewaySystem } from "./gateway-system.js";
import { PendingReplies } from "./pending-replies.js";
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
  const pending = new PendingReplies<number>();
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as AnswerFrame;
    if (frame.complete) pending.settle(frame.id, frame);
  });
  return {
    async call(i) {
      const answer = pending.wait(i, `socket call ${i}`) as Promise<AnswerFrame>;
      socket.send(JSON.stringify({ id: i, service: system.serviceId, request: benchRequestWire(i) }));
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
