import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The registry is a service with no exports map: its built files are reached through the workspace
// dependency by subpath (`@toolmesh/tool-registry/dist/...`), so turbo builds it before the bench.
import { diffRevisions } from "@toolmesh/tool-registry/dist/catalog/diff.js";
import { catalogHash } from "@toolmesh/tool-registry/dist/catalog/hashing.js";
import { type SourceTools, mergeSources } from "@toolmesh/tool-registry/dist/catalog/merge.js";
import { validateManifest } from "@toolmesh/tool-registry/dist/catalog/validate.js";
import { type RegistryStore, SqliteRegistryStore } from "@toolmesh/tool-registry/dist/store/index.js";
import { median, timed } from "../stats.js";

/** A handful of realistic parameter schemas; generated tools share them, as real catalogs do. */
const SCHEMAS: Array<Record<string, unknown>> = [
  {
    type: "object",
    properties: {
      query: { type: "string", description: "What to search for", minLength: 1 },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
    },
    required: ["query"],
    additionalProperties: false,
  },
  {
    type: "object",
    properties: {
      topic: { type: "string", description: "Subject of the joke" },
      style: { type: "string", enum: ["pun", "dad", "one-liner", "knock-knock"] },
    },
    required: ["topic"],
  },
  { type: "object", properties: { expression: { type: "string", pattern: "^[0-9+*/() .-]+$" } }, required: ["expression"] },
  {
    type: "object",
    properties: {
      url: { type: "string", format: "uri" },
      headers: { type: "object", additionalProperties: { type: "string" } },
      method: { type: "string", enum: ["GET", "POST", "PUT", "DELETE"] },
    },
    required: ["url"],
  },
  {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: { type: "object", properties: { id: { type: "string" }, qty: { type: "number", minimum: 0 } }, required: ["id"] },
        maxItems: 50,
      },
      dry_run: { type: "boolean" },
    },
    required: ["items"],
  },
  {
    type: "object",
    properties: { from: { type: "string", format: "date-time" }, to: { type: "string", format: "date-time" }, tz: { type: "string" } },
  },
  { type: "object", properties: {} },
];
const SOURCES = ["source:alpha", "source:beta", "source:gamma", "announce:bench-svc"];

function tool(i: number, version: number): Record<string, unknown> {
  return {
    tool_id: `bench.tool-${String(i).padStart(6, "0")}`,
    name: `bench_tool_${i}`,
    description: `Bench tool ${i}: looks things up in system ${i % 97} and returns a short answer (v${version}).`,
    parameters_schema: SCHEMAS[i % SCHEMAS.length],
    binding: {
      kind: "tool-service",
      request_topic: `non-persistent://tg/request/bench-${i % 50}`,
      response_topic: `non-persistent://tg/response/bench-${i % 50}`,
      config: { style: "pun", shard: i % 8 },
    },
  };
}

/** Raw source bodies, as JSON.parse of a fetched manifest would give them; `versions` marks changed tools. */
function bodies(count: number, versions: Map<number, number>): unknown[][] {
  const out: unknown[][] = SOURCES.map(() => []);
  for (let i = 0; i < count; i++) out[i % SOURCES.length]!.push(tool(i, versions.get(i) ?? 0));
  return JSON.parse(JSON.stringify(out)) as unknown[][];
}

export interface PhaseTiming {
  wallMs: number;
  cpuMs: number;
}

export interface RefreshTiming {
  tools: number;
  kind: "first" | "1% changed";
  validateMergeHash: PhaseTiming;
  store: PhaseTiming;
  diff: PhaseTiming;
  total: PhaseTiming;
  changed: number;
}

/** One refresh in the order refresh.ts runs it: validate, read latest, merge, hash, record sources, append; then a diff. */
async function refresh(store: RegistryStore, raw: unknown[][]): Promise<Omit<RefreshTiming, "tools" | "kind">> {
  const latestRead = await timed(() => store.latest());
  const latest = latestRead.value;
  const vmh = await timed(() => {
    const gathered = SOURCES.map((source, k): SourceTools & { problems: string[] } => {
      const { entries, problems } = validateManifest(raw[k]);
      return { source, entries, problems: problems.map((p) => p.reason) };
    });
    const { tools, refusals } = mergeSources(gathered, new Set(latest?.tools.map((t) => t.tool_id)));
    if (refusals.size > 0) throw new Error(`unexpected refusals: ${[...refusals.values()].flat().slice(0, 3).join("; ")}`);
    return { gathered, tools, hash: catalogHash(tools) };
  });
  const { gathered, tools, hash } = vmh.value;
  const stored = await timed(async () => {
    for (const g of gathered) await store.recordSuccess(g.source, g.entries, g.problems);
    await store.forgetSourcesExcept(gathered.map((g) => g.source));
    if (latest?.content_hash === hash) throw new Error("expected a new revision");
    return store.append(hash, tools);
  });
  const diff = await timed(async () => {
    const to = await store.byNumber(stored.value.revision_number);
    const from = latest ? await store.byNumber(latest.revision_number) : null;
    return from && to ? diffRevisions(from, to) : null;
  });
  const storeMs = { wallMs: latestRead.wallMs + stored.wallMs, cpuMs: latestRead.cpuMs + stored.cpuMs };
  const phases = [vmh, storeMs, diff];
  return {
    validateMergeHash: { wallMs: vmh.wallMs, cpuMs: vmh.cpuMs },
    store: storeMs,
    diff: { wallMs: diff.wallMs, cpuMs: diff.cpuMs },
    total: { wallMs: phases.reduce((a, p) => a + p.wallMs, 0), cpuMs: phases.reduce((a, p) => a + p.cpuMs, 0) },
    changed: diff.value ? diff.value.changed.length : 0,
  };
}

const medianTiming = (runs: PhaseTiming[]): PhaseTiming => ({
  wallMs: median(runs.map((r) => r.wallMs)),
  cpuMs: median(runs.map((r) => r.cpuMs)),
});

/**
 * Refreshes of `count` tools on a fresh SQLite store: the first (empty store), then `repeats` refreshes
 * each changing 1% of the tools (reported as the median of those).
 */
export async function registryRefresh(count: number, repeats = 3): Promise<RefreshTiming[]> {
  const dir = mkdtempSync(join(tmpdir(), "toolmesh-bench-registry-"));
  const store = SqliteRegistryStore.open(dir);
  try {
    const versions = new Map<number, number>();
    const first = await refresh(store, bodies(count, versions));
    const steady: Array<Awaited<ReturnType<typeof refresh>>> = [];
    for (let r = 1; r <= repeats; r++) {
      const step = 100;
      for (let i = r % step; i < count; i += step) versions.set(i, r);
      const result = await refresh(store, bodies(count, versions));
      if (result.changed !== Math.ceil((count - (r % step)) / step)) throw new Error(`diff found ${result.changed} changed tools`);
      steady.push(result);
    }
    return [
      { tools: count, kind: "first", ...first },
      {
        tools: count,
        kind: "1% changed",
        validateMergeHash: medianTiming(steady.map((s) => s.validateMergeHash)),
        store: medianTiming(steady.map((s) => s.store)),
        diff: medianTiming(steady.map((s) => s.diff)),
        total: medianTiming(steady.map((s) => s.total)),
        changed: steady[0]!.changed,
      },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
