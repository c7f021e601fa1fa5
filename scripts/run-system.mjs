// Runs every toolmesh service from its build on the embedded defaults (local broker, SQLite files under
// ./data), prints readable logs, seeds the example tools, and stops everything on Ctrl-C.
// Used by `npm run up` (scripts/up.sh) and `pnpm dev` (with --watch: each service restarts when its
// build output changes).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { ServicePorts } from "../packages/schema/dist/ports.js";

const repo = new URL("..", import.meta.url).pathname;
const watch = process.argv.includes("--watch");
const env = (name, fallback) => process.env[name] || fallback;
const dataDir = resolve(repo, env("TOOLMESH_DATA_DIR", "data"));
// Shifts every port (a second system beside the first; the tests run one on free ports).
const portOffset = Number(env("TOOLMESH_PORT_OFFSET", "0"));
if (!Number.isInteger(portOffset) || portOffset < 0 || portOffset > 50_000) {
  process.stderr.write(`TOOLMESH_PORT_OFFSET must be a whole number from 0 to 50000, not '${process.env.TOOLMESH_PORT_OFFSET}'\n`);
  process.exit(1);
}
const port = (name) => ServicePorts[name] + portOffset;
const gatewayPort = Number(env("GATEWAY_PORT", String(port("api-gateway"))));
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
// The binary protocol on the broker's 6650 (PULSAR_TRANSPORT=websocket uses the WebSocket API instead).
const shared = {
  PULSAR_SERVICE_URL: env("PULSAR_SERVICE_URL", "pulsar://127.0.0.1:6650"),
  PULSAR_WEB_URL: env("PULSAR_WEB_URL", "http://127.0.0.1:8080"),
  PULSAR_TRANSPORT: env("PULSAR_TRANSPORT", "binary"),
  LOG_LEVEL: env("LOG_LEVEL", "info"),
  LOG_FORMAT: "json",
};
const builtIn = [
  ["config", port("config"), { CONFIG_DATA_DIR: `${dataDir}/config` }],
  ["joke-service", port("joke-service"), {}],
  ["mcp-tool", port("mcp-tool"), {}],
  [
    "tool-registry",
    port("tool-registry"),
    {
      REGISTRY_DATA_DIR: `${dataDir}/tool-registry`,
      REGISTRY_ADMIN_TOKEN: env("REGISTRY_ADMIN_TOKEN", "dev-admin-token-change-me"),
      // The dev setup's own tool source (joke-service) is on loopback.
      REGISTRY_ALLOWED_NETWORKS: env("REGISTRY_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128"),
    },
  ],
  ["agent", port("agent"), { AGENT_DATA_DIR: `${dataDir}/agent` }],
  ["api-gateway", gatewayPort, {}],
  ["mcp-server", port("mcp-server"), {}],
];

const hasStartScript = (name) => {
  const file = resolve(repo, "services", name, "package.json");
  return existsSync(file) && Boolean(JSON.parse(readFileSync(file, "utf8")).scripts?.start);
};
/**
 * Every services/* package with a start script: the built-in ones in the order above, then any other (a
 * service made by `tg new-tool-service`) with no port given: it listens on its own env.ts default, which
 * its "listening" log line tells.
 */
const services = [
  ...builtIn.filter(([name]) => hasStartScript(name)),
  ...readdirSync(resolve(repo, "services"))
    .filter((name) => !builtIn.some(([known]) => known === name) && hasStartScript(name))
    .sort()
    .map((name) => [name, undefined, {}]),
];

const colors = [36, 33, 35, 32, 34, 31];
const children = [];
let stopping = false;

