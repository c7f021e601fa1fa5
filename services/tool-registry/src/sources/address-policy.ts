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

/** The eight 16-bit groups of an IPv6 address, however it is written (`::`, an embedded dotted IPv4). */
function hextets(address: string): number[] {
  // The URL parser writes every IPv6 address one canonical way: embedded IPv4 in hex, one `::`.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const [head = "", tail] = canonical.split("::");
  if (tail === undefined) return groups(head);
  const front = groups(head);
  const back = groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const bytes = (...groups: number[]) => groups.flatMap((g) => [g >> 8, g & 0xff]);
const dotted = (octets: number[]) => octets.join(".");

/**
 * IPv6 ranges whose addresses carry an IPv4 address that a translator, relay or tunnel delivers to: an IPv4
 * rule is worthless if `64:ff9b::169.254.169.254` gets around it. Each says where its IPv4 address sits.
 */
interface Carrier {
  name: string;
  cidr: string;
  ipv4: (h: number[]) => number[];
}

const CARRIERS = (
  [
    // RFC 4291 IPv4-compatible (deprecated); `::` and `::1`, inside it too, are judged as what they are.
    { name: "IPv4-compatible", cidr: "::/96", ipv4: (h) => bytes(h[6]!, h[7]!) },
    // RFC 6145 IPv4-translated.
    { name: "IPv4-translated", cidr: "::ffff:0:0:0/96", ipv4: (h) => bytes(h[6]!, h[7]!) },
    // RFC 6052 NAT64 well-known prefix, and RFC 8215 local use (a /48: the IPv4 address skips bits 64-71).
    { name: "NAT64", cidr: "64:ff9b::/96", ipv4: (h) => bytes(h[6]!, h[7]!) },
    { name: "NAT64 (local use)", cidr: "64:ff9b:1::/48", ipv4: (h) => [...bytes(h[3]!), h[4]! & 0xff, h[5]! >> 8] },
    // RFC 3056 6to4: the relay's IPv4 address in bits 16-47.
    { name: "6to4", cidr: "2002::/16", ipv4: (h) => bytes(h[1]!, h[2]!) },
    // RFC 4380 Teredo: the client's IPv4 address, inverted, in the last 32 bits.
    { name: "Teredo", cidr: "2001::/32", ipv4: (h) => bytes(h[6]!, h[7]!).map((byte) => byte ^ 0xff) },
  ] satisfies Carrier[]
).map((carrier) => ({ ...carrier, range: blockList([carrier.cidr]) }));

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`) is judged as the IPv4 address it is. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const h = hextets(address);
  return h.slice(0, 5).every((g) => g === 0) && h[5] === 0xffff ? dotted(bytes(h[6]!, h[7]!)) : address;
}

/** The carrier range `address` is in and the IPv4 address it carries, if any. */
function carried(address: string): { name: string; ipv4: string } | undefined {
  if (isIP(address) !== 6) return undefined;
  const h = hextets(address);
  // `::` and `::1` sit inside ::/96 but are the unspecified and loopback addresses, judged as such.
  if (h.slice(0, 7).every((g) => g === 0) && h[7]! <= 1) return undefined;
  const carrier = CARRIERS.find((c) => c.range.check(address, "ipv6"));
  return carrier && { name: carrier.name, ipv4: dotted(carrier.ipv4(h)) };
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
    if (isIP(rawAddress) === 0) return `'${rawAddress}' is not an IP address`;
    const address = unmapped(rawAddress);
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (this.refused.check(address, family)) return `address ${address} is link-local, metadata or otherwise never allowed`;
    if (this.internal.check(address, family) && !this.allowed.check(address, family)) {
      return `address ${address} is internal and not in REGISTRY_ALLOWED_NETWORKS`;
    }
    // A translated or tunnelled IPv4 address: refused unless its range is allow-listed (an IPv6-only network
    // reaching the internet through NAT64), and even then judged as the IPv4 address it reaches.
    const tunnel = carried(address);
    if (!tunnel) return null;
    if (!this.allowed.check(address, "ipv6")) {
      return `address ${address} is ${tunnel.name} (it reaches IPv4 ${tunnel.ipv4}) and not in REGISTRY_ALLOWED_NETWORKS`;
    }
    const reason = this.check(tunnel.ipv4);
    return reason && `address ${address} is ${tunnel.name} for ${tunnel.ipv4}: ${reason}`;
  }
}
