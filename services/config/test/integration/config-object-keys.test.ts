import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import type { ConfigRequestWire } from "@toolmesh/schema";
import { ServiceProcess, brokerEnv, clientOptions, serviceTopics, testTopics, useBroker, waitFor } from "@toolmesh/test-support";

// Types and keys are any string a peer sends (TrustGraph stores any type). Names that are special on a
// JS object (`__proto__`, `constructor`) must be stored, listed and pushed like any other, and must never
// reach Object.prototype of the config service. Replies and pushes are read raw (zod's records drop
// `__proto__`), as a Python peer would see them; a successful reply may leave `error` out, as TrustGraph's do.
const dataDir = mkdtempSync(join(tmpdir(), "config-object-keys-"));
let service: ServiceProcess;
let pulsar: PulsarClient;
let config: RequestClient<z.ZodAny>;
const pushes: Array<Record<string, unknown>> = [];

const ask = async (request: ConfigRequestWire) => (await config.request(request, { timeoutMs: 5_000 })) as Record<string, unknown>;

beforeAll(async () => {
  const broker = await useBroker();
  service = await ServiceProcess.start({ service: "config", env: { ...brokerEnv(broker), CONFIG_DATA_DIR: dataDir } });
  pulsar = new PulsarClient(clientOptions(broker));
  config = await RequestClient.create(pulsar, {
    ...serviceTopics("config"),
    responseSchema: z.any(),
  });
  await pulsar.subscribe({ topic: testTopics().configNotify, subscription: `test-${process.pid}`, type: "Exclusive" }, async (m) => {
    pushes.push(JSON.parse(m.payload.toString()) as Record<string, unknown>);
  });
});

afterAll(async () => {
  await config?.close();
  await pulsar?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("config types and keys named like Object.prototype's members", () => {
  it("a put of type '__proto__' is answered, pushed and read back like any other", async () => {
    const put = await ask({ operation: "put", values: [{ type: "__proto__", key: "workspace", value: '"elsewhere"' }] });
    expect(put.error ?? null).toBeNull();
    await waitFor(() => pushes.find((p) => p.version === put.version), { description: "the push of the put" });
    const push = pushes.find((p) => p.version === put.version)!;
    expect(Object.hasOwn(push.changes as object, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(push.changes, "__proto__")?.value).toEqual(["default"]);

    const got = await ask({ operation: "getvalues", type: "__proto__" });
    expect(got.values).toEqual([{ type: "__proto__", key: "workspace", value: '"elsewhere"' }]);
  });

  it("the whole-workspace 'config' read names it, and the service keeps serving after it", async () => {
    await ask({ operation: "put", values: [{ type: "constructor", key: "__proto__", value: "{}" }] });
    const all = await ask({ operation: "config" });
    expect(all.error ?? null).toBeNull();
    const types = all.config as Record<string, Record<string, string>>;
    expect(Object.keys(types).sort()).toEqual(["__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(types, "__proto__")?.value).toEqual({ workspace: '"elsewhere"' });
    expect(Object.getOwnPropertyDescriptor(types.constructor, "__proto__")?.value).toBe("{}");

    // Had `config` written into Object.prototype, a request without `workspace` would read "elsewhere"
    // (or the service would die): it must still mean `default`.
    const put = await ask({ operation: "put", values: [{ type: "note", key: "after", value: "{}" }] });
    expect(put.error ?? null).toBeNull();
    expect((await ask({ operation: "list", type: "note", workspace: "default" })).directory).toEqual(["after"]);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });

  it("a delete of type '__proto__' is answered and pushed", async () => {
    const deleted = await ask({ operation: "delete", keys: [{ type: "__proto__", key: "workspace" }] });
    expect(deleted.error ?? null).toBeNull();
    await waitFor(() => pushes.find((p) => p.version === deleted.version), { description: "the push of the delete" });
    expect((await ask({ operation: "getvalues", type: "__proto__" })).values).toEqual([]);
  });
});
