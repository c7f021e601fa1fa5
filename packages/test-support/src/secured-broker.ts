import { createHmac, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BrokerInstance } from "./broker.js";
import { ProxyInstance } from "./proxy.js";

export interface SecuredBrokerPorts {
  web: number;
  broker: number;
  tls: number;
  /** TLS on the web service too (https://, wss://), when given. */
  webTls?: number;
  bookie: number;
  proxy: number;
  proxyWeb: number;
}

/** A private broker with token authentication and TLS, and Pulsar's proxy in front of it. */
export interface SecuredBroker {
  broker: BrokerInstance;
  proxy: ProxyInstance;
  /** A token for subject `client`, made with Pulsar's token tool from the broker's secret key. */
  token: string;
  /** Connections the proxy is relaying to the broker now (its /proxy-stats/connections). */
  proxiedConnections(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the broker (PULSAR_TOKEN_AUTH=1, PULSAR_BROKER_TLS_PORT, PULSAR_WEB_TLS_PORT when given) and the proxy in a fresh temp folder.
 * One JVM serves token, TLS and proxy tests, which keeps a 2-core machine responsive.
 */
export async function startSecuredBroker(name: string, ports: SecuredBrokerPorts): Promise<SecuredBroker> {
  const home = join(tmpdir(), `toolmesh-${name}-${process.pid}`);
  const broker = new BrokerInstance({
    home,
    webPort: ports.web,
    brokerPort: ports.broker,
    bookiePort: ports.bookie,
    tlsPort: ports.tls,
    ...(ports.webTls ? { webTlsPort: ports.webTls } : {}),
    tokenAuth: true,
  });
  const proxy = new ProxyInstance({ broker, port: ports.proxy, webPort: ports.proxyWeb });
  const stop = async () => {
    await proxy.stop({ kill: true }).catch(() => {});
    await broker.discard();
  };
  try {
    await broker.start();
    await proxy.start();
    const token = await broker.createToken("client");
    const proxiedConnections = async () => {
      const response = await fetch(`${proxy.webServiceUrl}/proxy-stats/connections`, {
        headers: { authorization: `Bearer ${broker.adminToken()}` },
      });
      if (!response.ok) throw new Error(`proxy-stats: HTTP ${response.status}`);
      const connections = (await response.json()) as Array<{ brokerAddress?: string }>;
      return connections.filter((c) => c.brokerAddress?.endsWith(`:${ports.broker}`)).length;
    };
    return { broker, proxy, token, proxiedConnections, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A well-formed HS256 token signed with a key the broker does not know: it must be refused. */
export function foreignToken(subject = "mallory"): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "HS256" })}.${part({ sub: subject })}`;
  return `${unsigned}.${createHmac("sha256", randomBytes(32)).update(unsigned).digest("base64url")}`;
}