/** One readable line per JSON log line: time, service, level, message, and the fields worth seeing. */
function printLine(name, color, line) {
  let text = line;
  try {
    const { time, level, msg, service: _s, name: _n, pid: _p, hostname: _h, ...rest } = JSON.parse(line);
    const levelName = { 10: "trace", 20: "debug", 30: "info", 40: "WARN", 50: "ERROR", 60: "FATAL" }[level] ?? level;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    text = `${new Date(time).toISOString().slice(11, 23)} ${levelName} ${msg}${extra}`;
  } catch {
    // not JSON (a warning from Node itself): shown as it is
  }
  process.stdout.write(`\x1b[${color}m${name.padEnd(13)}\x1b[0m ${text}\n`);
}

/** The port in a service's `<name> listening` log line ({"address": "http://127.0.0.1:8710"}), if it is one. */
function listeningPort(line) {
  try {
    const { msg, address } = JSON.parse(line);
    return typeof msg === "string" && msg.endsWith(" listening") && typeof address === "string" ? Number(new URL(address).port) : undefined;
  } catch {
    return undefined;
  }
}

function start([name, port, extra], index) {
  const args = watch ? [`--watch-path=${resolve(repo, "services", name, "dist")}`, "dist/main.js"] : ["dist/main.js"];
  const child = spawn(process.execPath, args, {
    cwd: resolve(repo, "services", name),
    env: { ...process.env, ...shared, ...extra, ...(port ? { HTTP_PORT: String(port) } : {}) },
    stdio: ["ignore", "pipe", "pipe"],
    // Out of the terminal's process group: Ctrl-C reaches only this script, which stops each service with
    // one SIGTERM. In the group, a service got the terminal's SIGINT and then that SIGTERM, and a second
    // signal makes a service exit at once, cutting its graceful shutdown short.
    detached: true,
  });
  let listening;
  const entry = { name, port, child, listening: port ? Promise.resolve(port) : new Promise((r) => (listening = r)) };
  let buffered = "";
  const onData = (chunk) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      printLine(name, colors[index % colors.length], line);
      const heard = listening && listeningPort(line);
      if (heard) {
        entry.port = heard;
        listening(heard);
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  child.on("exit", (code, signal) => {
    entry.exit = signal ?? code;
    listening?.(undefined); // a service that dies before listening fails the wait at once
    if (!stopping) printLine(name, 31, `exited (${signal ?? code}); the rest keep running`);
  });
  children.push(entry);
}

/** Whether nothing listens on 127.0.0.1:`port` (where the services listen by default). */
const portFree = (port) =>
  new Promise((resolve) => {
    const server = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/**
 * Stops before starting anything when a service's port is taken: most often by a toolmesh already running
 * (a second `npm run up`), whose services would answer this one's readiness checks while its own exited.
 */
async function refuseTakenPorts() {
  const known = services.filter(([, port]) => port !== undefined);
  const free = await Promise.all(known.map(([, port]) => portFree(port)));
  const busy = known.filter((_, i) => !free[i]);
  if (busy.length === 0) return;
  process.stderr.write(
    `ports in use: ${busy.map(([name, port]) => `${port} (${name})`).join(", ")}.\n` +
      "Is toolmesh already running (another npm run up)? Stop it first, or run a second system beside it with\n" +
      "TOOLMESH_PORT_OFFSET=100 TOOLMESH_TENANT=other TOOLMESH_DATA_DIR=data-other npm run up (docs/operations.md).\n",
  );
  process.exit(1);
}

async function waitReady(entry) {
  const { name, listening } = entry;
  const deadline = Date.now() + 60_000;
  let timer;
  const port = await Promise.race([listening, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
  clearTimeout(timer);
  if (!port && entry.exit !== undefined) throw new Error(`${name} exited (${entry.exit}) before listening: see its lines above`);
  if (!port) throw new Error(`${name} did not start listening within 60 s (is the broker running? npm run broker:status)`);
  while (Date.now() < deadline) {
    // Exited after listening began, or before (its port given, so no "listening" line was awaited).
    if (entry.exit !== undefined) throw new Error(`${name} exited (${entry.exit}): see its lines above`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready on port ${port} within 60 s (is the broker running? npm run broker:status)`);
}

async function callGateway(service, body) {
  const response = await fetch(`${gatewayUrl}/api/v1/flow/default/service/${service}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(process.env.GATEWAY_TOKEN ? { authorization: `Bearer ${process.env.GATEWAY_TOKEN}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const reply = await response.json();
  if (!response.ok || reply.error) throw new Error(`${service}: ${JSON.stringify(reply.error ?? reply)}`);
  return reply;
}

/** The seed's example: joke-service with one config-defined tool, and joke-service's manifest as a tool source. */
async function seed() {
  const value = (type, key, body) => ({ type, key, value: JSON.stringify(body) });
  await callGateway("config", {
    operation: "put",
    values: [
      value("tool-service", "joke-service", { id: "joke-service", topic: "joke", "config-params": [{ name: "style", required: false }] }),
      value("tool", "tell-joke", {
        type: "tool-service",
        name: "tell-joke",
        description: "Tells a dad joke about a topic",
        service: "joke-service",
        style: "dad-joke",
        arguments: [{ name: "topic", type: "string", description: "What the joke is about" }],
      }),
      value("tool-source", "jokes", { id: "jokes", manifest_url: `http://127.0.0.1:${port("joke-service")}/tools/manifest`, active: true }),
    ],
  });
}

const running = () => children.filter(({ child }) => child.exitCode === null && child.signalCode === null);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, async () => {
    if (stopping) {
      // A second Ctrl-C: a second SIGTERM makes each service exit at once.
      process.stdout.write("\nstopping now\n");
      for (const { child } of running()) child.kill("SIGTERM");
      return;
    }
    stopping = true;
    process.stdout.write("\nstopping every service (they finish what they are doing first; Ctrl-C again to stop them now)...\n");
    await Promise.all(running().map(({ child }) => new Promise((r) => (child.once("exit", r), child.kill("SIGTERM")))));
    process.exit(0);
  });
}
// Detached services do not go with this script on their own: whatever ends it, they end too.
process.on("exit", () => {
  for (const { child } of running()) child.kill("SIGTERM");
});

await refuseTakenPorts();
services.forEach(start);
try {
  await Promise.all(children.map(waitReady));
  await seed();
  // The registry builds a revision right after the seed's config push; wait (up to 10 s) for the one with the
  // seeded tool, so the revision printed is the one the first tool call below uses (the joke-service's
  // announcement may have made an earlier one without it).
  const catalogUrl = `http://127.0.0.1:${port("tool-registry")}/tools/catalog`;
  const seeded = (catalog) => catalog?.tools?.some((tool) => tool.name === "tell-joke");
  let catalog = null;
  for (let i = 0; i < 40 && !seeded(catalog); i++) {
    catalog = await fetch(catalogUrl)
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    if (!seeded(catalog)) await new Promise((r) => setTimeout(r, 250));
  }
  process.stdout.write(
    [
      "",
      `toolmesh is up. Gateway: ${gatewayUrl}  (OpenAPI: ${gatewayUrl}/api/v1/openapi.json)`,
      `catalog revision: ${catalog ? `${catalog.revision_number} with ${catalog.tool_count} tools (curl -s ${catalogUrl})` : `being built (curl -s ${catalogUrl})`}`,
      `MCP endpoint: http://127.0.0.1:${port("mcp-server")}/mcp (README: "Use toolmesh from an MCP client")`,
      ...children
        .filter(({ name }) => !builtIn.some(([known]) => known === name))
        .map(({ name, port }) => `also running: ${name} on port ${port} (services/${name})`),
      "first tool call:",
      `  npm run tg -- invoke-tool -n tell-joke -a '{"topic": "cats"}'`,
      "the agent needs an OpenAI-compatible LLM: set OPENAI_BASE_URL and OPENAI_MODEL before npm run up",
      "Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.kill(process.pid, "SIGTERM");
}
