import { tmpdir } from "node:os";
import { join } from "node:path";
import { BrokerInstance, type BrokerInstanceOptions, TEST_BROKER } from "./broker.js";

/**
 * The fixed ports of the private brokers that tests start apart from the shared test broker (to restart
 * one, secure one, or put Pulsar's proxy in front of one), by test file.
 *
 * scripts/test.sh runs two packages' tests at once, so no two of these may share a port, nor take one of
 * the test broker's (18080, 16650, 13181) or the development broker's (8080, 6650, 3181):
 * test/unit/private-broker-ports.test.ts checks it. They stay fixed and below Linux's ephemeral range
 * (32768 and up) on purpose: a port the OS picked as free could be taken by some outgoing connection
 * during the seconds a JVM takes to bind it.
 */
export const PRIVATE_BROKER_PORTS = {
  "pulsar/reconnect": { web: 28380, broker: 26960, bookie: 23491 },
  "pulsar/binary-secured": { web: 28580, broker: 26950, tls: 26951, webTls: 28582, bookie: 23581, proxy: 26952, proxyWeb: 28581 },
  "pulsar/oauth2": { web: 28780, broker: 27150, bookie: 23781, proxy: 27152, proxyWeb: 28782 },
  "test-support/secured-broker": { web: 28480, broker: 26850, tls: 26851, bookie: 23481, proxy: 26852, proxyWeb: 28481 },
  "e2e/pulsar-wss": { web: 28980, broker: 27350, bookie: 23981, webTls: 28981 },
  "e2e/pulsar-oauth2": { web: 28880, broker: 27250, bookie: 23881 },
} as const satisfies Record<string, Record<string, number>>;

/** The ports the shared test broker and the development broker (infra/pulsar's defaults) listen on. */
export const RESERVED_BROKER_PORTS: readonly number[] = [
  TEST_BROKER.webPort,
  TEST_BROKER.brokerPort,
  TEST_BROKER.bookiePort,
  8080,
  6650,
  3181,
];

/** A test file that starts a private broker: a key of PRIVATE_BROKER_PORTS. */
export type PrivateBrokerTest = keyof typeof PRIVATE_BROKER_PORTS;

/**
 * The private broker of `test` (not started): on the ports PRIVATE_BROKER_PORTS gives it (TLS ones
 * included), in a temp folder of its own, with `options` (authentication) added.
 */
export function privateBroker(
  test: PrivateBrokerTest,
  options: Omit<BrokerInstanceOptions, "home" | "webPort" | "brokerPort" | "bookiePort" | "tlsPort" | "webTlsPort"> = {},
): BrokerInstance {
  const ports: { web: number; broker: number; bookie: number; tls?: number; webTls?: number } = PRIVATE_BROKER_PORTS[test];
  return new BrokerInstance({
    home: join(tmpdir(), `toolmesh-${test.replace("/", "-")}-${process.pid}`),
    webPort: ports.web,
    brokerPort: ports.broker,
    bookiePort: ports.bookie,
    ...(ports.tls === undefined ? {} : { tlsPort: ports.tls }),
    ...(ports.webTls === undefined ? {} : { webTlsPort: ports.webTls }),
    ...options,
  });
}
