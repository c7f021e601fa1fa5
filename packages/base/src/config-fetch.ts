import { type ConfigRequestWire, type ConfigResponse, ErrorType } from "@toolmesh/schema";

/** One request to the config service (a RequestClient's `request`, or a fake in tests). */
export type AskConfig = (request: ConfigRequestWire) => Promise<ConfigResponse>;

export interface FetchedTypes {
  /** type -> key -> raw JSON string, for every type asked for (empty when none stored). */
  snapshot: Record<string, Record<string, string>>;
  /** The lowest version among the replies: the snapshot holds at least this version of every type. */
  version: number;
  /** False when replies came from different versions (a change landed meanwhile) after every attempt. */
  consistent: boolean;
}

const ATTEMPTS = 3;

function failure(what: string, reply: ConfigResponse): Error {
  return new Error(`${what}: ${reply.error!.type}: ${reply.error!.message}`);
}

interface Pages {
  ask: AskConfig;
  workspace: string;
  type: string;
  into: Record<string, string>;
  versions: number[];
}

/** key -> value of the items that have a value. */
function present(values: ConfigResponse["values"]): Record<string, string> {
  return Object.fromEntries(values.flatMap((v) => (v.value === null ? [] : [[v.key, v.value]])));
}

/** Reads `keys` as two pages (the caller knows they do not fit in one). */
async function getHalves(pages: Pages, keys: string[]): Promise<void> {
  const half = Math.ceil(keys.length / 2);
  await getPage(pages, keys.slice(0, half));
  if (keys.length > half) await getPage(pages, keys.slice(half));
}

/** One `get` of some keys of one type; a reply too large splits the page in two, down to single keys. */
async function getPage(pages: Pages, keys: string[]): Promise<void> {
  const { ask, workspace, type } = pages;
  const reply = await ask({ operation: "get", workspace, keys: keys.map((key) => ({ type, key })) });
  if (!reply.error) {
    // A key deleted since `list` comes back with a null value (the store's answer for a missing key).
    for (const item of reply.values) if (item.value !== null) pages.into[item.key] = item.value;
    pages.versions.push(reply.version ?? 0);
    return;
  }
  if (reply.error.type !== ErrorType.tooLarge || keys.length === 1) {
    throw failure(
      keys.length === 1 ? `config '${type}' '${keys[0]}' cannot be read` : `config '${type}' page of ${keys.length} keys`,
      reply,
    );
  }
  await getHalves(pages, keys);
}

/**
 * One type's items with `getvalues` (one reply, as TrustGraph's processors read them). A type too large for
 * one reply — possible only for data stored before the config service bounded types — is read page by page:
 * `list` its keys, then `get` them a page at a time.
 */
async function fetchType(ask: AskConfig, workspace: string, type: string): Promise<{ values: Record<string, string>; versions: number[] }> {
  const reply = await ask({ operation: "getvalues", workspace, type });
  if (!reply.error) return { values: present(reply.values), versions: [reply.version ?? 0] };
  if (reply.error.type !== ErrorType.tooLarge) throw failure(`config '${type}'`, reply);
  const listed = await ask({ operation: "list", workspace, type });
  if (listed.error) throw failure(`config '${type}' keys`, listed);
  const pages: Pages = { ask, workspace, type, into: {}, versions: [listed.version ?? 0] };
  if (listed.directory.length > 0) await getHalves(pages, listed.directory);
  return { values: pages.into, versions: pages.versions };
}

/**
 * Reads only the given types, each with its own request, so one large type never makes the others
 * unreadable. Replies from different versions mean a change landed between them: read again, a few times.
 */
export async function fetchConfigTypes(ask: AskConfig, workspace: string, types: string[]): Promise<FetchedTypes> {
  let result: FetchedTypes | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const fetched = await Promise.all(types.map((type) => fetchType(ask, workspace, type)));
    const versions = fetched.flatMap((f) => f.versions);
    const version = versions.length ? Math.min(...versions) : 0;
    const consistent = versions.every((v) => v === version);
    result = { snapshot: Object.fromEntries(types.map((type, i) => [type, fetched[i]!.values])), version, consistent };
    if (consistent) break;
  }
  return result!;
}
