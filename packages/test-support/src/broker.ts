import { spawn } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";

/** The repo root, from src/ or dist/ alike. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const START_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/start.sh");
const STOP_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/stop.sh");
const TOKEN_SCRIPT = resolve(REPO_ROOT, "infra/pulsar/token.sh");

export interface Broker {
  /** e.g. http://127.0.0.1:8080: admin REST and the WebSocket API (`ws://.../ws/v2`). */
  webServiceUrl: string;
  /** e.g. pulsar://127.0.0.1:6650: the binary protocol. */
  serviceUrl: string;
}

export type TransportKind = "binary" | "websocket";

/**
 * The transport tests use unless a test picks one: binary (the product's default), or PULSAR_TRANSPORT
 * (e.g. `PULSAR_TRANSPORT=websocket npm test` runs everything over the WebSocket API).
 */
export function testTransport(): TransportKind {
  return process.env.PULSAR_TRANSPORT === "websocket" ? "websocket" : "binary";
}

/** PulsarClient options for a test's own clients: both URLs and the transport to use. */
export function clientOptions(broker: Broker, kind: TransportKind = testTransport()) {
  return { serviceUrl: broker.serviceUrl, webServiceUrl: broker.webServiceUrl, kind };
}

/** The environment a service process (or a ServiceRuntime built in a test) needs to reach this broker. */
export function brokerEnv(broker: Broker, kind: TransportKind = testTransport()): Record<string, string> {
  // The test file's own tenant (tenant-setup.ts) travels with the broker: services built in-process get it too.
  const tenant: Record<string, string> = process.env.TOOLMESH_TENANT ? { TOOLMESH_TENANT: process.env.TOOLMESH_TENANT } : {};
  return { PULSAR_SERVICE_URL: broker.serviceUrl, PULSAR_WEB_URL: broker.webServiceUrl, PULSAR_TRANSPORT: kind, ...tenant };
}

const NAMESPACES = ["request", "response", "notify", "flow"];

