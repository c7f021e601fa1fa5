import { Pool } from "undici";
import { benchAnswer, benchArgs, benchRequestWire } from "../workload.js";
import type { GatewaySystem } from "./gateway-system.js";
import type { CallTarget } from "./types.js";

/** `POST /api/v1/flow/default/service/<bench tool>` over keep-alive connections (undici Pool). */
export function gatewayRest(system: GatewaySystem): CallTarget {
  const pool = new Pool(system.url, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  const path = `/api/v1/flow/default/service/${system.serviceId}`;
  return {
    async call(i) {
      const response = await pool.request({
        method: "POST",
        path,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(benchRequestWire(i)),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const body = (await response.body.json()) as Array<{ response?: string }>;
      if (response.statusCode !== 200 || body[0]?.response !== benchAnswer(benchArgs(i))) {
        throw new Error(`REST call ${i}: HTTP ${response.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
      }
    },
    close: () => pool.close(),
  };
}
