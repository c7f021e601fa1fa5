import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestOutcome, SkipReason } from "@toolmesh/pulsar";

/** How a store call ended: `unavailable` when the database could not be reached (reportUnreachableDatabase). */
export type StoreOutcome = "ok" | "unavailable" | "error";

/**
 * Prometheus metrics for one service: process defaults plus requests served over Pulsar — counts by
 * outcome (those answered `overloaded` and those skipped past their deadline included, so the outcomes
 * add up to every request received), durations, in-flight, backlog — and the messages the broker
 * reports it dropped on this service's subscriptions.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"topic" | "outcome">;
  private readonly duration: Histogram<"topic">;
  private readonly inFlight: Gauge<"topic">;
  private readonly brokerDrops: Counter<"topic" | "subscription">;
  private readonly storeOperations: Counter<"operation" | "outcome">;
  private readonly storeDuration: Histogram<"operation">;
  private readonly backlogs = new Map<string, () => number>();

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: "toolmesh_requests_total",
      help: "Requests received, by request topic and outcome: ok, error, bad-request, too-large (the reply was over the size limit), overloaded (answered so at once: the backlog was full), expired (skipped, unanswered: past its deadline)",
      labelNames: ["topic", "outcome"],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: "toolmesh_request_duration_seconds",
      help: "Time from starting to handle a request to sending its last reply",
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
    const backlogs = this.backlogs;
    new Gauge({
      name: "toolmesh_request_backlog",
      help: "Requests in hand (being handled or waiting for a slot); past REQUEST_BACKLOG new ones are answered overloaded",
      labelNames: ["topic"],
      registers: [this.registry],
      collect() {
        for (const [topic, backlog] of backlogs) this.set({ topic }, backlog());
      },
    });
    this.brokerDrops = new Counter({
      name: "toolmesh_broker_dropped_messages_total",
      help: "Messages the broker published on a non-persistent topic but never delivered to this subscription (no permits or no consumer), from its topic stats (msgInCounter - msgOutCounter), counted since the first poll that saw the subscription. Replicas sharing a subscription each report it",
      labelNames: ["topic", "subscription"],
      registers: [this.registry],
    });
    this.storeOperations = new Counter({
      name: "toolmesh_store_operations_total",
      help: "Calls of the service's store (config, tool-registry and agent: SQLite or PostgreSQL), by store method and outcome: ok, unavailable (the database could not be reached), error",
      labelNames: ["operation", "outcome"],
      registers: [this.registry],
    });
    this.storeDuration = new Histogram({
      name: "toolmesh_store_operation_seconds",
      help: "Time a store method took, by method (a write includes waiting for the lock that orders writes across replicas)",
      labelNames: ["operation"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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

  skipped(topic: string, reason: SkipReason): void {
    this.requests.inc({ topic, outcome: reason });
  }

  /** Reports a served topic's backlog at each scrape. */
  watchBacklog(topic: string, backlog: () => number): void {
    this.backlogs.set(topic, backlog);
  }

  storeOperation(operation: string, outcome: StoreOutcome, seconds: number): void {
    this.storeOperations.inc({ operation, outcome });
    this.storeDuration.observe({ operation }, seconds);
  }

  brokerDropped(topic: string, subscription: string, count: number): void {
    this.brokerDrops.inc({ topic, subscription }, count);
  }
}
