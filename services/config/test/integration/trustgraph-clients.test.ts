import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import { ConfigPush } from "@toolmesh/schema";
import { ServiceProcess, brokerServiceUrl, pythonPeer, useBroker, waitFor, testTopics } from "@toolmesh/test-support";

// TrustGraph 2.11.1's own config clients (trustgraph-base from PyPI, unchanged) against toolmesh's config
// service: AsyncConfigClient, the ConfigClient its flow processors use, and AsyncProcessor's own start-up
// loader. They take their queues as arguments, so they run in this file's own tenant (topicspace = tenant).
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "config-tg-clients-"));
const SCRIPT = join(import.meta.dirname, "trustgraph/config_clients.py");
const WORKSPACE = "tg-clients";
// As the script writes it (Python's json.dumps): stored and returned byte for byte.
const knowledge = '{"type": "knowledge-query", "name": "ask-docs", "description": "Ask the documents", "collection": "docs"}';
let service: ServiceProcess;
let pulsar: PulsarClient;
const pushes: ConfigPush[] = [];
let results: Record<string, unknown>;

beforeAll(async () => {
  const python = pythonPeer("trustgraph-flow");
  const { webServiceUrl } = await useBroker();
  service = await ServiceProcess.start({ service: "config", env: { PULSAR_WEB_URL: webServiceUrl, CONFIG_DATA_DIR: dataDir } });
  pulsar = new PulsarClient({ webServiceUrl });
  await pulsar.subscribe({ topic: testTopics().configNotify, subscription: `tg-clients-${process.pid}`, type: "Exclusive" }, async (m) => {
    pushes.push(ConfigPush.parse(JSON.parse(m.payload.toString())));
  });
  const { stdout } = await run(python, [SCRIPT, await brokerServiceUrl(webServiceUrl), testTopics().tenant, WORKSPACE], {
    timeout: 120_000,
  }).catch((err: Error & { stderr?: string; killed?: boolean }) => {
    // The script's own account of what failed (TrustGraph's clients log to stderr), not only its exit.
    throw new Error(`${err.message}${err.killed ? " (killed after 120 s)" : ""}\n${err.stderr?.slice(-4_000) ?? ""}`);
  });
  results = JSON.parse(stdout) as Record<string, unknown>;
}, 300_000);

afterAll(async () => {
  await pulsar?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("TrustGraph's config clients against toolmesh's config service", () => {
  it("get of a missing key answers None, as TrustGraph's own service does", () => {
    expect(results.get_missing).toEqual({ ok: null });
    expect(results.flow_get_missing).toEqual({ ok: null });
  });

  it("put, put_many, get, list and config round-trip any type, a TrustGraph-only tool type included", () => {
    expect(results.put).toEqual({ ok: null });
    expect(results.put_many).toEqual({ ok: null });
    expect(results.get).toEqual({ ok: knowledge });
    expect(results.list).toEqual({ ok: ["ask-docs", "zz-last"] });
    expect(results.config).toEqual({
      ok: { prompt: { greeting: "Hello {{name}}" }, tool: { "ask-docs": knowledge, "zz-last": knowledge } },
    });
  });

  it("getvalues-all-ws (workspaces_for_type) and getkeys-all-ws span workspaces; AsyncProcessor's start-up load works", () => {
    expect(results.workspaces_for_type).toEqual({ ok: [WORKSPACE] });
    expect(results.getkeys_all_ws).toEqual([
      [WORKSPACE, "ask-docs", ""],
      [WORKSPACE, "zz-last", ""],
    ]);
    expect(results.startup_load).toEqual({
      tool: { "ask-docs": knowledge, "zz-last": knowledge },
      version: results.getkeys_all_ws_version,
    });
  });

  it("serves the workspace's own queue (its workspace, not the body's) and refuses *-all-ws there", () => {
    expect(results.own_queue_list).toEqual({ ok: ["ask-docs", "zz-last"] });
    expect(results.own_queue_all_ws).toEqual({
      error: `bad-operation: Bad operation 'getvalues-all-ws' on workspace '${WORKSPACE}''s config queue`,
    });
  });

  it("deletes a missing key silently and an existing one for real, and refuses an empty workspace", () => {
    expect(results.delete_missing).toEqual({ ok: null });
    expect(results.delete).toEqual({ ok: null });
    expect(results.after_delete).toEqual({ ok: ["ask-docs"] });
    expect(results.empty_workspace).toEqual({ error: "bad-request: Workspace is required" });
  });

  it("pushed each change, naming the type and workspace, and the new workspace once", async () => {
    await waitFor(() => pushes.some((p) => p.changes.tool?.includes(WORKSPACE) && p.workspace_changes?.created.includes(WORKSPACE)), {
      description: "the push that created the workspace",
    });
    const created = pushes.filter((p) => p.workspace_changes?.created.includes(WORKSPACE));
    expect(created).toHaveLength(1);
    expect(created[0]!.changes).toEqual({ tool: [WORKSPACE] });
    await waitFor(() => pushes.some((p) => p.changes.prompt?.includes(WORKSPACE)), { description: "the put_many push" });
    const versions = pushes.map((p) => p.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });
});
