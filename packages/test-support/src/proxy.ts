import { resolve } from "node:path";
import { type BrokerInstance, REPO_ROOT, runScript } from "./broker.js";

const START_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/proxy-start.sh");
const STOP_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/proxy-stop.sh");

export interface ProxyInstanceOptions {
  /** The broker the proxy fronts (its URLs, and its token key when it has token authentication). */
  broker: BrokerInstance;
  /** Binary protocol port clients connect to. */
  port: number;
  /** HTTP port (admin API forwarded to the broker, /metrics). */
  webPort: number;
  /** Proxy folder (conf, logs, pid); default `<broker home>/proxy`. */
  home?: string;
}

/**
 * Apache Pulsar's proxy (org.apache.pulsar:pulsar-proxy from Maven, infra/pulsar/proxy-start.sh) in front
 * of a private broker: clients look topics up through it and are told to stay on it
 * (`proxyThroughServiceUrl`), as in Kubernetes deployments.
 */
export class ProxyInstance {
  /** `pulsar://127.0.0.1:<port>`: what a client is given instead of the broker's URL. */
  readonly serviceUrl: string;
  readonly webServiceUrl: string;
  constructor(private readonly options: ProxyInstanceOptions) {
    this.serviceUrl = `pulsar://127.0.0.1:${options.port}`;
    this.webServiceUrl = `http://127.0.0.1:${options.webPort}`;
  }

  private get env(): NodeJS.ProcessEnv {
    return {
      ...this.options.broker.env,
      PULSAR_PROXY_HOME: this.options.home ?? resolve(this.options.broker.options.home, "proxy"),
      PULSAR_PROXY_PORT: String(this.options.port),
      PULSAR_PROXY_WEB_PORT: String(this.options.webPort),
    };
  }

  async start(): Promise<void> {
    await runScript(START_SCRIPT, this.env);
  }

  /** `kill`: SIGKILL at once, for a proxy the test is done with (nothing of it is kept). */
  async stop({ kill = false }: { kill?: boolean } = {}): Promise<void> {
    await runScript(STOP_SCRIPT, kill ? { ...this.env, PULSAR_STOP_TIMEOUT: "0" } : this.env);
  }
}
