export interface BrokerAddress {
  host: string;
  port: number;
  tls: boolean;
  /** `pulsar://host:port` or `pulsar+ssl://host:port`, normalised. */
  url: string;
}

/** Parses `pulsar://host[:6650]` or `pulsar+ssl://host[:6651]`; throws on anything else. */
export function parseBrokerUrl(text: string): BrokerAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`'${text}' is not a Pulsar service URL (pulsar://host:port or pulsar+ssl://host:port)`);
  }
  const tls = url.protocol === "pulsar+ssl:";
  if (!tls && url.protocol !== "pulsar:") {
    throw new Error(`'${text}' is not a Pulsar service URL: the scheme must be pulsar:// or pulsar+ssl://`);
  }
  if (!url.hostname) throw new Error(`'${text}' names no host`);
  // A multi-host service URL (h1:6650,h2:6650) is not supported; the first host is what URL parsed.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port ? Number(url.port) : tls ? 6651 : 6650;
  return { host, port, tls, url: `${tls ? "pulsar+ssl" : "pulsar"}://${url.host.includes(":") ? url.host : `${url.host}:${port}`}` };
}

/** `host:port`, the form a Pulsar proxy expects in CONNECT's proxy_to_broker_url. */
export function hostPort(address: BrokerAddress): string {
  return `${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
}
