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

  // Issue 12, item 12: IPv6 ranges that carry an IPv4 address to a translator or tunnel were let through.
  const carriers: Array<[address: string, range: string, ipv4: string]> = [
    ["::127.0.0.1", "IPv4-compatible", "127.0.0.1"],
    ["::a9fe:a9fe", "IPv4-compatible", "169.254.169.254"],
    ["::ffff:0:7f00:1", "IPv4-translated", "127.0.0.1"],
    ["64:ff9b::127.0.0.1", "NAT64", "127.0.0.1"],
    ["64:ff9b::a9fe:a9fe", "NAT64", "169.254.169.254"],
    ["64:ff9b::8.8.8.8", "NAT64", "8.8.8.8"],
    ["64:ff9b:1:7f00:0:100::", "NAT64 (local use)", "127.0.0.1"],
    ["2002:7f00:1::1", "6to4", "127.0.0.1"],
    ["2002:a9fe:a9fe::", "6to4", "169.254.169.254"],
    ["2002:808:808::1", "6to4", "8.8.8.8"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo", "127.0.0.1"],
  ];

  it("refuses IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and their kin, naming the IPv4 address", () => {
    for (const [address, range, ipv4] of carriers) {
      expect(strict.check(address), address).toBe(
        `address ${address} is ${range} (it reaches IPv4 ${ipv4}) and not in REGISTRY_ALLOWED_NETWORKS`,
      );
      expect(dev.check(address), address).not.toBeNull();
    }
  });

  it("lets an allow-listed translator reach public IPv4 addresses only", () => {
    const nat64 = new AddressPolicy(["64:ff9b::/96"]);
    expect(nat64.check("64:ff9b::8.8.8.8")).toBeNull();
    expect(nat64.check("64:ff9b::a9fe:a9fe")).toMatch(/^address 64:ff9b::a9fe:a9fe is NAT64 for 169\.254\.169\.254: .*never allowed/);
    expect(nat64.check("64:ff9b::10.0.0.1")).toMatch(/is NAT64 for 10\.0\.0\.1: address 10\.0\.0\.1 is internal/);
    expect(nat64.check("2002:808:808::1")).toMatch(/6to4/);
  });

  it("still judges :: and ::1 as unspecified and loopback, and mapped addresses in hex form as IPv4", () => {
    expect(dev.check("::1")).toBeNull();
    expect(dev.check("::")).toMatch(/never allowed/);
    expect(strict.check("::ffff:7f00:1")).toMatch(/address 127\.0\.0\.1 is internal/);
    expect(strict.check("::ffff:a9fe:a9fe")).toMatch(/address 169\.254\.169\.254 is link-local/);
  });

  it("refuses a malformed allow-list at start", () => {
    expect(() => new AddressPolicy(["localhost/8"])).toThrow("not a CIDR range: 'localhost/8'");
  });
});
