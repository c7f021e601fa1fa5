import { describe, expect, it } from "vitest";
import { brokerMode } from "../../src/broker-mode.js";
import { pairedUrls } from "../../src/broker.js";

describe("brokerMode", () => {
  it("uses a given broker URL above everything", () => {
    expect(brokerMode({ PULSAR_WEB_URL: "http://h:8080", DOCKER_HOST: "tcp://d:2375" })).toBe("given");
    expect(brokerMode({ PULSAR_SERVICE_URL: "pulsar://h:6650", DOCKER_HOST: "tcp://d:2375" })).toBe("given");
  });

  it("pairs a given web URL with its broker's binary port and back (test broker 18080/16650, default 8080/6650)", () => {
    expect(pairedUrls({ webServiceUrl: "http://127.0.0.1:18080" }).serviceUrl).toBe("pulsar://127.0.0.1:16650");
    expect(pairedUrls({ serviceUrl: "pulsar://127.0.0.1:16650" }).webServiceUrl).toBe("http://127.0.0.1:18080");
    expect(pairedUrls({ webServiceUrl: "http://pulsar:8080" }).serviceUrl).toBe("pulsar://pulsar:6650");
    expect(pairedUrls({ webServiceUrl: "http://h:9999", serviceUrl: "pulsar://h:7777" })).toEqual({
      webServiceUrl: "http://h:9999",
      serviceUrl: "pulsar://h:7777",
    });
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
