import { describe, expect, it } from "vitest";
import { brokerMode } from "../../src/broker-mode.js";

describe("brokerMode", () => {
  it("uses a given broker URL above everything", () => {
    expect(brokerMode({ PULSAR_WEB_URL: "http://h:8080", DOCKER_HOST: "tcp://d:2375" })).toBe("given");
  });

  it("starts a container when a Docker engine is configured, else the local standalone", () => {
    expect(brokerMode({ DOCKER_HOST: "tcp://d:2375" })).toBe("container");
    expect(brokerMode({ DOCKER_HOST: "tcp://d:2375", TOOLMESH_TEST_BROKER: "local" })).toBe("local");
    expect(brokerMode({ TOOLMESH_TEST_BROKER: "container" })).toBe("container");
  });

  it("refuses an unknown choice", () => {
    expect(() => brokerMode({ TOOLMESH_TEST_BROKER: "kafka" })).toThrow("TOOLMESH_TEST_BROKER='kafka': use auto, local or container");
  });
});
