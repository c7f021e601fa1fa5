import { describe, expect, it } from "vitest";
import type { DockerEngine } from "../../src/docker-engine.js";
import { choosePostgres } from "../../src/postgres-mode.js";

const engine: DockerEngine = { reachable: true, detail: "Docker 28.2.2 at localhost", ms: 12 };
const noEngine: DockerEngine = { reachable: false, detail: "testcontainers: Could not find a working container runtime strategy", ms: 5 };

/** A probe that answers `result` and counts how often it was asked. */
function probe(result: DockerEngine) {
  const asked = { count: 0 };
  return { asked, probe: async () => (asked.count++, result) };
}

describe("choosePostgres", () => {
  it("by default starts a container when a Docker engine answers, else the embedded server", async () => {
    expect(await choosePostgres({}, probe(engine).probe)).toEqual({
      mode: "testcontainers",
      why: "Docker 28.2.2 at localhost (auto, checked in 12 ms)",
    });
    expect(await choosePostgres({ TOOLMESH_TEST_POSTGRES: "auto" }, probe(noEngine).probe)).toEqual({
      mode: "embedded",
      why: "no Docker engine (testcontainers: Could not find a working container runtime strategy; checked in 5 ms)",
    });
    // Empty counts as unset (parseEnv), as for every other variable.
    expect((await choosePostgres({ TOOLMESH_TEST_POSTGRES: "" }, probe(noEngine).probe)).mode).toBe("embedded");
  });

  it("forced embedded never asks for an engine", async () => {
    const { asked, probe: ask } = probe(engine);
    expect(await choosePostgres({ TOOLMESH_TEST_POSTGRES: "embedded" }, ask)).toEqual({
      mode: "embedded",
      why: "TOOLMESH_TEST_POSTGRES=embedded",
    });
    expect(asked.count).toBe(0);
  });

  it("forced testcontainers uses the engine, and without one fails with one line naming the missing Docker engine", async () => {
    expect((await choosePostgres({ TOOLMESH_TEST_POSTGRES: "testcontainers" }, probe(engine).probe)).mode).toBe("testcontainers");
    const failure = choosePostgres({ TOOLMESH_TEST_POSTGRES: "testcontainers" }, probe(noEngine).probe);
    await expect(failure).rejects.toThrow(
      "TOOLMESH_TEST_POSTGRES=testcontainers but no Docker engine answered (testcontainers: Could not find a working container runtime strategy; checked in 5 ms): start one or point DOCKER_HOST at it, or set TOOLMESH_TEST_POSTGRES=embedded",
    );
    await expect(failure).rejects.toThrow(/^[^\n]+$/);
  });

  it("refuses an unknown choice, naming the variable and the choices", async () => {
    await expect(choosePostgres({ TOOLMESH_TEST_POSTGRES: "docker" }, probe(engine).probe)).rejects.toThrow(
      'TOOLMESH_TEST_POSTGRES="docker": must be auto, embedded or testcontainers',
    );
  });
});
