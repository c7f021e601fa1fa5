/**
 * DATABASE_URL taken apart so that libpq's multi-host form can be read: `postgres://u:p@h1:5432,h2:5432/db`
 * lists a primary and its standbys, and `target_session_attrs=read-write` picks the one that takes writes
 * (the `postgres` driver honours both). WHATWG's URL parser, which everything else here reads URLs with,
 * refuses a host list, so the list is set aside and the rest read through a URL on the first host.
 */
export interface DatabaseUrl {
  /** `postgres:` or `postgresql:`. */
  scheme: string;
  /** `user:password@`, or empty. */
  userinfo: string;
  /** Each `host[:port]`, as written. */
  hosts: string[];
  /** The URL with its first host alone: user, password, database and query are read through it. */
  first: URL;
}

const SHAPE = /^(postgres(?:ql)?:)\/\/(?:([^@/?#]*)@)?([^/?#]+)(.*)$/i;

/** A postgres URL's parts, or undefined when it is not one (another scheme, no host, a host that is not one). */
export function splitDatabaseUrl(text: string): DatabaseUrl | undefined {
  const match = SHAPE.exec(text);
  if (!match) return undefined;
  const [, scheme, user, hostList, rest] = match;
  const userinfo = user === undefined ? "" : `${user}@`;
  const hosts = hostList!.split(",");
  const valid = (host: string) => URL.canParse(`postgres://${host}/`) && new URL(`postgres://${host}/`).hostname !== "";
  if (!hosts.every(valid) || !URL.canParse(`${scheme}//${userinfo}${hosts[0]}${rest}`)) return undefined;
  return { scheme: scheme!.toLowerCase(), userinfo, hosts, first: new URL(`${scheme}//${userinfo}${hosts[0]}${rest}`) };
}

/** `parts` as a URL again, every host kept, with `search` (from a URLSearchParams) as its query. */
export function joinDatabaseUrl(parts: DatabaseUrl, search: URLSearchParams): string {
  const query = search.toString();
  return `${parts.scheme}//${parts.userinfo}${parts.hosts.join(",")}${parts.first.pathname}${query ? `?${query}` : ""}`;
}
