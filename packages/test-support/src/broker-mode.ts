import { existsSync } from "node:fs";

export type BrokerMode = "given" | "container" | "local";

/**
 * How the tests get their broker — one fixture, three ways, the same tests:
 * - `given`: PULSAR_WEB_URL or PULSAR_SERVICE_URL names one; it is used as is.
 * - `container`: a Docker engine is reachable, so the official apachepulsar/pulsar image is started with
 *   testcontainers (what the GitHub workflow uses).
 * - `local`: otherwise, the standalone from infra/pulsar (Maven artifacts, no Docker).
 * TOOLMESH_TEST_BROKER=local|container forces a way.
 */
export function brokerMode(env: NodeJS.ProcessEnv = process.env): BrokerMode {
  if (env.PULSAR_WEB_URL || env.PULSAR_SERVICE_URL) return "given";
  const forced = env.TOOLMESH_TEST_BROKER;
  if (forced === "local" || forced === "container") return forced;
  if (forced && forced !== "auto") throw new Error(`TOOLMESH_TEST_BROKER='${forced}': use auto, local or container`);
  return env.DOCKER_HOST || existsSync("/var/run/docker.sock") ? "container" : "local";
}
