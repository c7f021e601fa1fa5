import { getContainerRuntimeClient } from "testcontainers";

/** What asking for a Docker engine found, and how long the asking took. */
export interface DockerEngine {
  reachable: boolean;
  /** The engine's version and host, or why there is none. */
  detail: string;
  ms: number;
}

// testcontainers puts no time limit on an engine that accepts the connection and never answers.
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Looks for a Docker engine the way testcontainers does when it starts a container (its own runtime
 * strategies: TESTCONTAINERS_HOST_OVERRIDE, DOCKER_HOST or ~/.testcontainers.properties, the unix socket,
 * the rootless sockets; each asked for `docker info`), so "reachable" means testcontainers can use it.
 */
export async function probeDockerEngine(timeoutMs = PROBE_TIMEOUT_MS): Promise<DockerEngine> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const { containerRuntime } = (await Promise.race([getContainerRuntimeClient(), timeout])).info;
    return { reachable: true, detail: `Docker ${containerRuntime.serverVersion} at ${containerRuntime.host}`, ms: ms() };
  } catch (error) {
    return { reachable: false, detail: `testcontainers: ${error instanceof Error ? error.message : String(error)}`, ms: ms() };
  } finally {
    clearTimeout(timer);
  }
}