/** Creates tenant and namespaces unless they exist (the local start script makes `tg`; tests make their own). */
export async function ensureTenant(webServiceUrl: string, tenant: string): Promise<void> {
  const put = async (path: string, body?: unknown) => {
    const response = await fetch(`${webServiceUrl}/admin/v2/${path}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok && response.status !== 409) throw new Error(`PUT ${path}: HTTP ${response.status} ${await response.text()}`);
  };
  await put(`tenants/${tenant}`, { allowedClusters: ["standalone"], adminRoles: [] });
  for (const ns of NAMESPACES) await put(`namespaces/${tenant}/${ns}`);
}

/** True when the broker answers and tenant `tg` has its namespaces. */
export async function brokerReady(webServiceUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${webServiceUrl}/admin/v2/namespaces/tg`, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return false;
    const namespaces = (await response.json()) as string[];
    return namespaces.includes("tg/request") && namespaces.includes("tg/response");
  } catch {
    return false;
  }
}

/** Runs one of infra/pulsar's scripts; resolves with its stdout, rejects with its output on failure. */
export function runScript(script: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    if (!existsSync(script)) return reject(new Error(`missing ${script}`));
    const child = spawn("bash", [script, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (d: Buffer) => ((stdout += d.toString()), (output += d.toString())));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolvePromise(stdout) : reject(new Error(`${script} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/**
 * The test broker: its own instance (`.pulsar/test`, web port 18080), apart from the development broker
 * on 8080, so a running dev system (with its own config service on the fixed `config` topic) never
 * answers a test's requests.
 */
export const TEST_BROKER = {
  home: resolve(REPO_ROOT, ".pulsar/test"),
  webPort: 18080,
  brokerPort: 16650,
  bookiePort: 13181,
} as const;

/** Port pairs of the brokers this repo starts (the test broker, the development one): web <-> binary. */
const KNOWN_PORTS: Array<[web: number, binary: number]> = [
  [18080, 16650],
  [8080, 6650],
];

/**
 * The other URL of a broker when only one is given: the same host, the port from KNOWN_PORTS (so
 * PULSAR_WEB_URL=http://127.0.0.1:18080 means the test broker's 16650), else Pulsar's default port.
 */
export function pairedUrls(given: { webServiceUrl?: string; serviceUrl?: string }): Broker {
  const web = given.webServiceUrl ? new URL(given.webServiceUrl) : undefined;
  const binary = given.serviceUrl ? new URL(given.serviceUrl) : undefined;
  const host = (web ?? binary)!.hostname;
  const webPort = web ? Number(web.port || 80) : (KNOWN_PORTS.find(([, b]) => b === Number(binary!.port || 6650))?.[0] ?? 8080);
  const binaryPort = binary ? Number(binary.port || 6650) : (KNOWN_PORTS.find(([w]) => w === webPort)?.[1] ?? 6650);
  return {
    webServiceUrl: given.webServiceUrl ?? `http://${host}:${webPort}`,
    serviceUrl: given.serviceUrl ?? `pulsar://${host}:${binaryPort}`,
  };
}

/**
 * The broker the tests use. PULSAR_WEB_URL and/or PULSAR_SERVICE_URL given: that broker, used as is (it
 * must be up; a missing one of the two is paired by pairedUrls). Otherwise the test broker,
 * started from infra/pulsar when it is not running; the README's test command starts it beforehand and
 * stops it afterwards, so this only starts one when a package's tests run alone. The tenant named by
 * TOOLMESH_TENANT (each test file gets its own, see tenant-setup.ts) is created here.
 */
export async function useBroker(): Promise<Broker> {
  let webServiceUrl: string;
  let serviceUrl: string;
  if (process.env.PULSAR_WEB_URL || process.env.PULSAR_SERVICE_URL) {
    ({ webServiceUrl, serviceUrl } = pairedUrls({
      webServiceUrl: process.env.PULSAR_WEB_URL || undefined,
      serviceUrl: process.env.PULSAR_SERVICE_URL || undefined,
    }));
    if (!(await brokerReady(webServiceUrl)))
      throw new Error(`${webServiceUrl} (PULSAR_WEB_URL) is not a ready Pulsar broker (tenant tg missing or unreachable)`);
  } else {
    const instance = new BrokerInstance(TEST_BROKER);
    if (!(await brokerReady(instance.webServiceUrl))) await instance.start();
    if (!(await brokerReady(instance.webServiceUrl))) throw new Error(`started the test broker but ${instance.webServiceUrl} is not ready`);
    webServiceUrl = instance.webServiceUrl;
    serviceUrl = instance.serviceUrl;
  }
  const tenant = process.env.TOOLMESH_TENANT;
  if (tenant && tenant !== "tg") await ensureTenant(webServiceUrl, tenant);
  return { webServiceUrl, serviceUrl };
}

/**
 * The broker's binary-protocol URL (pulsar://…): PULSAR_SERVICE_URL when set, else the `brokerServiceUrl`
 * its cluster advertises through the admin API (on the test broker, pulsar://127.0.0.1:16650).
 */
export async function brokerServiceUrl(webServiceUrl: string): Promise<string> {
  if (process.env.PULSAR_SERVICE_URL) return process.env.PULSAR_SERVICE_URL;
  const clusters = (await (await fetch(`${webServiceUrl}/admin/v2/clusters`)).json()) as string[];
  const cluster = (await (await fetch(`${webServiceUrl}/admin/v2/clusters/${clusters[0]}`)).json()) as { brokerServiceUrl?: string };
  if (!cluster.brokerServiceUrl) throw new Error(`cluster ${clusters[0]} advertises no brokerServiceUrl`);
  return cluster.brokerServiceUrl;
}

export interface BrokerInstanceOptions {
  /** Instance folder (data, logs, pid); separate from the shared broker's. */
  home: string;
  webPort: number;
  brokerPort: number;
  bookiePort: number;
  /** TLS on the binary protocol on this port; start.sh makes a self-signed CA and certificate in `home/tls`. */
  tlsPort?: number;
  /** TLS on the web service (admin and WebSocket APIs, https:// and wss://) on this port, with the same certificate. */
  webTlsPort?: number;
  /** Token authentication; start.sh makes the signing key and an admin token with Pulsar's token tool in `home/auth`. */
  tokenAuth?: boolean;
  /**
   * How tokens are signed (PULSAR_TOKEN_SIGNING): `secret` (HS256 with `auth/secret.key`, the default) or
   * `key-pair` (RS256; the broker checks with `auth/public.key`, so any issuer holding `auth/private.key`,
   * an OAuth2 server included, can mint tokens it accepts).
   */
  tokenSigning?: "secret" | "key-pair";
  /** How often (s) the broker challenges connections whose token has expired (PULSAR_AUTH_REFRESH_CHECK_SECONDS; Pulsar's default 60). */
  authRefreshCheckSeconds?: number;
}

/**
 * A private broker (infra/pulsar/start.sh with its own PULSAR_HOME and ports) for tests that stop and
 * restart it (reconnect tests), or that need token authentication or TLS, so the shared broker other
 * tests use is never disturbed.
 */
export class BrokerInstance implements Broker {
  readonly webServiceUrl: string;
  /** The binary protocol, plain: `pulsar://127.0.0.1:<brokerPort>`. */
  readonly serviceUrl: string;
  /** The binary protocol over TLS (`pulsar+ssl://127.0.0.1:<tlsPort>`), when `tlsPort` is set. */
  readonly serviceUrlTls: string | undefined;
  /** The web service over TLS (`https://127.0.0.1:<webTlsPort>`), when `webTlsPort` is set. */
  readonly webServiceUrlTls: string | undefined;
  /** The self-signed CA that signed the broker's certificate (exists once started with `tlsPort` or `webTlsPort`). */
  readonly tlsCaFile: string;
  /** The RS256 signing key, DER PKCS#8 (exists once started with `tokenAuth` and `tokenSigning: "key-pair"`). */
  readonly tokenPrivateKeyFile: string;
  constructor(readonly options: BrokerInstanceOptions) {
    this.webServiceUrl = `http://127.0.0.1:${options.webPort}`;
    this.serviceUrl = `pulsar://127.0.0.1:${options.brokerPort}`;
    this.serviceUrlTls = options.tlsPort ? `pulsar+ssl://127.0.0.1:${options.tlsPort}` : undefined;
    this.webServiceUrlTls = options.webTlsPort ? `https://127.0.0.1:${options.webTlsPort}` : undefined;
    this.tlsCaFile = resolve(options.home, "tls/ca.cert.pem");
    this.tokenPrivateKeyFile = resolve(options.home, "auth/private.key");
  }

  /** The variables infra/pulsar's scripts read; every switch is explicit, so nothing recorded leaks in. */
  get env(): NodeJS.ProcessEnv {
    return {
      PULSAR_HOME: this.options.home,
      PULSAR_WEB_PORT: String(this.options.webPort),
      PULSAR_BROKER_PORT: String(this.options.brokerPort),
      PULSAR_BOOKIE_PORT: String(this.options.bookiePort),
      PULSAR_BROKER_TLS_PORT: this.options.tlsPort ? String(this.options.tlsPort) : "",
      PULSAR_WEB_TLS_PORT: this.options.webTlsPort ? String(this.options.webTlsPort) : "",
      PULSAR_TOKEN_AUTH: this.options.tokenAuth ? "1" : "0",
      PULSAR_TOKEN_SIGNING: this.options.tokenSigning ?? "secret",
      PULSAR_AUTH_REFRESH_CHECK_SECONDS: String(this.options.authRefreshCheckSeconds ?? 60),
    };
  }

  async start(): Promise<void> {
    await runScript(START_SCRIPT, this.env);
  }

  /**
   * A clean stop (SIGTERM: about 10 s, most of it the broker's event loops winding down), or with `kill`
   * a crash (SIGKILL at once; acknowledged data is still there when it starts again).
   */
  async stop({ kill = false }: { kill?: boolean } = {}): Promise<void> {
    await runScript(STOP_SCRIPT, kill ? { ...this.env, PULSAR_STOP_TIMEOUT: "0" } : this.env);
  }

  /** Ends a broker whose data the test throws away: killed (a clean stop would keep nothing), its folder removed. */
  async discard(): Promise<void> {
    await this.stop({ kill: true });
    rmSync(this.options.home, { recursive: true, force: true });
  }

  /** The token the broker itself and start.sh use (subject `admin`); for admin REST calls. */
  adminToken(): string {
    return readFileSync(resolve(this.options.home, "auth/admin.token"), "utf8").trim();
  }

  /** A new token for `subject`, signed with this broker's key (secret or private) by Pulsar's own token tool. */
  async createToken(subject: string, expiry?: string): Promise<string> {
    const output = await runScript(TOKEN_SCRIPT, this.env, expiry ? [subject, expiry] : [subject]);
    return output.trim();
  }

  /**
   * A token for `subject` like createToken's (`sub`, and `exp` when `expiresAt` is given: seconds since the
   * epoch, a past one included), signed here with the same key: HS256 with `auth/secret.key`, or RS256 with
   * `auth/private.key` under key-pair signing. For tests about what a client does with a token, not about
   * where it came from: Pulsar's token tool starts a JVM for each (seconds).
   */
  async signToken(subject: string, { expiresAt }: { expiresAt?: number } = {}): Promise<string> {
    const keyPair = this.options.tokenSigning === "key-pair";
    const key = keyPair
      ? createPrivateKey({ key: readFileSync(this.tokenPrivateKeyFile), format: "der", type: "pkcs8" })
      : readFileSync(resolve(this.options.home, "auth/secret.key"));
    const jwt = new SignJWT({}).setProtectedHeader({ alg: keyPair ? "RS256" : "HS256" }).setSubject(subject);
    if (expiresAt !== undefined) jwt.setExpirationTime(expiresAt);
    return jwt.sign(key);
  }
}
