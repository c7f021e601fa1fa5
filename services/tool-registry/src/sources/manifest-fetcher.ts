import { lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, fetch } from "undici";
import type { AddressPolicy } from "./address-policy.js";

export interface ManifestFetcherOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

/** A fetch that failed for a reason worth reporting as the source's status. */
export class ManifestFetchError extends Error {
  override name = "ManifestFetchError";
}

/**
 * Fetches tool manifests over HTTP(S) with the limits a registry needs: a timeout over the whole exchange,
 * a byte limit, JSON content only, redirects only within the same origin, and every connection's address
 * checked against the policy (so neither a literal IP nor a DNS answer can reach metadata or internal hosts).
 */
export class ManifestFetcher {
  private readonly agent: Agent;

  constructor(private readonly options: ManifestFetcherOptions) {
    const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
      lookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
        if (err) return callback(err, "", 4);
        for (const { address } of addresses) {
          const reason = options.policy.check(address);
          if (reason) return callback(new ManifestFetchError(`refused ${hostname}: ${reason}`), "", 4);
        }
        if (lookupOptions.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      });
    };
    this.agent = new Agent({ connect: { lookup: guardedLookup }, connections: 8 });
  }

  async fetch(url: string): Promise<unknown> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await this.fetchFollowing(new URL(url), signal, this.options.maxRedirects ?? 3);
    } catch (err) {
      if (err instanceof ManifestFetchError) throw err;
      const cause = (err as { cause?: Error }).cause;
      if (cause instanceof ManifestFetchError) throw cause;
      if (signal.aborted) throw new ManifestFetchError(`timed out after ${this.options.timeoutMs} ms fetching ${url}`);
      throw new ManifestFetchError(`cannot fetch ${url}: ${cause?.message ?? (err as Error).message}`);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async fetchFollowing(url: URL, signal: AbortSignal, redirectsLeft: number): Promise<unknown> {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new ManifestFetchError(`only http(s) URLs are fetched, not ${url.protocol}`);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // Literal addresses never reach the lookup hook, so they are checked here.
    if (isIP(host)) {
      const reason = this.options.policy.check(host);
      if (reason) throw new ManifestFetchError(`refused ${url.host}: ${reason}`);
    }
    const response = await fetch(url, { dispatcher: this.agent, redirect: "manual", signal, headers: { accept: "application/json" } });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (!location) throw new ManifestFetchError(`redirect from ${url} without a location`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) throw new ManifestFetchError(`refused redirect from ${url.origin} to another host (${next.origin})`);
      if (redirectsLeft === 0) throw new ManifestFetchError(`too many redirects fetching ${url}`);
      return this.fetchFollowing(next, signal, redirectsLeft - 1);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ManifestFetchError(`${url} answered HTTP ${response.status}`);
    }
    const type = response.headers.get("content-type") ?? "";
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      await response.body?.cancel();
      throw new ManifestFetchError(`${url} answered content-type '${type || "none"}', not JSON`);
    }
    const text = await this.readLimited(response.body, url, Number(response.headers.get("content-length") ?? NaN));
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ManifestFetchError(`${url} answered invalid JSON: ${(err as Error).message}`);
    }
  }

  private async readLimited(body: ReadableStream<Uint8Array> | null, url: URL, declared: number): Promise<string> {
    const limit = this.options.maxBytes;
    if (declared > limit) {
      await body?.cancel();
      throw new ManifestFetchError(`${url} manifest is ${declared} bytes, over the ${limit}-byte limit`);
    }
    if (!body) return "";
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > limit) {
        await body.cancel().catch(() => undefined);
        throw new ManifestFetchError(`${url} manifest exceeds the ${limit}-byte limit`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  }
}
