import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ServiceProcess, useBroker } from "@toolmesh/test-support";

/**
 * Whole-system burst (issue 12, item 5): BURST_PROCESSES processes each start BURST_REQUESTS calls at once
 * to one joke-service process. Every call must end answered, answered `overloaded`, or timed out, and the
 * service's /metrics must account for what it received.
 */
interface Report {
  label: string;
  sent: number;
  counts: Record<string, number>;
  seconds: number;
}

const here = dirname(fileURLToPath(import.meta.url));

function startClient(webServiceUrl: string, topic: string, label: string): Promise<{ child: ChildProcess; report: Promise<Report> }> {
  const child = fork(join(here, "client.js"), [webServiceUrl, topic, label], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`load process ${label} exited with ${code} before it was ready`)));
    child.once("message", () => {
      child.removeAllListeners("exit");
      const report = new Promise<Report>((r, j) => {
        child.once("message", (m) => r(m as Report));
        child.once("exit", (code) => j(new Error(`load process ${label} exited with ${code} without a report`)));
      });
      resolve({ child, report });
    });
  });
}

/** `name{labels} value` lines of a Prometheus text page whose name and labels match. */
function metricLines(page: string, name: string): Array<{ labels: string; value: number }> {
  return page
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => ({ labels: line.slice(name.length + 1, line.lastIndexOf("}")), value: Number(line.slice(line.lastIndexOf(" ") + 1)) }));
}

export async function runBurst(): Promise<number> {
  const processes = Number(process.env.BURST_PROCESSES ?? 4);
  const requests = Number(process.env.BURST_REQUESTS ?? 1_000);
  const { webServiceUrl } = await useBroker();
  const topic = `joke-burst-${randomUUID().slice(0, 8)}`;
  const joke = await ServiceProcess.start({
    service: "joke-service",
    env: {
      PULSAR_WEB_URL: webServiceUrl,
      JOKE_TOPIC: topic,
      JOKE_ANNOUNCE: "false",
      LOG_LEVEL: "warn",
      ...pick("REQUEST_BACKLOG", "BROKER_DROP_POLL_MS"),
    },
  });
  const clients = await Promise.all(Array.from({ length: processes }, (_, i) => startClient(webServiceUrl, topic, `p${i + 1}`)));
  let readyDropped = false;
  const readiness = setInterval(() => {
    fetch(`${joke.url}/readyz`).then(
      (r) => (readyDropped ||= !r.ok),
      () => (readyDropped = true),
    );
  }, 250);
  console.log(`burst: ${processes} processes x ${requests} requests at once to one joke-service (topic ${topic})`);
  for (const { child } of clients) child.send("go");
  const reports = await Promise.all(clients.map((c) => c.report));
  clearInterval(readiness);
  // The service polls the broker's topic stats for drops; give it one more poll before reading /metrics.
  await new Promise((r) => setTimeout(r, Number(process.env.BURST_SETTLE_MS ?? 3_000)));
  const page = await (await fetch(`${joke.url}/metrics`)).text();
  await joke.stop();

  const kinds = [...new Set(reports.flatMap((r) => Object.keys(r.counts)))].sort();
  console.log(["process", "sent", ...kinds, "seconds"].join("\t"));
  const total: Record<string, number> = {};
  for (const r of reports) {
    for (const k of kinds) total[k] = (total[k] ?? 0) + (r.counts[k] ?? 0);
    console.log([r.label, r.sent, ...kinds.map((k) => r.counts[k] ?? 0), r.seconds.toFixed(1)].join("\t"));
  }
  const sent = processes * requests;
  const ended = Object.values(total).reduce((a, b) => a + b, 0);
  console.log(["total", sent, ...kinds.map((k) => total[k])].join("\t"));

  console.log("joke-service /metrics:");
  for (const name of ["toolmesh_requests_total", "toolmesh_requests_skipped_total", "toolmesh_broker_dropped_messages_total"]) {
    for (const { labels, value } of metricLines(page, name)) console.log(`  ${name}{${labels}} ${value}`);
  }
  const outcome = (o: string) =>
    metricLines(page, "toolmesh_requests_total")
      .filter((l) => l.labels.includes(`outcome="${o}"`))
      .reduce((a, l) => a + l.value, 0);
  const served = outcome("ok");
  const overloaded = outcome("overloaded");
  const expired = outcome("expired");
  console.log(
    `sent ${sent} = answered ${total.answered ?? 0} + overloaded ${total.overloaded ?? 0} + timed out ${total["timed-out"] ?? 0}` +
      ` + other ${sent - (total.answered ?? 0) - (total.overloaded ?? 0) - (total["timed-out"] ?? 0)}`,
  );
  console.log(
    `service counted: ok ${served}, overloaded ${overloaded}, expired ${expired}; received ${served + overloaded + expired} of ${sent}`,
  );
  console.log(`readiness dropped during the burst: ${readyDropped ? "yes" : "no"}`);
  const accounted = ended === sent && (total.answered ?? 0) + (total.overloaded ?? 0) + (total["timed-out"] ?? 0) === sent;
  return accounted && !readyDropped ? 0 : 1;
}

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]!]] : [])));
}
