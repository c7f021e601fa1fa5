import { EnvError } from "@toolmesh/schema";
import type { BaseEnv } from "./env.js";
import { httpPortProblem, listenProblem } from "./http-port.js";
import { createLogger } from "./logger.js";
import { pulsarSettings } from "./pulsar-settings.js";
import { type RuntimeOptions, ServiceRuntime } from "./runtime.js";
import { StartupError } from "./startup-error.js";
import { tracingSettings } from "./tracing-settings.js";

/**
 * What every service's main.ts does, in one place: parse the environment (a bad one is one readable line
 * on stderr and exit status 1, before anything starts), make the runtime, let `build` wire the service,
 * then listen. The HTTP port is checked free first (one line and exit status 1 when it is not), so a clash
 * stops the process before it takes work. Tests skip this and call the service's build function on a
 * runtime of their own.
 */
export async function startService<E extends BaseEnv>(
  name: string,
  loadEnv: () => E,
  build: (runtime: ServiceRuntime, env: E) => Promise<unknown>,
  /** Runtime options that depend on the environment (e.g. the gateway's HTTP timeouts). */
  runtimeOptions: (env: E) => Partial<RuntimeOptions> = () => ({}),
): Promise<ServiceRuntime> {
  let env: E;
  try {
    env = loadEnv();
    // The Pulsar settings the runtime derives (files to read, variables that go in pairs) fail the same way.
    pulsarSettings(env);
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    process.stderr.write(`${name}: invalid environment: ${err.problems.join("; ")}\n`);
    process.exit(1);
  }
  const portProblem = await httpPortProblem(env.HTTP_HOST, env.HTTP_PORT);
  if (portProblem) {
    process.stderr.write(`${name}: ${portProblem}\n`);
    process.exit(1);
  }
  // Before anything that makes spans; the runtime flushes and stops it last on shutdown.
  const settings = tracingSettings(env, name);
  const logger = createLogger(name, env.LOG_LEVEL);
  // The SDK is loaded only now: most processes run with tracing off, and loading it is a noticeable part of a start.
  const tracing = settings
    ? (await import("./tracing.js")).Tracing.start(settings, undefined, logger.child({ component: "tracing" }))
    : undefined;
  const runtime = new ServiceRuntime({ logger, ...runtimeOptions(env), name, env, ...(tracing ? { tracing } : {}) });
  if (settings) logger.info({ exporter: settings.exporter, protocol: settings.protocol, url: settings.url }, "tracing on");
  runtime.installSignalHandlers();
  try {
    await build(runtime, env);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    await runtime.stop();
    process.exit(1);
  }
  try {
    await runtime.listen();
  } catch (err) {
    // Taken between the check above and now: said the same way.
    process.stderr.write(`${name}: ${listenProblem(env.HTTP_HOST, env.HTTP_PORT, err)}\n`);
    await runtime.stop();
    process.exit(1);
  }
  return runtime;
}
