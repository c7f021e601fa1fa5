import { GenericContainer, type StartedTestContainer, Wait } from "testcontainers";
import { ensureTenant } from "./broker.js";

export const PULSAR_IMAGE = "apachepulsar/pulsar:4.0.7";

/**
 * The official Pulsar image in standalone mode with the WebSocket service on (the image's
 * apply-config-from-env.py writes `webSocketServiceEnabled` into standalone.conf), ready when the admin
 * API lists public/default, with tenant `tg` and its namespaces created.
 */
export async function startPulsarContainer(): Promise<{ webServiceUrl: string; serviceUrl: string; container: StartedTestContainer }> {
  const container = await new GenericContainer(PULSAR_IMAGE)
    .withEnvironment({ webSocketServiceEnabled: "true", PULSAR_MEM: "-Xms256m -Xmx1g -XX:MaxDirectMemorySize=1g" })
    .withCommand(["sh", "-c", "bin/apply-config-from-env.py conf/standalone.conf && exec bin/pulsar standalone -nfw -nss"])
    .withExposedPorts(8080, 6650)
    .withWaitStrategy(Wait.forHttp("/admin/v2/namespaces/public", 8080).forResponsePredicate((body) => body.includes("public/default")))
    .withStartupTimeout(180_000)
    .start();
  const webServiceUrl = `http://${container.getHost()}:${container.getMappedPort(8080)}`;
  const serviceUrl = `pulsar://${container.getHost()}:${container.getMappedPort(6650)}`;
  await ensureTenant(webServiceUrl, "tg");
  return { webServiceUrl, serviceUrl, container };
}
