import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestOutcome, SkipReason } from "@toolmesh/pulsar";

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

  brokerDropped(topic: string, subscription: string, count: number): void {
    this.brokerDrops.inc({ topic, subscription }, count);
  }
}
