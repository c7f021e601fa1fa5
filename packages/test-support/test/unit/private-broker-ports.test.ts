import { describe, expect, it } from "vitest";
import { PRIVATE_BROKER_PORTS, RESERVED_BROKER_PORTS } from "../../src/private-broker-ports.js";

// Two packages' tests run at once (scripts/test.sh): a port two private brokers share would fail one of
// them with "port already in use", and only when their files happen to overlap.
describe("private brokers' fixed ports", () => {
  const owners = new Map<number, string[]>();
  for (const [test, ports] of Object.entries(PRIVATE_BROKER_PORTS)) {
    for (const [role, port] of Object.entries(ports)) owners.set(port, [...(owners.get(port) ?? []), `${test} ${role}`]);
  }

  it("are all distinct", () => {
    const shared = [...owners].filter(([, users]) => users.length > 1);
    expect(shared).toEqual([]);
  });

  it("take none of the shared test broker's or the development broker's ports", () => {
    expect(RESERVED_BROKER_PORTS.filter((port) => owners.has(port)).map((port) => [port, owners.get(port)])).toEqual([]);
  });

  it("stay below the ephemeral range, where the OS hands out ports to outgoing connections", () => {
    expect([...owners.keys()].filter((port) => port < 1024 || port >= 32768)).toEqual([]);
  });
});
