import { describe, expect, it } from "vitest";
import { AddressPolicy } from "../../src/sources/address-policy.js";

describe("AddressPolicy", () => {
  const strict = new AddressPolicy();
  const dev = new AddressPolicy(["127.0.0.0/8", "::1/128"]);

  it("always refuses link-local and metadata addresses, even when allow-listed", () => {
    const everything = new AddressPolicy(["0.0.0.0/0", "::/0"]);
    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1", "0.0.0.0", "fd00:ec2::254"]) {
      expect(everything.check(address), address).toMatch(/never allowed/);
    }
  });

  it("refuses internal ranges unless allow-listed", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.5.4", "192.168.1.1", "::1", "fd12::1", "::ffff:10.0.0.1"]) {
      expect(strict.check(address), address).toMatch(/internal and not in REGISTRY_ALLOWED_NETWORKS/);
    }
    expect(dev.check("127.0.0.1")).toBeNull();
    expect(dev.check("::1")).toBeNull();
    expect(dev.check("10.1.2.3")).toMatch(/internal/);
  });

  it("allows public addresses", () => {
    expect(strict.check("93.184.216.34")).toBeNull();
    expect(strict.check("2606:2800:220:1::1")).toBeNull();
  });

  it("refuses a malformed allow-list at start", () => {
    expect(() => new AddressPolicy(["localhost/8"])).toThrow("not a CIDR range: 'localhost/8'");
  });
});
