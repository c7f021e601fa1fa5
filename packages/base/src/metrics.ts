import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestOutcome } from "@toolmesh/pulsar";

/**
 * Prometheus metrics for one service: process defaults plus requests served over Pulsar — counts by
 * outcome, durations, in-flight.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"topic" | "outcome">;
  private readonly duration: Histogram<"topic">;
  private readonly inFlight: Gauge<"topic">;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: "toolmesh_requests_total",
      help: "Requests served, by request topic and outcome (ok, error, bad-request)",
      labelNames: ["topic", "outcome"],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: "toolmesh_request_duration_seconds",
      help: "Time from receiving a request to sending its last reply",
      labelNames: ["topic"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.inFlight = new Gauge({
      name: "toolmesh_requests_in_flight",
      help: "Requests being handled now",
      labelNames: ["topic"],
      registers: [this.registry],
    });
  }

  started(topic: string): void {
    this.inFlight.inc({ topic });
  }

  finished(topic: string, outcome: RequestOutcome, durationMs: number): void {
    this.inFlight.dec({ topic });
    this.requests.inc({ topic, outcome });
    this.duration.observe({ topic }, durationMs / 1000);
  }
}
