import { BlockList, isIP } from "node:net";

/** Never fetched from, whatever the allow-list says: link-local (cloud metadata), unspecified, multicast. */
const ALWAYS_REFUSED = ["0.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "240.0.0.0/4", "fe80::/10", "ff00::/8", "::/128", "fd00:ec2::/32"];
/** Internal ranges: refused unless allow-listed (the dev setup allow-lists loopback for its own services). */
const INTERNAL = ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "::1/128", "fc00::/7"];

function blockList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network, prefix] = cidr.split("/");
    const family = isIP(network ?? "") === 6 ? "ipv6" : "ipv4";
    if (!network || prefix === undefined || isIP(network) === 0) throw new Error(`not a CIDR range: '${cidr}'`);
    list.addSubnet(network, Number(prefix), family);
  }
  return list;
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1]! : address;
}

/**
 * Decides which addresses manifest URLs may reach (server-side request forgery protection). Applied to
 * every address a host name resolves to, at connect time, so DNS cannot point around it.
 */
export class AddressPolicy {
  private readonly refused = blockList(ALWAYS_REFUSED);
  private readonly internal = blockList(INTERNAL);
  private readonly allowed: BlockList;

  constructor(allowedCidrs: readonly string[] = []) {
    this.allowed = blockList(allowedCidrs);
  }

  /** Why the address may not be reached, or null when it may. */
  check(rawAddress: string): string | null {
    const address = unmapped(rawAddress);
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (isIP(address) === 0) return `'${rawAddress}' is not an IP address`;
    if (this.refused.check(address, family)) return `address ${address} is link-local, metadata or otherwise never allowed`;
    if (this.internal.check(address, family) && !this.allowed.check(address, family)) {
      return `address ${address} is internal and not in REGISTRY_ALLOWED_NETWORKS`;
    }
    return null;
  }
}
