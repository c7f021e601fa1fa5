import type { StartedTestContainer } from "testcontainers";
import { brokerMode } from "./broker-mode.js";

// vitest globalSetup (see vitest.shared.ts): when the tests should run against a container, start it once
// for the whole run and hand its URLs to every test file through PULSAR_WEB_URL and PULSAR_SERVICE_URL. Otherwise nothing to do:
// useBroker() finds or starts the local standalone.
let container: StartedTestContainer | undefined;

export async function setup(): Promise<void> {
  if (brokerMode() !== "container") return;
  const { startPulsarContainer } = await import("./container-broker.js");
  const started = await startPulsarContainer();
  container = started.container;
  process.env.PULSAR_WEB_URL = started.webServiceUrl;
  process.env.PULSAR_SERVICE_URL = started.serviceUrl;
}

export async function teardown(): Promise<void> {
  await container?.stop();
}
